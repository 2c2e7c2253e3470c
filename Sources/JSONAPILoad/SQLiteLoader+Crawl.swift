import Foundation
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

/// Crawls into the database: every document committed while a crawl is recorded is one of its
/// pages, and the page's `links.next` is stored in the same transaction, so that a crawl that
/// stops (Ctrl-C, a failure, a killed process) continues from the first page not committed.
/// The crawl's state holds URLs only, never request headers.
extension SQLiteLoader {
    static func createCrawlTables(_ db: SQLiteConnection) throws(JSONAPIError) {
        try db.execute(
            #"""
            CREATE TABLE IF NOT EXISTS "_crawls" ("key" INTEGER PRIMARY KEY, "endpoint" TEXT NOT NULL UNIQUE, "next" TEXT,
                "pages" INTEGER NOT NULL, "complete" BOOLEAN NOT NULL, "started_at" TEXT NOT NULL, "updated_at" TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS "_crawl_pages" ("crawl" INTEGER NOT NULL, "number" INTEGER NOT NULL, "url" TEXT NOT NULL,
                "next" TEXT, "document" INTEGER NOT NULL, "loaded_at" TEXT NOT NULL, "etag" TEXT, PRIMARY KEY ("crawl", "number"));
            """#)
        // Databases from before ETags were stored.
        if try db.rows(#"SELECT 1 FROM pragma_table_info('_crawl_pages') WHERE "name" = 'etag'"#).isEmpty {
            try db.execute(#"ALTER TABLE "_crawl_pages" ADD COLUMN "etag" TEXT"#)
        }
    }

    /// The ETag and `links.next` stored for a page of the crawl being recorded.
    public func storedPage(url: String) throws(JSONAPIError) -> (etag: String, next: String?)? {
        guard let crawl = crawlKey else { return nil }
        let rows = try db.rows(
            #"""
            SELECT "etag", "next" FROM "_crawl_pages" WHERE "crawl" = ? AND "url" = ? AND "etag" IS NOT NULL ORDER BY "number" DESC LIMIT 1
            """#, [String(crawl), url])
        guard let row = rows.first, let etag = row[0] else { return nil }
        return (etag, row[1])
    }

    /// Records a page read again unchanged: the crawl moves on to `next`; the page keeps its
    /// document and ETag.
    public func recordUnchangedPage(url: String, next: String?) throws(JSONAPIError) {
        guard let crawl = crawlKey else { throw JSONAPIError.misuse("an unchanged page without a crawl") }
        do throws(JSONAPIError) {
            if !db.inTransaction { try db.execute("BEGIN IMMEDIATE") }
            crawlPages += 1
            let u = try db.prepare(#"UPDATE "_crawls" SET "next" = ?, "pages" = ?, "complete" = ?, "updated_at" = ? WHERE "key" = ?"#)
            u.bind(1, next)
            u.bind(2, Int64(crawlPages))
            u.bind(3, Int64(next == nil ? 1 : 0))
            u.bind(4, loadedAt)
            u.bind(5, crawl)
            try u.run()
            let p = try db.prepare(
                #"""
                INSERT OR REPLACE INTO "_crawl_pages" ("crawl", "number", "url", "next", "document", "loaded_at", "etag")
                SELECT "crawl", ?, "url", "next", "document", ?, "etag" FROM "_crawl_pages" WHERE "crawl" = ? AND "url" = ?
                ORDER BY "number" DESC LIMIT 1
                """#)
            p.bind(1, Int64(crawlPages))
            p.bind(2, loadedAt)
            p.bind(3, crawl)
            p.bind(4, url)
            try p.run()
            if !options.singleTransaction { try db.execute("COMMIT") }
        } catch {
            abandon()
            throw error
        }
    }

    /// The crawl's name for a URL: the URL without user and password.
    public static func crawlEndpoint(_ url: URL) -> String {
        guard var parts = URLComponents(url: url, resolvingAgainstBaseURL: true), parts.user != nil || parts.password != nil else {
            return url.absoluteString
        }
        parts.user = nil
        parts.password = nil
        return parts.string ?? url.absoluteString
    }

    /// Starts recording the crawl of `endpoint` and returns where an earlier run left it.
    /// A complete crawl starts a new pass from the first page; `restart` starts over from the
    /// first page whatever the state (what was loaded stays; loading it again writes only what
    /// changed).
    public func beginCrawl(endpoint: URL, restart: Bool = false) throws(JSONAPIError) -> CrawlState {
        try Self.createCrawlTables(db)
        let name = Self.crawlEndpoint(endpoint)
        let rows = try db.rows(#"SELECT "key", "next", "pages", "complete" FROM "_crawls" WHERE "endpoint" = ?"#, [name])
        var state = CrawlState(endpoint: name, next: nil, pages: 0, isComplete: false)
        if let row = rows.first, let key = row[0].flatMap({ Int64($0) }) {
            crawlKey = key
            state.next = row[1]
            state.pages = row[2].flatMap { Int($0) } ?? 0
            state.isComplete = row[3] == "1"
            if restart || state.isComplete {
                let s = try db.prepare(
                    #"""
                    UPDATE "_crawls" SET "next" = NULL, "pages" = 0, "complete" = 0, "started_at" = ?, "updated_at" = ? WHERE "key" = ?
                    """#)
                s.bind(1, loadedAt)
                s.bind(2, loadedAt)
                s.bind(3, key)
                try s.run()
                crawlPages = 0
            } else {
                crawlPages = state.pages
            }
        } else {
            let s = try db.prepare(
                #"""
                INSERT INTO "_crawls" ("endpoint", "next", "pages", "complete", "started_at", "updated_at") VALUES (?, NULL, 0, 0, ?, ?)
                """#)
            s.bind(1, name)
            s.bind(2, loadedAt)
            s.bind(3, loadedAt)
            try s.run()
            crawlKey = db.lastInsertRowID
            crawlPages = 0
        }
        return state
    }

    /// Records a page of the crawl in its document's transaction: its URL (the document's
    /// source) and its `links.next`, resolved against it.
    func recordPage(_ view: DocumentView, document: Int64) throws(JSONAPIError) {
        guard let crawl = crawlKey else { return }
        crawlPages += 1
        let next = nextLink(of: view)
        let u = try db.prepare(#"UPDATE "_crawls" SET "next" = ?, "pages" = ?, "complete" = ?, "updated_at" = ? WHERE "key" = ?"#)
        u.bind(1, next)
        u.bind(2, Int64(crawlPages))
        u.bind(3, Int64(next == nil ? 1 : 0))
        u.bind(4, loadedAt)
        u.bind(5, crawl)
        try u.run()
        let p = try db.prepare(
            #"""
            INSERT OR REPLACE INTO "_crawl_pages" ("crawl", "number", "url", "next", "document", "loaded_at", "etag")
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """#)
        p.bind(1, crawl)
        p.bind(2, Int64(crawlPages))
        p.bind(3, view.source ?? "-")
        p.bind(4, next)
        p.bind(5, document)
        p.bind(6, loadedAt)
        p.bind(7, nextPageETag)
        nextPageETag = nil
        try p.run()
    }
}
