#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
internal import CPlatform

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A column of a table: its name and type (as `_schema.json` gives them).
public struct TableColumn: Sendable, Hashable {
    /// The column's name.
    public var name: String
    /// What it holds.
    public var type: ColumnType
}

/// One table that a ``TableSplitter`` wrote.
public struct TableSummary: Sendable, Hashable {
    /// The resource type, or nil for `_documents`, `_relationships` and `_edges`.
    public var type: String?
    /// The file's name in the directory.
    public var file: String
    /// Rows written.
    public var rows: Int
    /// Column names and types, in order.
    public var columns: [TableColumn]
}

/// Splits JSON:API documents into one table per resource type, beside tables of the
/// documents, the relationship objects and the linkage (`jsonapi normalize --split-by-type`).
///
/// The tables go into `directory` (which must exist; the command line writes into a
/// temporary directory and renames it): `<type>.ndjson` (or `.csv`) per type, `_documents`,
/// `_relationships`, `_edges`, and `_schema.json`, which gives each file's columns and
/// their types. Every row of a table has the same columns in the same order.
///
/// Memory stays bounded whatever the input size: a type's columns are known only once the
/// input ends, so its rows are spilled to a temporary file in the directory as they are read
/// and rewritten into the table at ``finish()`` (one read of the input, which may be a
/// pipe; each row written twice).
///
/// Inputs of many documents are read by several workers (``ParseOptions/workers``), each
/// with its own parser, and so is one large document, a range of the elements of its `data`
/// and `included` arrays per worker: their rows are taken in by the caller in input order, so
/// the tables, the warnings and the first error are the same whatever the number of workers.
/// A ``DuplicatePolicy`` other than `last` and ``Limits/maxResources`` keep one reader. In
/// strict mode a violation of the compound rules that the caller finds in a range stops the
/// read at that resource: the range's rows are cut there, as one reader stops writing.
///
/// ```swift
/// let splitter = try TableSplitter(directory: "out")
/// try splitter.read(.file("articles.json"))
/// let tables = try splitter.finish()
/// ```
public final class TableSplitter {
    /// The directory the tables go into.
    public let directory: String
    /// NDJSON or CSV.
    public let format: TableFormat
    /// Key format, numbers and selection.
    public let output: OutputOptions
    private let stream: DocumentStream
    private let sink: TableSink
    /// What reads: ``stream``, or workers when the input turns out to be many documents.
    private let reader: ParallelReader
    private var diagnosticHandler: ((Diagnostic) -> Void)?
    /// Numbers written as strings (``NumberPolicy/safe``), known after ``finish()``.
    public private(set) var numbersQuoted = 0

    /// Output options for tables: ``NumberPolicy/safe`` numbers.
    public static var defaultOutput: OutputOptions {
        var o = OutputOptions()
        o.numbers = .safe
        return o
    }

    /// A splitter writing `format` tables into `directory`.
    public init(
        directory: String, format: TableFormat = .ndjson, output: OutputOptions = TableSplitter.defaultOutput,
        document: DocumentOptions = .default, duplicates: DuplicatePolicy = .last
    ) throws(JSONAPIError) {
        self.directory = directory
        self.format = format
        self.output = output
        let sink = try TableSink(directory: directory, format: format, options: output, duplicates: duplicates, warningTexts: document.wordedWarnings)
        self.sink = sink
        stream = DocumentStream(options: document, sink: sink)
        let one = document.forWorker
        reader = ParallelReader(
            workers: document.writingWorkers(duplicates: duplicates), batchBytes: document.parse.workerBatchBytes, sequential: stream,
            makeWorker: {
                let tables = TableSink(collecting: format, options: output)
                // A violation of the compound rules stops a strict read at a resource: the
                // caller cuts the piece there.
                tables.marksResources = document.compoundRules && document.validation == .strict
                let stream = DocumentStream(options: one, sink: tables)
                return ParallelWorker(
                    stream: stream, out: nil, owner: tables,
                    observe: { d in
                        stream.onDiagnostic = d
                        tables.onDiagnostic = d
                    },
                    takePrimary: { () throws(JSONAPIError) in try tables.takePrimary() }, takeTables: { tables.takePiece() })
            },
            deliver: { [sink] (o) throws(JSONAPIError) in
                if let piece = o.tables { try sink.merge(piece) }
                // A range of a large document's elements: its primary linkage goes to the
                // document's row, which the caller's stream writes.
                if let primary = o.primary { try sink.continuePrimary(primary) }
            })
        // One large document: a range of its elements per worker.
        reader.follow(document)
    }

