internal import CSQLite
import JSONAPIStream

/// A connection to one SQLite database file, through the system's libsqlite3: statements,
/// transactions and errors that name the database. Used from one thread at a time.
final class SQLiteConnection {
    /// Invariant: a connection that `sqlite3_open_v2` returned, closed only in `deinit`.
    private let handle: OpaquePointer
    let path: String

    /// Opens (or creates, unless `readOnly`) the database at `path`, and checks that it is
    /// one: SQLite opens any file lazily, so the first read is what finds a file that is not.
    init(path: String, readOnly: Bool = false) throws(JSONAPIError) {
        _ = sqliteConfigured
        self.path = path
        var db: OpaquePointer?
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            if let db { sqlite3_close_v2(db) }
            throw JSONAPIError.input("database \(path): \(message)")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        // A busy database (another writer) is waited for a while, not failed at once.
        sqlite3_busy_timeout(db, 5000)
        try execute("SELECT count(*) FROM sqlite_schema")
    }

    deinit { sqlite3_close_v2(handle) }

    /// The error of the last call, naming the database and what was being done.
    func error(_ what: String) -> JSONAPIError {
        let message = String(cString: sqlite3_errmsg(handle))
        return .input("database \(path): \(what): \(message)")
    }

    /// Runs SQL that returns no rows (several statements allowed).
    func execute(_ sql: String) throws(JSONAPIError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_free(message)
            throw JSONAPIError.input("database \(path): \(text)")
        }
    }

    func prepare(_ sql: String) throws(JSONAPIError) -> SQLiteStatement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK, let statement else {
            throw error("cannot prepare \(sql.prefix(200))")
        }
        return SQLiteStatement(statement, connection: self)
    }

    /// Rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Statements ``rows(_:_:)`` prepared, by their text: the loaders run the same few for
    /// each document (at most 64 are kept).
    private var kept: [String: SQLiteStatement] = [:]

    /// The rows of a query, each as its columns' text (nil for NULL): for the catalog and
    /// small reads, not for hot paths.
    func rows(_ sql: String, _ arguments: [String?] = []) throws(JSONAPIError) -> [[String?]] {
        let s: SQLiteStatement
        if let kept = kept[sql] {
            s = kept
        } else {
            s = try prepare(sql)
            if kept.count < 64 { kept[sql] = s }
        }
        defer { s.reset() }
        for (k, a) in arguments.enumerated() { s.bind(Int32(k + 1), a) }
        var out: [[String?]] = []
        while try s.step() {
            out.append((0..<s.columnCount).map { s.text($0) })
        }
        return out
    }

    /// Registers a deterministic SQL function of `arity` arguments implemented in C calling
    /// convention (no captured context).
    func define(
        function name: String, arity: Int32,
        _ body: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void
    ) throws(JSONAPIError) {
        guard sqlite3_create_function_v2(handle, name, arity, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil, body, nil, nil, nil) == SQLITE_OK else {
            throw error("cannot define \(name)")
        }
    }
}

/// SQLite's process-wide settings, made once before its first use.
private let sqliteConfigured: Void = { _ = jsonapi_sqlite_configure() }()

/// The value SQLite copies out of a bound buffer before the bind call returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement: bind by position (from 1), step, read columns, reset.
final class SQLiteStatement {
    /// Invariant: a statement prepared on `connection`, finalized only in `deinit`.
    private let handle: OpaquePointer
    private unowned let connection: SQLiteConnection

    fileprivate init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    func bindNull(_ i: Int32) { sqlite3_bind_null(handle, i) }

    func bind(_ i: Int32, _ v: Int64) { sqlite3_bind_int64(handle, i, v) }

    func bind(_ i: Int32, _ v: Double) { sqlite3_bind_double(handle, i, v) }

    /// UTF-8 text (copied by SQLite); nil binds NULL.
    func bind(_ i: Int32, text: UnsafeRawBufferPointer?) {
        guard let text else { return bindNull(i) }
        // An empty buffer may have no base address; SQLite wants one for "" (not NULL).
        let base = text.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        sqlite3_bind_text64(handle, i, base.assumingMemoryBound(to: CChar.self), UInt64(text.count), transient, UInt8(SQLITE_UTF8))
    }

