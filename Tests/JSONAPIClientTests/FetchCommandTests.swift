import Foundation
import Testing

/// The `jsonapi` binary built next to the test bundle.
let jsonapiBinary: URL = {
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("jsonapi")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    return TestServer.repositoryRoot.appendingPathComponent(".build/debug/jsonapi")
}()

struct CommandResult {
    var status: Int32
    var stdout: String
    var stderr: String
    var lines: [Substring] { stdout.split(separator: "\n") }
}

/// Runs `jsonapi` with `arguments` and waits for it (output through files, so a long run
/// cannot fill a pipe).
func jsonapi(_ arguments: [String]) throws -> CommandResult {
    let p = Process()
    p.executableURL = jsonapiBinary
    p.arguments = arguments
    p.currentDirectoryURL = TestServer.repositoryRoot
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-fetch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let out = dir.appendingPathComponent("out")
    let err = dir.appendingPathComponent("err")
    _ = FileManager.default.createFile(atPath: out.path, contents: nil)
    _ = FileManager.default.createFile(atPath: err.path, contents: nil)
    p.standardOutput = try FileHandle(forWritingTo: out)
    p.standardError = try FileHandle(forWritingTo: err)
    p.standardInput = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
    return CommandResult(
        status: p.terminationStatus,
        stdout: (try? String(contentsOf: out, encoding: .utf8)) ?? "",
        stderr: (try? String(contentsOf: err, encoding: .utf8)) ?? "")
}

/// The `id` of an NDJSON resource line, as a number.
func lineID(_ line: Substring) -> Int? {
    guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else { return nil }
    return (object["id"] as? String).flatMap { Int($0) }
}

extension EndToEnd {
    @Suite struct FetchCommand {
        @Test func everyPageToNDJSON() throws {
            let base = try TestServer.url.absoluteString
            let concurrent = try jsonapi(["fetch", "\(base)/articles", "--page-size", "250", "--all-pages", "--format", "ndjson", "--resources-only"])
            #expect(concurrent.status == 0, "\(concurrent.stderr)")
            let ids = concurrent.lines.compactMap(lineID)
            #expect(ids.count == concurrent.lines.count)
            #expect(ids.count >= 2500)
            #expect(isStrictlyIncreasing(ids))
            #expect(concurrent.lines.allSatisfy { $0.contains(#""type":"articles""#) && $0.contains(#""primary":true"#) })
            let sequential = try jsonapi(["fetch", "\(base)/articles", "--page-size", "250", "--all-pages", "--concurrency", "1", "--format", "ndjson", "--resources-only"])
            #expect(sequential.status == 0)
            #expect(sequential.stdout == concurrent.stdout, "the output depends on --concurrency")
        }

        @Test func queryOptions() throws {
            let base = try TestServer.url.absoluteString
            let r = try jsonapi([
                "fetch", "\(base)/articles", "--include", "author", "--fields", "articles=title,rating,published_at,author",
                "--fields", "authors=name", "--filter", "rating=5", "--sort", "-published_at", "--page-size", "10", "--format", "ndjson",
            ])
            #expect(r.status == 0, "\(r.stderr)")
            let objects = r.lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            let articles = objects.filter { $0["type"] as? String == "articles" }
            let authors = objects.filter { $0["type"] as? String == "authors" }
            #expect(articles.count == 10)
            #expect(!authors.isEmpty)
            let attributes = articles.compactMap { $0["attributes"] as? [String: Any] }
            #expect(attributes.allSatisfy { $0["rating"] as? Int == 5 })
            #expect(attributes.allSatisfy { Set($0.keys) == ["title", "rating", "published_at"] })
            let dates = attributes.compactMap { $0["published_at"] as? String }
            #expect(dates == dates.sorted(by: >))
            #expect(authors.compactMap { ($0["attributes"] as? [String: Any]).map { Set($0.keys) } }.allSatisfy { $0 == ["name"] })
            #expect(objects.last?["document"] != nil)
        }

