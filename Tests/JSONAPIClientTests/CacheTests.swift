import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Testing
@testable import JSONAPIClient

/// The response cache (issue 20, item 5) over an in-memory transport whose origin counts
/// what reaches it, with the cache's clock moved by the tests.
@Suite struct Caching {
    /// A server that answers every path with `headers` and a document of `resources`
    /// resources, and `304` to an `If-None-Match` of its ETag.
    final class Origin: @unchecked Sendable {
        private let lock = NSLock()
        private var _headers: [String: String]
        private var _resources: Int
        var chunkSize = 16 * 1024

        init(_ headers: [String: String], resources: Int = 2) {
            _headers = headers
            _resources = resources
        }

        var headers: [String: String] {
            get { lock.withLock { _headers } }
            set { lock.withLock { _headers = newValue } }
        }

        var resources: Int {
            get { lock.withLock { _resources } }
            set { lock.withLock { _resources = newValue } }
        }

        func reply(_ request: URLRequest) -> InMemoryTransport.Reply {
            var headers = Transports.jsonAPI.merging(self.headers) { $1 }
            if let etag = headers["ETag"], request.value(forHTTPHeaderField: "If-None-Match") == etag {
                headers["Content-Type"] = nil
                return .init(status: 304, headers: headers)
            }
            if request.httpMethod != "GET" { return .init(status: 204, headers: [:]) }
            return .init(status: 200, headers: headers, body: Transports.document(resources), chunkSize: chunkSize)
        }
    }

    /// A clock the tests move (seconds since 1970).
    final class Clock: @unchecked Sendable {
        private let lock = NSLock()
        private var t = 1_800_000_000.0
        var now: Double { lock.withLock { t } }
        func advance(_ seconds: Double) { lock.withLock { t += seconds } }
    }

    static func setUp(
        _ origin: Origin, cache: ResponseCache = ResponseCache(), _ configure: (inout JSONAPIClient.Configuration) -> Void = { _ in }
    ) -> (JSONAPIClient, InMemoryTransport, Clock) {
        let transport = InMemoryTransport { origin.reply($0) }
        let clock = Clock()
        cache.now = { clock.now }
        let client = Transports.client(transport) {
            $0.cache = cache
            configure(&$0)
        }
        return (client, transport, clock)
    }

    static func titles(_ graph: Graph) -> [String] { graph.primary.map { $0.attributes["title"]?.string ?? "?" } }

