#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONAPIStream

/// A connection to a PostgreSQL server through the system's libpq (`LibPQ`, loaded at the
/// first connection): statements with text
/// parameters, `COPY … FROM STDIN`, transactions, and errors that name the server (without
/// its password). Used from one thread at a time.
final class PostgresConnection {
    /// Invariant: a connection `PQconnectdb` returned, finished only in `deinit`.
    private let handle: OpaquePointer
    private let pq: LibPQ
    /// The URL as errors show it (no password).
    let name: String

    /// Connects to `url` (`postgres://` or `postgresql://`, libpq's syntax and environment
    /// variables), in UTF-8, with notices off.
    init(url: String) throws(JSONAPIError) {
        name = PostgresConnection.redacted(url)
        pq = try LibPQ.shared()
        guard let conn = pq.connectdb(url) else { throw JSONAPIError.input("database \(name): out of memory for a connection") }
        guard pq.status(conn) == LibPQ.connectionOK else {
            let message = Self.text(pq.errorMessage(conn)).trimmingWhitespace()
            pq.finish(conn)
            throw JSONAPIError.input("database \(name): cannot connect: \(message)")
        }
        handle = conn
        // Notices (e.g. "table does not exist, skipping") would go to standard error.
        _ = pq.setNoticeProcessor(conn, { _, _ in }, nil)
        guard pq.setClientEncoding(conn, "UTF8") == 0 else { throw error("cannot use UTF-8") }
        // No JIT compilation: the statements here are small, and a lookup of a batch's
        // identifiers that the planner costs high took 300 ms to compile and 20 ms to run.
        try execute("SET jit = off; SET standard_conforming_strings = on")
        let encoding = try rows("SHOW server_encoding").first?.first ?? nil
        guard encoding == "UTF8" else {
            throw JSONAPIError.input("database \(name): the database's encoding is \(encoding ?? "unknown"), not UTF8: it cannot hold every JSON string")
        }
    }

    deinit { pq.finish(handle) }

