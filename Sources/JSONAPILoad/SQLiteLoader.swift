import Foundation
import JSONAPIStream

/// How ``SQLiteLoader`` writes.
public struct LoadOptions: Sendable {
    /// What a resource that is already in the database (or appeared earlier in this run) does:
    /// ``DuplicatePolicy/last`` (the default) merges member by member with the newer
    /// document's members winning, ``DuplicatePolicy/first`` keeps the members already
    /// stored and only adds new ones, ``DuplicatePolicy/error`` refuses a resource that
    /// appears twice in one run (loading the same input again in a later run is not a
    /// duplicate; this policy keeps every key read in memory).
    public var onDuplicate: DuplicatePolicy = .last
    /// One transaction for the whole run (nothing is loaded unless everything is), in
    /// place of one per document.
    public var singleTransaction = false
    /// Attribute columns a type's table may have; further attributes go to `_overflow`
    /// (SQLite allows 2,000 columns, PostgreSQL 1,600).
    public var maxColumns = 1000

    /// The defaults: merge (newer wins), a transaction per document, 1,000 attribute columns.
    public init() {}
}

/// What a load did.
public struct LoadSummary: Sendable, Equatable {
    /// Documents committed.
    public var documents = 0
    /// Resources read.
    public var resources = 0
    /// Resources whose rows were inserted or updated.
    public var written = 0
    /// Resources skipped because their content hash was already stored.
    public var unchanged = 0
    /// Linkage rows (`_edges`) written.
    public var edges = 0
    /// Resources read, by table.
    public var resourcesByTable: [String: Int] = [:]
    /// Columns whose type was widened, as `table.column: from → to`.
    public var widened: [String] = []
}

/// Loads JSON:API documents into an SQLite database, as a ``StreamSink`` of a
/// ``DocumentStream``: one table per resource type, and `_relationships`, `_edges`,
/// `_resources`, `_documents` beside them (docs/database-loading.md has the layout).
///
/// Each document is one transaction (or the whole run, ``LoadOptions/singleTransaction``):
/// a document that fails half-way leaves nothing of itself. A resource already stored is
/// merged member by member; one whose content hash is unchanged is not written at all, so
/// loading the same documents again changes nothing but `_documents.loaded_at`.
///
/// ```swift
/// let summary = try SQLiteLoader.load([.file("page1.json"), .file("page2.json")], into: "crawl.sqlite")
/// ```
public final class SQLiteLoader: StreamSink {
    let db: SQLiteConnection
    let options: LoadOptions
    /// The run's timestamp (ISO 8601, UTC) in `loaded_at`.
    let loadedAt: String
    var summary = LoadSummary()

    /// The type tables, by type.
    let catalog = TableCatalog()

    // The open document.
    var documentKey: Int64?
    private var ordinals = DocumentOrdinals()
    /// The primary data's identifiers.
    var primary = PrimaryIdentifiers()
    private var failed = false

    /// The content hash of the resource being written (64 hex digits), and its hasher.
    let hash = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
    let hasher = SHA256Hasher()

    /// The crawl being recorded (``beginCrawl(endpoint:restart:)``), and its pages committed.
    var crawlKey: Int64?
    var crawlPages = 0
    /// The ETag of the crawl's next page, stored with it.
    public var nextPageETag: String?

    /// Keys read in this run (policy `error` only).
    var seen = SeenKeys()

    /// Statements on the fixed tables.
    let fixed: FixedStatements

    deinit { hash.deallocate() }

