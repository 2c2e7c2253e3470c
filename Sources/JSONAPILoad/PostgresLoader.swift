#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONAPIStream

/// Loads JSON:API documents into a PostgreSQL database, as a ``StreamSink`` of a
/// ``DocumentStream``: the tables of ``SQLiteLoader`` (a table per type, `_relationships`,
/// `_edges`, `_resources`, `_documents`) with PostgreSQL's types (`bigint`, `double
/// precision`, `numeric`, `boolean`, `json`, `text`; docs/database-loading.md has the layout).
///
/// Resources are written in batches: new ones with `COPY … FROM STDIN` (keys drawn from
/// `_resources`' sequence), stored ones merged (one script of statements per batch), unchanged ones (same content
/// hash) not written at all. Each document is one transaction (or the whole run,
/// ``LoadOptions/singleTransaction``), so a document that fails half-way, or a server that
/// goes away, leaves nothing of it.
///
/// ```swift
/// let summary = try PostgresLoader.load([.file("page1.json")], into: "postgresql://localhost/shop")
/// ```
public final class PostgresLoader: StreamSink, SQLLoader {
    let db: PostgresConnection
    let run: LoadRun
    let catalog = TableCatalog()

    /// Resources read and not yet written.
    let batch = PostgresBatch()
    /// Resources per batch, and bytes (a batch is written when either is reached).
    static let batchResources = 2000
    static let batchBytes = 8 << 20

    /// Connects to the database at `url` and creates the fixed tables when missing.
    public init(url: String, options: LoadOptions = .init()) throws(JSONAPIError) {
        // First: a run that cannot hash (no libcrypto) touches no database.
        run = try LoadRun(options: options)
        db = try PostgresConnection(url: url)
        try db.execute("SET client_min_messages = warning")
        try Self.createFixedTables(db)
        try loadCatalog()
    }

    /// Loads inputs into the database at `url` and returns what was done (as
    /// ``SQLiteLoader/load(_:into:options:documentOptions:chunkSize:onDiagnostic:onProgress:)``).
    public static func load(
        _ sources: [InputSource], into url: String, options: LoadOptions = .init(),
        documentOptions: DocumentOptions = .default, chunkSize: Int = 1 << 20,
        onDiagnostic: ((Diagnostic) -> Void)? = nil,
        onProgress: ((_ source: InputSource, _ bytesRead: Int, _ resourcesRead: Int) -> Void)? = nil
    ) throws(JSONAPIError) -> LoadSummary {
        let loader = try PostgresLoader(url: url, options: options)
        return try runLoad(
            loader, sources, documentOptions: documentOptions, chunkSize: chunkSize,
            onDiagnostic: onDiagnostic, onProgress: onProgress)
    }

    /// Commits what is open (the whole run, with ``LoadOptions/singleTransaction``) and
    /// returns the summary.
    public func finish() throws(JSONAPIError) -> LoadSummary { try finishLoad() }

    // Resources are read into the batch, written when it is full and when their document ends.
    func take(_ view: ResourceView) throws(JSONAPIError) { try read(view) }
    func flushResources() throws(JSONAPIError) { try flush() }
    func dropResources() { batch.removeAll() }

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

/// The loaders' view of PostgreSQL: a write transaction takes the loaders' advisory lock (a
/// second loader waits for it), names users control are indexed by their MD5 digest.
extension PostgresConnection: LoadConnection {
    /// The advisory lock loaders take for a transaction (any number; the same for all).
    static let loaderLock = 0x6A736F6E617069

    func beginWrite() throws(JSONAPIError) { try execute("BEGIN; SELECT pg_advisory_xact_lock(\(Self.loaderLock))") }
    func sql(_ text: String) -> String { text }
    func indexed(_ expression: String) -> String { "md5(\(expression))" }
    func declaration(of type: ColumnType) -> String { type.postgresDeclaration }

    /// Refuses text PostgreSQL cannot hold in a `text` column (U+0000).
    func requireText(_ s: String, _ what: @autoclosure () -> String) throws(JSONAPIError) {
        if s.utf8.contains(0) { throw JSONAPIError.input("\(what()) holds U+0000, which PostgreSQL text cannot store") }
    }
}
