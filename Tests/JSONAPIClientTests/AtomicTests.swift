import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Testing
@testable import JSONAPIClient

extension EndToEnd {
    /// Atomic Operations against the test server's `/operations` (issue 21, item 8).
    @Suite struct Atomic {
        /// A new author, `a1`, with a name no other test uses.
        static func newAuthor(_ name: String) -> EditableResource {
            var author = EditableResource(type: "authors", lid: "a1")
            author["name"] = .string(name)
            author["email"] = .string("\(name)@example.com")
            return author
        }

        @Test func operationsLinkedByLidsRunTogetherAndTheirIdsComeBack() async throws {
            let client = try testClient()
            let author = Self.newAuthor(uniqueName("ada"))
            var article = EditableResource(type: "articles", lid: "r1")
            article["title"] = "Notes"
            article["body"] = "On the engine"
            article["rating"] = 5
            article["published_at"] = "2026-11-26T08:00:00Z"
            article.setRelationship("author", .toOne(author.identifier))
            var retitled = EditableResource(type: "articles", lid: "r1")
            retitled["title"] = "Notes, revised"
            var operations = AtomicOperations()
            try operations.add(author)
            try operations.add(article)
            try operations.update(retitled)
            operations.addToRelationship("tags", of: ResourceIdentifier(type: "articles", id: nil, lid: "r1"), [ResourceIdentifier(type: "tags", id: "3")])
            let results = try await client.send(operations)
            #expect(results.results.count == 4)
            let authorID = try #require(results.ids["a1"])
            let articleID = try #require(results.ids["r1"])
            #expect(results.results[2].resource?.attributes["title"]?.string == "Notes, revised")
            #expect(results.results[3].resource == nil)

            let stored = try await client.resource(type: "articles", id: articleID)
            #expect(stored.attributes["title"]?.string == "Notes, revised")
            #expect(stored.relationship("author")?.identifiers.first?.id == authorID)
            #expect(stored.relationship("tags")?.identifiers.map(\.id) == ["3"])

            // Removing both: no data comes back (204).
            var removal = AtomicOperations()
            removal.remove(ResourceIdentifier(type: "articles", id: articleID))
            removal.remove(ResourceIdentifier(type: "authors", id: authorID))
            let none = try await client.send(removal)
            #expect(none.results.isEmpty)
            await #expect(throws: JSONAPIClientError.self) { _ = try await client.resource(type: "articles", id: articleID) }
        }

        @Test func aFailingOperationUndoesTheOthersAndSaysWhichItWas() async throws {
            let client = try testClient()
            let name = uniqueName("undone")
            let author = Self.newAuthor(name)
            var missing = EditableResource(type: "articles", id: "99999999")
            missing["title"] = "nobody"
            var operations = AtomicOperations()
            try operations.add(author)
            try operations.update(missing)
            do {
                _ = try await client.send(operations)
                Issue.record("no error for an update of a missing article")
            } catch let error as JSONAPIClientError {
                #expect(error.status == 404)
                #expect(error.errorObjects.first?.source?.pointer == "/atomic:operations/1/data")
            }
            let query = JSONAPIQuery().filter(Filter("name", name))
            let authors = try await client.graph("authors", query: query)
            #expect(authors.primary.isEmpty, "the author added by operation 0 was not rolled back")
        }

        @Test func theExtensionMediaTypeIsSentAndRequired() async throws {
            let seen = ResponseLog()
            let types = Strings()
            let client = try testClient(log: seen) {
                $0.requestPreparers = [
                    RequestPreparer("record") { request in
                        types.add("\(request.value(forHTTPHeaderField: "Content-Type") ?? "-") | \(request.value(forHTTPHeaderField: "Accept") ?? "-")")
                    }
                ]
            }
            var operations = AtomicOperations()
            operations.remove(ResourceIdentifier(type: "tags", id: "999999"))
            await #expect {
                _ = try await client.send(operations)
            } throws: { error in
                (error as? JSONAPIClientError)?.status == 404
            }
            // Without the ext parameter the server refuses the document.
            await #expect {
                _ = try await client.send("POST", client.url("operations"), body: operations.document())
            } throws: { error in
                (error as? JSONAPIClientError)?.status == 415
            }
            #expect(seen.statuses == [404, 415])
            let ext = AtomicOperations.mediaType
            #expect(types.all == ["\(ext) | \(ext)", "application/vnd.api+json | application/vnd.api+json"])
        }

        /// The README's atomic request, run as written there against the test server, prints
        /// what the README shows.
        @Test func theReadmeExamplePrintsWhatTheReadmeShows() async throws {
            let client = try testClient()
            var author = EditableResource(type: "authors", lid: "a1")
            author["name"] = "Ada"
            author["email"] = "ada@example.com"
            var article = EditableResource(type: "articles", lid: "r1")
            article["title"] = "Notes"
            article["body"] = "On the engine"
            article["rating"] = 5
            article["published_at"] = "2026-11-26T08:00:00Z"
            article.setRelationship("author", .toOne(author.identifier))  // {"type":"authors","lid":"a1"}
            var operations = AtomicOperations()
            try operations.add(author)
            try operations.add(article)
            let results = try await client.send(operations)  // one request: all or none
            let printed = "\(results.results.count) \(results.ids.keys.sorted()) \(results.results[1].resource?.attributes["title"]?.string ?? "")"
            let readme = try String(contentsOf: TestServer.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
            #expect(readme.contains("?? \"\")\n// \(printed)\n"), "\(printed)")
            #expect(readme.contains("let results = try await client.send(operations)"))
            var cleanup = AtomicOperations()
            for (lid, type) in [("r1", "articles"), ("a1", "authors")] {
                cleanup.remove(ResourceIdentifier(type: type, id: try #require(results.ids[lid])))
            }
            _ = try await client.send(cleanup)
        }

        /// Strings recorded from any thread.
        final class Strings: @unchecked Sendable {
            private let lock = NSLock()
            private var values: [String] = []
            func add(_ value: String) { lock.withLock { values.append(value) } }
            var all: [String] { lock.withLock { values } }
        }
    }
}
