import JSONAPIStream

/// The crawl tables in PostgreSQL (the crawls themselves are ``SQLLoader``'s).
extension PostgresLoader {
    func createCrawlTables() throws(JSONAPIError) {
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
}
