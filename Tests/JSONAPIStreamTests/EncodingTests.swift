import Foundation
import Testing
@testable import JSONAPIStream

/// Writing graphs back as JSON:API documents.
struct EncodingTests {
    /// Normalized flat JSON of a document (the comparison form for round trips).
    static func flat(_ bytes: [UInt8], context: DocumentContext = .response) throws(JSONAPIError) -> String {
        var o = DocumentOptions()
        o.validation = .off
        o.context = context
        return try normalize(String(decoding: bytes, as: UTF8.self), format: .json, document: o)
    }

    /// The flat object as comparable values: resources by type and id (their order left
    /// out), primary linkage (each resource once), and the other top-level members.
    static func comparable(_ flatText: String) throws -> [String: JSONValue] {
        let v = try JSONValue(parsing: Array(flatText.utf8))
        var out: [String: JSONValue] = [:]
        for m in v.objectValue!.members where m.key != "resources" && m.key != "data" { out[m.key] = m.value }
        var resources: [String: JSONValue] = [:]
        for t in v["resources"]!.objectValue!.members {
            for r in t.value.objectValue!.members { resources[t.key + "/" + r.key] = r.value }
        }
        out["resources"] = .object(JSONObject(resources.sorted { $0.key < $1.key }.map { (key: $0.key, value: $0.value) }))
        var seen = Set<JSONValue>()
        let data: [JSONValue]
        switch v["data"]! {
        case .array(let a): data = a
        case .null: data = []
        case let one: data = [one]
        }
        out["data"] = .array(data.filter { seen.insert($0).inserted })
        return out
    }

    static let documents: [String] =
        CorpusTests.files("documents").map { "documents/\($0)" }
        + CorpusTests.files("requests").map { "requests/\($0)" }

    /// Every corpus document, parsed and written back, normalizes to the same flat object
    /// and the same NDJSON lines (the same resources, members, values and linkage).
    @Test(arguments: documents)
    func roundTrip(_ path: String) throws {
        let original = Array(try Data(contentsOf: corpusURL(path)))
        let context: DocumentContext = path.contains("requests/") ? (path.contains("relationship-update") ? .relationshipUpdate : (path.contains("update") ? .update : .create)) : .response
        var o = DocumentOptions()
        o.validation = .off
        o.context = context
        let g = try Graph(bytes: original, options: o)
        let encoded = try g.document()
        let a = try Self.comparable(Self.flat(encoded, context: context))
        let b = try Self.comparable(Self.flat(original, context: context))
        #expect(a == b, "\(path):\n\(String(decoding: encoded, as: UTF8.self))")
        // A single document keeps its exact flat form when its resources were in order.
        if !path.contains("multi/") && !path.contains("included-before") {
            #expect(try Self.flat(encoded, context: context) == Self.flat(original, context: context), "\(path)")
        }
        // And it is a document a strict reader accepts when the original was one.
        if path.hasPrefix("documents/") && !path.contains("multi/") {
            var strict = DocumentOptions()
            strict.validation = .strict
            #expect(throws: Never.self) { _ = try Graph(bytes: encoded, options: strict) }
        }
    }
}

extension EncodingTests {
    static let blog = """
        {"data":[{"type":"articles","id":"1","attributes":{"title":"A","body":"x","views":1.50},"relationships":{"author":{"data":{"type":"people","id":"9"}},"comments":{"data":[{"type":"comments","id":"5"},{"type":"comments","id":"12"}]},"tags":{"data":[]}}}],
         "included":[{"type":"people","id":"9","attributes":{"name":"Dan"},"relationships":{"favorite":{"data":{"type":"articles","id":"1"}}}},
                     {"type":"comments","id":"5","attributes":{"body":"First!"},"relationships":{"author":{"data":{"type":"people","id":"2"}}}},
                     {"type":"comments","id":"12","attributes":{"body":"XML"},"relationships":{"author":{"data":{"type":"people","id":"9"}}}},
                     {"type":"people","id":"2","attributes":{"name":"Ann"}}],
         "meta":{"page":1}}
        """

