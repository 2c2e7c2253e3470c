#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONAPIStream

/// A database connection as the loaders use it: statements with text parameters, in
/// transactions. The SQL the loaders share is written with PostgreSQL's `$n` placeholders;
/// ``sql(_:)`` gives it as the connection takes it.
protocol LoadConnection: AnyObject {
    /// Whether a transaction is open.
    var inTransaction: Bool { get }
    /// Runs SQL that returns no rows (several statements allowed, no parameters).
    func execute(_ sql: String) throws(JSONAPIError)
    /// The rows of a statement with text parameters, each cell as text (NULL as nil).
    func rows(_ sql: String, _ parameters: [String?]) throws(JSONAPIError) -> [[String?]]
    /// The error of the last call, naming the database and what was being done.
    func error(_ what: String) -> JSONAPIError
    /// Opens a loader's write transaction, which keeps other loaders of the database waiting
    /// until it ends (two would race for the same keys and columns).
    func beginWrite() throws(JSONAPIError)
    /// `text`, written with `$n` placeholders, as this database takes it.
    func sql(_ text: String) -> String
    /// What a unique index on a name users control covers, for `expression`: PostgreSQL
    /// indexes its MD5 digest (a B-tree entry holds about 2.7 kB, and a name may be longer),
    /// SQLite the text itself.
    func indexed(_ expression: String) -> String
    /// A column type as this database declares it.
    func declaration(of type: ColumnType) -> String
    /// Refuses text this database cannot store (PostgreSQL's `text` holds no U+0000).
    func requireText(_ s: String, _ what: @autoclosure () -> String) throws(JSONAPIError)
}

/// What a loader keeps while it runs, whatever the database.
final class LoadRun {
    let options: LoadOptions
    /// The run's timestamp (ISO 8601, UTC) in `loaded_at`.
    let loadedAt: String
    var summary = LoadSummary()

    /// The open document's key in `_documents` (nil between documents).
    var documentKey: Int64?
    var ordinals = DocumentOrdinals()
    /// The open document's primary data, as identifiers.
    var primary = PrimaryIdentifiers()
    /// Whether a write failed: the loader then refuses everything but ``SQLLoader/abandonLoad()``.
    var failed = false
    /// Keys read in this run (policy `error` only).
    var seen = SeenKeys()

    /// The content hash of the resource being read (64 hex digits), and its hasher.
    let hash: UnsafeMutableRawBufferPointer
    let hasher: SHA256Hasher

    /// The crawl being recorded, and its pages committed.
    var crawlKey: Int64?
    var crawlPages = 0
    /// The ETag of the crawl's next page, stored with it.
    var nextPageETag: String?

    /// - Throws: when libcrypto (the content hashes) cannot be loaded.
    init(options: LoadOptions) throws(JSONAPIError) {
        self.options = options
        hasher = try SHA256Hasher()
        hash = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
        loadedAt = Date().formatted(.iso8601)
    }

    deinit { hash.deallocate() }
}

/// A loader into an SQL database: the documents' transactions, the type tables' columns and
/// the crawls are written once, here, over a ``LoadConnection``; how a resource's rows are
/// written is each database's own (SQLite a statement at a time, PostgreSQL in batches).
protocol SQLLoader: AnyObject {
    associatedtype Connection: LoadConnection
    var db: Connection { get }
    var run: LoadRun { get }
    /// The type tables, by type.
    var catalog: TableCatalog { get }
    /// Reads a resource of the open document (written now, or with its batch).
    func take(_ view: ResourceView) throws(JSONAPIError)
    /// Writes the resources read and not yet written (before their document commits).
    func flushResources() throws(JSONAPIError)
    /// Drops the resources read and not yet written (after a failure).
    func dropResources()
    /// Creates `_crawls` and `_crawl_pages` when missing.
    func createCrawlTables() throws(JSONAPIError)
    /// The kinds of a value as this database's columns store it.
    static func kinds(of value: UnsafeRawBufferPointer) -> ValueKinds
}

extension SQLLoader {
    // MARK: - The stream's sink

