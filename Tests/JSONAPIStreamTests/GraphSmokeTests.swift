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

    /// Rows by type come from each row's type noted as the row is appended, a byte a row (a
    /// type symbol from 255 on is read from its record), placed by runs of one type: over 300
    /// types, relationship names among the symbols, runs and rows of alternating types, and
    /// duplicates merged into their first row, each type lists its rows in first-seen order.
    @Test func rowsByTypeOverManyTypesInRunsAndAlternating() throws {
        var elements: [String] = []
        var expected: [String: [String]] = [:]
        func add(_ type: String, _ id: String) {
            elements.append(#"{"type":"\#(type)","id":"\#(id)","relationships":{"r\#(type)":{"data":null}}}"#)
            if !(expected[type]?.contains(id) ?? false) { expected[type, default: []].append(id) }
        }
        for t in 0..<300 { add("t\(t)", "a") }
        for i in 0..<50 { add("t7", "run\(i)") }
        for i in 0..<200 { add(i % 2 == 0 ? "t3" : "t299", "alt\(i)") }
        for t in stride(from: 299, through: 0, by: -1) { add("t\(t)", "b") }
        // Duplicates: merged into the rows they repeat, no new row.
        add("t299", "a")
        add("t0", "b")
        let json = #"{"data":[\#(elements.joined(separator: ","))]}"#
        for workers in [1, 2] {
            var options = DocumentOptions()
            options.parse.workers = workers
            let graph = try Graph(json: json, options: options)
            graph.checkInvariants()
            #expect(graph.types == (0..<300).map { "t\($0)" }, "\(workers) workers")
            for (type, ids) in expected {
                #expect(graph.resources(ofType: type).map(\.id) == ids, "\(type), \(workers) workers")
            }
            #expect(graph.count == expected.values.reduce(0) { $0 + $1.count })
        }
    }
}