    static func ids(_ doc: [UInt8], _ member: String) throws -> [String] {
        let v = try JSONValue(parsing: doc)
        let items: [JSONValue]
        switch v[member] {
        case .array(let a)?: items = a
        case .object(let o)?: items = [.object(o)]
        default: items = []
        }
        return items.map { "\($0["type"]!.stringValue!)/\($0["id"]!.stringValue!)" }
    }

    @Test func includePaths() throws {
        let g = try Graph(json: Self.blog)
        func included(_ paths: [String]?) throws -> [String] {
            var o = DocumentEncodingOptions()
            o.include = paths
            return try Self.ids(g.document(options: o), "included")
        }
        #expect(try included(nil) == ["people/9", "comments/5", "comments/12", "people/2"])
        #expect(try included([]) == [])
        #expect(try included(["author"]) == ["people/9"])
        // Nested: intermediate resources are included too, each once.
        #expect(try included(["comments.author"]) == ["comments/5", "comments/12", "people/2", "people/9"])
        #expect(try included(["author", "comments.author"]) == ["people/9", "comments/5", "comments/12", "people/2"])
        // A name none of the reached resources has is an error (see
        // includePathNamingNoRelationshipIsAnError).
        #expect(throws: JSONAPIError.self) { try included(["nope"]) }
        // Cyclic: back to primary data, which is never repeated in included.
        #expect(try included(["author.favorite.author"]) == ["people/9"])
        // A dangling target (not in the graph) is not included.
        #expect(try included(["comments.author.favorite"]) == ["comments/5", "comments/12", "people/2", "people/9"])
    }

    @Test func sparseFieldsets() throws {
        let g = try Graph(json: Self.blog)
        let o = try DocumentEncodingOptions(include: "author", fields: ["articles=title,author", "people=name"])
        let doc = try JSONValue(parsing: g.document(options: o))
        let article = try #require(doc["data"]?[0])
        #expect(article["attributes"] == ["title": "A"])
        #expect(article["relationships"]?.objectValue?.keys == ["author"])
        #expect(doc["included"]?[0]?["attributes"] == ["name": "Dan"])
        #expect(doc["included"]?[0]?["relationships"] == nil)
        #expect(doc["meta"] == ["page": 1])
        // Values are copied as they were (1.50 stays 1.50).
        let all = String(decoding: try g.document(), as: UTF8.self)
        #expect(all.contains(#""views":1.50"#))
    }

    @Test func explicitPrimaryData() throws {
        let g = try Graph(json: Self.blog)
        var o = DocumentEncodingOptions()
        o.include = ["favorite"]
        let doc = try g.document(primary: [g[type: "people", id: "9"]!], options: o)
        #expect(try Self.ids(doc, "data") == ["people/9"])
        // Paths start from the given primary data: people/9's favorite is the article.
        #expect(try Self.ids(doc, "included") == ["articles/1"])
    }

    // MARK: - Request documents

