import JSONAPIStream

/// The crawl tables in SQLite (the crawls themselves are ``SQLLoader``'s).
extension SQLiteLoader {
    func createCrawlTables() throws(JSONAPIError) {
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
}
