import Foundation
import Testing
@testable import JSONAPIStream

/// What real servers send and the lenient default accepts (`--strict` and `validate` still
/// report it): keys inside attribute values and meta objects are any JSON, numeric ids are
/// keyed by their text, and plain JSON (`--syntax-only`) allows repeated member names.
@Suite struct RealServerInput {
    static func findings(_ input: String, syntaxOnly: Bool = false) throws -> [Diagnostic] {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("real-\(UUID().uuidString).json")
        try Data(input.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        return try DocumentValidator(syntaxOnly: syntaxOnly).validate(.file(url.path))
    }

    @Test func keysInsideAttributeValuesAndMetaAreAnyJSON() throws {
        // djangorestframework-jsonapi: a JSON field with keys like 2^53+1, domain names.
        let input = #"{"data":{"type":"a","id":"1","attributes":{"cfg":{"2^53+1":1,"example.com":{"x y":[{"":2}]}}},"meta":{"a.b":1,"":2,"@c":{"d.e":3}}},"meta":{"with space":1}}"#
        var warnings: [Diagnostic] = []
        let flat = try normalize(input, format: .json, warnings: &warnings)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(flat.contains(#""cfg":{"2^53+1":1,"example.com":{"x y":[{"":2}]}}"#))
        var strict = DocumentOptions()
        strict.validation = .strict
        #expect(throws: Never.self) { try normalize(input, format: .json, document: strict) }
        #expect(try Self.findings(input).isEmpty)
        // The names JSON:API and the API define are still checked.
        let badAttribute = #"{"data":{"type":"a","id":"1","attributes":{"a.b":1}}}"#
        var w: [Diagnostic] = []
        _ = try normalize(badAttribute, format: .json, warnings: &w)
        #expect(w.map(\.rule) == [.R38])
        #expect(try Self.findings(badAttribute).map(\.rule) == [.R38])
    }

    @Test func numericIDsAreKeyedByTheirText() throws {
        // flask-rest-jsonapi on a relationship endpoint.
        let input = #"{"data":[{"type":"a","id":1,"relationships":{"r":{"data":{"type":"b","id":2}}}},{"type":"a","id":1.0}],"included":[{"type":"b","id":"2","attributes":{"n":"two"}}]}"#
        var warnings: [Diagnostic] = []
        let nd = try normalize(input, format: .ndjson, warnings: &warnings)
        #expect(warnings.map(\.rule) == [.R11, .R11, .R11], "\(warnings)")
        #expect(warnings.allSatisfy { $0.severity == .warning })
        #expect(warnings[0].message.contains(#"keyed as "1""#), "\(warnings[0].message)")
        #expect(warnings[0].pointer == "/data/0/id")
        #expect(nd.contains(#"{"type":"a","id":"1","primary":true,"attributes":{},"relationships":{"r":{"data":{"type":"b","id":"2"}}}}"#), "\(nd)")
        #expect(nd.contains(#"{"type":"a","id":"1.0","primary":true,"#), "\(nd)")
        // The linkage resolves to the included resource whose id is the string "2".
        let g = try graph(input)
        #expect(g[type: "a", id: "1"]?.relationship("r")?.resource?.attributes["n"]?.string == "two")
        // No false R10 or R13 beside it; strict mode and validate make it an error.
        var strict = DocumentOptions()
        strict.validation = .strict
        do {
            _ = try normalize(input, format: .json, document: strict)
            Issue.record("strict mode accepted a numeric id")
        } catch {
            #expect(error.rule == .R11)
        }
        let found = try Self.findings(input)
        #expect(found.map(\.rule) == [.R11, .R11, .R11] && found.allSatisfy { $0.severity == .error }, "\(found)")
        // A type that is not a string still cannot be keyed.
        #expect(throws: JSONAPIError.self) { try normalize(#"{"data":{"type":1,"id":"1"}}"#, format: .json) }
    }

    @Test func plainJSONAllowsRepeatedNames() throws {
        let input = #"{"a":1,"b":{"c":2,"c":3},"a":4}"#
        let found = try Self.findings(input, syntaxOnly: true)
        #expect(found.map(\.rule) == [.J11, .J11])
        #expect(found.allSatisfy { $0.severity == .warning })
        #expect(found.map(\.pointer) == ["/b/c", "/a"])
        // In JSON:API mode a repeated name stays an error (ambiguous data).
        let document = #"{"data":null,"meta":{"a":1,"a":2}}"#
        #expect(try Self.findings(document).contains { $0.rule == .J11 && $0.severity == .error })
        #expect(try Self.findings(document, syntaxOnly: true).map(\.severity) == [.warning])
    }
}
