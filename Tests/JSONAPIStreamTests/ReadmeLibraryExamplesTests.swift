import Foundation
import Testing
import JSONAPIStream

/// The README's library examples: their code runs here as written there, and what the
/// README shows as their output is what they print.
struct ReadmeLibraryExamplesTests {
    static let readme = (try? String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

    @Test func readmeIsThere() {
        #expect(Self.readme.contains("## Using the library"))
    }

    @Test func createAndUpdatePayloadsAreRealOutput() throws {
        var article = EditableResource(type: "articles", lid: "tmp-1")
        article["title"] = "Hello"
        article["rating"] = .number(JSONNumber("4.50")!)
        article.setRelationship("author", .toOne(ResourceIdentifier(type: "people", id: "9")))
        article.setRelationship("tags", .toMany([ResourceIdentifier(type: "tags", id: "t1")]))
        let create = try article.createDocument()
        #expect(Self.readme.contains("```json\n" + String(decoding: create, as: UTF8.self) + "\n```"))

        let graph = try Graph(json: #"{"data":{"type":"articles","id":"1","attributes":{"title":"A","body":"x"},"relationships":{"author":{"data":{"type":"people","id":"9"}}}}}"#)
        var edit = EditableResource(editing: graph[type: "articles", id: "1"]!)
        edit["title"] = "B"
        edit["body"] = "x"  // the value it already had: not sent
        edit.setRelationship("author", .toOne(nil))
        let update = try edit.updateDocument()
        #expect(Self.readme.contains("```json\n" + String(decoding: update, as: UTF8.self) + "\n```"))
    }

    @Test func decodingExampleOutputIsShown() throws {
        // The code itself runs in DecodingReadmeExampleTests; this is the line it prints.
        #expect(Self.readme.contains("// JSON:API paints my bikeshed! Dan people/2"))
        #expect(Self.readme.contains("articles/1 /attributes/views: expected String, found number 1024"))
    }

    @Test func compoundDocumentExampleRuns() throws {
        let graph = try Graph(contentsOf: corpusURL("documents/spec-compound.json").path)
        var out = DocumentEncodingOptions()
        out.include = ["comments.author"]
        out.fields = ["articles": ["title", "comments"]]
        let bytes = try graph.document(primary: graph.primary, options: out)
        let doc = try JSONValue(parsing: bytes)
        #expect(doc["data"]?[0]?["attributes"] == ["title": "JSON:API paints my bikeshed!"])
        #expect(doc["data"]?[0]?["relationships"]?.objectValue?.keys == ["comments"])
        #expect(Self.readme.contains(#"out.include = ["comments.author"]"#))
    }
}
