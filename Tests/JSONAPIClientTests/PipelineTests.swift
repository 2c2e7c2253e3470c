import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Testing
@testable import JSONAPIClient

/// Request preparers, response processors and request defaults (issue 20, item 4), over an
/// in-memory transport.
@Suite struct Pipeline {
    static let ok = InMemoryTransport.Reply(status: 200, headers: Transports.jsonAPI, body: Transports.document(2))

    struct Maintenance: Error, Equatable { var minutes: Int }

    @Test func preparersRunInOrderAfterTheHeadersAndDefaults() async throws {
        let transport = InMemoryTransport { _ in Self.ok }
        let tokens = ResponseLog.Values()
        let client = Transports.client(transport) {
            $0.headers = ["X-Api-Key": "k"]
            $0.defaults = RequestDefaults(headers: ["Accept-Language": "fr", "X-Trace": "default"], queryItems: [QueryItem("api_version", "2")])
            $0.methodDefaults["GET"] = RequestDefaults(queryItems: [QueryItem("include", "author")])
            $0.methodDefaults["POST"] = RequestDefaults(headers: ["X-Post-Only": "1"])
            $0.requestPreparers = [
                .bearerToken {
                    tokens.add(1)
                    return "token-\(tokens.all.count)"
                },
                RequestPreparer("trace") { request in
                    // Runs second: sees the defaults and the token.
                    let seen = [request.value(forHTTPHeaderField: "X-Trace"), request.value(forHTTPHeaderField: "Authorization")]
                    request.setValue(seen.map { $0 ?? "-" }.joined(separator: "+"), forHTTPHeaderField: "X-Trace")
                },
            ]
        }
        _ = try await client.graph("articles", query: JSONAPIQuery().parameter("api_version", "3"))
        _ = try await client.graph("articles")
        let first = try #require(transport.requests.first)
        #expect(first.value(forHTTPHeaderField: "Authorization") == "Bearer token-1")
        #expect(first.value(forHTTPHeaderField: "X-Trace") == "default+Bearer token-1")
        #expect(first.value(forHTTPHeaderField: "Accept-Language") == "fr")
        #expect(first.value(forHTTPHeaderField: "X-Post-Only") == nil)
        // The request's own api_version stays; what it lacks is added.
        #expect(first.url?.query == "api_version=3&include=author")
        #expect(transport.requests.last?.url?.query == "include=author&api_version=2")
        #expect(transport.requests.last?.value(forHTTPHeaderField: "Authorization") == "Bearer token-2")
    }

    @Test func defaultsStayWithTheOrigin() async throws {
        let transport = InMemoryTransport { request in
            if request.url?.host == "api.example.com" {
                return .init(status: 200, headers: Transports.jsonAPI, body: Array(#"{"data":[],"links":{"next":"https://other.example.com/articles?page=2"}}"#.utf8))
            }
            return .init(status: 200, headers: Transports.jsonAPI, body: Array(#"{"data":[]}"#.utf8))
        }
        let client = Transports.client(transport) {
            $0.crossOrigin = .followWithoutCredentials
            $0.headers = ["Accept": "application/vnd.api+json; ext=\"https://jsonapi.org/ext/atomic\""]
            $0.defaults = RequestDefaults(headers: ["X-Api-Key": "k"], queryItems: [QueryItem("api_key", "k")])
        }
        _ = try await client.graph("articles", pages: .all())
        let (home, other) = (transport.requests[0], transport.requests[1])
        // A configured Accept replaces the client's own (it used to be dropped).
        #expect(home.value(forHTTPHeaderField: "Accept") == "application/vnd.api+json; ext=\"https://jsonapi.org/ext/atomic\"")
        #expect(home.value(forHTTPHeaderField: "X-Api-Key") == "k")
        #expect(home.url?.query == "api_key=k")
        #expect(other.url?.absoluteString == "https://other.example.com/articles?page=2")
        #expect(other.value(forHTTPHeaderField: "X-Api-Key") == nil)
        #expect(other.value(forHTTPHeaderField: "Accept") == "application/vnd.api+json")
    }

    @Test func processorsChangeRetryAndReject() async throws {
        // A server that sends JSON:API as text/plain, and says "maintenance" in a header.
        let calls = ResponseLog.Values()
        let transport = InMemoryTransport { _ in
            calls.add(1)
            let maintenance = calls.all.count == 1 ? "1" : "0"
            return .init(status: 200, headers: ["Content-Type": "text/plain", "X-Maintenance": maintenance], body: Transports.document(3))
        }
        let order = ResponseLog.Values()
        let fixType = ResponseProcessor("fix content type") { response, _ in
            order.add(1)
            var fixed = response
            fixed.headers["content-type"] = "application/vnd.api+json"
            return .proceed(fixed)
        }
        let maintenance = ResponseProcessor("maintenance") { response, _ in
            order.add(2)
            #expect(response.headers["content-type"] == "application/vnd.api+json", "the change of the processor before")
            return response.headers["x-maintenance"] == "1" ? .retry(after: 0) : .proceed(response)
        }
        let graph = try await Transports.client(transport) { $0.responseProcessors = [fixType, maintenance] }.graph("articles")
        #expect(graph.primary.count == 3)
        #expect(transport.requests.count == 2)
        #expect(order.all == [1, 2, 1, 2])

        // Asked again until no attempt is left.
        let always = ResponseProcessor("always") { _, _ in .retry(after: 0) }
        let stubborn = Transports.client(InMemoryTransport { _ in Self.ok }) {
            $0.responseProcessors = [always]
            $0.retry.maxAttempts = 3
        }
        await #expect {
            _ = try await stubborn.graph("articles")
        } throws: { error in
            guard case JSONAPIClientError.rejected(_, let name, let reason) = error else { return false }
            return name == "always" && reason.contains("asked for a retry 3 times")
        }

        // Refused with the user's own error, returned or thrown.
        for reject in [
            ResponseProcessor("down") { _, _ in .reject(Maintenance(minutes: 5)) },
            ResponseProcessor("down") { _, _ in throw Maintenance(minutes: 5) },
        ] {
            let client = Transports.client(InMemoryTransport { _ in Self.ok }) { $0.responseProcessors = [reject] }
            await #expect(throws: Maintenance(minutes: 5)) { _ = try await client.graph("articles") }
        }
    }
}
