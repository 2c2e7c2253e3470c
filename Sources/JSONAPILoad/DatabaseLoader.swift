#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONAPIStream

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

/// The loop every loader runs: inputs through a ``DocumentStream`` into the loader, rolled
/// back on failure.
func runLoad<L: DatabaseLoader>(
    _ loader: L, _ sources: [InputSource], documentOptions: DocumentOptions, chunkSize: Int,
    onDiagnostic: ((Diagnostic) -> Void)?,
    onProgress: ((_ source: InputSource, _ bytesRead: Int, _ resourcesRead: Int) -> Void)?
) throws(JSONAPIError) -> LoadSummary {
    let stream = DocumentStream(options: documentOptions, keyedSinks: [loader])
    stream.onDiagnostic = onDiagnostic
    // In order with the resources (with workers, they are handed over after the input began).
    stream.onInputBegin = { loader.beginInput() }
    do throws(JSONAPIError) {
        for source in sources {
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
