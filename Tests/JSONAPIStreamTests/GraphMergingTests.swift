import Foundation
import Testing

@testable import JSONAPIStream

/// `Graph.merging(_:policy:)` gives the graph one parser reading both inputs would give.
struct GraphMergingTests {
    static let options: DocumentOptions = {
        var o = DocumentOptions()
        o.parse.multipleDocuments = true
        return o
    }()

    /// Every corpus document (several documents per file included), merged with itself and
    /// with the next one in name order.
    static let pairs: [(String, String)] = {
        let files = CorpusTests.files("documents")
        var out: [(String, String)] = []
        for (i, f) in files.enumerated() {
            out.append((f, f))
            out.append((f, files[(i + 1) % files.count]))
        }
        return out
    }()

    static func flat(_ g: Graph) throws -> String {
        let out = ByteWriter()
        try FlatJSONWriter(graph: g, out: out, options: OutputOptions()).write()
        return out.string
    }

    static func path(_ file: String) -> String { corpusURL("documents/\(file)").path }

    @Test(arguments: pairs)
    func mergingIsReadingBoth(_ a: String, _ b: String) throws {
        for policy in [DuplicatePolicy.last, .first] {
            let merged = try Graph(contentsOf: Self.path(a), options: Self.options, duplicates: policy)
                .merging(Graph(contentsOf: Self.path(b), options: Self.options, duplicates: policy), policy: policy)
            let parser = GraphParser(options: Self.options, duplicates: policy)
            try parser.read(InputSource(path: Self.path(a)))
            try parser.read(InputSource(path: Self.path(b)))
            let read = try parser.finish()
            #expect(try Self.flat(merged) == Self.flat(read), "\(a) + \(b), \(policy)")
            #expect(merged.count == read.count)
            #expect(merged.primary.map(\.identifier) == read.primary.map(\.identifier))
            #expect(merged.storage.documents.count == read.storage.documents.count)
            #expect(merged.storage.duplicateCount == read.storage.duplicateCount)
            #expect(merged.storage.warningCount == read.storage.warningCount)
            for (row, (x, y)) in zip(merged.storage.resources, read.storage.resources).enumerated() {
                #expect(merged.storage.position(x.position) == read.storage.position(y.position) && x.flags == y.flags)
                #expect(merged.storage.document(ofRow: row) == read.storage.document(ofRow: row))
            }
        }
    }

    /// A merged duplicate's warning names the resource with its type and id in quotes, escaped
    /// as JSON escapes them where they need it (`quoted`, whose plain case skips the loop).
    @Test func aDuplicatesWarningQuotesItsKey() throws {
        // (The id as JSON text in the document, and as the message shows it.)
        let cases = [
            (#"plain-1é"#, #""plain-1é""#), (#"q\"b"#, #""q\"b""#), (#"b\\s"#, #""b\\s""#), (#"c\u0001"#, #""c\u0001""#),
            (#"q\"b\\s\u0001é"#, #""q\"b\\s\u0001é""#),
        ]
        for (id, shown) in cases {
            let parser = GraphParser(options: Self.options)
            let doc = #"{"data":[],"included":[{"type":"a\"t","id":"\#(id)"}]}"#
            try parser.read(.bytes(Array((doc + "\n" + doc).utf8), name: "two"))
            let graph = try parser.finish()
            let message = try #require(graph.warnings.first { $0.rule == .N01 }?.message)
            #expect(message.hasPrefix(#"resource (type "a\"t", id \#(shown))"#), "\(message)")
        }
    }

    @Test func policiesAndResolution() throws {
        let first = try Graph(
            json: #"""
                {"data":{"type":"articles","id":"1","attributes":{"title":"Old","price":19.990},
                 "relationships":{"author":{"data":{"type":"people","id":"9","meta":{"role":"editor"}}}}}}
                """#)
        let second = try Graph(
            json: #"""
                {"data":{"type":"articles","id":"1","attributes":{"title":"New","words":1e400}},
                 "included":[{"type":"people","id":"9","attributes":{"name":"Dan"}}],"meta":{"page":2}}
                """#)
        #expect(first.primary[0].relationship("author")?.resource == nil)

        let last = try first.merging(second)
        let article = try #require(last[ResourceIdentifier(type: "articles", id: "1")])
        #expect(article.attributes["title"]?.string == "New")
        // Numbers keep their text; members keep their first position.
        #expect(article.attributes.jsonText == #"{"title":"New","price":19.990,"words":1e400}"#)
        // The author, not included in the first graph, resolves to the second's resource.
        #expect(article.relationship("author")?.resource?.attributes["name"]?.string == "Dan")
        #expect(try article.relationship("author")?.linkage.first?.meta?["role"]?.decode(String.self) == "editor")
        #expect(last.primary.map(\.identifier) == [article.identifier, article.identifier])
        #expect(last.warnings.contains { $0.rule == .N01 })

        let kept = try first.merging(second, policy: .first)
        #expect(kept[ResourceIdentifier(type: "articles", id: "1")]?.attributes["title"]?.string == "Old")

        #expect(throws: JSONAPIError.self) { try first.merging(second, policy: .error) }
        // Both inputs are unchanged.
        #expect(first.count == 1 && first.primary[0].attributes["title"]?.string == "Old")
        #expect(second.count == 2)
        // Merging with an empty graph changes nothing.
        let empty = try Graph(json: #"{"meta":{}}"#)
        #expect(try Self.flat(empty.merging(first)).contains(#""title":"Old""#))
        #expect(try first.merging(empty).count == 1)
    }
}
