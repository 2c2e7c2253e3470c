import Testing

@testable import JSONAPIStream

/// ``DocumentTopLevel`` gives a document's top-level `links` and `meta` as the parse read
/// them: a crawl reads `links.next` from it to ask for the next page.
struct DocumentTopLevelTests {
    static func lastDocument(_ text: String, _ options: DocumentOptions) throws(JSONAPIError) -> DocumentTopLevel? {
        let parser = GraphParser(options: options)
        parser.recordsTopLevel = true
        try parser.beginInput(named: "page")
        try parser.feed(Array(text.utf8))
        try parser.endInput()
        return parser.lastDocument
    }

    /// A link object's `meta` may nest past the default depth under a raised limit, and under
    /// `allowInValues` the top-level `meta` may repeat a member name: both were read, so both
    /// are given back (parsing the text again with the default rules gave nil: no next page,
    /// silently).
    @Test func whatTheParseAcceptedComesBack() throws {
        var options = DocumentOptions.default
        options.parse.duplicateMembers = .allowInValues
        options.parse.limits.maxDepth = 700
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let text = #"{"data":[],"links":{"next":{"href":"/p2","meta":{"d":\#(deep)}}},"meta":{"a":1,"a":2,"y":"é\n"}}"#
        let top = try #require(try Self.lastDocument(text, options))
        #expect(top.link("next") == "/p2")
        #expect(top.links?["next"]?["meta"]?["d"] != nil)
        #expect(top.meta?.objectValue?.members.map(\.key) == ["a", "a", "y"])
        #expect(top.meta?["y"] == .string("é\n"))
        let plain = try #require(try Self.lastDocument(#"{"data":null,"links":{"next":null}}"#, .default))
        #expect(plain.link("next") == nil && plain.links?["next"] == .null && plain.meta == nil)
    }
}