    /// Receives warnings as they are found.
    public var onDiagnostic: ((Diagnostic) -> Void)? {
        get { diagnosticHandler }
        set {
            diagnosticHandler = newValue
            stream.onDiagnostic = newValue
            reader.onDiagnostic = newValue
            sink.onDiagnostic = newValue
        }
    }

    /// Resources read so far.
    public var resourcesRead: Int { reader.resourcesRead }
    /// Bytes read so far.
    public var bytesRead: Int { reader.bytesRead }
    /// Whether workers read the input (known once the first bytes, up to 8 batch sizes, are read).
    public var isReadByWorkers: Bool { reader.isParallel }

    /// Whether workers read ranges of the elements of large documents (tests).
    var readsElementRanges: Bool { reader.readsElements }

    /// Sets the sizes the workers' reader works with (tests: small inputs through workers).
    func tuneWorkers(batchBytes: Int, continuationBytes: Int, decisionBytes: Int) {
        reader.tune(batchBytes: batchBytes, continuationBytes: continuationBytes, decisionBytes: decisionBytes)
    }
    /// Resource rows taken so far (written to their tables at ``finish()``).
    public var rowsTaken: Int { sink.resourcesWritten }

    /// Reads one input as a stream.
    ///
    /// `progress`, when given, is called after each chunk with the bytes read so far. A file
    /// or standard input that is not compressed is read into blocks that workers read where
    /// they are, rather than copies of them.
    public func read(_ source: InputSource, chunkSize: Int = 1 << 20, progress: ((Int) -> Void)? = nil) throws(JSONAPIError) {
        try reader.read(source, chunkSize: chunkSize, progress: progress)
    }

    /// Starts an input fed with ``feed(_:)``.
    public func beginInput(named name: String) throws(JSONAPIError) { try reader.beginInput(named: name) }