        @Test func maxPagesAndProgress() throws {
            let base = try TestServer.url.absoluteString
            let r = try jsonapi(["fetch", "\(base)/comments", "--pagination", "offset", "--page-size", "7", "--max-pages", "3", "--format", "ndjson", "--progress"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.lines.filter { $0.hasPrefix(#"{"document":"#) }.count == 3)
            #expect(r.lines.count == 3 * 7 + 3)
            #expect(r.stderr.contains("stopped after 3 pages"))
            #expect(r.stderr.contains("pages,") || r.stderr.contains("page,"))
        }

        @Test func flatJSONAndEdgesToAFile() throws {
            let base = try TestServer.url.absoluteString
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-fetch-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("articles.json")
            let r = try jsonapi(["fetch", "\(base)/articles/5", "--include", "tags,author", "-H", "Authorization: Bearer x", "-o", file.path])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stdout.isEmpty)
            let flat = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            let data = try #require(flat["data"] as? [String: Any])
            #expect(data["id"] as? String == "5")
            let resources = try #require(flat["resources"] as? [String: Any])
            #expect(resources["authors"] != nil)
            let edges = try jsonapi(["fetch", "\(base)/articles/5", "--format", "edges"])
            #expect(edges.status == 0)
            #expect(edges.lines.contains { $0.contains(#""relationship":"author""#) })
        }

        @Test func failuresAndExitCodes() throws {
            let base = try TestServer.url.absoluteString
            let missing = try jsonapi(["fetch", "\(base)/articles/999999"])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("HTTP 404 from GET"))
            #expect(missing.stderr.contains("not_found"))
            #expect(missing.stdout.isEmpty)

            let html = try jsonapi(["fetch", "\(base)/test/html"])
            #expect(html.status == 2)
            #expect(html.stderr.contains("text/html"))
            #expect(html.stderr.contains("not a JSON:API document"))

            let truncated = try jsonapi(["fetch", "\(base)/test/truncated", "--format", "ndjson"])
            #expect(truncated.status == 1)
            #expect(truncated.stderr.contains("[J09]"))

            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-fetch-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: dir) }
            let file = dir.appendingPathComponent("out.ndjson")
            let failed = try jsonapi(["fetch", "\(base)/test/flaky?key=\(uniqueName("cli"))&failures=5&retry_after=0", "--attempts", "2", "-o", file.path])
            #expect(failed.status == 2)
            #expect(failed.stderr.contains("HTTP 503"))
            #expect(failed.stderr.contains("after 2 attempts"))
            #expect(!FileManager.default.fileExists(atPath: file.path))
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty, "a temporary file was left")

            let timeout = try jsonapi(["fetch", "\(base)/test/slow?seconds=10", "--timeout", "1", "--attempts", "1"])
            #expect(timeout.status == 2)
            #expect(timeout.stderr.contains("timed out"))
        }

