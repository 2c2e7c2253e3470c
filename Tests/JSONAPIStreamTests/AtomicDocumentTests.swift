import Foundation
import Testing

@testable import JSONAPIStream

/// Reading Atomic Operations documents (https://jsonapi.org/ext/atomic): the operations as
/// typed values beside the graph, one NDJSON line each, back again through `denormalize`,
/// and the extension's rules.
struct AtomicDocumentTests {
    static let atomic: DocumentOptions = {
        var o = DocumentOptions()
        o.extensions = [AtomicOperations.namespace]
        o.validation = .strict
        return o
    }()

    /// Requests shaped as the extension's examples: add, update and remove of resources,
    /// to-one and to-many relationship changes, lids linking operations.
    static let examples: [(String, [AtomicOperation])] = [
        (
            #"{"atomic:operations":[{"op":"add","href":"/blogPosts","data":{"type":"articles","attributes":{"title":"JSON API paints my bikeshed!"}}}]}"#,
            [AtomicOperation(op: .add, href: "/blogPosts", data: ["type": "articles", "attributes": ["title": "JSON API paints my bikeshed!"]])]
        ),
        (
            #"{"atomic:operations":[{"op":"update","data":{"type":"articles","id":"13","attributes":{"title":"To TDD or Not"}}}]}"#,
            [AtomicOperation(op: .update, data: ["type": "articles", "id": "13", "attributes": ["title": "To TDD or Not"]])]
        ),
        (
            #"{"atomic:operations":[{"op":"remove","ref":{"type":"articles","id":"13"}}]}"#,
            [AtomicOperation(op: .remove, ref: .init(ResourceIdentifier(type: "articles", id: "13")))]
        ),
        (
            #"""
            {"atomic:operations":[
              {"op":"update","ref":{"type":"articles","id":"13","relationship":"author"},"data":{"type":"people","id":"9"}},
              {"op":"update","ref":{"type":"articles","id":"13","relationship":"author"},"data":null},
              {"op":"add","ref":{"type":"articles","id":"1","relationship":"comments"},"data":[{"type":"comments","id":"123"}]},
              {"op":"update","ref":{"type":"articles","id":"1","relationship":"tags"},"data":[]},
              {"op":"remove","ref":{"type":"articles","id":"1","relationship":"comments"},"data":[{"type":"comments","id":"12"},{"type":"comments","id":"13"}]}]}
            """#,
            [
                AtomicOperation(
                    op: .update, ref: .init(ResourceIdentifier(type: "articles", id: "13"), relationship: "author"),
                    data: ["type": "people", "id": "9"]),
                AtomicOperation(op: .update, ref: .init(ResourceIdentifier(type: "articles", id: "13"), relationship: "author"), data: .null),
                AtomicOperation(
                    op: .add, ref: .init(ResourceIdentifier(type: "articles", id: "1"), relationship: "comments"),
                    data: [["type": "comments", "id": "123"]]),
                AtomicOperation(op: .update, ref: .init(ResourceIdentifier(type: "articles", id: "1"), relationship: "tags"), data: []),
                AtomicOperation(
                    op: .remove, ref: .init(ResourceIdentifier(type: "articles", id: "1"), relationship: "comments"),
                    data: [["type": "comments", "id": "12"], ["type": "comments", "id": "13"]]),
            ]
        ),
        (
            #"""
            {"atomic:operations":[
              {"op":"add","data":{"type":"authors","lid":"a1","attributes":{"name":"Ada","born":1815.0}}},
              {"op":"add","data":{"type":"articles","lid":"r1","attributes":{"title":"Notes"},"relationships":{"author":{"data":{"type":"authors","lid":"a1"}}}}},
              {"op":"update","data":{"type":"authors","lid":"a1","attributes":{"name":"Ada Lovelace"}},"meta":{"step":3}}]}
            """#,
            [
                AtomicOperation(op: .add, data: ["type": "authors", "lid": "a1", "attributes": ["name": "Ada", "born": .number(JSONNumber("1815.0")!)]]),
                AtomicOperation(
                    op: .add,
                    data: [
                        "type": "articles", "lid": "r1", "attributes": ["title": "Notes"],
                        "relationships": ["author": ["data": ["type": "authors", "lid": "a1"]]],
                    ]),
                AtomicOperation(op: .update, data: ["type": "authors", "lid": "a1", "attributes": ["name": "Ada Lovelace"]], meta: (["step": 3] as JSONValue).objectValue),
            ]
        ),
    ]

    @Test func theExtensionsExamplesReadAsTypedOperations() throws {
        for (text, expected) in Self.examples {
            // Under --extension atomic, and when the document applies it itself.
            let declared = #"{"jsonapi":{"ext":["https://jsonapi.org/ext/atomic"]},"# + text.dropFirst()
            var strict = DocumentOptions()
            strict.validation = .strict
            for (document, options) in [(text, Self.atomic), (declared, strict)] {
                var warnings: [Diagnostic] = []
                let g = try graph(document, options: options)
                #expect(g.atomicOperations == expected, "\(document)")
                #expect(g.count == 0, "operations are not resources")
                #expect(g.warnings.isEmpty && warnings.isEmpty)
                // The same (type, id) in several operations is no duplicate (no R22).
                _ = try normalize(document, format: .ndjson, document: options, warnings: &warnings)
                #expect(warnings.isEmpty, "\(warnings)")
            }
        }
    }

    /// A streamed document gives the same typed operations as the graph.
    @Test func aStreamedDocumentGivesTheOperations() async throws {
        for (text, expected) in Self.examples {
            var documents: [StreamedDocument] = []
            for try await event in ResourceStream(.bytes(Array(text.utf8), name: "ops"), options: Self.atomic) {
                if case .document(let d) = event { documents.append(d) }
            }
            #expect(documents.count == 1 && documents[0].atomicOperations == expected, "\(text)")
        }
    }

    @Test func ndjsonWritesOneLinePerOperationAndDenormalizeBringsThemBack() throws {
        let text = Self.examples[4].0
        let lines = try normalize(text, format: .ndjson, document: Self.atomic).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0] == #"{"operation":{"op":"add","data":{"type":"authors","lid":"a1","attributes":{"name":"Ada","born":1815.0}}}}"#)
        #expect(lines[2].hasPrefix(#"{"operation":{"op":"update""#) && lines[2].hasSuffix(#""meta":{"step":3}}}"#))
        #expect(lines[3] == #"{"document":{"data":null}}"#)
        // At every read size, the same lines.
        for size in [1, 3, 7, 64] {
            #expect(try normalize(text, format: .ndjson, document: Self.atomic, chunk: size) == lines.joined(separator: "\n") + "\n")
        }
        // --resources-only writes neither operations nor documents.
        var only = OutputOptions()
        only.resourcesOnly = true
        #expect(try normalize(text, format: .ndjson, output: only, document: Self.atomic).isEmpty)

        // Back into a document: the operations in order, no data.
        let d = Denormalizer()
        try d.read(.bytes(Array((lines.joined(separator: "\n") + "\n").utf8), name: "ops.ndjson"))
        let out = ByteWriter()
        try d.write(to: out)
        let back = try JSONValue(parsing: out.bytes)
        #expect(back["data"] == nil)
        #expect(try graph(out.string, options: Self.atomic).atomicOperations == Self.examples[4].1)
        // Flat JSON keeps atomic:operations as a top-level member.
        let flat = try JSONValue(parsing: Array(try normalize(text, format: .json, document: Self.atomic).utf8))
        #expect(flat["atomic:operations"]?.arrayValue?.count == 3)
    }

    @Test func withoutTheExtensionTheMemberStaysUnknown() throws {
        let text = Self.examples[2].0
        var warnings: [Diagnostic] = []
        let lines = try normalize(text, format: .ndjson, warnings: &warnings)
        #expect(warnings.map(\.rule).contains(.R05))
        #expect(lines == #"{"document":{"data":null,"atomic:operations":[{"op":"remove","ref":{"type":"articles","id":"13"}}]}}"# + "\n")
        #expect(try graph(text).atomicOperations.isEmpty)
        // jsonapi.ext read after the member comes too late to apply the extension to it.
        let late = #"{"atomic:operations":[{"op":"remove","ref":{"type":"articles","id":"13"}}],"jsonapi":{"ext":["https://jsonapi.org/ext/atomic"]}}"#
        #expect(try graph(late).atomicOperations.isEmpty)
        // Another document in the same input does not inherit it.
        var many = DocumentOptions()
        many.parse.multipleDocuments = true
        let two = #"{"jsonapi":{"ext":["https://jsonapi.org/ext/atomic"]},"atomic:operations":[{"op":"remove","ref":{"type":"a","id":"1"}}]}"# + "\n" + text
        let g = try graph(two, options: many)
        #expect(g.atomicOperations.count == 1)
    }

    @Test func theRulesNameTheMemberAtFault() throws {
        let text = #"{"atomic:operations":[{"op":"create"},{"ref":{"type":"a"},"href":"/x"},5,{"op":"update","ref":{"type":"a","id":"1","relationship":"r"},"data":"x"},{"op":"remove"}],"data":null}"#
        var lenient = Self.atomic
        lenient.validation = .lenient
        var warnings: [Diagnostic] = []
        let g = try graph(text, options: lenient)
        _ = try normalize(text, format: .ndjson, document: lenient, warnings: &warnings)
        #expect(
            warnings.map { "\($0.rule) \($0.pointer)" } == [
                "A01 /data", "A05 /atomic:operations/0/op", "A05 /atomic:operations/1", "A06 /atomic:operations/1/href",
                "A07 /atomic:operations/1/ref", "A04 /atomic:operations/2", "A08 /atomic:operations/3/data", "A08 /atomic:operations/4",
            ])
        // Where atomic:operations begins.
        #expect(warnings.allSatisfy { $0.rule == .A01 || $0.location == SourcePosition(offset: 1, line: 1, column: 2) })
        // Every operation object is kept; the typed list leaves out those without a valid op.
        #expect(g.atomicOperationValues.count == 5)
        #expect(g.atomicOperations.map(\.op) == [.update, .remove])
        // Strict: the first is an error.
        #expect(throws: JSONAPIError.self) { try graph(text, options: Self.atomic) }
    }

    @Test func mergedGraphsKeepTheirOperations() throws {
        let a = try graph(Self.examples[2].0, options: Self.atomic)
        let b = try graph(Self.examples[4].0, options: Self.atomic)
        #expect(try a.merging(b).atomicOperations == Self.examples[2].1 + Self.examples[4].1)
    }

    // MARK: - atomic:results

    static let results = #"""
        {"jsonapi":{"version":"1.1","ext":["https://jsonapi.org/ext/atomic"]},
         "atomic:results":[
          {"data":{"type":"authors","id":"a-9","lid":"a1","attributes":{"name":"Ada"}}},
          {"data":{"type":"articles","id":"13","attributes":{"title":"Notes","rating":4.50},"relationships":{"author":{"data":{"type":"authors","id":"a-9"}}}},"meta":{"took":3}},
          {},
          {"data":null,"meta":{"removed":true}},
          {"data":{"type":"articles","id":"13","attributes":{"title":"Notes, again"}}}]}
        """#

    @Test func resultsResourcesAreTheGraphsMergedByTypeAndID() throws {
        var strict = DocumentOptions()
        strict.validation = .strict
        for size in [0, 1, 7] {
            let g = try graph(Self.results, options: strict, chunk: size)
            #expect(g.count == 2 && g.primary.isEmpty)
            let results = g.atomicResults
            #expect(results.map { $0.resource?.identifier.description ?? "-" } == ["authors/a-9", "articles/13", "-", "-", "articles/13"])
            #expect(results[1].resource?.attributes.jsonText == #"{"title":"Notes, again","rating":4.50}"#)
            #expect(results[1].meta?["took"] == 3 && results[3].meta?["removed"] == true)
            // Relationships resolve between results.
            #expect(results[1].resource?.relationship("author")?.resource?.attributes["name"]?.string == "Ada")
            #expect(g[ResourceIdentifier(type: "authors", id: "a-9")]?.lid == "a1")
            // Where each came from.
            #expect(results[0].resource.map { g.storage.resources[$0.row].pointer } == "/atomic:results/0/data")
            // Two results naming one resource are one resource, without a warning.
            #expect(g.warnings.isEmpty)
        }
    }

    @Test func resultsInNDJSONAndBackThroughDenormalize() throws {
        let lines = try normalize(Self.results, format: .ndjson).split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0] == #"{"type":"authors","id":"a-9","lid":"a1","primary":false,"attributes":{"name":"Ada"},"relationships":{}}"#)
        #expect(
            lines[3]
                == #"{"document":{"data":null,"jsonapi":{"version":"1.1","ext":["https://jsonapi.org/ext/atomic"]},"atomic:results":[{"data":{"type":"authors","id":"a-9","lid":"a1"}},{"data":{"type":"articles","id":"13"},"meta":{"took":3}},{},{"data":null,"meta":{"removed":true}},{"data":{"type":"articles","id":"13"}}]}}"#
        )
        let d = Denormalizer()
        try d.read(.bytes(Array((lines.joined(separator: "\n") + "\n").utf8), name: "results.ndjson"))
        let out = ByteWriter()
        try d.write(to: out)
        let back = try JSONValue(parsing: out.bytes)
        // An atomic:results document again: each result around its resource, no data or included.
        #expect(back["data"] == nil && back["included"] == nil)
        #expect(back["atomic:results"]?[1]?["data"]?["attributes"]?["title"] == "Notes, again")
        #expect(back["atomic:results"]?[1]?["meta"]?["took"] == 3)
        // Normalized again: the same lines, except that a result merged into an earlier one
        // comes back whole.
        var strict = DocumentOptions()
        strict.validation = .strict
        let again = try normalize(out.string, format: .json, document: strict)
        #expect(again == (try normalize(Self.results, format: .json)))
    }

    @Test func clientResultsReadThroughTheGraph() throws {
        var operations = AtomicOperations()
        var author = EditableResource(type: "authors", lid: "a1")
        author["name"] = "Ada"
        try operations.add(author)
        var article = EditableResource(type: "articles", lid: "r1")
        article["title"] = "Notes"
        try operations.add(article)
        let body = #"{"atomic:results":[{"data":{"type":"authors","id":"7","attributes":{"name":"Ada"}}},{"data":{"type":"articles","id":"8","attributes":{"title":"Notes"}}}]}"#
        let results = try AtomicResults(parsing: Array(body.utf8), operations: operations)
        #expect(results.ids == ["a1": "7", "r1": "8"])
        // A result that is not an object is refused, as in any document.
        #expect(throws: JSONAPIError.self) {
            try AtomicResults(parsing: Array(#"{"atomic:results":[5,{}]}"#.utf8), operations: operations)
        }
    }
}
