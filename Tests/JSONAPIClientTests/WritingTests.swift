import Foundation
import JSONAPIStream
import Testing
@testable import JSONAPIClient

extension EndToEnd {
    @Suite struct Writing {
        @Test func createUpdateDeleteRoundTrip() async throws {
            let client = try testClient()
            let name = uniqueName("round-trip")
            var tag = EditableResource(type: "tags", lid: "new-tag")
            tag["name"] = .string(name)
            let created = try #require(try await client.create(tag), "the server returned no document for a create")
            let id = try #require(created.id)
            #expect(created.type == "tags")
            #expect(created.attributes["name"]?.string == name)

            var edit = EditableResource(editing: created)
            edit["name"] = .string(name + "-renamed")
            let updated = try #require(try await client.update(edit))
            #expect(updated.attributes["name"]?.string == name + "-renamed")
            let read = try await client.resource(type: "tags", id: id)
            #expect(read.attributes["name"]?.string == name + "-renamed")

            try await client.delete(type: "tags", id: id)
            await #expect(throws: JSONAPIClientError.self) { _ = try await client.resource(type: "tags", id: id) }
            do {
                _ = try await client.resource(type: "tags", id: id)
            } catch let error as JSONAPIClientError {
                #expect(error.status == 404)
                #expect(error.errorObjects.first?.code == "not_found")
            }
        }

        @Test func createWithRelationshipsThenChangeThem() async throws {
            let client = try testClient()
            var article = EditableResource(type: "articles", lid: "a1")
            article["title"] = .string(uniqueName("With relationships"))
            article["body"] = "Body"
            article["rating"] = 3
            article["published_at"] = "2025-01-02T03:04:05Z"
            article.setRelationship("author", .toOne(ResourceIdentifier(type: "authors", id: "7")))
            article.setRelationship("tags", .toMany([ResourceIdentifier(type: "tags", id: "1"), ResourceIdentifier(type: "tags", id: "2")]))
            let created = try #require(try await client.create(article, query: JSONAPIQuery().including("author")))
            let id = try #require(created.id)
            #expect(created.relationship("author")?.identifiers == [ResourceIdentifier(type: "authors", id: "7")])
            #expect(created.relationship("author")?.resource?.attributes["name"]?.string == "Author 7")
            #expect(created.relationship("tags")?.identifiers.compactMap(\.id) == ["1", "2"])

            try await client.updateRelationship("tags", of: ResourceIdentifier(type: "articles", id: id), to: .toMany([ResourceIdentifier(type: "tags", id: "5")]))
            let read = try await client.resource(type: "articles", id: id)
            #expect(read.relationship("tags")?.identifiers.compactMap(\.id) == ["5"])

            var editor = GraphEditor(read.graph)
            var change = EditableResource(editing: read)
            change["rating"] = 5
            try editor.update(change)
            let results = try await client.send(editor)
            #expect(results.count == 1)
            #expect(results.first??.attributes["rating"]?.number?.intValue == 5)
            try await client.delete(ResourceIdentifier(type: "articles", id: id))
        }

        @Test func anErrorDocumentBecomesATypedErrorWithItsMembers() async throws {
            let client = try testClient()
            var article = EditableResource(type: "articles")
            article["title"] = ""
            article["rating"] = 9
            do {
                _ = try await client.create(article)
                Issue.record("an invalid article was accepted")
            } catch JSONAPIClientError.server(let error) {
                #expect(error.status == 400)
                #expect(error.method == "POST")
                #expect(error.attempts == 1)
                let title = try #require(error.errors.first { $0.sourcePointer == "/data/attributes/title" })
                #expect(title.status == "400")
                #expect(title.code == "blank")
                #expect(title.detail == "This field may not be blank.")
                let rating = try #require(error.errors.first { $0.sourcePointer == "/data/attributes/rating" })
                #expect(rating.code == "out_of_range")
                #expect(rating.detail == "rating must be between 0 and 5")
                #expect(error.errors.contains { $0.sourcePointer == "/data/relationships/author" })
                #expect(error.description.contains("HTTP 400 from POST"))
            }
        }

        @Test func anInvalidRequestDocumentIsNeverSent() async throws {
            let log = ResponseLog()
            let client = try testClient(log: log)
            let edit = EditableResource(type: "tags")  // no id: not an update
            await #expect(throws: JSONAPIClientError.self) { _ = try await client.update(edit) }
            var bad = EditableResource(type: "tags", id: "1")
            bad["bad name!"] = 1
            do {
                _ = try await client.update(bad)
                Issue.record("a member name the spec forbids was sent")
            } catch JSONAPIClientError.invalidRequest(let message) {
                #expect(message.contains("bad name!"))
            }
            #expect(log.all.isEmpty)
        }
    }
}