    @Test func createDocument() throws {
        var a = EditableResource(type: "articles", lid: "tmp-1")
        a["title"] = "Hello"
        a["rating"] = .number(JSONNumber("4.50")!)
        a.setRelationship("author", .toOne(ResourceIdentifier(type: "people", id: "9")))
        a.setRelationship("tags", .toMany([ResourceIdentifier(type: "tags", id: "t1")]))
        let body = String(decoding: try a.createDocument(), as: UTF8.self)
        #expect(
            body
                == #"{"data":{"type":"articles","lid":"tmp-1","attributes":{"title":"Hello","rating":4.50},"relationships":{"author":{"data":{"type":"people","id":"9"}},"tags":{"data":[{"type":"tags","id":"t1"}]}}}}"#
        )
        // A client-generated id works too; so does an Encodable value.
        var b = EditableResource(type: "photos", id: "550e8400-e29b-41d4-a716-446655440000")
        try b.setAttribute("sizes", encoding: [100, 200])
        #expect(try JSONValue(parsing: b.createDocument())["data"]?["attributes"] == ["sizes": [100, 200]])
    }

    /// `setAttribute(_:encoding:)` encodes as `EditableResource(encoding:)` does: a date is
    /// ISO 8601 (it was JSONEncoder's -978307200, seconds since 2001), a non-finite number
    /// fails naming the attribute, options apply.
    @Test func setAttributeEncodesAsModelsDo() throws {
        struct Model: Encodable { var at: Date }
        let epoch = Date(timeIntervalSince1970: 0)
        var a = EditableResource(type: "events", id: "1")
        try a.setAttribute("at", encoding: epoch)
        let model = try EditableResource(encoding: Model(at: epoch), type: "events")
        #expect(a["at"] == "1970-01-01T00:00:00Z")
        #expect(a["at"] == model["at"])
        var options = ResourceEncodingOptions()
        options.dates = .millisecondsSince1970
        try a.setAttribute("at", encoding: epoch.addingTimeInterval(1.5), options: options)
        #expect(a["at"] == 1500)
        do {
            try a.setAttribute("ratio", encoding: Double.infinity)
            Issue.record("an infinite number was encoded")
        } catch {
            #expect(error.description.contains("/ratio") && error.description.contains("is not a JSON number"), "\(error)")
        }
    }

    @Test func updateDocumentHasOnlyTheChanges() throws {
        let g = try Graph(json: Self.blog)
        var edit = EditableResource(editing: g[type: "articles", id: "1"]!)
        #expect(edit["title"] == "A")
        edit["title"] = "B"
        edit["body"] = "x"  // unchanged: not sent
        edit.setRelationship("author", .toOne(nil))
        let body = String(decoding: try edit.updateDocument(), as: UTF8.self)
        #expect(body == #"{"data":{"type":"articles","id":"1","attributes":{"title":"B"},"relationships":{"author":{"data":null}}}}"#)
    }

    @Test func relationshipDocuments() throws {
        let one = String(decoding: try RelationshipLinkage.toOne(ResourceIdentifier(type: "people", id: "9")).document(), as: UTF8.self)
        #expect(one == #"{"data":{"type":"people","id":"9"}}"#)
        #expect(String(decoding: try RelationshipLinkage.toOne(nil).document(), as: UTF8.self) == #"{"data":null}"#)
        #expect(String(decoding: try RelationshipLinkage.toMany([]).document(), as: UTF8.self) == #"{"data":[]}"#)
    }

    @Test func requestDocumentsAreValidatedBeforeTheyAreWritten() throws {
        // A bad attribute name (R38).
        var a = EditableResource(type: "articles", lid: "x")
        a["first.name"] = "A"
        #expect(throws: JSONAPIError.self) { try a.createDocument() }
        // An update without id.
        #expect(throws: JSONAPIError.self) { try EditableResource(type: "articles", lid: "x").updateDocument() }
        // A type that is not a member name (R12), and a reserved field name (R17).
        var b = EditableResource(type: "a b.c", id: "1")
        b["x"] = 1
        do {
            _ = try b.createDocument()
            Issue.record("accepted")
        } catch { #expect(error.rule == .R12) }
        var c = EditableResource(type: "articles", id: "1")
        c["type"] = "x"
        do {
            _ = try c.updateDocument()
            Issue.record("accepted")
        } catch { #expect(error.rule == .R17) }
    }

    @Test func graphEditorAppliesChanges() throws {
        let g = try Graph(json: Self.blog)
        var editor = GraphEditor(g)
        var a = EditableResource(editing: g[type: "articles", id: "1"]!)
        a["title"] = "Renamed"
        a["subtitle"] = "new"
        a.setRelationship("author", .toOne(ResourceIdentifier(type: "people", id: "2")))
        try editor.update(a)
        var t = EditableResource(type: "tags", id: "t9")
        t["label"] = "swift"
        editor.add(t)
        let updated = try editor.graph()
        updated.checkInvariants()
        let article = try #require(updated[type: "articles", id: "1"])
        #expect(article.attributes.keys == ["title", "body", "views", "subtitle"])
        #expect(article.attributes["title"]?.string == "Renamed")
        #expect(article.relationship("author")?.resource?.attributes["name"]?.string == "Ann")
        #expect(article.relationship("comments")?.identifiers.count == 2)
        #expect(updated[type: "tags", id: "t9"]?.attributes["label"]?.string == "swift")
        #expect(updated.count == g.count + 1)
        let requests = try editor.requestDocuments()
        #expect(requests.map(\.method) == ["PATCH", "POST"])
        #expect(throws: JSONAPIError.self) { try editor.update(EditableResource(type: "articles", id: "404")) }
    }
}

extension EncodingTests {
    /// Include paths and sparse fieldsets apply to added resources as to the others: an
    /// added resource no path reaches stays out of `included`, one a path reaches is in, and
    /// its fields are filtered (issue 21: unrelated added resources ended up in `included`).
    @Test func graphEditorDocumentFiltersAddedResourcesLikeOthers() throws {
        let g = try Graph(json: Self.blog)
        var editor = GraphEditor(g)
        var tag = EditableResource(type: "tags", id: "t9")
        tag["label"] = "swift"
        editor.add(tag)
        var comment = EditableResource(type: "comments", id: "77")
        comment["body"] = "New"
        comment["draft"] = true
        editor.add(comment)
        var article = EditableResource(editing: g[type: "articles", id: "1"]!)
        article.setRelationship(
            "comments", .toMany([ResourceIdentifier(type: "comments", id: "5"), ResourceIdentifier(type: "comments", id: "77")]))
        try editor.update(article)

        var options = DocumentEncodingOptions()
        options.include = ["comments"]
        options.fields = ["comments": ["body"]]
        let doc = try editor.document(options: options)
        #expect(try Self.ids(doc, "included") == ["comments/5", "comments/77"])
        let v = try JSONValue(parsing: doc)
        let added = try #require(v["included"]?[1])
        #expect(added["attributes"] == ["body": "New"])
        #expect(try Self.ids(doc, "data") == ["articles/1"])

        // Without options every resource is written, added ones included (as before).
        #expect(try Set(Self.ids(editor.document(), "included")).isSuperset(of: ["tags/t9", "comments/77"]))
    }

    /// An include path that names a relationship none of the resources it reaches has is an
    /// error, not an empty `included`; a path whose resources are not in the graph (or have
    /// no linkage) includes nothing, without error.
    @Test func includePathNamingNoRelationshipIsAnError() throws {
        let g = try Graph(json: Self.blog)
        for path in ["auhtor", "comments.writer", "author.nope"] {
            var o = DocumentEncodingOptions()
            o.include = [path]
            do {
                _ = try g.document(options: o)
                Issue.record("\(path) accepted")
            } catch {
                #expect("\(error)".contains("include path \"\(path)\""), "\(error)")
            }
        }
        // `tags` is empty: nothing to follow `tags.x` into.
        var o = DocumentEncodingOptions()
        o.include = ["tags.owner"]
        #expect(try Self.ids(g.document(options: o), "included") == [])
    }

    /// A create payload's resource with neither id nor lid has no identity in the graph
    /// (not an empty lid), is found by an identifier without either, and is written back
    /// without either.
    @Test func resourceWithoutIdentity() throws {
        var o = DocumentOptions()
        o.context = .create
        let g = try Graph(json: #"{"data":{"type":"photos","attributes":{"title":"Ember"}}}"#, options: o)
        let photo = try #require(g.primary.first)
        #expect(photo.id == nil)
        #expect(photo.lid == nil)
        #expect(g[ResourceIdentifier(type: "photos", id: nil, lid: nil)]?.type == "photos")
        #expect(g[ResourceIdentifier(type: "people", id: nil, lid: nil)] == nil)
        let written = String(decoding: try g.document(), as: UTF8.self)
        #expect(written == #"{"data":{"type":"photos","attributes":{"title":"Ember"}}}"# + "\n")
        let flat = try normalize(#"{"data":{"type":"photos","attributes":{"title":"Ember"}}}"#, format: .json, document: o)
        #expect(flat == #"{"data":{"type":"photos"},"resources":{"photos":{"":{"attributes":{"title":"Ember"},"relationships":{}}}}}"# + "\n")
    }
}
