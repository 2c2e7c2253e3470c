import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Testing
@testable import JSONAPIClient

extension EndToEnd {
    @Suite struct Failures {
        @Test func aMissingResourceIsAServerError() async throws {
            let client = try testClient()
            do {
                _ = try await client.resource(type: "articles", id: "999999")
                Issue.record("no error for a missing article")
            } catch JSONAPIClientError.server(let error) {
                #expect(error.status == 404)
                #expect(error.errors.first?.code == "not_found")
                #expect(error.errors.first?.detail == "No Article matches the given query.")
            }
        }

        @Test func anHTMLNotFoundIsAnHTTPError() async throws {
            let client = try testClient()
            do {
                _ = try await client.graph("no/such/path")
                Issue.record("no error for an unknown path")
            } catch JSONAPIClientError.http(let failure) {
                #expect(failure.status == 404)
                #expect(failure.contentType?.hasPrefix("text/html") == true)
                #expect(failure.excerpt.contains("Not Found"))
            }
        }

        @Test func anHTMLPageIsNotAJSONAPIDocument() async throws {
            let client = try testClient()
            do {
                _ = try await client.graph("test/html")
                Issue.record("an HTML page was read as a document")
            } catch JSONAPIClientError.notJSONAPI(let failure) {
                #expect(failure.status == 200)
                #expect(failure.contentType?.hasPrefix("text/html") == true)
                #expect(failure.excerpt.contains("<h1>Sign in</h1>"))
                #expect(JSONAPIClientError.notJSONAPI(failure).description.contains("not a JSON:API document"))
            }
        }

        @Test func plainJSONOnlyWhenAccepted() async throws {
            await #expect(throws: JSONAPIClientError.self) { _ = try await testClient().graph("test/plain-json") }
            let graph = try await testClient { $0.acceptsPlainJSON = true }.graph("test/plain-json")
            #expect(graph.meta?["plain"]?.bool == true)
        }

        @Test func aTruncatedBodyIsAnInvalidDocument() async throws {
            do {
                _ = try await testClient().graph("test/truncated")
                Issue.record("a truncated body was accepted")
            } catch JSONAPIClientError.invalidDocument(let url, let error) {
                #expect(url.path.hasSuffix("test/truncated"))
                #expect(error.diagnostic?.rule.isJSONRule == true)
            }
        }

        @Test func aClosedPortIsATransportError() async throws {
            let port = try closedPort()
            var c = JSONAPIClient.Configuration()
            c.retry = .none
            let client = JSONAPIClient(baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")), configuration: c)
            do {
                _ = try await client.graph("articles")
                Issue.record("no error for a closed port")
            } catch JSONAPIClientError.transport(_, let message, let attempts) {
                #expect(!message.isEmpty)
                #expect(attempts == 1)
            }
        }

        @Test func retriesA503HonouringRetryAfterSeconds() async throws {
            let log = ResponseLog()
            let client = try testClient(log: log)
            let key = uniqueName("503")
            let start = Date()
            let graph = try await client.graph("test/flaky", query: JSONAPIQuery().parameter("key", key).parameter("failures", "2").parameter("retry_after", "1"))
            #expect(Date().timeIntervalSince(start) >= 1.9, "Retry-After: 1 was not waited for twice")
            #expect(graph.meta?["attempts"]?.number?.intValue == 3)
            #expect(log.statuses == [503, 503, 200])
            #expect(log.all.map(\.attempt) == [1, 2, 3])
            #expect(log.all.first?.header("Retry-After") == "1")
        }

        @Test func retriesA429HonouringAnHTTPDate() async throws {
            let log = ResponseLog()
            let client = try testClient(log: log)
            let key = uniqueName("429")
            let graph = try await client.graph(
                "test/flaky",
                query: JSONAPIQuery().parameter("key", key).parameter("failures", "1")
                    .parameter("status", "429").parameter("retry_after", "1").parameter("date", "1"))
            #expect(graph.meta?["attempts"]?.number?.intValue == 2)
            #expect(log.statuses == [429, 200])
            #expect(log.all.first?.header("retry-after")?.hasSuffix("GMT") == true)
        }

        @Test func givesUpAfterTheLastAttempt() async throws {
            let log = ResponseLog()
            let client = try testClient(log: log) { $0.retry = RetryPolicy(maxAttempts: 3, baseDelay: 0.05) }
            let key = uniqueName("gives-up")
            do {
                _ = try await client.graph("test/flaky", query: JSONAPIQuery().parameter("key", key).parameter("failures", "10").parameter("retry_after", "none"))
                Issue.record("no error after the last attempt")
            } catch JSONAPIClientError.server(let error) {
                #expect(error.status == 503)
                #expect(error.attempts == 3)
                #expect(error.errors.first?.code == "try_later")
            }
            #expect(log.statuses == [503, 503, 503])
            let asked = try await client.graph("test/attempts", query: JSONAPIQuery().parameter("key", key))
            #expect(asked.meta?["attempts"]?.number?.intValue == 3)
        }

        @Test func aRetryAfterBeyondTheLimitFailsAtOnce() async throws {
            let log = ResponseLog()
            let client = try testClient(log: log) { $0.retry.maxRetryAfter = 30 }
            let start = Date()
            await #expect(throws: JSONAPIClientError.self) {
                _ = try await client.graph("test/flaky", query: JSONAPIQuery().parameter("key", uniqueName("long")).parameter("failures", "1").parameter("retry_after", "600"))
            }
            #expect(log.statuses == [503])
            #expect(Date().timeIntervalSince(start) < 30)
        }