    /// Reads a resource in its document's transaction, which it opens when it is the first.
    func loadResource(_ view: ResourceView) throws(JSONAPIError) {
        do throws(JSONAPIError) {
            try openDocument(index: view.documentIndex, source: view.source)
            try take(view)
        } catch {
            run.failed = true
            throw error
        }
    }

    /// Writes what is read, records the document's top level and commits.
    func loadDocument(_ view: DocumentView) throws(JSONAPIError) {
        do throws(JSONAPIError) {
            try openDocument(index: view.index, source: view.source)
            try flushResources()
            try closeDocument(view)
        } catch {
            run.failed = true
            throw error
        }
    }

    /// Commits what is open (the whole run, with ``LoadOptions/singleTransaction``) and
    /// returns the summary.
    func finishLoad() throws(JSONAPIError) -> LoadSummary {
        guard !run.failed else { throw JSONAPIError.misuse("finish after a failed load") }
        if run.documentKey != nil { throw JSONAPIError.misuse("finish with a document still open") }
        if db.inTransaction { try db.execute("COMMIT") }
        catalog.count(into: &run.summary)
        return run.summary
    }

    /// Rolls back the open transaction (after a failure).
    func abandonLoad() {
        run.failed = true
        if db.inTransaction { try? db.execute("ROLLBACK") }
        dropResources()
        run.documentKey = nil
    }

    // MARK: - Documents