    @Test func aFreshResponseAnswersWithoutARequestAndAStaleOneIsRevalidated() async throws {
        let origin = Origin(["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        let (client, transport, clock) = Self.setUp(origin)
        let first = try await client.graph("articles")
        clock.advance(59)
        let second = try await client.graph("articles")
        #expect(transport.requests.count == 1)
        #expect(Self.titles(second) == Self.titles(first))
        #expect(Self.titles(second) == ["article 1", "article 2"])
        clock.advance(2)
        let third = try await client.graph("articles")
        #expect(transport.requests.count == 2)
        #expect(transport.requests.last?.value(forHTTPHeaderField: "If-None-Match") == "\"v1\"")
        #expect(Self.titles(third) == Self.titles(first))
        // The 304 restarted the entry's age: fresh again for 60 s.
        clock.advance(30)
        _ = try await client.graph("articles")
        #expect(transport.requests.count == 2)
    }

    @Test func expiresLessDateIsTheLifetimeAndAnUnreadableExpiresIsExpired() async throws {
        let clock0 = Clock().now
        let origin = Origin(["Date": HTTPDate.format(clock0), "Expires": HTTPDate.format(clock0 + 30)])
        let (client, transport, clock) = Self.setUp(origin)
        _ = try await client.graph("articles")
        clock.advance(20)
        _ = try await client.graph("articles")
        #expect(transport.requests.count == 1)
        clock.advance(11)
        _ = try await client.graph("articles")
        #expect(transport.requests.count == 2)
        // No validator: the stale entry is asked for again in full.
        #expect(transport.requests.last?.value(forHTTPHeaderField: "If-None-Match") == nil)

        let never = Origin(["Expires": "0"])
        let (other, otherTransport, _) = Self.setUp(never)
        _ = try await other.graph("articles")
        _ = try await other.graph("articles")
        #expect(otherTransport.requests.count == 2)
        #expect(other.configuration.cache?.count == 0)
    }

    @Test func noStoreIsNotKeptAndNoCacheIsRevalidatedEveryTime() async throws {
        let (client, transport, _) = Self.setUp(Origin(["Cache-Control": "no-store, max-age=600", "ETag": "\"a\""]))
        _ = try await client.graph("articles")
        _ = try await client.graph("articles")
        #expect(transport.requests.count == 2)
        #expect(client.configuration.cache?.count == 0)
        #expect(transport.requests.last?.value(forHTTPHeaderField: "If-None-Match") == nil)

        let (revalidating, t2, _) = Self.setUp(Origin(["Cache-Control": "no-cache, max-age=600", "ETag": "\"b\""]))
        let first = try await revalidating.graph("articles")
        let second = try await revalidating.graph("articles")
        #expect(t2.requests.count == 2)
        #expect(t2.requests.last?.value(forHTTPHeaderField: "If-None-Match") == "\"b\"")
        #expect(Self.titles(second) == Self.titles(first))
    }

    @Test func policiesBypassAskOnlyTheCacheOrGiveALifetime() async throws {
        let origin = Origin(["Cache-Control": "max-age=60", "ETag": "\"v1\""])
        let (client, transport, clock) = Self.setUp(origin)
        _ = try await client.graph("articles")
        // Bypass: to the server without validators, and the new response is stored.
        origin.resources = 3
        let bypassed = try await JSONAPIClient.withCachePolicy(.bypassCache) { try await client.graph("articles") }
        #expect(transport.requests.count == 2)
        #expect(transport.requests.last?.value(forHTTPHeaderField: "If-None-Match") == nil)
        #expect(bypassed.primary.count == 3)
        #expect(try await client.graph("articles").primary.count == 3)
        #expect(transport.requests.count == 2)

        // Only if cached: a stale entry answers without a request; a missing one is an error.
        clock.advance(3600)
        let stale = try await JSONAPIClient.withCachePolicy(.onlyIfCached) { try await client.graph("articles") }
        #expect(stale.primary.count == 3)
        #expect(transport.requests.count == 2)
        await #expect {
            _ = try await JSONAPIClient.withCachePolicy(.onlyIfCached) { try await client.graph("people") }
        } throws: { error in
            guard case .notCached(let url, let reason)? = error as? JSONAPIClientError else { return false }
            return url.path == "/people" && reason == "no response is stored for it"
        }
        #expect(transport.requests.count == 2)

        // An explicit lifetime: an hour-old entry is fresh for a policy of two hours.
        let old = try await JSONAPIClient.withCachePolicy(.lifetime(7200)) { try await client.graph("articles") }
        #expect(old.primary.count == 3)
        #expect(transport.requests.count == 2)

        // The request's own Cache-Control (from a preparer): no-cache goes to the server.
        let (withHeader, t2, _) = Self.setUp(origin) {
            $0.requestPreparers = [RequestPreparer("no-cache") { $0.setValue("no-cache", forHTTPHeaderField: "Cache-Control") }]
        }
        _ = try await withHeader.graph("articles")
        _ = try await withHeader.graph("articles")
        #expect(t2.requests.count == 2)
    }

    @Test func aMustRevalidateEntryIsNotServedStaleEvenOnlyIfCached() async throws {
        let (client, transport, clock) = Self.setUp(Origin(["Cache-Control": "max-age=10, must-revalidate", "ETag": "\"m\""]))
        _ = try await client.graph("articles")
        clock.advance(5)
        _ = try await JSONAPIClient.withCachePolicy(.onlyIfCached) { try await client.graph("articles") }
        clock.advance(10)
        await #expect {
            _ = try await JSONAPIClient.withCachePolicy(.onlyIfCached) { try await client.graph("articles") }
        } throws: { error in
            guard case .notCached(_, let reason)? = error as? JSONAPIClientError else { return false }
            return reason.contains("stale") && reason.contains("must be revalidated")
        }
        #expect(transport.requests.count == 1)
    }

    @Test func aCustomKeyLeavesOutWhatDoesNotMatter() async throws {
        let (client, transport, _) = Self.setUp(Origin(["Cache-Control": "max-age=60"])) {
            $0.cacheKey = { request in
                guard var parts = request.url.flatMap({ URLComponents(url: $0, resolvingAgainstBaseURL: true) }) else { return nil }
                if parts.path.hasPrefix("/private") { return nil }
                parts.queryItems = parts.queryItems?.filter { $0.name != "trace" }
                return parts.string
            }
        }
        _ = try await client.graph("articles", query: JSONAPIQuery().parameter("trace", "1"))
        _ = try await client.graph("articles", query: JSONAPIQuery().parameter("trace", "2"))
        #expect(transport.requests.count == 1)
        _ = try await client.graph("articles", query: JSONAPIQuery().parameter("sort", "title"))
        #expect(transport.requests.count == 2)
        _ = try await client.graph("private/notes")
        _ = try await client.graph("private/notes")
        #expect(transport.requests.count == 4)
    }

