#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
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
public final class SQLiteLoader: StreamSink, SQLLoader {
    let db: SQLiteConnection
    let run: LoadRun
    let catalog = TableCatalog()
    /// Statements on the fixed tables.
    let fixed: FixedStatements

    /// Opens (or creates) the database and its fixed tables.
    public init(path: String, options: LoadOptions = .init()) throws(JSONAPIError) {
        var st = stat()
        if stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            throw JSONAPIError.input("database \(path): is a directory, not an SQLite file")
        }
        // First: a run that cannot hash (no libcrypto) touches no database.
        run = try LoadRun(options: options)
        db = try SQLiteConnection(path: path)
        // The database's journal mode is left as it is (a new file gets SQLite's rollback
        // journal, which writes a fresh table's pages once where WAL writes them twice).
        // synchronous NORMAL: fewer waits for the disk; a power cut may lose the last commits,
        // never corrupt the file. An 8 MiB page cache keeps memory bounded (about 60 MB in all for any input).
        try db.execute("PRAGMA synchronous = NORMAL; PRAGMA cache_size = -8192")
        try Self.createFixedTables(db)
        fixed = try FixedStatements(db)
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

    /// The crawl's name for a URL: the URL without user and password.
    public static func crawlEndpoint(_ url: URL) -> String { JSONAPILoad.crawlEndpoint(url) }

    /// Commits what is open (the whole run, with ``LoadOptions/singleTransaction``) and
    /// returns the summary.
    public func finish() throws(JSONAPIError) -> LoadSummary {
        let summary = try finishLoad()
        try db.execute("PRAGMA optimize")
        return summary
    }

    // The rows are written as each resource is read: nothing waits for the document's end.
    func take(_ view: ResourceView) throws(JSONAPIError) { try write(view) }
    func flushResources() {}
    func dropResources() {}

    // MARK: - DatabaseLoader (the work is ``SQLLoader``'s, the same for every database)

    /// Marks the start of an input: its documents are numbered from 0 in `_documents.ordinal`
    /// (needed only when two inputs in a row have the same name).
    public func beginInput() { run.ordinals.beginInput() }

    /// Rolls back the open transaction (after a failure).
    public func abandon() { abandonLoad() }

    /// Reads a resource (in its document's transaction, which it opens when it is the first).
    public func resource(_ view: ResourceView) throws(JSONAPIError) { try loadResource(view) }

    /// Writes what the document's resources left to write, records its top level and commits.
    public func document(_ view: DocumentView) throws(JSONAPIError) { try loadDocument(view) }

    /// Starts recording the crawl of `endpoint` and returns where an earlier run left it.
    /// A complete crawl starts a new pass from the first page; `restart` starts over from the
    /// first page whatever the state (what was loaded stays; loading it again writes only what
    /// changed).
    public func beginCrawl(endpoint: URL, restart: Bool = false) throws(JSONAPIError) -> CrawlState {
        try startCrawl(endpoint: endpoint, restart: restart)
    }

    /// The ETag and `links.next` stored for a page of the crawl being recorded.
    public func storedPage(url: String) throws(JSONAPIError) -> (etag: String, next: String?)? { try storedCrawlPage(url: url) }

    /// Records a page read again unchanged: the crawl moves on to `next`; the page keeps its
    /// document and ETag.
    public func recordUnchangedPage(url: String, next: String?) throws(JSONAPIError) {
        try recordUnchangedCrawlPage(url: url, next: next)
    }

    /// The ETag of the crawl's next page, stored with it when its document commits.
    public var nextPageETag: String? {
        get { run.nextPageETag }
        set { run.nextPageETag = newValue }
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
