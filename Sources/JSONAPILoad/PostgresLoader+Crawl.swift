import Foundation
import JSONAPIStream

/// Crawls into PostgreSQL: the state of ``SQLiteLoader``'s crawls, in the same tables
/// (`_crawls`, `_crawl_pages`), committed with each page.
extension PostgresLoader {
    static func createCrawlTables(_ db: PostgresConnection) throws(JSONAPIError) {
        try db.execute(
            #"""
            CREATE TABLE IF NOT EXISTS "_crawls" ("key" bigserial PRIMARY KEY, "endpoint" text NOT NULL, "next" text,
                "pages" bigint NOT NULL, "complete" boolean NOT NULL, "started_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL);
            CREATE UNIQUE INDEX IF NOT EXISTS "_crawls_endpoint" ON "_crawls" (md5("endpoint"));
            CREATE TABLE IF NOT EXISTS "_crawl_pages" ("crawl" bigint NOT NULL, "number" bigint NOT NULL, "url" text NOT NULL,
                "next" text, "document" bigint NOT NULL, "loaded_at" timestamptz NOT NULL, "etag" text, PRIMARY KEY ("crawl", "number"));
            ALTER TABLE "_crawl_pages" ADD COLUMN IF NOT EXISTS "etag" text;
            """#)
    }

    /// The ETag and `links.next` stored for a page of the crawl being recorded.
    public func storedPage(url: String) throws(JSONAPIError) -> (etag: String, next: String?)? {
        guard let crawl = crawlKey else { return nil }
        let rows = try db.rows(
            #"""
            SELECT "etag", "next" FROM "_crawl_pages" WHERE "crawl" = $1 AND "url" = $2 AND "etag" IS NOT NULL ORDER BY "number" DESC LIMIT 1
            """#, [String(crawl), url])
        guard let row = rows.first, let etag = row[0] else { return nil }
        return (etag, row[1])
    }

    /// Records a page read again unchanged: the crawl moves on to `next`; the page keeps its
    /// document and ETag.
    public func recordUnchangedPage(url: String, next: String?) throws(JSONAPIError) {
        guard let crawl = crawlKey else { throw JSONAPIError.misuse("an unchanged page without a crawl") }
        do throws(JSONAPIError) {
            if !db.inTransaction { try db.execute("BEGIN; SELECT pg_advisory_xact_lock(\(Self.lockKey))") }
            crawlPages += 1
            _ = try db.rows(
                #"UPDATE "_crawls" SET "next" = $1, "pages" = $2, "complete" = $3, "updated_at" = $4 WHERE "key" = $5"#,
                [next, String(crawlPages), next == nil ? "true" : "false", loadedAt, String(crawl)])
            _ = try db.rows(
                #"""
                INSERT INTO "_crawl_pages" ("crawl", "number", "url", "next", "document", "loaded_at", "etag")
                SELECT "crawl", $1::bigint, "url", "next", "document", $2::timestamptz, "etag" FROM "_crawl_pages"
                WHERE "crawl" = $3::bigint AND "url" = $4
                ORDER BY "number" DESC LIMIT 1
                ON CONFLICT ("crawl", "number") DO UPDATE SET "url" = excluded."url", "next" = excluded."next",
                "document" = excluded."document", "loaded_at" = excluded."loaded_at", "etag" = excluded."etag"
                """#, [String(crawlPages), loadedAt, String(crawl), url])
            if !options.singleTransaction { try db.execute("COMMIT") }
        } catch {
            abandon()
            throw error
        }
    }

    /// Starts recording the crawl of `endpoint` and returns where an earlier run left it
    /// (as ``SQLiteLoader/beginCrawl(endpoint:restart:)``).
    public func beginCrawl(endpoint: URL, restart: Bool = false) throws(JSONAPIError) -> CrawlState {
        try Self.createCrawlTables(db)
        let name = SQLiteLoader.crawlEndpoint(endpoint)
        let rows = try db.rows(#"SELECT "key", "next", "pages", "complete" FROM "_crawls" WHERE md5("endpoint") = md5($1) AND "endpoint" = $1"#, [name])
        var state = CrawlState(endpoint: name, next: nil, pages: 0, isComplete: false)
        if let row = rows.first, let key = row[0].flatMap({ Int64($0) }) {
            crawlKey = key
            state.next = row[1]
            state.pages = row[2].flatMap { Int($0) } ?? 0
            state.isComplete = row[3] == "t"
            if restart || state.isComplete {
                _ = try db.rows(
                    #"""
                    UPDATE "_crawls" SET "next" = NULL, "pages" = 0, "complete" = false, "started_at" = $1, "updated_at" = $1 WHERE "key" = $2
                    """#, [loadedAt, String(key)])
                crawlPages = 0
            } else {
                crawlPages = state.pages
            }
        } else {
            let made = try db.rows(
                #"""
                INSERT INTO "_crawls" ("endpoint", "next", "pages", "complete", "started_at", "updated_at") VALUES ($1, NULL, 0, false, $2, $2)
                RETURNING "key"
                """#, [name, loadedAt])
            crawlKey = (made.first?.first ?? nil).flatMap { Int64($0) }
            crawlPages = 0
        }
        return state
    }

    /// Records a page of the crawl in its document's transaction.
    func recordPage(_ view: DocumentView, document: Int64) throws(JSONAPIError) {
        guard let crawl = crawlKey else { return }
        crawlPages += 1
        let next = nextLink(of: view)
        _ = try db.rows(
            #"UPDATE "_crawls" SET "next" = $1, "pages" = $2, "complete" = $3, "updated_at" = $4 WHERE "key" = $5"#,
            [next, String(crawlPages), next == nil ? "true" : "false", loadedAt, String(crawl)])
        _ = try db.rows(
            #"""
            INSERT INTO "_crawl_pages" ("crawl", "number", "url", "next", "document", "loaded_at", "etag") VALUES ($1, $2, $3, $4, $5, $6, $7)
            ON CONFLICT ("crawl", "number") DO UPDATE SET "url" = excluded."url", "next" = excluded."next",
            "document" = excluded."document", "loaded_at" = excluded."loaded_at", "etag" = excluded."etag"
            """#, [String(crawl), String(crawlPages), view.source ?? "-", next, String(document), loadedAt, nextPageETag])
        nextPageETag = nil
    }
}
