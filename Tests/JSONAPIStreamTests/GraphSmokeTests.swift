import Foundation
import Testing
@testable import JSONAPIStream

struct GraphSmokeTests {
    @Test func specCompoundDocument() throws {
        let graph = try Graph(contentsOf: corpusURL("documents/spec-compound.json"))
        graph.checkInvariants()
        #expect(graph.count == 4)
        #expect(graph.types == ["articles", "people", "comments"])
        let article = try #require(graph.primary.first)
        #expect(article.type == "articles")
        #expect(article.id == "1")
        #expect(article.attributes["title"]?.string == "JSON:API paints my bikeshed!")
        let author = try #require(article.relationship("author")?.resource)
        #expect(author.attributes["firstName"]?.string == "Dan")
        let comments = try #require(article.relationship("comments"))
        #expect(comments.kind == .toMany)
        #expect(comments.identifiers.map(\.id) == ["5", "12"])
        #expect(comments.resources.compactMap { $0?.attributes["body"]?.string } == ["First!", "I like XML better"])
        // people/2 is not included: the linkage stays an identifier.
        let firstComment = try #require(graph[type: "comments", id: "5"])
        let link = try #require(firstComment.relationship("author")?.linkage.first)
        #expect(link.identifier == ResourceIdentifier(type: "people", id: "2"))
        #expect(link.resource == nil)
        #expect(graph.warnings.isEmpty, "\(graph.warnings)")
    }
}
