import Foundation
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
public final class PostgresLoader: StreamSink {
    let db: PostgresConnection
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

    /// The content hash of the resource being read (64 hex digits), and its hasher.
    let hash = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
    let hasher = SHA256Hasher()

    /// Resources read and not yet written.
    let batch = PostgresBatch()
    /// Resources per batch, and bytes (a batch is written when either is reached).
    static let batchResources = 2000
    static let batchBytes = 8 << 20

    /// The crawl being recorded, and its pages committed.
    var crawlKey: Int64?
    var crawlPages = 0
    /// The ETag of the crawl's next page, stored with it.
    public var nextPageETag: String?

    /// Keys read in this run (policy `error` only).
    var seen = SeenKeys()

    deinit { hash.deallocate() }

    /// Connects to the database at `url` and creates the fixed tables when missing.
    public init(url: String, options: LoadOptions = .init()) throws(JSONAPIError) {
        db = try PostgresConnection(url: url)
        self.options = options
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        loadedAt = formatter.string(from: Date())
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

    /// Marks the start of an input: its documents are numbered from 0 in `_documents.ordinal`.
    public func beginInput() { ordinals.beginInput() }

    /// Commits what is open (the whole run, with ``LoadOptions/singleTransaction``) and
    /// returns the summary.
    public func finish() throws(JSONAPIError) -> LoadSummary {
        guard !failed else { throw JSONAPIError.misuse("finish after a failed load") }
        if documentKey != nil { throw JSONAPIError.misuse("finish with a document still open") }
        if db.inTransaction { try db.execute("COMMIT") }
        catalog.count(into: &summary)
        return summary
    }

    /// Rolls back the open transaction (after a failure).
    public func abandon() {
        failed = true
        if db.inTransaction { try? db.execute("ROLLBACK") }
        batch.removeAll()
        documentKey = nil
    }

    // MARK: - StreamSink

    /// Reads a resource into the batch (in its document's transaction, which it opens when it
    /// is the first), writing the batch when it is full.
    public func resource(_ view: ResourceView) throws(JSONAPIError) {
        do throws(JSONAPIError) {
            try openDocument(index: view.documentIndex, source: view.source)
            try read(view)
        } catch {
            failed = true
            throw error
        }
    }

    /// Writes what the batch holds, records the document's top level and commits.
    public func document(_ view: DocumentView) throws(JSONAPIError) {
        do throws(JSONAPIError) {
            try openDocument(index: view.index, source: view.source)
            try flush()
            try closeDocument(view)
        } catch {
            failed = true
            throw error
        }
    }

    // MARK: - Documents

    private func openDocument(index: Int, source: String?) throws(JSONAPIError) {
        guard !failed else { throw JSONAPIError.misuse("the load failed earlier") }
        guard documentKey == nil || index != ordinals.index else { return }
        let ordinal = ordinals.enter(index: index, source: source)
        if !db.inTransaction {
            // One loader writes at a time (two would race for the same keys and columns).
            try db.execute("BEGIN; SELECT pg_advisory_xact_lock(\(Self.lockKey))")
        }
        let name = source ?? "-"
        try Self.requireText(name, "a source name")
        let rows = try db.rows(
            #"""
            INSERT INTO "_documents" ("source", "ordinal", "loaded_at") VALUES ($1, $2, $3)
            ON CONFLICT (md5("source"), "ordinal") DO UPDATE SET "loaded_at" = excluded."loaded_at" RETURNING "key"
            """#, [name, String(ordinal), loadedAt])
        guard let text = rows.first?.first ?? nil, let key = Int64(text) else { throw db.error("no key for the document") }
        documentKey = key
        primary.reset()
        try removeScopedRows(of: key)
    }

    /// The advisory lock loaders take for a transaction (any number; the same for all).
    static let lockKey = 0x6A736F6E617069

    private func closeDocument(_ view: DocumentView) throws(JSONAPIError) {
        guard let key = documentKey else { return }
        let primaryText = primary.withColumnText(shape: view.primaryShape) { $0.map { Array($0) } }
        let other = view.otherMembers
        var otherText: String?
        if !other.isEmpty {
            var o = JSONObject()
            for m in other { o.append(m.name, m.value) }
            otherText = JSONValue.object(o).jsonText
        }
        let word = view.primaryShape.shapeWord(count: primary.count)
        let shape = Array(UnsafeRawBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
        let texts: [[UInt8]?] = [
            shape, primaryText, view.meta.map { Array($0.jsonText.utf8) }, view.links.map { Array($0.jsonText.utf8) },
            view.jsonapi.map { Array($0.jsonText.utf8) }, view.errors.map { Array($0.jsonText.utf8) }, otherText.map { Array($0.utf8) },
            Array(String(key).utf8),
        ]
        try PostgresConnection.withByteArrays(texts) { (bytes) throws(JSONAPIError) in
            _ = try db.run(
                #"""
                UPDATE "_documents" SET "data" = $1, "primary" = $2, "meta" = $3, "links" = $4, "jsonapi" = $5, "errors" = $6,
                "other" = $7 WHERE "key" = $8
                """#, bytes)
        }
        try recordPage(view, document: key)
        try recordChangedKinds()
        documentKey = nil
        summary.documents += 1
        if !options.singleTransaction { try db.execute("COMMIT") }
    }

    /// Refuses text PostgreSQL cannot hold in a `text` column (U+0000).
    static func requireText(_ s: String, _ what: @autoclosure () -> String) throws(JSONAPIError) {
        if s.utf8.contains(0) { throw JSONAPIError.input("\(what()) holds U+0000, which PostgreSQL text cannot store") }
    }
}

/// The loop every loader runs: inputs through a ``DocumentStream`` into the loader, rolled
/// back on failure.
func runLoad<L: DatabaseLoader>(
    _ loader: L, _ sources: [InputSource], documentOptions: DocumentOptions, chunkSize: Int,
    onDiagnostic: ((Diagnostic) -> Void)?,
    onProgress: ((_ source: InputSource, _ bytesRead: Int, _ resourcesRead: Int) -> Void)?
) throws(JSONAPIError) -> LoadSummary {
    let stream = DocumentStream(options: documentOptions, keyedSinks: [loader])
    stream.onDiagnostic = onDiagnostic
    do throws(JSONAPIError) {
        for source in sources {
            loader.beginInput()
            try stream.beginInput(named: source.name)
            let base = stream.bytesRead
            try source.read(chunkSize: chunkSize) { (chunk) throws(JSONAPIError) in
                try stream.feed(chunk)
                onProgress?(source, stream.bytesRead - base, stream.resourcesRead)
            }
            try stream.endInput()
        }
        try stream.finish()
        return try loader.finish()
    } catch {
        stream.abandon()
        loader.abandon()
        throw error
    }
}

/// What ``SQLiteLoader`` and ``PostgresLoader`` both do: take resources and documents from a
/// ``DocumentStream``, record crawls, commit or roll back.
public protocol DatabaseLoader: StreamSink {
    /// Marks the start of an input (its documents are numbered from 0).
    func beginInput()
    /// Starts recording the crawl of `endpoint`; returns where an earlier run left it.
    func beginCrawl(endpoint: URL, restart: Bool) throws(JSONAPIError) -> CrawlState
    /// Commits what is open and returns what was done.
    func finish() throws(JSONAPIError) -> LoadSummary
    /// Rolls back what is open (after a failure).
    func abandon()
    /// The ETag of the next page of the crawl, stored with it (`_crawl_pages.etag`) when its
    /// document commits.
    var nextPageETag: String? { get set }
    /// The ETag and `links.next` stored for the page at `url` (without user and password) in
    /// the crawl being recorded; nil when it has none.
    func storedPage(url: String) throws(JSONAPIError) -> (etag: String, next: String?)?
    /// Records the page at `url` as read again unchanged (`304 Not Modified`): the crawl's
    /// place moves on to `next`, in a transaction of its own; nothing else is written.
    func recordUnchangedPage(url: String, next: String?) throws(JSONAPIError)
}

extension SQLiteLoader: DatabaseLoader {}
extension PostgresLoader: DatabaseLoader {}

/// Opens the loader for a database: a `postgres://` or `postgresql://` URL, or an SQLite file.
public func openDatabaseLoader(_ database: String, options: LoadOptions = .init()) throws(JSONAPIError) -> any DatabaseLoader {
    if PostgresConnection.isURL(database) { return try PostgresLoader(url: database, options: options) }
    return try SQLiteLoader(path: database, options: options)
}

/// Whether `database` names a PostgreSQL database (a `postgres://` or `postgresql://` URL).
public func isPostgresURL(_ database: String) -> Bool { PostgresConnection.isURL(database) }

/// A database as messages show it: a URL without its password, a path as it is.
public func redactedDatabaseName(_ database: String) -> String { PostgresConnection.redacted(database) }
