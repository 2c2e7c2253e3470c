import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Testing
@testable import JSONAPIClient

extension EndToEnd {
    /// Spine's conveniences against the test server: find by ids, next and previous pages.
    @Suite struct Finding {
        @Test(arguments: [IDLookup.filter(op: "in", batchSize: 2), .oneByOne(concurrency: 2)])
        func resourcesByIDInTheOrderAsked(_ lookup: IDLookup) async throws {
            let log = LogCapture()
            let client = try testClient { $0.logger = log.logger(.warning) }
            let query = JSONAPIQuery().filterStrategy(.dotted).including("author")
            let found = try await client.resources(type: "articles", ids: ["5", "3", "999999", "3", "1"], query: query, lookup: lookup)
            #expect(found.map(\.id) == ["5", "3", "1"])
            #expect(found.allSatisfy { $0.relationship("author")?.resource != nil })
            #expect(log.contains(.warning, "the server returned no articles resource for 1 of the 4 ids asked for"))
            #expect(log.all.first?.metadata["missing"]?.description == "999999")
            #expect(try await client.resources(type: "articles", ids: []).isEmpty)
        }

        @Test func nextAndPreviousPagesFromTheLinks() async throws {
            let client = try testClient()
            let second = try await client.graph("articles", query: JSONAPIQuery().page(.number(2, size: 5)))
            #expect(ids(second.primary) == [6, 7, 8, 9, 10])
            let third = try #require(try await client.nextPage(after: second))
            #expect(ids(third.primary) == [11, 12, 13, 14, 15])
            let first = try #require(try await client.previousPage(before: second))
            #expect(ids(first.primary) == [1, 2, 3, 4, 5])
            #expect(try await client.previousPage(before: first) == nil)
            let pages = try #require(second.documents.first?.meta?["pagination"]?["pages"]?.number?.intValue)
            let last = try await client.graph("articles", query: JSONAPIQuery().page(.number(pages, size: 5)))
            #expect(try await client.nextPage(after: last) == nil)
        }
    }
}

extension Transports {
    @Test func loadAsksOnceAndReloadAlways() async throws {
        let transport = InMemoryTransport { request in
            let id = request.url?.lastPathComponent ?? ""
            let body = #"{"data":{"type":"articles","id":"\#(id)","attributes":{"title":"T"}}}"#
            return .init(status: 200, headers: Self.jsonAPI, body: Array(body.utf8))
        }
        let client = Self.client(transport)
        let a = try await client.load(type: "articles", id: "1")
        let b = try await client.load(type: "articles", id: "1")
        #expect(a.id == "1" && b.id == "1")
        #expect(transport.requests.count == 1)
        _ = try await client.load(type: "articles", id: "1", query: JSONAPIQuery().including("author"))
        #expect(transport.requests.count == 2, "another query is another entry")
        _ = try await client.reload(type: "articles", id: "1")
        #expect(transport.requests.count == 3)
        try await client.delete(type: "articles", id: "1")
        _ = try await client.load(type: "articles", id: "1")
        #expect(transport.requests.count == 5, "a deleted resource is not served from the cache")
        let none = Self.client(transport) { $0.identityCacheLimit = 0 }
        _ = try await none.load(type: "articles", id: "2")
        _ = try await none.load(type: "articles", id: "2")
        #expect(transport.requests.count == 7)
    }
}
