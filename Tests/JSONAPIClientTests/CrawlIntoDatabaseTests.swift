import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPILoad
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension EndToEnd {
    /// `jsonapi fetch URL --all-pages --into DB` against the Django test server: a crawl killed
    /// half-way and run again ends with the same tables as one that was never stopped.
    @Suite struct CrawlIntoDatabase {
        static func rows(_ db: String, _ sql: String) throws -> [[String?]] {
            try SQLiteInspection.rows(database: db, sql)
        }

        static func crawl(_ base: String) -> [String] {
            ["fetch", "\(base)/articles", "--page-size", "25", "--all-pages", "--include", "author", "--concurrency", "1"]
        }

        @Test func aKilledCrawlContinuesWhereItStopped() throws {
            let base = try TestServer.url.absoluteString
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-crawl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let whole = dir.appendingPathComponent("whole.sqlite").path
            let resumed = dir.appendingPathComponent("resumed.sqlite").path

            let uninterrupted = try jsonapi(Self.crawl(base) + ["--into", whole])
            #expect(uninterrupted.status == 0, "\(uninterrupted.stderr)")
            #expect(uninterrupted.stderr.contains("the crawl is complete"), "\(uninterrupted.stderr)")
            let pages = try Self.rows(whole, #"SELECT "pages", "complete", "next" FROM "_crawls""#)
            #expect(pages == [["100", "1", nil]])

            // Started, then killed once some pages are committed.
            let p = Process()
            p.executableURL = jsonapiBinary
            p.arguments = Self.crawl(base) + ["--into", resumed, "--quiet"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            let deadline = Date().addingTimeInterval(60)
            var committed = 0
            while Date() < deadline && p.isRunning {
                committed = (try? Self.rows(resumed, #"SELECT "pages" FROM "_crawls""#).first?[0].flatMap { Int($0) }) ?? nil ?? 0
                if committed >= 5 { break }
                usleep(5_000)
            }
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            #expect(p.terminationReason == .uncaughtSignal, "the crawl ended before it could be killed")
            #expect(committed >= 5 && committed < 100)

            // The same command continues after the last committed page.
            let again = try jsonapi(Self.crawl(base) + ["--into", resumed])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("continuing the crawl of \(base)/articles"), "\(again.stderr)")
            #expect(try Self.rows(resumed, #"SELECT "pages", "complete" FROM "_crawls""#) == [["100", "1"]])
            let tables = ["articles", "authors", "_resources", "_relationships", "_edges"]
            for table in tables {
                let query = "SELECT * FROM \"\(table)\" ORDER BY 1"
                let a = try Self.rows(whole, query).map { $0.dropLast(table.hasPrefix("_r") ? 1 : 0) }
                let b = try Self.rows(resumed, query).map { $0.dropLast(table.hasPrefix("_r") ? 1 : 0) }
                #expect(a.count == b.count && a == b, "\(table): \(a.count) rows against \(b.count)")
            }
            #expect(
                try Self.rows(whole, #"SELECT "source" FROM "_documents" ORDER BY "key""#)
                    == Self.rows(resumed, #"SELECT "source" FROM "_documents" ORDER BY "key""#))
            // Read back whole, both are the same documents.
            let one = try jsonapi(["denormalize", whole])
            let two = try jsonapi(["denormalize", resumed])
            #expect(one.status == 0 && !one.stdout.isEmpty && one.stdout == two.stdout)

            // Run again when complete: a new pass from the first page, nothing rewritten.
            let later = try jsonapi(Self.crawl(base) + ["--into", whole])
            #expect(later.status == 0, "\(later.stderr)")
            #expect(later.stderr.contains("(0 written, "), "\(later.stderr)")
        }

        /// The same crawl into PostgreSQL (a throwaway server, Scripts/postgres-server.sh):
        /// killed after some pages and run again, it holds what the uninterrupted crawl into
        /// SQLite holds, read back document for document.
        @Test func aKilledCrawlIntoPostgresContinuesWhereItStopped() throws {
            let base = try TestServer.url.absoluteString
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-crawl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let state = dir.appendingPathComponent("pg")
            let script = TestServer.repositoryRoot.appendingPathComponent("Scripts/postgres-server.sh").path
            let started = try Self.command("/bin/bash", [script, "start", state.path])
            defer { _ = try? Self.command("/bin/bash", [script, "stop", state.path]) }
            try #require(started.status == 0, "\(started.stderr)")
            let url = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            func pages() -> Int {
                let r = try? Self.command("/usr/bin/env", ["psql", url, "-X", "-A", "-t", "-c", #"SELECT "pages" FROM "_crawls""#])
                return r.flatMap { Int($0.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
            }

            let p = Process()
            p.executableURL = jsonapiBinary
            p.arguments = Self.crawl(base) + ["--into", url, "--quiet"]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            let deadline = Date().addingTimeInterval(60)
            var committed = 0
            while Date() < deadline && p.isRunning {
                committed = pages()
                if committed >= 5 { break }
                usleep(20_000)
            }
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            #expect(p.terminationReason == .uncaughtSignal, "the crawl ended before it could be killed")
            #expect(committed >= 5 && committed < 100)
            let again = try jsonapi(Self.crawl(base) + ["--into", url])
            #expect(again.status == 0, "\(again.stderr)")
            #expect(again.stderr.contains("continuing the crawl of \(base)/articles"), "\(again.stderr)")
            #expect(pages() == 100)

            let whole = dir.appendingPathComponent("whole.sqlite").path
            let uninterrupted = try jsonapi(Self.crawl(base) + ["--into", whole, "--quiet"])
            #expect(uninterrupted.status == 0, "\(uninterrupted.stderr)")
            let one = try jsonapi(["denormalize", whole])
            let two = try jsonapi(["denormalize", url])
            #expect(one.status == 0 && two.status == 0, "\(one.stderr) \(two.stderr)")
            #expect(!one.stdout.isEmpty && one.stdout == two.stdout, "the crawl into PostgreSQL reads back otherwise")
        }

        /// A crawl run again asks for each stored page with its ETag (`If-None-Match`): an
        /// unchanged page (304) is neither downloaded nor written, a changed one is loaded
        /// again, `--restart` asks for every page in full. SQLite and PostgreSQL alike.
        @Test func aCrawlRunAgainRevalidatesPagesWithTheirETags() async throws {
            let servers = try OriginServers()
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-crawl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let state = dir.appendingPathComponent("pg")
            let script = TestServer.repositoryRoot.appendingPathComponent("Scripts/postgres-server.sh").path
            let started = try Self.command("/bin/bash", [script, "start", state.path])
            defer { _ = try? Self.command("/bin/bash", [script, "stop", state.path]) }
            try #require(started.status == 0, "\(started.stderr)")
            let postgres = started.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let sqlite = dir.appendingPathComponent("pages.sqlite").path
            for (k, db) in [sqlite, postgres].enumerated() {
                let endpoint = servers.a + "/pages?n=1&of=5&set=\(k)"
                func etags() throws -> Int {
                    let sql = #"SELECT count(*) FROM "_crawl_pages" WHERE "etag" IS NOT NULL"#
                    if db == sqlite { return Int(try Self.rows(db, sql)[0][0] ?? "") ?? -1 }
                    return Int(
                        try Self.command("/usr/bin/env", ["psql", db, "-X", "-A", "-t", "-c", sql]).stdout
                            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
                }
                func conditional() async throws -> Int {
                    try await servers.seen(servers.a).filter { $0.path.hasSuffix("set=\(k)") && $0.headers["if-none-match"] != nil }.count
                }
                let first = try jsonapi(["fetch", endpoint, "--all-pages", "--into", db])
                #expect(first.status == 0, "\(first.stderr)")
                #expect(first.stderr.contains("loaded 5 pages into") && first.stderr.contains("15 resources (15 written, 0 unchanged)"), "\(first.stderr)")
                #expect(try etags() == 5)
                #expect(try await conditional() == 0)
                // Again: every page answered 304 to its ETag; nothing downloaded, nothing written.
                let again = try jsonapi(["fetch", endpoint, "--all-pages", "--into", db])
                #expect(again.status == 0, "\(again.stderr)")
                #expect(
                    again.stderr.contains("loaded 5 pages (5 unchanged since they were loaded: 304 to their ETags)")
                        && again.stderr.contains("0 resources (0 written, 0 unchanged)") && again.stderr.contains("the crawl is complete"),
                    "\(again.stderr)")
                #expect(try await conditional() == 5)
                // Page 3 changes: it alone is downloaded and written.
                _ = try await URLSession.shared.data(from: URL(string: servers.a + "/bump?n=3&set=\(k)")!)
                let changed = try jsonapi(["fetch", endpoint, "--all-pages", "--into", db])
                #expect(
                    changed.stderr.contains("(4 unchanged since they were loaded") && changed.stderr.contains("3 resources (3 written, 0 unchanged)"),
                    "\(changed.stderr)")
                let back = try jsonapi(["denormalize", db])
                let versions = try JSONSerialization.jsonObject(with: Data(back.stdout.utf8)) as? [String: Any]
                let data = (versions?["data"] as? [[String: Any]]) ?? []
                #expect(data.count == 15)
                #expect(data.filter { (($0["attributes"] as? [String: Any])?["version"] as? Int) == 1 }.count == 3)
                // --restart asks for every page in full (and writes nothing: the content is the same).
                let restarted = try jsonapi(["fetch", endpoint, "--all-pages", "--restart", "--into", db])
                #expect(restarted.status == 0, "\(restarted.stderr)")
                #expect(
                    !restarted.stderr.contains("unchanged since") && restarted.stderr.contains("15 resources (0 written, 15 unchanged)"),
                    "\(restarted.stderr)")
                #expect(try await conditional() == 5 + 5)
            }
        }

        static func command(_ tool: String, _ arguments: [String]) throws -> CommandResult {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: tool)
            p.arguments = arguments
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-cmd-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let out = dir.appendingPathComponent("out"), err = dir.appendingPathComponent("err")
            _ = FileManager.default.createFile(atPath: out.path, contents: nil)
            _ = FileManager.default.createFile(atPath: err.path, contents: nil)
            p.standardOutput = try FileHandle(forWritingTo: out)
            p.standardError = try FileHandle(forWritingTo: err)
            p.standardInput = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            return CommandResult(
                status: p.terminationStatus, stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
                stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
        }

        /// The crawl's state names URLs only: no header, no password.
        @Test func theCrawlStateHoldsNoCredentials() throws {
            let url = try TestServer.url
            var parts = URLComponents(url: url, resolvingAgainstBaseURL: false)!
            parts.user = "someone"
            parts.password = "s3cret-password"
            let base = parts.string!
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-crawl-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let db = dir.appendingPathComponent("c.sqlite").path
            let r = try jsonapi(["fetch", "\(base)/tags", "--page-size", "10", "--max-pages", "2", "-H", "Authorization: Bearer t0ken-value", "--into", db])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("the crawl goes on from there when run again"), "\(r.stderr)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: db))
            for secret in ["s3cret-password", "t0ken-value", "Bearer"] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "the database holds \(secret)")
            }
            #expect(try Self.rows(db, #"SELECT "pages", "complete" FROM "_crawls""#) == [["2", "0"]])
            // --restart starts from the first page again.
            let restarted = try jsonapi(["fetch", "\(base)/tags", "--page-size", "10", "--max-pages", "1", "--restart", "--into", db])
            #expect(restarted.status == 0, "\(restarted.stderr)")
            #expect(!restarted.stderr.contains("continuing"), "\(restarted.stderr)")
            #expect(try Self.rows(db, #"SELECT "pages" FROM "_crawls""#) == [["1"]])
        }
    }
}
