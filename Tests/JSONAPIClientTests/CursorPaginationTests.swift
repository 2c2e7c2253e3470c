import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Testing
@testable import JSONAPIClient

extension EndToEnd {
    /// The Cursor Pagination profile against the test server's `/cursor/articles` (issue 21,
    /// item 9): page[size], page[after], page[before], forwards and backwards, the profile's
    /// errors, and a max-size-exceeded retried once at the size the server allows.
    @Suite struct CursorProfile {
        @Test func aCrawlFollowsNextForwardsAndPrevBackwards() async throws {
            let client = try testClient()
            let query = JSONAPIQuery().page(.cursorProfile(size: 100))
            let forwards = try await client.graph("cursor/articles", query: query, pages: .all())
            let seen = ids(forwards.primary)
            #expect(seen.count == 2500 && isStrictlyIncreasing(seen))
            #expect(forwards.primary.allSatisfy { $0.pageCursor != nil })
            #expect(CursorPagination.Page(forwards.documents.last?.meta).estimatedTotal == 2500)

            // From before the last item, backwards: pages in descending order, each ascending.
            let last = try #require(forwards.primary.last?.pageCursor)
            let backwards = try await client.graph(
                "cursor/articles", query: JSONAPIQuery().page(.cursorProfile(size: 100, before: last)), pages: .all(backwards: true))
            let back = ids(backwards.primary)
            #expect(back.count == 2499)
            #expect(Array(back.prefix(3)) == [2400, 2401, 2402])
            #expect(Array(back.suffix(2)) == [98, 99])  // the last page: the 99 items before 100
            #expect(Set(back) == Set(1...2499))

            // One page after a cursor.
            let after = try await client.graph("cursor/articles", query: JSONAPIQuery().page(.cursorProfile(size: 3, after: forwards.primary[9].pageCursor)))
            #expect(ids(after.primary) == [11, 12, 13])
        }

        @Test func theProfilesErrorsComeBackTyped() async throws {
            let client = try testClient()
            func failure(_ query: JSONAPIQuery) async -> [CursorPaginationError] {
                do {
                    _ = try await client.graph("cursor/articles", query: query)
                    return []
                } catch let error as JSONAPIClientError {
                    #expect(error.status == 400)
                    return error.cursorPaginationErrors
                } catch {
                    return []
                }
            }
            #expect(await failure(JSONAPIQuery().page(.cursorProfile(size: 5, after: "YXJ0aWNsZTox", before: "YXJ0aWNsZToz"))) == [.rangePaginationNotSupported])
            #expect(await failure(JSONAPIQuery().page(.cursorProfile(size: 0))) == [.invalidParameterValue(parameter: "page[size]")])
            #expect(await failure(JSONAPIQuery().page(.cursorProfile(after: "not a cursor"))) == [.invalidParameterValue(parameter: "page[after]")])
            #expect(await failure(JSONAPIQuery().sorted(by: "-title")) == [.unsupportedSort])
        }

        @Test func aPageTooLargeIsAskedForAgainAtTheSizeTheServerAllows() async throws {
            let log = LogCapture()
            let responses = ResponseLog()
            let client = try testClient(log: responses) { $0.logger = log.logger(.warning) }
            let graph = try await client.graph("cursor/articles", query: JSONAPIQuery().page(.cursorProfile(size: 500)), pages: .all(maxPages: 3))
            #expect(ids(graph.primary) == Array(1...300))
            #expect(responses.statuses == [400, 200, 200, 200])
            #expect(log.contains(.warning, "the server allows at most 100 items per page (max-size-exceeded); asking again with page[size]=100"))
            // Once only: a server that keeps refusing fails the crawl.
            let stubborn = InMemoryTransport { _ in
                .init(
                    status: 400, headers: Transports.jsonAPI,
                    body: Array(
                        #"{"errors":[{"status":"400","links":{"type":"\#(CursorPagination.profile)/max-size-exceeded"},"meta":{"page":{"maxSize":10}}}]}"#.utf8))
            }
            let other = Transports.client(stubborn)
            await #expect(throws: JSONAPIClientError.self) {
                _ = try await other.graph("articles", query: JSONAPIQuery().page(.cursorProfile(size: 50)))
            }
            #expect(stubborn.requests.map { $0.url?.query ?? "" } == ["page%5Bsize%5D=50", "page%5Bsize%5D=10"])
        }

        /// The README's cursor crawl, run as written there, prints what the README shows.
        @Test func theReadmeExamplePrintsWhatTheReadmeShows() async throws {
            let testServer = try TestServer.url
            let client = JSONAPIClient(baseURL: testServer)
            let query = JSONAPIQuery().page(.cursorProfile(size: 500))  // more than the server's maxSize
            let graph = try await client.graph("cursor/articles", query: query, pages: .all(maxPages: 2))
            let page = CursorPagination.Page(graph.documents.last?.meta)
            let printed = "\(graph.primary.count) \(graph.primary.last?.pageCursor ?? "-") \(page.estimatedTotal ?? 0)"
            let readme = try String(contentsOf: TestServer.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
            #expect(readme.contains("print(graph.primary.count, graph.primary.last?.pageCursor ?? \"-\", page.estimatedTotal ?? 0)\n// \(printed)\n"))
            #expect(readme.contains("let graph = try await client.graph(\"cursor/articles\", query: query, pages: .all(maxPages: 2))"))
        }
    }
}