    /// Reads the next piece of the current input.
    public func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) { try reader.feed(chunk) }

    /// Ends the current input: a document left open is an error.
    public func endInput() throws(JSONAPIError) { try reader.endInput() }

    /// Writes every type's table and `_schema.json`; returns what was written.
    @discardableResult
    public func finish() throws(JSONAPIError) -> [TableSummary] {
        try reader.finish()
        return try writeTables()
    }

    /// After a failed read: writes the whole rows taken so far (the tables as they stand,
    /// with the columns seen so far) and `_schema.json`.
    @discardableResult
    public func finishAfterFailure() throws(JSONAPIError) -> [TableSummary] {
        reader.abandon()
        return try writeTables()
    }

    /// After a failure: removes the spill files (the caller removes the directory).
    public func abandon() {
        reader.abandon()
        for t in sink.tables { unlink(t.spillPath) }
        for f in [sink.documents, sink.relationships, sink.edges] { close(f.fd) }
    }

    // MARK: - The second pass

    private func writeTables() throws(JSONAPIError) -> [TableSummary] {
        var summaries: [TableSummary] = []
        for f in [sink.documents, sink.relationships, sink.edges] {
            try f.finish()
            summaries.append(
                TableSummary(
                    type: nil, file: f.file, rows: f.rowCount,
                    columns: f.columns.map { TableColumn(name: $0, type: Self.fixedColumnType($0)) }))
        }
        let typeSummaries = try rewriteAll(sink.tables)
        try writeSchema(types: typeSummaries, fixed: summaries)
        return typeSummaries + summaries
    }

    /// Threads the type tables are rewritten on at the end: each table is its own spill and
    /// its own file, so they are written side by side (one at a time with
    /// ``ParseConcurrency/sequential``).
    private var rewriteThreads: Int { stream.options.parse.threadsAfterReading }

    /// Every type table rewritten from its spill (``rewrite(_:)``), on ``rewriteThreads``
    /// threads; the summaries in order, and the first table's error in order, as one after
    /// the other would give.
    private func rewriteAll(_ tables: [TypeTable]) throws(JSONAPIError) -> [TableSummary] {
        let results = RewriteResults(count: tables.count)
        if tables.count < 2 || rewriteThreads < 2 {
            for (i, t) in tables.enumerated() { results.set(i) { () throws(JSONAPIError) in try rewrite(t) } }
        } else {
            // Largest first (`concurrentPerform` hands the iterations out in order, to as many
            // threads as there are cores), so that the last table to start is a small one.
            let order = tables.indices.sorted { tables[$0].rows > tables[$1].rows }
            // Invariant: iteration `k` alone touches table `order[k]`, its spill and its file;
            // the splitter's own state is only read.
            let work = UncheckedTables(splitter: self, tables: tables)
            DispatchQueue.concurrentPerform(iterations: order.count) { k in
                let i = order[k]
                results.set(i) { () throws(JSONAPIError) in try work.splitter.rewrite(work.tables[i]) }
            }
        }
        var out: [TableSummary] = []
        for i in tables.indices {
            let (summary, quoted) = try results.get(i)
            numbersQuoted += quoted
            out.append(summary)
        }
        return out
    }

    /// The types of the fixed tables' columns.
    static func fixedColumnType(_ name: String) -> ColumnType {
        switch name {
        case "document", "count", "position", "from_row": return .integer
        case "primary", "meta", "links", "jsonapi", "errors", "_other": return .json
        default: return .string
        }
    }

    /// Writes the table of `t` from its spilled rows; returns its summary and the numbers it
    /// wrote as strings. Touches nothing but `t`, its spill and its file (several run at once).
    fileprivate func rewrite(_ t: TypeTable) throws(JSONAPIError) -> (TableSummary, Int) {
        let path = directory + "/" + t.file
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw JSONAPIError.input("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let out = ByteWriter(fd: fd)
        // The columns: id, lid, one per attribute, then the JSON-text ones.
        var names: [[UInt8]] = [Array("id".utf8)]
        var types: [ColumnType] = [.string]
        if t.hasLid { names.append(Array("lid".utf8)); types.append(.string) }
        let columnTypes = t.columns.map { $0.kinds.columnType }
        for (c, type) in zip(t.columns, columnTypes) {
            names.append(c.name)
            types.append(type)
        }
        let hasMissing = t.hasMissing
        for (flag, name) in [(t.hasLinks, "_links"), (t.hasMeta, "_meta"), (t.hasOther, "_other"), (hasMissing, "_missing")] where flag {
            names.append(Array(name.utf8))
            types.append(.json)
        }
        let w = RowWriter(format: format, out: out, columns: names)
        w.writeHeader(names)
        let safe = output.numbers == .safe
        var quoted = 0
        // Per row: where each column's value is, and the text of `_other` and `_missing`.
        var slots = [Range<Int>?](repeating: nil, count: t.columns.count)
        var other = ByteArena(capacity: 256)
        var missing = ByteArena(capacity: 64)
        let quotedNames: [[UInt8]] = t.columns.map { name in
            var a = ByteArena(capacity: name.name.count + 2)
            name.name.withUnsafeBytes { JSONEscaping.appendQuoted($0, to: &a) }
            return a.array(0..<a.count)
        }
        try t.forEachSpilledRow { (row) throws(JSONAPIError) in
            for k in slots.indices { slots[k] = nil }
            other.removeAll()
            let attributes = row.attributes
            if let a = attributes, a.first == UInt8(ascii: "{") {
                var othersOpen = false
                StoredJSON.forEachMember(a, 0..<a.count) { name, value in
                    let k = Int(t.names.find(UnsafeRawBufferPointer(rebasing: a[name]))!)
                    let entry = t.attributeNames[k]
                    if entry.column >= 0 {
                        slots[Int(entry.column)] = value
                    } else {
                        if othersOpen { other.append(UInt8(ascii: ",")) } else { other.append(#"{"attributes":{"#) }
                        othersOpen = true
                        entry.quoted.withUnsafeBytes { other.append($0) }
                        other.append(UInt8(ascii: ":"))
                        other.append(UnsafeRawBufferPointer(rebasing: a[value]))
                    }
                    return true
                }
                if othersOpen { other.append(UInt8(ascii: "}")) }
            } else if let a = attributes {
                other.append(#"{"attributes":"#)
                other.append(a)
            }
            if let extras = row.other {
                other.append(other.count == 0 ? UInt8(ascii: "{") : UInt8(ascii: ","))
                other.append(extras)
            }
            if other.count > 0 { other.append(UInt8(ascii: "}")) }

            w.begin()
            w.text(row.id)
            if t.hasLid { w.text(row.lid) }
            missing.removeAll()
            for c in 0..<slots.count {
                guard let r = slots[c], let a = attributes else {
                    w.null()
                    if hasMissing {
                        missing.append(missing.count == 0 ? UInt8(ascii: "[") : UInt8(ascii: ","))
                        quotedNames[c].withUnsafeBytes { missing.append($0) }
                    }
                    continue
                }
                let v = UnsafeRawBufferPointer(rebasing: a[r])
                if v.first == UInt8(ascii: "n") { w.null(); continue }
                switch columnTypes[c] {
                case .string: w.storedString(v)
                case .boolean, .integer: w.literal(v)
                case .double:
                    if safe && ValueKinds.isIntegerLiteral(v) { w.integerAsDouble(v) } else { w.literal(v) }
                case .decimal:
                    if safe {
                        w.numberAsText(v)
                        if format == .ndjson { quoted += 1 }
                    } else {
                        w.literal(v)
                    }
                case .json: w.jsonText(v)
                }
            }
            if t.hasLinks { w.jsonText(row.links) }
            if t.hasMeta { w.jsonText(row.meta) }
            if t.hasOther { other.withBytes { w.jsonText($0.isEmpty ? nil : $0) } }
            if hasMissing {
                if missing.count > 0 { missing.append(UInt8(ascii: "]")) }
                missing.withBytes { w.jsonText($0.isEmpty ? nil : $0) }
            }
            w.end()
            try out.endRecord()
        }
        try out.flush()
        if fsync(fd) != 0 && errno != EINVAL {
            throw JSONAPIError.input("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        let summary = TableSummary(
            type: String(decoding: t.type, as: UTF8.self), file: t.file, rows: t.rows,
            columns: zip(names, types).map { TableColumn(name: String(decoding: $0, as: UTF8.self), type: $1) })
        return (summary, quoted)
    }

    /// `_schema.json`: the files, their rows, and each column's name and type.
    private func writeSchema(types: [TableSummary], fixed: [TableSummary]) throws(JSONAPIError) {
        var j = JSONTextWriter()
        func table(_ s: TableSummary) -> JSONValue {
            var o = JSONObject()
            if let type = s.type { o.append("type", .string(type)) } else { o.append("table", .string(String(s.file.prefix { $0 != "." }))) }
            o.append("file", .string(s.file))
            o.append("rows", .number(JSONNumber(s.rows)))
            o.append(
                "columns",
                .array(
                    s.columns.map { c in
                        var col = JSONObject()
                        col.append("name", .string(c.name))
                        col.append("type", .string(c.type.rawValue))
                        return .object(col)
                    }))
            return .object(o)
        }
        var root = JSONObject()
        root.append("format", .string(format.rawValue))
        root.append("numbers", .string(output.numbers.rawValue))
        root.append("keys", .string(output.keyFormatter != nil ? "custom" : output.keys.rawValue))
        root.append("types", .array(types.map(table)))
        root.append("tables", .array(fixed.map(table)))
        j.write(.object(root))
        j.arena.append(UInt8(0x0A))
        let path = directory + "/_schema.json"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw JSONAPIError.input("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try j.arena.withBytes { (b) throws(JSONAPIError) in try writeAll(fd, b, path: path) }
    }
}

/// The outcome of each table's rewrite, under a lock (one per table).
private final class RewriteResults: @unchecked Sendable {
    private let lock = Condition()
    private var results: [Result<(TableSummary, Int), JSONAPIError>?]

    init(count: Int) { results = Array(repeating: nil, count: count) }

    /// Runs `body` and keeps what it gave, or its error, as table `i`'s.
    func set(_ i: Int, _ body: () throws(JSONAPIError) -> (TableSummary, Int)) {
        let r: Result<(TableSummary, Int), JSONAPIError>
        do throws(JSONAPIError) { r = .success(try body()) } catch { r = .failure(error) }
        lock.lock()
        results[i] = r
        lock.unlock()
    }

    func get(_ i: Int) throws(JSONAPIError) -> (TableSummary, Int) {
        lock.lock()
        let r = results[i]!
        lock.unlock()
        return try r.get()
    }
}

/// The splitter and its type tables, lent to the threads of ``TableSplitter/rewriteAll(_:)``
/// (see the invariant there).
private struct UncheckedTables: @unchecked Sendable {
    let splitter: TableSplitter
    let tables: [TypeTable]
}