    /// `url` without its password (`postgres://user:secret@host` → `postgres://user@host`,
    /// and a `password=` parameter dropped).
    static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url) else { return url }
        let hasPasswordItem = parts.queryItems?.contains { $0.name == "password" } ?? false
        guard parts.password != nil || hasPasswordItem else { return url }
        parts.password = nil
        if hasPasswordItem {
            parts.queryItems = parts.queryItems?.filter { $0.name != "password" }
            if parts.queryItems?.isEmpty == true { parts.queryItems = nil }
        }
        return parts.string ?? "a PostgreSQL database"
    }

    /// Whether `text` names a PostgreSQL database (a `postgres://` or `postgresql://` URL).
    static func isURL(_ text: String) -> Bool {
        text.hasPrefix("postgres://") || text.hasPrefix("postgresql://")
    }

    /// The connection's last error, naming the server and what was being done.
    func error(_ what: String) -> JSONAPIError {
        let message = Self.text(pq.errorMessage(handle)).trimmingWhitespace()
        if pq.status(handle) != LibPQ.connectionOK {
            return .input("database \(name): the connection to the server was lost (\(what)): \(message)")
        }
        return .input("database \(name): \(what): \(message)")
    }

    /// A C string libpq returned, "" for none.
    static func text(_ p: UnsafeMutablePointer<CChar>?) -> String { p.map { String(cString: $0) } ?? "" }

    /// A statement as messages quote it: its first line, at most 80 characters.
    static func brief(_ sql: String) -> String {
        let line = sql.prefix { $0 != "\n" }
        return line.count > 80 || line.count < sql.count ? line.prefix(80) + "…" : String(line)
    }

    /// Whether a transaction is open.
    var inTransaction: Bool {
        let s = pq.transactionStatus(handle)
        return s == LibPQ.transactionInTransaction || s == LibPQ.transactionInError || s == LibPQ.transactionActive
    }

    /// Checks a result and frees it; returns whether it was one.
    private func check(_ result: OpaquePointer?, _ what: @autoclosure () -> String) throws(JSONAPIError) {
        defer { pq.clear(result) }
        let status = pq.resultStatus(result)
        guard status == LibPQ.commandOK || status == LibPQ.tuplesOK else {
            throw failure(result, what())
        }
    }

    private func failure(_ result: OpaquePointer?, _ what: String) -> JSONAPIError {
        guard let result, let m = pq.resultErrorMessage(result), m.pointee != 0 else { return error(what) }
        let message = String(cString: m).trimmingWhitespace()
        if pq.status(handle) != LibPQ.connectionOK {
            return .input("database \(name): the connection to the server was lost (\(what)): \(message)")
        }
        return .input("database \(name): \(what): \(message)")
    }

    /// Runs SQL that returns no rows (several statements allowed, no parameters).
    func execute(_ sql: String) throws(JSONAPIError) {
        try check(pq.exec(handle, sql), "cannot run \(Self.brief(sql))")
    }

    /// The rows of a statement with text parameters, each cell as text (NULL as nil).
    func rows(_ sql: String, _ parameters: [String?] = []) throws(JSONAPIError) -> [[String?]] {
        var out: [[String?]] = []
        try Self.withByteArrays(parameters.map { $0.map { Array($0.utf8) } }) { (bytes) throws(JSONAPIError) in
            try query(sql, bytes) { (r) throws(JSONAPIError) in out.append((0..<r.columns).map { r.text($0) }) }
        }
        return out
    }

    /// Runs a statement with byte parameters (text format; nil is NULL) and returns the
    /// number of rows it changed.
    @discardableResult
    func run(_ sql: String, _ parameters: [UnsafeRawBufferPointer?]) throws(JSONAPIError) -> Int {
        var changed = 0
        try query(sql, parameters, changed: &changed) { _ throws(JSONAPIError) in }
        return changed
    }

    /// Runs a statement with byte parameters, calling `row` for each row of the result.
    func query(
        _ sql: String, _ parameters: [UnsafeRawBufferPointer?], changed: UnsafeMutablePointer<Int>? = nil,
        row: (PostgresRow) throws(JSONAPIError) -> Void
    ) throws(JSONAPIError) {
        let result = Self.withCStrings(parameters) { pointers in
            pq.execParams(handle, sql, Int32(pointers.count), nil, pointers, nil, nil, 0)
        }
        defer { pq.clear(result) }
        let status = pq.resultStatus(result)
        guard status == LibPQ.commandOK || status == LibPQ.tuplesOK, let result else {
            throw failure(result, "cannot run \(Self.brief(sql))")
        }
        changed?.pointee = Int(Self.text(pq.cmdTuples(result))) ?? 0
        var r = PostgresRow(pq: pq, result: result, row: 0, columns: Int(pq.nfields(result)))
        for k in 0..<pq.ntuples(result) {
            r.row = k
            try row(r)
        }
    }

    /// Calls `body` with the parameters as C strings (nil for NULL): one allocation holds
    /// them all, each followed by a zero, freed when `body` returns.
    static func withCStrings<R, E: Error>(
        _ parameters: [UnsafeRawBufferPointer?], _ body: ([UnsafePointer<CChar>?]) throws(E) -> R
    ) throws(E) -> R {
        let total = parameters.reduce(0) { $0 + ($1?.count ?? 0) + 1 }
        // Unsafe: the buffer is written once below and read by libpq only during `body`.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: total, alignment: 1)
        defer { buffer.deallocate() }
        var pointers: [UnsafePointer<CChar>?] = []
        pointers.reserveCapacity(parameters.count)
        var offset = 0
        for p in parameters {
            guard let p else {
                pointers.append(nil)
                continue
            }
            if p.count > 0 { (buffer + offset).copyMemory(from: p.baseAddress!, byteCount: p.count) }
            buffer.storeBytes(of: 0, toByteOffset: offset + p.count, as: UInt8.self)
            pointers.append(UnsafePointer((buffer + offset).assumingMemoryBound(to: CChar.self)))
            offset += p.count + 1
        }
        return try body(pointers)
    }

    /// `sql` with its `$n` parameters replaced by string literals (`'…'`, quotes doubled;
    /// NULL for nil), for statements sent together as one script. Double-quoted identifiers
    /// are left as they are (a column may be named `a$1`). Sound with
    /// `standard_conforming_strings` on (set at connection), where a backslash in a literal is
    /// a backslash; the text holds no U+0000 (refused before it gets here). PostgreSQL gives
    /// each literal the type its column or cast asks for.
    static func inline(_ sql: String, _ parameters: [UnsafeRawBufferPointer?]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(sql.utf8.count + parameters.reduce(0) { $0 + ($1?.count ?? 4) + 2 })
        let s = Array(sql.utf8)
        var k = 0
        var inIdentifier = false
        while k < s.count {
            let c = s[k]
            if c == UInt8(ascii: "\"") { inIdentifier.toggle() }
            if !inIdentifier, c == UInt8(ascii: "$"), k + 1 < s.count, s[k + 1] >= 0x30, s[k + 1] <= 0x39 {
                var n = 0
                k += 1
                while k < s.count, s[k] >= 0x30, s[k] <= 0x39 {
                    n = n * 10 + Int(s[k] - 0x30)
                    k += 1
                }
                if let p = parameters[n - 1] {
                    out.append(UInt8(ascii: "'"))
                    for b in p {
                        if b == UInt8(ascii: "'") { out.append(b) }
                        out.append(b)
                    }
                    out.append(UInt8(ascii: "'"))
                } else {
                    out.append(contentsOf: "NULL".utf8)
                }
                continue
            }
            out.append(c)
            k += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Calls `body` with the arrays' bytes.
    static func withByteArrays<R, E: Error>(_ arrays: [[UInt8]?], _ body: ([UnsafeRawBufferPointer?]) throws(E) -> R) throws(E) -> R {
        var flat: [UInt8] = []
        var ranges: [Range<Int>?] = []
        for a in arrays {
            if let a {
                ranges.append(flat.count..<flat.count + a.count)
                flat += a
            } else {
                ranges.append(nil)
            }
        }
        var result: Result<R, E>?
        flat.withUnsafeBytes { all in
            do throws(E) {
                result = .success(try body(ranges.map { $0.map { UnsafeRawBufferPointer(rebasing: all[$0]) } }))
            } catch {
                result = .failure(error)
            }
        }
        return try result!.get()
    }

    /// Sends `data` (COPY text format, whole lines) to `COPY … FROM STDIN` in pieces.
    func copy(_ sql: String, _ data: UnsafeRawBufferPointer) throws(JSONAPIError) {
        let start = pq.exec(handle, sql)
        guard pq.resultStatus(start) == LibPQ.copyIn else {
            let e = failure(start, "cannot start \(Self.brief(sql))")
            pq.clear(start)
            throw e
        }
        pq.clear(start)
        var offset = 0
        var sent = true
        while offset < data.count {
            let n = min(1 << 18, data.count - offset)
            guard pq.putCopyData(handle, data.baseAddress!.advanced(by: offset).assumingMemoryBound(to: CChar.self), Int32(n)) == 1 else {
                sent = false
                break
            }
            offset += n
        }
        let endError: String? = sent ? nil : "sending the rows failed"
        if pq.putCopyEnd(handle, endError) != 1 { throw error("cannot finish \(Self.brief(sql))") }
        var failed: JSONAPIError?
        while let result = pq.getResult(handle) {
            let status = pq.resultStatus(result)
            if status != LibPQ.commandOK && failed == nil { failed = failure(result, Self.brief(sql)) }
            pq.clear(result)
        }
        if let failed { throw failed }
        if !sent { throw error(Self.brief(sql)) }
    }
}

/// One row of a result, valid while the query runs its row closure.
struct PostgresRow {
    let pq: LibPQ
    /// Invariant: a result that lives until the closure returns.
    let result: OpaquePointer
    var row: Int32
    let columns: Int

    func isNull(_ column: Int) -> Bool { pq.getisnull(result, row, Int32(column)) == 1 }

    func text(_ column: Int) -> String? {
        isNull(column) ? nil : pq.getvalue(result, row, Int32(column)).map { String(cString: $0) }
    }

    /// The cell's bytes (valid during the row closure), nil for NULL.
    func bytes(_ column: Int) -> UnsafeRawBufferPointer? {
        guard !isNull(column), let v = pq.getvalue(result, row, Int32(column)) else { return nil }
        return UnsafeRawBufferPointer(start: v, count: Int(pq.getlength(result, row, Int32(column))))
    }

    func int64(_ column: Int) -> Int64 { text(column).flatMap { Int64($0) } ?? 0 }
}
