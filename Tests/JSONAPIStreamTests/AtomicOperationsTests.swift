import JSONAPIStream
import Testing

/// Building `atomic:operations` documents and reading `atomic:results` (issue 21, item 8).
@Suite struct AtomicOperationsBuilding {
    @Test func operationsAreWrittenAsTheExtensionSpellsThem() throws {
        var author = EditableResource(type: "authors", lid: "a1")
        author["name"] = "Ada"
        var article = EditableResource(type: "articles", lid: "r1")
        article["title"] = "Hello"
        article.setRelationship("author", .toOne(author.identifier))
        var byLid = EditableResource(type: "articles", lid: "r1")
        byLid["title"] = "Hello again"
        var operations = AtomicOperations()
        try operations.add(author)
        try operations.add(article)
        try operations.update(byLid)
        operations.addToRelationship("tags", of: ResourceIdentifier(type: "articles", id: nil, lid: "r1"), [ResourceIdentifier(type: "tags", id: "3")])
        operations.replaceRelationship("author", of: ResourceIdentifier(type: "articles", id: "7"), with: .toOne(nil))
        operations.remove(ResourceIdentifier(type: "articles", id: "9"))
        let text = String(decoding: operations.document(), as: UTF8.self)
        #expect(
            text
                == #"{"atomic:operations":["#
                + #"{"op":"add","data":{"type":"authors","lid":"a1","attributes":{"name":"Ada"}}},"#
                + #"{"op":"add","data":{"type":"articles","lid":"r1","attributes":{"title":"Hello"},"relationships":{"author":{"data":{"type":"authors","lid":"a1"}}}}},"#
                + #"{"op":"update","data":{"type":"articles","lid":"r1","attributes":{"title":"Hello again"}}},"#
                + #"{"op":"add","ref":{"type":"articles","lid":"r1","relationship":"tags"},"data":[{"type":"tags","id":"3"}]},"#
                + #"{"op":"update","ref":{"type":"articles","id":"7","relationship":"author"},"data":null},"#
                + #"{"op":"remove","ref":{"type":"articles","id":"9"}}]}"#)
        #expect(AtomicOperations.mediaType == #"application/vnd.api+json; ext="https://jsonapi.org/ext/atomic""#)
        #expect(throws: JSONAPIError.self) { try operations.update(EditableResource(type: "articles")) }
    }

    @Test func resultsGiveTheResourcesAndTheIdsOfLocalIds() throws {
        var operations = AtomicOperations()
        var author = EditableResource(type: "authors", lid: "a1")
        author["name"] = "Ada"
        try operations.add(author)
        operations.remove(ResourceIdentifier(type: "tags", id: "4"))
        let body = #"{"atomic:results":[{"data":{"type":"authors","id":"121","attributes":{"name":"Ada"}},"meta":{"n":1}},{}]}"#
        let results = try AtomicResults(parsing: Array(body.utf8), operations: operations)
        #expect(results.ids == ["a1": "121"])
        #expect(results.results.count == 2)
        #expect(results.results[0].resource?.attributes["name"]?.string == "Ada")
        #expect(results.results[0].meta?["n"]?.numberValue?.intValue == 1)
        #expect(results.results[1].resource == nil)
        // The results' resources are the graph's (not primary data: they are results).
        #expect(results.graph.count == 1 && results.graph.primary.isEmpty)
        #expect(results.graph.atomicResults.map { $0.resource?.id } == ["121", nil])

        #expect(throws: JSONAPIError.self) { try AtomicResults(parsing: Array(#"{"atomic:results":[{}]}"#.utf8), operations: operations) }
        #expect(throws: JSONAPIError.self) { try AtomicResults(parsing: Array(#"{"data":[]}"#.utf8), operations: operations) }
        let wrongType = #"{"atomic:results":[{"data":{"type":"people","id":"1"}},{}]}"#
        #expect(throws: JSONAPIError.self) { try AtomicResults(parsing: Array(wrongType.utf8), operations: operations) }
    }
}