    /// UTF-8 text SQLite does not copy (nil binds NULL): unsafe unless `text` stays valid and
    /// unchanged until the statement has been stepped and reset, which every caller does
    /// within the call that owns the bytes (a resource view's parts, the loader's hash).
    func bind(_ i: Int32, borrowed text: UnsafeRawBufferPointer?) {
        guard let text else { return bindNull(i) }
        let base = text.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        sqlite3_bind_text64(handle, i, base.assumingMemoryBound(to: CChar.self), UInt64(text.count), nil, UInt8(SQLITE_UTF8))
    }

    func bind(_ i: Int32, _ s: String?) {
        guard var s else { return bindNull(i) }
        s.withUTF8 { bind(i, text: UnsafeRawBufferPointer($0)) }
    }

    /// Steps once: true when a row is ready, false when done. Resets on failure.
    @discardableResult
    func step() throws(JSONAPIError) -> Bool {
        let rc = sqlite3_step(handle)
        if rc == SQLITE_ROW { return true }
        if rc == SQLITE_DONE { return false }
        let e = connection.error("cannot run \(String(cString: sqlite3_sql(handle)).prefix(200))")
        sqlite3_reset(handle)
        throw e
    }

    /// Runs to the end and makes the statement ready for new bindings.
    func run() throws(JSONAPIError) {
        defer { reset() }
        while try step() {}
    }

    /// Makes the statement ready to run again. Bindings stay (clearing them costs as much
    /// as a small insert): every use binds every parameter anew, so a borrowed buffer of an
    /// earlier use is never read.
    func reset() {
        sqlite3_reset(handle)
    }

    var columnCount: Int32 { sqlite3_column_count(handle) }

    func isNull(_ i: Int32) -> Bool { sqlite3_column_type(handle, i) == SQLITE_NULL }

    /// The storage class of a column of the current row.
    func storage(_ i: Int32) -> SQLiteStorage {
        switch sqlite3_column_type(handle, i) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    func int64(_ i: Int32) -> Int64 { sqlite3_column_int64(handle, i) }

    func double(_ i: Int32) -> Double { sqlite3_column_double(handle, i) }

    /// A column's text, valid until the next step or reset.
    func bytes(_ i: Int32) -> UnsafeRawBufferPointer? {
        guard let p = sqlite3_column_text(handle, i) else { return nil }
        return UnsafeRawBufferPointer(start: p, count: Int(sqlite3_column_bytes(handle, i)))
    }

    func text(_ i: Int32) -> String? { bytes(i).map { String(decoding: $0, as: UTF8.self) } }
}

enum SQLiteStorage { case null, integer, real, text, blob }

/// Reads and writes the arguments and result of a function defined with
/// ``SQLiteConnection/define(function:arity:_:)``.
enum SQLiteFunction {
    static func storage(_ args: UnsafeMutablePointer<OpaquePointer?>, _ i: Int) -> SQLiteStorage {
        switch sqlite3_value_type(args[i]) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    static func int64(_ args: UnsafeMutablePointer<OpaquePointer?>, _ i: Int) -> Int64 { sqlite3_value_int64(args[i]) }
    static func double(_ args: UnsafeMutablePointer<OpaquePointer?>, _ i: Int) -> Double { sqlite3_value_double(args[i]) }

    static func text(_ args: UnsafeMutablePointer<OpaquePointer?>, _ i: Int) -> UnsafeRawBufferPointer {
        guard let p = sqlite3_value_text(args[i]) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: p, count: Int(sqlite3_value_bytes(args[i])))
    }

    static func result(_ context: OpaquePointer?, text: UnsafeRawBufferPointer) {
        let base = text.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        sqlite3_result_text64(context, base.assumingMemoryBound(to: CChar.self), UInt64(text.count), transient, UInt8(SQLITE_UTF8))
    }

    static func result(_ context: OpaquePointer?, _ v: Double) { sqlite3_result_double(context, v) }
    static func resultNull(_ context: OpaquePointer?) { sqlite3_result_null(context) }
    static func result(_ context: OpaquePointer?, error: String) { sqlite3_result_error(context, error, -1) }
}

/// The loaders' view of SQLite: `BEGIN IMMEDIATE` takes the write lock at once (a second
/// loader waits for it), `?n` stands for PostgreSQL's `$n`, names are indexed as they are.
extension SQLiteConnection: LoadConnection {
    func beginWrite() throws(JSONAPIError) { try execute("BEGIN IMMEDIATE") }
    func sql(_ text: String) -> String { text.replacing("$", with: "?") }
    func indexed(_ expression: String) -> String { expression }
    func declaration(of type: ColumnType) -> String { type.sqliteDeclaration }
    func requireText(_ s: String, _ what: @autoclosure () -> String) {}
}
