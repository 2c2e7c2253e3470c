import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Testing
@testable import JSONAPIClient

/// Everything against the real server (TestServer/: Django + djangorestframework-jsonapi on
/// SQLite, seeded with 120 authors, 40 tags, 2,500 articles and 5,000 comments), one test at
/// a time: a crawl counts what it reads against the server's own count, which a create
/// running beside it would change.
@Suite(.testServer, .serialized)
struct EndToEnd {}

/// Response heads seen by a client, in order.
final class ResponseLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ResponseEvent] = []
    func record(_ e: ResponseEvent) { lock.withLock { events.append(e) } }
    var all: [ResponseEvent] { lock.withLock { events } }
    var statuses: [Int] { all.map(\.status) }
}

/// A client of the test server.
func testClient(
    log: ResponseLog? = nil, _ configure: (inout JSONAPIClient.Configuration) -> Void = { _ in }
) throws -> JSONAPIClient {
    var c = JSONAPIClient.Configuration()
    c.timeout = 120
    if let log { c.observeResponse = { log.record($0) } }
    configure(&c)
    return JSONAPIClient(baseURL: try TestServer.url, configuration: c)
}

func ids(_ resources: [Resource]) -> [Int] { resources.compactMap { $0.id.flatMap { Int($0) } } }

func isStrictlyIncreasing(_ values: [Int]) -> Bool { zip(values, values.dropFirst()).allSatisfy { $0 < $1 } }

/// A name no other test run uses.
func uniqueName(_ prefix: String) -> String { "\(prefix)-\(UUID().uuidString.prefix(8))" }

extension EndToEnd {
    @Suite struct Reading {
        @Test func onePageWithIncludeAndSparseFieldsets() async throws {
            let client = try testClient()
            let query = JSONAPIQuery()
                .including("author")
                .fields("articles", "title", "author")
                .fields("authors", "name")
                .page(.number(2, size: 5))
            let graph = try await client.graph("articles", query: query)
            #expect(graph.documents.count == 1)
            #expect(graph.primary.count == 5)
            #expect(isStrictlyIncreasing(ids(graph.primary)))
            for article in graph.primary {
                #expect(article.attributes.keys == ["title"])
                #expect(article.relationships.map(\.name) == ["author"])
                let author = try #require(article.relationship("author")?.resource, "author of \(article) not included")
                #expect(author.type == "authors")
                #expect(author.attributes.keys == ["name"])
            }
            #expect(graph.resources(ofType: "authors").count >= 1)
            let next = try #require(graph.links?["next"]?.string)
            #expect(next.contains("page%5Bnumber%5D=3"))
        }

        @Test func oneResourceWithItsIncludedRelationships() async throws {
            let client = try testClient()
            let article = try await client.resource(type: "articles", id: "3", query: JSONAPIQuery().including("tags", "comments"))
            #expect(article.id == "3")
            #expect(article.attributes["title"]?.string?.hasPrefix("Article 3:") == true)
            let tags = try #require(article.relationship("tags"))
            #expect(tags.resources.allSatisfy { $0?.type == "tags" })
        }

        @Test func everyPageIntoOneGraphInOrder() async throws {
            let log = ResponseLog()
            let client = try testClient(log: log)
            let url = try client.url("articles", query: JSONAPIQuery().including("author").page(.number(1, size: 100)))
            let graph = try await client.graph(at: url, pages: .all(concurrency: 4))
            let count = try #require(graph.documents.first?.meta?["pagination"]?["count"]?.number?.intValue)
            let pages = try #require(graph.documents.first?.meta?["pagination"]?["pages"]?.number?.intValue)
            #expect(count >= 2500)
            #expect(graph.primary.count == count)
            #expect(graph.resources(ofType: "articles").count == count)
            #expect(graph.documents.count == pages)
            #expect(isStrictlyIncreasing(ids(graph.primary)), "pages merged out of order")
            #expect(Set(graph.primary.compactMap(\.id)).count == count)
            #expect(graph.primary.allSatisfy { $0.relationship("author")?.resource != nil })
            #expect(log.statuses.allSatisfy { $0 == 200 })
        }

        @Test func concurrentAndSequentialCrawlsAgree() async throws {
            let client = try testClient()
            let url = try client.url("articles", query: JSONAPIQuery().fields("articles", "title").page(.number(1, size: 250)))
            let sequential = try await client.graph(at: url, pages: .all(concurrency: 1))
            let concurrent = try await client.graph(at: url, pages: .all(concurrency: 6))
            #expect(sequential.primary.count == concurrent.primary.count)
            #expect(sequential.primary.compactMap(\.id) == concurrent.primary.compactMap(\.id))
            #expect(sequential.primary.map { $0.attributes["title"]?.string } == concurrent.primary.map { $0.attributes["title"]?.string })
        }

