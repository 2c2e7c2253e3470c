import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Logging
import Testing
@testable import JSONAPIClient

/// Log entries kept in memory.
final class LogCapture: @unchecked Sendable {
    struct Entry {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
        var text: String { "\(message) \(metadata.map { "\($0.key)=\($0.value)" }.joined(separator: " "))" }
    }
    private let lock = NSLock()
    private var entries: [Entry] = []
    var all: [Entry] { lock.withLock { entries } }
    func add(_ e: Entry) { lock.withLock { entries.append(e) } }

    /// A logger at `level` that writes here.
    func logger(_ level: Logger.Level = .trace) -> Logger {
        Logger(label: "test") { _ in Handler(capture: self, logLevel: level) }
    }

    func contains(_ level: Logger.Level, _ text: String) -> Bool { all.contains { $0.level == level && $0.text.contains(text) } }

    struct Handler: LogHandler {
        let capture: LogCapture
        var logLevel: Logger.Level
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            capture.add(Entry(level: event.level, message: "\(event.message)", metadata: metadata.merging(event.metadata ?? [:]) { $1 }))
        }
    }
}

/// What the client logs, and what it never does: credentials.
@Suite struct Logging {
    static let jsonAPI = Transports.jsonAPI

    @Test func requestsRedirectsRetriesAndTheCacheAreLoggedWithoutCredentials() async throws {
        let attempts = ResponseLog.Values()
        let transport = InMemoryTransport { request in
            switch request.url?.path {
            case "/old": return .init(status: 302, headers: ["Location": "/articles"])
            case "/articles":
                attempts.add(1)
                if attempts.all.count == 1 { return .init(status: 503, headers: ["Retry-After": "0"]) }
                if request.value(forHTTPHeaderField: "If-None-Match") == #""v1""# { return .init(status: 304, headers: ["ETag": #""v1""#]) }
                return .init(status: 200, headers: Self.jsonAPI.merging(["ETag": #""v1""#, "Set-Cookie": "session=c00kie"]) { $1 }, body: Transports.document(2))
            default: return .init(status: 404)
            }
        }
        let log = LogCapture()
        let client = Transports.client(transport) {
            $0.logger = log.logger()
            $0.headers = ["X-Api-Key": "k3y"]
            $0.prepareRequest = { $0.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization") }
        }
        _ = try await client.graph("old")
        // The response reached through the redirect is not stored under the URL asked for;
        // asked for directly it is, then revalidated and answered from the cache.
        _ = try await client.graph("articles")
        _ = try await client.graph("articles")
        #expect(log.contains(.debug, "GET https://api.example.com/old"))
        #expect(log.contains(.debug, "HTTP 302 from GET https://api.example.com/old"))
        #expect(log.contains(.debug, "following the 302 redirect to https://api.example.com/articles"))
        #expect(log.contains(.debug, "HTTP 503 from GET https://api.example.com/articles"))
        #expect(log.contains(.notice, "retrying GET https://api.example.com/old in 0.00 s (attempt 2 of 4)"))
        #expect(log.contains(.debug, "cache: not storing https://api.example.com/old: reached through a redirect"))
        #expect(log.contains(.debug, "cache: stored"))
        #expect(log.contains(.debug, "cache: revalidating https://api.example.com/articles (age "))
        #expect(log.all.contains { $0.text.contains("cache: revalidating") && $0.text.contains(#"etag="v1""#) }, "\(log.all.map(\.text))")
        #expect(log.contains(.debug, "cache: 304 Not Modified, answered with the"))
        let headers = log.all.filter { $0.message == "request headers" }.map(\.text)
        #expect(headers.contains { $0.contains("Authorization: <redacted>") && $0.contains("X-Api-Key: <redacted>") }, "\(headers)")
        #expect(log.all.contains { $0.message == "response headers" && $0.text.contains("set-cookie: <redacted>") })
        for entry in log.all {
            #expect(!entry.text.contains("s3cret") && !entry.text.contains("k3y") && !entry.text.contains("c00kie"), "\(entry.text)")
        }
        // Below trace, no headers at all.
        let quieter = LogCapture()
        _ = try await Transports.client(transport) { $0.logger = quieter.logger(.debug) }.graph("articles")
        #expect(!quieter.all.isEmpty && !quieter.all.contains { $0.message.contains("headers") })
    }

    @Test func eachPageOfACrawlIsLogged() async throws {
        let transport = InMemoryTransport { request in
            let n = Int(request.url?.query?.split(separator: "=").last ?? "1") ?? 1
            let next = n < 3 ? #","links":{"next":"/articles?page=\#(n + 1)"}"# : ""
            let body = #"{"data":[{"type":"articles","id":"\#(n)"}]\#(next)}"#
            return .init(status: 200, headers: Self.jsonAPI, body: Array(body.utf8))
        }
        let log = LogCapture()
        let graph = try await Transports.client(transport) { $0.logger = log.logger(.info) }.graph("articles", query: JSONAPIQuery().parameter("page", "1"), pages: .all())
        #expect(graph.primary.count == 3)
        let pages = log.all.filter { $0.level == .info }
        #expect(
            pages.map(\.message) == [
                "page 1 read: https://api.example.com/articles?page=1", "page 2 read: https://api.example.com/articles?page=2",
                "page 3 read: https://api.example.com/articles?page=3",
            ])
        #expect(pages.map { $0.metadata["resources"]?.description } == ["1", "2", "3"])
    }

    @Test func aServerThatIgnoresAClientGeneratedIDIsAWarning() async throws {
        let transport = InMemoryTransport { request in
            let body = #"{"data":{"type":"articles","id":"server-7","attributes":{"title":"T"}}}"#
            return .init(status: 201, headers: Self.jsonAPI, body: Array(body.utf8))
        }
        let log = LogCapture()
        let client = Transports.client(transport) { $0.logger = log.logger(.warning) }
        var resource = EditableResource(type: "articles", id: "client-1")
        resource["title"] = "T"
        let created = try await client.create(resource)
        #expect(created?.id == "server-7")
        #expect(log.contains(.warning, "ignored the client-generated id client-1 of a new articles resource and assigned its own, articles server-7"))
        // Without a client-generated id, a server-assigned one is what is expected.
        let quiet = LogCapture()
        var plain = EditableResource(type: "articles")
        plain["title"] = "T"
        _ = try await Transports.client(transport) { $0.logger = quiet.logger(.warning) }.create(plain)
        #expect(quiet.all.isEmpty)
    }

    @Test func aRetryAfterBeyondTheLimitSaysSo() async throws {
        for (headers, body) in [([String: String](), ""), (Self.jsonAPI, #"{"errors":[{"status":"503","title":"Busy"}]}"#)] {
            let transport = InMemoryTransport { _ in .init(status: 503, headers: headers.merging(["Retry-After": "120"]) { $1 }, body: Array(body.utf8)) }
            let client = Transports.client(transport) { $0.retry.maxRetryAfter = 60 }
            await #expect {
                _ = try await client.graph("articles")
            } throws: { error in
                let text = "\(error)"
                return text.contains("not retried: the server asked to wait 120 s (Retry-After), more than the 60 s allowed")
                    && (error as? JSONAPIClientError)?.status == 503
            }
            #expect(transport.requests.count == 1)
        }
    }

    @Test func aBodyCutShortIsAnInvalidDocumentHoweverTheConnectionEnds() async throws {
        let body = Transports.document(500)
        let cut = Array(body.prefix(4000))
        for failure in [TransportError(.connectionLost, "transfer closed with 9000 bytes remaining to read"), nil] {
            let transport = InMemoryTransport { _ in .init(status: 200, headers: Self.jsonAPI, chunks: [cut], failure: failure) }
            await #expect {
                _ = try await Transports.client(transport).graph("articles")
            } throws: { error in
                guard case JSONAPIClientError.invalidDocument(let url, let e) = error else { return false }
                return url.path == "/articles" && e.diagnostic?.rule == .J09 && e.diagnostic?.location.offset == 4000
            }
            #expect(transport.requests.count == 1, "bytes had reached the parser: a retry would feed them twice")
        }
    }
}

extension EndToEnd {
    @Suite struct VerboseFetch {
        @Test func verboseLogsToStandardErrorWithoutCredentials() async throws {
            let s = try OriginServers()
            let start = "\(s.a)/redirect?to=\(queryValue("/doc?id=moved"))"
            let r = try jsonapi(["fetch", start, "-vv", "-H", "Authorization: Bearer s3cret", "--format", "ndjson"])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("jsonapi: debug: GET \(start)"), "\(r.stderr)")
            #expect(r.stderr.contains("jsonapi: debug: following the 302 redirect to \(s.a)/doc?id=moved"), "\(r.stderr)")
            #expect(r.stderr.contains("jsonapi: info: page 1 read"), "\(r.stderr)")
            #expect(r.stderr.contains("Authorization: <redacted>"), "\(r.stderr)")
            #expect(!r.stderr.contains("s3cret"))
            let quiet = try jsonapi(["fetch", start, "--format", "ndjson"])
            #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
        }
    }
}
