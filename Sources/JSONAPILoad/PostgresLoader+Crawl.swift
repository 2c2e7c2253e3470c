import Foundation
import JSONAPIStream

/// Crawls into PostgreSQL: the state of ``SQLiteLoader``'s crawls, in the same tables
/// (`_crawls`, `_crawl_pages`), committed with each page.
extension PostgresLoader {
    static func createCrawlTables(_ db: PostgresConnection) throws(JSONAPIError) {
        try db.execute(#"""
            CREATE TABLE IF NOT EXISTS "_crawls" ("key" bigserial PRIMARY KEY, "endpoint" text NOT NULL, "next" text,
                "pages" bigint NOT NULL, "complete" boolean NOT NULL, "started_at" timestamptz NOT NULL, "updated_at" timestamptz NOT NULL);
            CREATE UNIQUE INDEX IF NOT EXISTS "_crawls_endpoint" ON "_crawls" (md5("endpoint"));
            CREATE TABLE IF NOT EXISTS "_crawl_pages" ("crawl" bigint NOT NULL, "number" bigint NOT NULL, "url" text NOT NULL,
                "next" text, "document" bigint NOT NULL, "loaded_at" timestamptz NOT NULL, PRIMARY KEY ("crawl", "number"));
            """#)
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
                _ = try db.rows(#"""
                    UPDATE "_crawls" SET "next" = NULL, "pages" = 0, "complete" = false, "started_at" = $1, "updated_at" = $1 WHERE "key" = $2
                    """#, [loadedAt, String(key)])
                crawlPages = 0
            } else {
                crawlPages = state.pages
            }
        } else {
            let made = try db.rows(#"""
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
        _ = try db.rows(#"UPDATE "_crawls" SET "next" = $1, "pages" = $2, "complete" = $3, "updated_at" = $4 WHERE "key" = $5"#,
                        [next, String(crawlPages), next == nil ? "true" : "false", loadedAt, String(crawl)])
        _ = try db.rows(#"""
            INSERT INTO "_crawl_pages" ("crawl", "number", "url", "next", "document", "loaded_at") VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT ("crawl", "number") DO UPDATE SET "url" = excluded."url", "next" = excluded."next",
            "document" = excluded."document", "loaded_at" = excluded."loaded_at"
            """#, [String(crawl), String(crawlPages), view.source ?? "-", next, String(document), loadedAt])
    }
}