    @Test func varyAndCredentialsKeepResponsesApart() async throws {
        let origin = Origin(["Cache-Control": "max-age=60", "Vary": "Accept-Language"])
        let language = ResponseLog.Values()
        let token = ResponseLog.Values()
        let (client, transport, _) = Self.setUp(origin) {
            $0.requestPreparers = [
                RequestPreparer("language") { $0.setValue(language.all.last.map { "l\($0)" }, forHTTPHeaderField: "Accept-Language") },
                RequestPreparer("token") { $0.setValue(token.all.last.map { "Bearer t\($0)" }, forHTTPHeaderField: "Authorization") },
            ]
        }
        func get() async throws -> Int {
            _ = try await client.graph("articles")
            return transport.requests.count
        }
        language.add(1)
        #expect(try await get() == 1)
        #expect(try await get() == 1)
        language.add(2)
        #expect(try await get() == 2)  // another Accept-Language
        #expect(try await get() == 2)
        token.add(1)
        #expect(try await get() == 3)  // credentials: another partition
        #expect(try await get() == 3)
        token.add(2)
        #expect(try await get() == 4)  // other credentials are never served the first one's
        token.add(1)
        #expect(try await get() == 4)
        #expect(transport.requests.compactMap { $0.value(forHTTPHeaderField: "Authorization") } == ["Bearer t1", "Bearer t2"])

        let (star, t2, _) = Self.setUp(Origin(["Cache-Control": "max-age=60", "Vary": "*"]))
        _ = try await star.graph("articles")
        _ = try await star.graph("articles")
        #expect(t2.requests.count == 2)
    }

    @Test func theSizeBoundEvictsTheLeastRecentlyUsedAndSkipsLargeBodiesWhileTheyStream() async throws {
        let origin = Origin(["Cache-Control": "max-age=60"], resources: 20)
        let size = Transports.document(20).count
        let cache = ResponseCache(maxBytes: size * 2 + size / 2, maxEntryBytes: size * 2)
        let (client, transport, _) = Self.setUp(origin, cache: cache)
        for path in ["a", "b", "c"] { _ = try await client.graph(path) }
        #expect(cache.count == 2)
        #expect(cache.totalBytes == 2 * size)
        _ = try await client.graph("b")  // a hit: b is now the most recently used
        #expect(transport.requests.count == 3)
        _ = try await client.graph("d")  // evicts c, not b
        _ = try await client.graph("b")
        #expect(transport.requests.count == 4)
        _ = try await client.graph("c")
        #expect(transport.requests.count == 5)

        // A body larger than an entry may be: all of it reaches the parser, none is kept.
        origin.resources = 400
        origin.chunkSize = 1024
        let big = try await client.graph("big")
        #expect(big.primary.count == 400)
        _ = try await client.graph("big")
        #expect(transport.requests.count == 7)
        #expect(cache.totalBytes <= cache.maxBytes)
    }

    @Test func aDirectoryCacheOutlivesItsClientAndKeepsNoCredentialsInTheClear() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = Origin(["Cache-Control": "max-age=60", "ETag": "\"d1\""], resources: 3)
        let secret = "Bearer sekrit-\(UUID().uuidString)"
        let bearer: (inout JSONAPIClient.Configuration) -> Void = {
            $0.requestPreparers = [RequestPreparer("token") { $0.setValue(secret, forHTTPHeaderField: "Authorization") }]
        }
        let (first, t1, _) = Self.setUp(origin, cache: try ResponseCache(directory: directory), bearer)
        let stored = try await first.graph("articles")
        #expect(t1.requests.count == 1)