    /// Opens (or creates) the database and its fixed tables.
    public init(path: String, options: LoadOptions = .init()) throws(JSONAPIError) {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw JSONAPIError.input("database \(path): is a directory, not an SQLite file")
        }
        db = try SQLiteConnection(path: path)
        self.options = options
        // The database's journal mode is left as it is (a new file gets SQLite's rollback
        // journal, which writes a fresh table's pages once where WAL writes them twice).
        // synchronous NORMAL: fewer waits for the disk; a power cut may lose the last commits,
        // never corrupt the file. An 8 MiB page cache keeps memory bounded (about 60 MB in all for any input).
        try db.execute("PRAGMA synchronous = NORMAL; PRAGMA cache_size = -8192")
        try Self.createFixedTables(db)
        fixed = try FixedStatements(db)
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        loadedAt = formatter.string(from: Date())
        try loadCatalog()
        try db.define(function: "jsonapi_widen", arity: 3, widenFunction)
    }

    /// Loads inputs into the database at `path`, and returns what was done. On failure the
    /// document being read is rolled back (with ``LoadOptions/singleTransaction``, the whole
    /// run) and the error names it. `onProgress` is called after each chunk read with the
    /// input, the bytes read of it and the resources read in all.
    public static func load(
        _ sources: [InputSource], into path: String, options: LoadOptions = .init(),
        documentOptions: DocumentOptions = .default, chunkSize: Int = 1 << 20,
        onDiagnostic: ((Diagnostic) -> Void)? = nil,
        onProgress: ((_ source: InputSource, _ bytesRead: Int, _ resourcesRead: Int) -> Void)? = nil
    ) throws(JSONAPIError) -> LoadSummary {
        let loader = try SQLiteLoader(path: path, options: options)
        return try runLoad(
            loader, sources, documentOptions: documentOptions, chunkSize: chunkSize,
            onDiagnostic: onDiagnostic, onProgress: onProgress)
    }

    /// Marks the start of an input: its documents are numbered from 0 in `_documents.ordinal`
    /// (needed only when two inputs in a row have the same name).
    public func beginInput() { ordinals.beginInput() }

    /// Commits what is open (the whole run, with ``LoadOptions/singleTransaction``) and
    /// returns the summary.
    public func finish() throws(JSONAPIError) -> LoadSummary {
        guard !failed else { throw JSONAPIError.misuse("finish after a failed load") }
        if documentKey != nil { throw JSONAPIError.misuse("finish with a document still open") }
        if db.inTransaction { try db.execute("COMMIT") }
        try db.execute("PRAGMA optimize")
        catalog.count(into: &summary)
        return summary
    }

    /// Rolls back the open transaction (after a failure).
    public func abandon() {
        failed = true
        if db.inTransaction { try? db.execute("ROLLBACK") }
        documentKey = nil
    }

    // MARK: - StreamSink

    /// Writes a resource (in its document's transaction, which it opens when it is the first).
    public func resource(_ view: ResourceView) throws(JSONAPIError) {
        do throws(JSONAPIError) {
            try openDocument(index: view.documentIndex, source: view.source)
            try write(view)
        } catch {
            failed = true
            throw error
        }
    }

    /// Records the document's top level and commits its transaction.
    public func document(_ view: DocumentView) throws(JSONAPIError) {
        do throws(JSONAPIError) {
            try openDocument(index: view.index, source: view.source)
            try closeDocument(view)
        } catch {
            failed = true
            throw error
        }
    }

    // MARK: - Documents

    /// Starts the document's transaction and its `_documents` row when it is new, and
    /// removes what an earlier load of the same document left of resources without an id.
    private func openDocument(index: Int, source: String?) throws(JSONAPIError) {
        guard !failed else { throw JSONAPIError.misuse("the load failed earlier") }
        guard documentKey == nil || index != ordinals.index else { return }
        let ordinal = ordinals.enter(index: index, source: source)
        if !db.inTransaction { try db.execute("BEGIN IMMEDIATE") }
        let u = fixed.upsertDocument
        u.bind(1, source ?? "-")
        u.bind(2, Int64(ordinal))
        u.bind(3, loadedAt)
        defer { u.reset() }
        guard try u.step() else { throw db.error("no key for the document") }
        let key = u.int64(0)
        documentKey = key
        primary.reset()
        try removeScopedRows(of: key)
    }

    private func closeDocument(_ view: DocumentView) throws(JSONAPIError) {
        guard let key = documentKey else { return }
        let s = fixed.updateDocument
        s.bind(1, borrowed: Self.bytes(view.primaryShape.shapeWord(count: primary.count)))
        primary.withColumnText(shape: view.primaryShape) { text in
            if let text { s.bind(2, text: text) } else { s.bindNull(2) }
        }
        s.bind(3, view.meta?.jsonText)
        s.bind(4, view.links?.jsonText)
        s.bind(5, view.jsonapi?.jsonText)
        s.bind(6, view.errors?.jsonText)
        let other = view.otherMembers
        if other.isEmpty {
            s.bindNull(7)
        } else {
            var o = JSONObject()
            for m in other { o.append(m.name, m.value) }
            s.bind(7, JSONValue.object(o).jsonText)
        }
        s.bind(8, key)
        try s.run()
        try recordPage(view, document: key)
        try recordChangedKinds()
        documentKey = nil
        summary.documents += 1
        if !options.singleTransaction { try db.execute("COMMIT") }
    }
}

