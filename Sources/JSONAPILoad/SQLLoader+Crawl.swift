#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONAPIStream

/// Where a crawl stands in the database (`_crawls`): enough to continue it.
public struct CrawlState: Sendable, Equatable {
    /// The first page's URL, as the crawl's name (without user and password).
    public var endpoint: String
    /// `links.next` of the last page committed: where the crawl continues (nil before the
    /// first page, and after the last).
    public var next: String?
    /// Pages committed in the current pass.
    public var pages: Int
    /// Whether the last pass reached a page without `links.next`.
    public var isComplete: Bool
}

/// `links.next` of a page, resolved against the page's URL (its source).
func nextLink(of view: DocumentView) -> String? {
    var next: String?
    switch view.links?.objectValue?["next"] {
    case .string(let s)?: next = s
    case .object(let o)?: next = o["href"]?.stringValue
    default: next = nil
    }
    if let n = next, let base = view.source.flatMap(URL.init(string:)), let resolved = URL(string: n, relativeTo: base) {
        next = resolved.absoluteString
    }
    return next
}

/// The crawl's name for a URL: the URL without user and password.
func crawlEndpoint(_ url: URL) -> String {
    guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: true), parts.user != nil || parts.password != nil else {
        return url.absoluteString
    }
    parts.user = nil
    parts.password = nil
    return parts.string ?? url.absoluteString
}

/// Crawls into the database: every document committed while a crawl is recorded is one of its
/// pages, and the page's `links.next` is stored in the same transaction, so that a crawl that
/// stops (Ctrl-C, a failure, a killed process) continues from the first page not committed.
/// The crawl's state holds URLs only, never request headers.
extension SQLLoader {
    /// Starts recording the crawl of `endpoint` and returns where an earlier run left it.
    /// A complete crawl starts a new pass from the first page; `restart` starts over from the
    /// first page whatever the state (what was loaded stays; loading it again writes only what
    /// changed).
    func startCrawl(endpoint: URL, restart: Bool) throws(JSONAPIError) -> CrawlState {
        try createCrawlTables()
        let name = crawlEndpoint(endpoint)
        let rows = try db.rows(
            db.sql(
                #"""
                SELECT "key", "next", "pages", CASE WHEN "complete" THEN 1 ELSE 0 END FROM "_crawls"
                WHERE \#(db.indexed(#""endpoint""#)) = \#(db.indexed("$1")) AND "endpoint" = $1
                """#), [name])
        var state = CrawlState(endpoint: name, next: nil, pages: 0, isComplete: false)
        if let row = rows.first, let key = row[0].flatMap({ Int64($0) }) {
            run.crawlKey = key
            state.next = row[1]
            state.pages = row[2].flatMap { Int($0) } ?? 0
            state.isComplete = row[3] == "1"
            run.crawlPages = 0
            if restart || state.isComplete {
                _ = try db.rows(
                    db.sql(
                        #"""
                        UPDATE "_crawls" SET "next" = NULL, "pages" = 0, "complete" = $1, "started_at" = $2, "updated_at" = $2
                        WHERE "key" = $3
                        """#), ["0", run.loadedAt, String(key)])
            } else {
                run.crawlPages = state.pages
            }
        } else {
            let made = try db.rows(
                db.sql(
                    #"""
                    INSERT INTO "_crawls" ("endpoint", "next", "pages", "complete", "started_at", "updated_at")
                    VALUES ($1, NULL, 0, $2, $3, $3) RETURNING "key"
                    """#), [name, "0", run.loadedAt])
            guard let key = (made.first?.first ?? nil).flatMap({ Int64($0) }) else { throw db.error("no key for the crawl") }
            run.crawlKey = key
            run.crawlPages = 0
        }
        return state
    }

    /// The ETag and `links.next` stored for a page of the crawl being recorded.
    func storedCrawlPage(url: String) throws(JSONAPIError) -> (etag: String, next: String?)? {
        guard let crawl = run.crawlKey else { return nil }
        let rows = try db.rows(
            db.sql(
                #"""
                SELECT "etag", "next" FROM "_crawl_pages" WHERE "crawl" = $1 AND "url" = $2 AND "etag" IS NOT NULL
                ORDER BY "number" DESC LIMIT 1
                """#), [String(crawl), url])
        guard let row = rows.first, let etag = row[0] else { return nil }
        return (etag, row[1])
    }

    /// Records a page read again unchanged, in a transaction of its own: the crawl moves on
    /// to `next`; the page keeps its document, its `links.next` and its ETag.
    func recordUnchangedCrawlPage(url: String, next: String?) throws(JSONAPIError) {
        guard let crawl = run.crawlKey else { throw JSONAPIError.misuse("an unchanged page without a crawl") }
        do throws(JSONAPIError) {
            if !db.inTransaction { try db.beginWrite() }
            let last = try db.rows(
                db.sql(
                    #"""
                    SELECT "next", "document", "etag" FROM "_crawl_pages" WHERE "crawl" = $1 AND "url" = $2
                    ORDER BY "number" DESC LIMIT 1
                    """#), [String(crawl), url])
            try advanceCrawl(crawl, next: next)
            if let page = last.first {
                try recordCrawlPage(crawl, url: url, next: page[0], document: page[1], etag: page[2])
            }
            if !run.options.singleTransaction { try db.execute("COMMIT") }
        } catch {
            abandonLoad()
            throw error
        }
    }

    /// Records a page of the crawl in its document's transaction: its URL (the document's
    /// source) and its `links.next`, resolved against it.
    func recordPage(_ view: DocumentView, document: Int64) throws(JSONAPIError) {
        guard let crawl = run.crawlKey else { return }
        let next = nextLink(of: view)
        try advanceCrawl(crawl, next: next)
        try recordCrawlPage(crawl, url: view.source ?? "-", next: next, document: String(document), etag: run.nextPageETag)
        run.nextPageETag = nil
    }

    /// Counts a page committed: the crawl continues at `next` (complete without one).
    private func advanceCrawl(_ crawl: Int64, next: String?) throws(JSONAPIError) {
        run.crawlPages += 1
        _ = try db.rows(
            db.sql(#"UPDATE "_crawls" SET "next" = $1, "pages" = $2, "complete" = $3, "updated_at" = $4 WHERE "key" = $5"#),
            [next, String(run.crawlPages), next == nil ? "1" : "0", run.loadedAt, String(crawl)])
    }

    /// Stores the crawl's page numbered ``LoadRun/crawlPages`` (replacing one an earlier pass
    /// stored under that number).
    private func recordCrawlPage(_ crawl: Int64, url: String, next: String?, document: String?, etag: String?) throws(JSONAPIError) {
        _ = try db.rows(
            db.sql(
                #"""
                INSERT INTO "_crawl_pages" ("crawl", "number", "url", "next", "document", "loaded_at", "etag") VALUES ($1, $2, $3, $4, $5, $6, $7)
                ON CONFLICT ("crawl", "number") DO UPDATE SET "url" = excluded."url", "next" = excluded."next",
                "document" = excluded."document", "loaded_at" = excluded."loaded_at", "etag" = excluded."etag"
                """#), [String(crawl), String(run.crawlPages), url, next, document, run.loadedAt, etag])
    }
}