        // Another cache on the same directory (another process): a fresh hit, no request.
        let (second, t2, clock) = Self.setUp(origin, cache: try ResponseCache(directory: directory), bearer)
        let again = try await second.graph("articles")
        #expect(t2.requests.isEmpty)
        #expect(Self.titles(again) == Self.titles(stored))
        // Stale: revalidated with the stored ETag, answered from the file.
        clock.advance(120)
        let revalidated = try await second.graph("articles")
        #expect(t2.requests.count == 1)
        #expect(t2.requests.last?.value(forHTTPHeaderField: "If-None-Match") == "\"d1\"")
        #expect(Self.titles(revalidated) == Self.titles(stored))

        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names.count == 2)
        #expect(names.allSatisfy { $0.hasSuffix(".head") || $0.hasSuffix(".body") })
        let directoryMode = try FileManager.default.attributesOfItem(atPath: directory.path)[.posixPermissions] as? Int
        #expect(directoryMode == 0o700)
        for name in names {
            let path = directory.appendingPathComponent(name).path
            #expect(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int == 0o600)
            let text = String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
            #expect(!text.contains("sekrit"))
        }

        // Without the credentials, the entry is not theirs.
        let (anonymous, t3, _) = Self.setUp(origin, cache: try ResponseCache(directory: directory))
        _ = try await anonymous.graph("articles")
        #expect(t3.requests.count == 1)
    }

    @Test func aDirectoryCacheStreamsLargeBodiesToDiskAndEvictsFiles() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let origin = Origin(["Cache-Control": "max-age=60"], resources: 20_000)
        origin.chunkSize = 64 * 1024
        let size = Transports.document(20_000).count
        let cache = try ResponseCache(directory: directory, maxBytes: size + size / 2, maxEntryBytes: size)
        let (client, transport, _) = Self.setUp(origin, cache: cache)
        _ = try await client.graph("one")
        let hit = try await client.graph("one")
        #expect(hit.primary.count == 20_000)
        #expect(transport.requests.count == 1)
        _ = try await client.graph("two")  // evicts one: its files go
        #expect(cache.count == 1)
        let bodies = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".body") }
        #expect(bodies.count == 1)
        let file = directory.appendingPathComponent(try #require(bodies.first)).path
        #expect(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int == size)
    }

    @Test func writesForgetTheResourceAndABodyTheParserRefusesIsNotKept() async throws {
        let origin = Origin(["Cache-Control": "max-age=60"])
        let (client, transport, _) = Self.setUp(origin)
        _ = try await client.graph("articles/1")
        _ = try await client.graph("articles/1")
        #expect(transport.requests.count == 1)
        try await client.delete(type: "articles", id: "1")
        _ = try await client.graph("articles/1")
        #expect(transport.requests.count == 3)

        let broken = InMemoryTransport { _ in
            .init(status: 200, headers: Transports.jsonAPI.merging(["Cache-Control": "max-age=60"]) { $1 }, body: Array(#"{"data":[{"type":"#.utf8))
        }
        let cache = ResponseCache()
        let other = Transports.client(broken) { $0.cache = cache }
        await #expect(throws: JSONAPIClientError.self) { _ = try await other.graph("articles") }
        #expect(cache.count == 0)
    }

    @Test func aCrawlCountsThePagesTheCacheAnswered() async throws {
        let transport = InMemoryTransport { request in
            let page = request.url?.query == "page=2" ? 2 : 1
            let next = page == 1 ? #","links":{"next":"https://api.example.com/articles?page=2"}"# : ""
            return .init(
                status: 200, headers: Transports.jsonAPI.merging(["Cache-Control": "max-age=60"]) { $1 },
                body: Array(#"{"data":[{"type":"articles","id":"\#(page)"}]\#(next)}"#.utf8))
        }
        // The cache on the test's clock: on a busy machine the two crawls may be minutes apart.
        let clock = Clock()
        let cache = ResponseCache()
        cache.now = { clock.now }
        let client = Transports.client(transport) { $0.cache = cache }
        let url = try client.url("articles")
        let first = try await client.fetch(url, pages: .all(), into: GraphParser())
        let second = try await client.fetch(url, pages: .all(), into: GraphParser())
        #expect(first.pages == 2 && first.fromCache == 0 && first.requests == 2)
        #expect(second.pages == 2 && second.fromCache == 2 && second.requests == 0)
    }

    @Test func cacheControlAndDatesAreReadAsTheRFCsWriteThem() {
        let c = CacheControl(#"max-age=60, private="set-cookie, x", No-Cache , s-maxage="5""#)
        #expect(c.seconds("max-age") == 60)
        #expect(c.has("no-cache") && c.has("private"))
        #expect(c.seconds("s-maxage") == 5)
        #expect(CacheControl("max-age=-1").seconds("max-age") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        // The obsolete forms, which recipients must accept too (RFC 9110 §5.6.7).
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == 784_111_777)
        #expect(HTTPDate.parse("0") == nil)
    }
}

extension HTTPDate {
    /// `seconds` since 1970 as an IMF-fixdate.
    static func format(_ seconds: Double) -> String {
        var time = time_t(seconds)
        var t = tm()
        gmtime_r(&time, &t)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(days[Int(t.tm_wday)]), \(two(t.tm_mday)) \(months[Int(t.tm_mon)]) \(t.tm_year + 1900) "
            + "\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec)) GMT"
    }
}