/// The prepared statements on the fixed tables (`_resources`, `_relationships`, `_edges`).
final class FixedStatements {
    let findResource: SQLiteStatement
    let findScoped: SQLiteStatement
    let insertResource: SQLiteStatement
    let updateResource: SQLiteStatement
    let upsertRelationship: SQLiteStatement
    let keepRelationship: SQLiteStatement
    let deleteEdges: SQLiteStatement
    /// A document's row by source and ordinal (made when new), returning its key.
    let upsertDocument: SQLiteStatement
    /// A document's top level, when it closes.
    let updateDocument: SQLiteStatement
    /// The types of a document's resources without an id (stored by an earlier load of it).
    let scopedTypes: SQLiteStatement
    /// Inserts of 1 to 8 edges, by count - 1 (prepared when first needed).
    private var edgeInserts: [SQLiteStatement?] = Array(repeating: nil, count: 8)

    init(_ db: SQLiteConnection) throws(JSONAPIError) {
        findResource = try db.prepare(#"SELECT "key", "hash" FROM "_resources" WHERE "type" = ? AND "id" = ?"#)
        findScoped = try db.prepare(
            #"""
            SELECT "key", "hash" FROM "_resources" WHERE "document" = ? AND "type" = ? AND "lid" = ? AND "id" IS NULL
            """#)
        insertResource = try db.prepare(
            #"""
            INSERT INTO "_resources" ("type", "id", "lid", "document", "primary", "hash", "loaded_at") VALUES (?, ?, ?, ?, ?, ?, ?)
            """#)
        updateResource = try db.prepare(
            #"""
            UPDATE "_resources" SET "lid" = coalesce(?, "lid"), "document" = ?, "primary" = ?, "hash" = ?, "loaded_at" = ?
            WHERE "key" = ?
            """#)
        let relationship = #"""
            INSERT INTO "_relationships" ("resource", "from_type", "from_id", "from_lid", "name", "data", "count", "links", "meta",
            "other", "document") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """#
        upsertRelationship = try db.prepare(
            relationship + #"""
                 ON CONFLICT ("resource", "name") DO UPDATE SET "from_lid" = excluded."from_lid", "data" = excluded."data",
                "count" = excluded."count", "links" = excluded."links", "meta" = excluded."meta", "other" = excluded."other",
                "document" = excluded."document"
                """#)
        keepRelationship = try db.prepare(relationship + #" ON CONFLICT ("resource", "name") DO NOTHING"#)
        deleteEdges = try db.prepare(#"DELETE FROM "_edges" WHERE "resource" = ? AND "name" = ?"#)
        upsertDocument = try db.prepare(
            #"""
            INSERT INTO "_documents" ("source", "ordinal", "loaded_at") VALUES (?, ?, ?)
            ON CONFLICT ("source", "ordinal") DO UPDATE SET "loaded_at" = excluded."loaded_at" RETURNING "key"
            """#)
        updateDocument = try db.prepare(
            #"""
            UPDATE "_documents" SET "data" = ?, "primary" = ?, "meta" = ?, "links" = ?, "jsonapi" = ?, "errors" = ?, "other" = ?
            WHERE "key" = ?
            """#)
        scopedTypes = try db.prepare(#"SELECT DISTINCT "type" FROM "_resources" WHERE "document" = ? AND "id" IS NULL"#)
    }

    func insertEdges(_ n: Int, _ db: SQLiteConnection) throws(JSONAPIError) -> SQLiteStatement {
        if let s = edgeInserts[n - 1] { return s }
        let row = "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        let s = try db.prepare(
            #"""
            INSERT INTO "_edges" ("resource", "from_type", "from_id", "from_lid", "name", "position", "to_type", "to_id", "to_lid",
            "meta", "other", "document") VALUES \#(Array(repeating: row, count: n).joined(separator: ", "))
            """#)
        edgeInserts[n - 1] = s
        return s
    }
}