        @Test func aSlowEndpointTimesOut() async throws {
            let client = try testClient {
                $0.timeout = 1; $0.retry = .none
            }
            let start = Date()
            do {
                _ = try await client.graph("test/slow", query: JSONAPIQuery().parameter("seconds", "10"))
                Issue.record("no timeout")
            } catch JSONAPIClientError.timedOut(let url, let seconds, let attempts) {
                #expect(url.path.hasSuffix("test/slow"))
                #expect(seconds == 1)
                #expect(attempts == 1)
            }
            #expect(Date().timeIntervalSince(start) < 9.5, "the timeout did not end the request")
        }

        @Test func cancellingTheTaskCancelsTheRequest() async throws {
            let client = try testClient()
            let start = Date()
            let task = Task { try await client.graph("test/slow", query: JSONAPIQuery().parameter("seconds", "20")) }
            try await Task.sleep(nanoseconds: 500_000_000)
            task.cancel()
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(Date().timeIntervalSince(start) < 15, "cancellation waited for the response")
        }

        @Test func cancellingACrawlStopsIt() async throws {
            let log = ResponseLog()
            let client = try testClient(log: log)
            // 1,000 pages of 5: far longer than the test waits.
            let url = try client.url("comments", query: JSONAPIQuery().page(.offset(0, limit: 5)))
            let bound = QueueBound(value: GraphParser())
            let start = Date()
            let task = Task { try await client.fetch(url, pages: .all(concurrency: 3), into: bound.value) }
            while log.all.count < 3 && Date().timeIntervalSince(start) < 60 { try await Task.sleep(nanoseconds: 50_000_000) }
            task.cancel()
            let result = await task.result
            #expect(throws: CancellationError.self) { try result.get() }
            let seen = log.all.count
            try await Task.sleep(nanoseconds: 1_000_000_000)
            #expect(log.all.count <= seen + 3, "requests went on after the cancellation")
            #expect(seen < 1000)
        }

        @Test func notModifiedIsAnsweredFromTheCache() async throws {
            let log = ResponseLog()
            let prepared = ResponseLog()
            let client = try testClient(log: log) { c in
                c.prepareRequest = { request in
                    request.setValue("Bearer test-token", forHTTPHeaderField: "Authorization")
                    prepared.record(
                        ResponseEvent(
                            method: request.httpMethod ?? "", url: request.url ?? URL(fileURLWithPath: "/"), status: 0,
                            headers: ["if-none-match": request.value(forHTTPHeaderField: "If-None-Match") ?? ""],
                            attempt: 0, seconds: 0))
                }
            }
            let first = try await client.resource(type: "articles", id: "11", query: JSONAPIQuery().including("author"))
            let second = try await client.resource(type: "articles", id: "11", query: JSONAPIQuery().including("author"))
            #expect(log.statuses == [200, 304])
            let etag = try #require(log.all.first?.header("ETag"))
            // The cache adds its validator after the preparers (their credentials choose the
            // entry): they never see it, and the server's 304 shows it was sent.
            #expect(!etag.isEmpty)
            #expect(prepared.all.map { $0.header("if-none-match") } == ["", ""])
            #expect(first.attributes.jsonText == second.attributes.jsonText)
            #expect(second.relationship("author")?.resource?.attributes["name"] != nil)
            #expect(client.configuration.cache?.count == 1)
        }

        @Test func aFailingPrepareHookFailsTheCall() async throws {
            struct NoToken: Error {}
            let client = try testClient { $0.prepareRequest = { _ in throw NoToken() } }
            await #expect(throws: NoToken.self) { _ = try await client.graph("articles") }
        }
    }
}

/// A loopback port nothing listens on.
func closedPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
    }
    guard bound else { throw POSIXError(.EADDRNOTAVAIL) }
    return Int(UInt16(bigEndian: address.sin_port))
}