        @Test func offsetPagesFetchedAhead() async throws {
            let client = try testClient()
            let url = try client.url("comments", query: JSONAPIQuery().page(.offset(0, limit: 500)))
            let parser = GraphParser()
            let report = try await client.fetch(url, pages: .all(concurrency: 3), into: parser)
            let graph = try parser.finish()
            let count = try #require(graph.documents.first?.meta?["pagination"]?["count"]?.number?.intValue)
            #expect(graph.primary.count == count)
            #expect(isStrictlyIncreasing(ids(graph.primary)))
            #expect(report.pages == graph.documents.count)
            #expect(report.resources == count)
            #expect(report.requests >= report.pages)
            #expect(report.lastDocument?.link("next") == nil)
            #expect(!report.truncated)
        }

        @Test func cursorPagesOneAfterAnother() async throws {
            let log = ResponseLog()
            let client = try testClient(log: log)
            let url = try client.url("authors", query: JSONAPIQuery().page(.cursor(nil, size: 25)))
            let parser = GraphParser()
            let report = try await client.fetch(url, pages: .all(concurrency: 4), into: parser)
            let graph = try parser.finish()
            #expect(graph.primary.count == 120)
            #expect(ids(graph.primary) == Array(1...120))
            #expect(report.pages == 5)
            #expect(report.requests == 5, "cursor pages cannot be fetched ahead")
            #expect(log.all.count == 5)
        }

        @Test func maxPagesStopsTheCrawl() async throws {
            let client = try testClient()
            let url = try client.url("articles", query: JSONAPIQuery().page(.number(1, size: 10)))
            let parser = GraphParser()
            let report = try await client.fetch(url, pages: .all(maxPages: 3, concurrency: 4), into: parser)
            #expect(report.pages == 3)
            #expect(report.truncated)
            #expect(try parser.finish().primary.count == 30)
        }

        @Test func everyPageToNDJSONThroughTheNormalizer() async throws {
            let client = try testClient()
            let url = try client.url("articles", query: JSONAPIQuery().page(.number(1, size: 500)))
            let out = ByteWriter()
            let normalizer = Normalizer(format: .ndjson, out: out)
            let progress = ResponseLog()
            _ = progress
            let report = try await client.fetch(url, pages: .all(), into: normalizer)
            try normalizer.finish()
            let lines = out.string.split(separator: "\n")
            let documents = lines.filter { $0.hasPrefix(#"{"document":"#) }
            #expect(documents.count == report.pages)
            #expect(lines.count - documents.count == report.resources)
            #expect(report.resources >= 2500)
            #expect(report.bytes > 0)
        }

        @Test func filtersAndSortAgainstTheServer() async throws {
            let client = try testClient()
            let query = JSONAPIQuery()
                .filter("rating", op: "in", "4", "5")
                .filterStrategy(.dotted)
                .sorted(by: "-rating", "id")
                .fields("articles", "rating")
                .page(.number(1, size: 200))
            let graph = try await client.graph("articles", query: query)
            let ratings = graph.primary.compactMap { $0.attributes["rating"]?.number?.intValue }
            #expect(ratings.count == 200)
            #expect(ratings.allSatisfy { $0 == 4 || $0 == 5 })
            #expect(ratings == ratings.sorted(by: >))
            let fives = graph.primary.filter { $0.attributes["rating"]?.number?.intValue == 5 }
            #expect(isStrictlyIncreasing(ids(fives)))
        }

        @Test func reservedCharactersReachTheServerIntact() async throws {
            let client = try testClient()
            let name = uniqueName("a&b=c+d #1%[x] 東京;é")
            var tag = EditableResource(type: "tags")
            tag["name"] = .string(name)
            let created = try #require(try await client.create(tag))
            for strategy in [FilterStrategy.brackets, .dotted] {
                let graph = try await client.graph("tags", query: JSONAPIQuery().filter("name", name).filterStrategy(strategy))
                #expect(graph.primary.map(\.id) == [created.id])
                #expect(graph.primary.first?.attributes["name"]?.string == name)
            }
            let none = try await client.graph("tags", query: JSONAPIQuery().filter("name", name + "x"))
            #expect(none.primary.isEmpty)
            let partial = try await client.graph("tags", query: JSONAPIQuery().filter("name", op: "icontains", "+d #1%[x] 東京;").filterStrategy(.dotted))
            #expect(partial.primary.contains { $0.id == created.id })
            try await client.delete(type: "tags", id: try #require(created.id))
        }
    }
}