    /// Starts the document's transaction and its `_documents` row when it is new, and
    /// removes what an earlier load of the same document left of resources without an id.
    private func openDocument(index: Int, source: String?) throws(JSONAPIError) {
        guard !run.failed else { throw JSONAPIError.misuse("the load failed earlier") }
        guard run.documentKey == nil || index != run.ordinals.index else { return }
        let ordinal = run.ordinals.enter(index: index, source: source)
        if !db.inTransaction { try db.beginWrite() }
        let name = source ?? "-"
        try db.requireText(name, "a source name")
        let rows = try db.rows(
            db.sql(
                #"""
                INSERT INTO "_documents" ("source", "ordinal", "loaded_at") VALUES ($1, $2, $3)
                ON CONFLICT (\#(db.indexed(#""source""#)), "ordinal") DO UPDATE SET "loaded_at" = excluded."loaded_at" RETURNING "key"
                """#), [name, String(ordinal), run.loadedAt])
        guard let text = rows.first?.first ?? nil, let key = Int64(text) else { throw db.error("no key for the document") }
        run.documentKey = key
        run.primary.reset()
        try removeScopedRows(of: key)
    }

    /// Records the document's top level in its row and the crawl's page, and commits.
    private func closeDocument(_ view: DocumentView) throws(JSONAPIError) {
        guard let key = run.documentKey else { return }
        let primaryText = run.primary.withColumnText(shape: view.primaryShape) { $0.map { String(decoding: $0, as: UTF8.self) } }
        let other = view.otherMembers
        var otherText: String?
        if !other.isEmpty {
            var o = JSONObject()
            for m in other { o.append(m.name, m.value) }
            otherText = JSONValue.object(o).jsonText
        }
        _ = try db.rows(
            db.sql(
                #"""
                UPDATE "_documents" SET "data" = $1, "primary" = $2, "meta" = $3, "links" = $4, "jsonapi" = $5, "errors" = $6,
                "other" = $7 WHERE "key" = $8
                """#),
            [
                view.primaryShape.shapeWord(count: run.primary.count).description, primaryText, view.meta?.jsonText,
                view.links?.jsonText, view.jsonapi?.jsonText, view.errors?.jsonText, otherText, String(key),
            ])
        try recordPage(view, document: key)
        try recordChangedKinds()
        run.documentKey = nil
        run.summary.documents += 1
        if !run.options.singleTransaction { try db.execute("COMMIT") }
    }

    /// Deletes the rows an earlier load of this document made for resources without an id
    /// (they are keyed within their document, so loading it again replaces them).
    func removeScopedRows(of document: Int64) throws(JSONAPIError) {
        let types = try db.rows(
            db.sql(#"SELECT DISTINCT "type" FROM "_resources" WHERE "document" = $1 AND "id" IS NULL"#), [String(document)])
        guard !types.isEmpty else { return }
        let scoped = #"SELECT "key" FROM "_resources" WHERE "document" = \#(document) AND "id" IS NULL"#
        for row in types {
            guard let type = row[0], let t = catalog.table(ofType: type) else { continue }
            try db.execute("DELETE FROM \(quoted(t.name)) WHERE \(quoted(ColumnRole.key.rawValue)) IN (\(scoped))")
        }
        try db.execute(
            #"""
            DELETE FROM "_relationships" WHERE "resource" IN (\#(scoped));
            DELETE FROM "_edges" WHERE "resource" IN (\#(scoped));
            DELETE FROM "_resources" WHERE "document" = \#(document) AND "id" IS NULL;
            """#)
    }

    // MARK: - The catalog's columns

    /// Records a type table's column `c` in `_columns`.
    func recordColumn(_ t: LoadTable, _ c: Int) throws(JSONAPIError) {
        let column = t.columns[c]
        _ = try db.rows(
            db.sql(#"INSERT INTO "_columns" ("table", "position", "column", "role", "type", "kinds") VALUES ($1, $2, $3, $4, $5, $6)"#),
            [t.name, String(c), column.name, column.role.rawValue, column.type.rawValue, String(column.kinds.rawValue)])
    }

    /// Adds a column to a type's table (and the catalog); returns its index.
    func addColumn(_ t: LoadTable, _ column: LoadTable.Column) throws(JSONAPIError) -> Int {
        try db.execute("ALTER TABLE \(quoted(t.name)) ADD COLUMN \(quoted(column.name)) \(db.declaration(of: column.type))")
        let c = t.add(column)
        try recordColumn(t, c)
        return c
    }

    /// The column of a fixed role, added when the table does not have it yet.
    func ensureColumn(_ t: LoadTable, _ role: ColumnRole) throws(JSONAPIError) -> Int {
        if let c = t.column(role) { return c }
        let type: ColumnType = role == .lid || role == .id ? .string : .json
        return try addColumn(t, LoadTable.Column(name: role.rawValue, role: role, type: type, kinds: []))
    }

    /// Reads a resource's attributes into its table's columns: for each member, its column
    /// (added when new; -1 for `_overflow`), its name and value (ranges in the `attributes`
    /// text) and its value's kinds go to `body`. Returns the members that go to `_other`:
    /// `attributes` itself when it is not an object (lenient mode keeps it), and the resource's
    /// unknown members.
    func readAttributes(
        _ p: ResourceParts, _ t: LoadTable,
        _ body: (_ column: Int, _ name: Range<Int>, _ value: Range<Int>, _ kinds: ValueKinds) throws(JSONAPIError) -> Void
    ) throws(JSONAPIError) -> [String] {
        var other: [String] = []
        if let a = p.attributes, a.first == UInt8(ascii: "{") {
            var failure: JSONAPIError?
            StoredJSON.forEachMember(a, 0..<a.count) { name, value in
                do throws(JSONAPIError) {
                    let kinds = Self.kinds(of: UnsafeRawBufferPointer(rebasing: a[value]))
                    let column = try t.attributeColumn(a, name: name, kinds: kinds, maxColumns: run.options.maxColumns) {
                        (c) throws(JSONAPIError) in try addColumn(t, c)
                    }
                    try body(column, name, value, kinds)
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
            if let failure { throw failure }
        } else if let a = p.attributes {
            other.append(#""attributes":"# + String(decoding: a, as: UTF8.self))
        }
        for k in p.resourceExtras { other.append(String(decoding: p.extras[k], as: UTF8.self)) }
        return other
    }

    /// Stores the value kinds the document's resources added to columns.
    func recordChangedKinds() throws(JSONAPIError) {
        for (t, c) in catalog.changedKinds {
            _ = try db.rows(
                db.sql(#"UPDATE "_columns" SET "kinds" = $1 WHERE "table" = $2 AND "column" = $3"#),
                [String(t.columns[c].kinds.rawValue), t.name, t.columns[c].name])
        }
        catalog.changedKinds.removeAll()
    }
}