        /// `--cache DIR` against the test server's `/test/cached`, which counts the requests
        /// that reach it.
        @Test func aCacheDirectoryAnswersFreshPagesWithoutARequest() throws {
            let base = try TestServer.url.absoluteString
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-cache-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: dir) }
            func served(_ key: String) throws -> Int {
                let data = try Data(contentsOf: URL(string: "\(base)/test/attempts?key=cached:\(key)")!)
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                return (object?["meta"] as? [String: Any])?["attempts"] as? Int ?? -1
            }
            let fresh = uniqueName("fresh")
            let url = "\(base)/test/cached?key=\(fresh)&etag=1"
            let first = try jsonapi(["fetch", url, "--cache", dir.path, "--format", "ndjson"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("cached 2"))
            let second = try jsonapi(["fetch", url, "--cache", dir.path, "--format", "ndjson", "-v"])
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stdout == first.stdout)
            #expect(second.stderr.contains("cache: fresh hit"), "\(second.stderr)")
            #expect(try served(fresh) == 1)
            let bypassed = try jsonapi(["fetch", url, "--cache", dir.path, "--cache-policy", "bypass", "--format", "ndjson"])
            #expect(bypassed.status == 0)
            #expect(try served(fresh) == 2)
            #expect(bypassed.stdout != first.stdout, "meta.served is 2 in a response from the server")

            // Stale at once: revalidated with the ETag; the 304 is answered from the directory.
            let stale = uniqueName("stale")
            let revalidated = "\(base)/test/cached?key=\(stale)&etag=1&max_age=0"
            let one = try jsonapi(["fetch", revalidated, "--cache", dir.path, "--format", "ndjson"])
            let two = try jsonapi(["fetch", revalidated, "--cache", dir.path, "--format", "ndjson", "-v"])
            #expect(one.status == 0 && two.status == 0, "\(two.stderr)")
            #expect(two.stdout == one.stdout)
            #expect(two.stderr.contains("cache: 304 Not Modified"), "\(two.stderr)")
            #expect(try served(stale) == 2)
            // An explicit lifetime makes the same entry fresh: no request.
            let kept = try jsonapi(["fetch", revalidated, "--cache", dir.path, "--cache-lifetime", "3600", "--format", "ndjson"])
            #expect(kept.stdout == one.stdout)
            #expect(try served(stale) == 2)

            // no-store: never kept; only-if-cached then fails without a request.
            let unstored = uniqueName("nostore")
            let noStore = "\(base)/test/cached?key=\(unstored)&cache_control=no-store"
            #expect(try jsonapi(["fetch", noStore, "--cache", dir.path]).status == 0)
            let only = try jsonapi(["fetch", noStore, "--cache", dir.path, "--cache-policy", "only-if-cached"])
            #expect(only.status == 2)
            #expect(only.stderr.contains("not answered from the cache (only-if-cached): no response is stored for it"), "\(only.stderr)")
            #expect(try served(unstored) == 1)
            let cachedOnly = try jsonapi(["fetch", url, "--cache", dir.path, "--cache-policy", "only-if-cached", "--format", "ndjson"])
            #expect(cachedOnly.status == 0)
            #expect(try served(fresh) == 2)

            for arguments in [
                ["fetch", url, "--cache-policy", "bypass"], ["fetch", url, "--cache-lifetime", "5"],
                ["fetch", url, "--cache", dir.path, "--cache-size", "0"],
                ["fetch", url, "--cache", dir.path, "--cache-policy", "bypass", "--cache-lifetime", "5"],
            ] {
                let r = try jsonapi(arguments)
                #expect(r.status == 2, "\(arguments)")
                #expect(r.stderr.contains("--cache"), "\(arguments): \(r.stderr)")
            }
        }

        /// `--pagination cursor-profile` against the test server's `/cursor/articles`.
        @Test func cursorProfileCrawlsForwardsAndBackwards() throws {
            let base = try TestServer.url.absoluteString
            let url = "\(base)/cursor/articles"
            let forwards = try jsonapi([
                "fetch", url, "--pagination", "cursor-profile", "--page-size", "500", "--all-pages", "--format", "ndjson", "--resources-only",
            ])
            #expect(forwards.status == 0, "\(forwards.stderr)")
            let seen = forwards.lines.compactMap(lineID)
            #expect(seen == Array(1...2500))
            #expect(
                forwards.stderr.contains("jsonapi: warning: the server allows at most 100 items per page (max-size-exceeded); asking again with page[size]=100"),
                "\(forwards.stderr)")
            let quiet = try jsonapi(["fetch", url, "--pagination", "cursor-profile", "--page-size", "500", "-q"])
            #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")

            // The test server's cursors are base64 of `article:ID` (opaque to the client).
            let cursor = Data("article:2501".utf8).base64EncodedString().replacingOccurrences(of: "=", with: "")
            let backwards = try jsonapi([
                "fetch", url, "--pagination", "cursor-profile", "--page-size", "100", "--param", "page[before]=\(cursor)", "--backwards",
                "--max-pages", "3", "--format", "ndjson", "--resources-only",
            ])
            #expect(backwards.status == 0, "\(backwards.stderr)")
            #expect(backwards.lines.compactMap(lineID) == Array(2401...2500) + Array(2301...2400) + Array(2201...2300))
            #expect(backwards.stderr.contains("stopped after 3 pages"))

            let refused = try jsonapi(["fetch", "\(url)?page%5Bafter%5D=x&page%5Bbefore%5D=y", "--pagination", "cursor-profile"])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("HTTP 400"), "\(refused.stderr)")
            let usage = try jsonapi(["fetch", url, "--backwards"])
            #expect(usage.status == 2 && usage.stderr.contains("--backwards goes with --all-pages or --max-pages"), "\(usage.stderr)")
        }

        @Test func usageErrors() throws {
            for arguments in [
                ["fetch", "not a url"], ["fetch", "ftp://h/x"], ["fetch", "http://127.0.0.1:1/x", "--fields", "title"],
                ["fetch", "http://127.0.0.1:1/x", "-H", "NoColon"], ["fetch", "http://127.0.0.1:1/x", "--concurrency", "0"],
                ["fetch", "http://127.0.0.1:1/x", "--hash"],
            ] {
                let r = try jsonapi(arguments)
                #expect(r.status == 2, "\(arguments): \(r.stderr)")
                #expect(!r.stderr.isEmpty)
            }
            let refused = try jsonapi(["fetch", "http://127.0.0.1:\(try closedPort())/articles", "--attempts", "1"])
            #expect(refused.status == 2)
            #expect(refused.stderr.contains("cannot reach"))
        }

        /// Shell completion and the checks of `jsonapi fetch` know every option of the fetch
        /// program (they used to offer only `--version`).
        @Test func completionOffersTheFetchOptions() throws {
            for shell in ["bash", "zsh", "fish"] {
                let script = try jsonapi(["--generate-completion-script", shell])
                #expect(script.status == 0)
                for option in ["all-pages", "pinnedpubkey", "deadline", "include", "verbose", "into"] {
                    // fish names long options without their dashes (`-l 'all-pages'`).
                    let written = shell == "fish" ? "-l '\(option)'" : "--\(option)"
                    #expect(script.stdout.contains(written), "\(shell) completion lacks --\(option)")
                }
            }
            let bad = try jsonapi(["fetch", "http://127.0.0.1:9/x", "--page-size", "0"])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("--page-size must be at least 1"), "\(bad.stderr)")
        }

        /// `jsonapi fetch` runs `jsonapi-fetch` with its arguments, help included; `jsonapi`
        /// itself does not load the networking libraries.
        @Test func forwardsToTheFetchProgram() throws {
            let help = try jsonapi(["fetch", "--help"])
            #expect(help.status == 0)
            #expect(help.stdout.contains("USAGE: jsonapi fetch [<options>] <url>"))
            #expect(help.stdout.contains("--all-pages"))
            let missing = try jsonapi(["fetch"])
            #expect(missing.status == 2)
            #expect(missing.stderr.contains("Missing expected argument '<url>'"))
            #if os(Linux)
            let ldd = Process()
            ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
            ldd.arguments = [jsonapiBinary.path]
            let pipe = Pipe()
            ldd.standardOutput = pipe
            try ldd.run()
            let libraries = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            ldd.waitUntilExit()
            #expect(libraries.contains("libyajl"), "\(libraries)")
            #expect(!libraries.contains("FoundationNetworking") && !libraries.contains("libcurl"), "\(libraries)")
            #endif
        }
    }
}
