import Foundation
import Testing
@testable import JSONAPIStream

/// `normalize --type` and `--keep-fields`: applied while streaming (NDJSON, edges) and to the
/// flat object; primary data stays whole.
@Suite struct Selection {
    static let input = #"""
        {"data":[{"type":"articles","id":"1","attributes":{"title":"T","body":"B","a\u0062c":1},"relationships":{"author":{"data":{"type":"people","id":"9"}},"comments":{"data":[{"type":"comments","id":"5"}]}},"links":{"self":"/a/1"},"meta":{"m":1}}],
         "included":[{"type":"people","id":"9","attributes":{"name":"N"}},{"type":"comments","id":"5","attributes":{"text":"C"},"relationships":{"author":{"data":{"type":"people","id":"9"}}}}]}
        """#

    static func options(types: Set<String>? = nil, fields: [String: Set<String>] = [:]) -> OutputOptions {
        var o = OutputOptions()
        o.types = types
        o.keepFields = fields
        return o
    }

    @Test func typesSelectTheResourcesWritten() throws {
        let o = Self.options(types: ["articles", "comments"])
        let lines = try normalize(Self.input, output: o).split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(lines)")
        #expect(lines[0].hasPrefix(#"{"type":"articles","id":"1""#))
        #expect(lines[1].hasPrefix(#"{"type":"comments","id":"5""#))
        // The document line keeps its primary data.
        #expect(lines[2] == #"{"document":{"data":[{"type":"articles","id":"1"}]}}"#)
        let flat = try normalize(Self.input, format: .json, output: o)
        #expect(!flat.contains(#""people":{"#) && flat.contains(#""comments":{"5""#) && flat.hasPrefix(#"{"data":[{"type":"articles","id":"1"}]"#), "\(flat)")
        let edges = try normalize(Self.input, format: .edges, output: Self.options(types: ["comments"]))
        #expect(edges == #"{"from":{"type":"comments","id":"5"},"relationship":"author","to":{"type":"people","id":"9"},"position":0}"# + "\n")
        // Primary data that is not selected still names its resources.
        let none = try normalize(Self.input, output: Self.options(types: ["nothing"]))
        #expect(none == #"{"document":{"data":[{"type":"articles","id":"1"}]}}"# + "\n")
    }

    @Test func keepFieldsIsASparseFieldset() throws {
        // `abc` is written escaped in the input: names are compared decoded.
        let o = Self.options(fields: ["articles": ["title", "abc", "author"]])
        let nd = try normalize(Self.input, output: o)
        #expect(
            nd.contains(
                #"{"type":"articles","id":"1","primary":true,"attributes":{"title":"T","abc":1},"relationships":{"author":{"data":{"type":"people","id":"9"}}},"links":{"self":"/a/1"},"meta":{"m":1}}"#
            ), "\(nd)")
        // Other types keep everything.
        #expect(nd.contains(#"{"type":"comments","id":"5","primary":false,"attributes":{"text":"C"},"relationships":{"author":"#), "\(nd)")
        let flat = try normalize(Self.input, format: .json, output: o)
        #expect(flat.contains(#""1":{"attributes":{"title":"T","abc":1},"relationships":{"author":{"data":{"type":"people","id":"9"}}},"links":{"self":"/a/1"},"meta":{"m":1}}"#), "\(flat)")
        let edges = try normalize(Self.input, format: .edges, output: o)
        #expect(!edges.contains(#""relationship":"comments""#) && edges.contains(#""relationship":"author""#))
        // No fields at all.
        let bare = try normalize(Self.input, output: Self.options(types: ["articles"], fields: ["articles": []]))
        #expect(bare.hasPrefix(#"{"type":"articles","id":"1","primary":true,"attributes":{},"relationships":{},"links""#), "\(bare)")
        // The same at every read size.
        for chunk in [1, 7, 64] {
            #expect(try normalize(Self.input, output: o, chunk: chunk) == nd)
        }
    }
}
