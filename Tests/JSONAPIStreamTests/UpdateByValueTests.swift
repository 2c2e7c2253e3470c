import Foundation
import Testing
import JSONAPIStream

/// An update sends what changed by value, not by text: numbers by value, date-times by
/// instant, JSON values structurally, relationships only when their linkage changed.
struct UpdateByValueTests {
    static let document = #"""
        {"data":{"type":"articles","id":"1",
          "attributes":{"price":19.99,"views":1200,"at":"2026-01-01T10:00:00.250Z","size":{"w":1,"h":2.5},"tags":["a","b"],"note":"2026-01-01"},
          "relationships":{"author":{"data":{"type":"people","id":"9"}},"comments":{"data":[{"type":"comments","id":"5"},{"type":"comments","id":"12"}]},"editor":{"data":null}}}}
        """#

    static func editing() throws -> EditableResource {
        let graph = try Graph(json: document)
        return EditableResource(editing: try #require(graph[type: "articles", id: "1"]))
    }

    @Test func theSameValueWrittenAnotherWayIsNoChange() throws {
        var edit = try Self.editing()
        edit["price"] = .number(JSONNumber("19.990")!)
        edit["views"] = .number(JSONNumber("1.2e3")!)
        edit["at"] = "2026-01-01T10:00:00.25Z"
        edit["size"] = ["h": .number(JSONNumber("2.50")!), "w": .number(JSONNumber("1.0")!)]
        edit["tags"] = ["a", "b"]
        edit.setRelationship("author", .toOne(ResourceIdentifier(type: "people", id: "9")))
        edit.setRelationship("comments", .toMany([ResourceIdentifier(type: "comments", id: "5"), ResourceIdentifier(type: "comments", id: "12")]))
        edit.setRelationship("editor", .toOne(nil))
        #expect(!edit.hasChanges, "\(edit.changedAttributes) \(edit.changedRelationships)")
        #expect(String(decoding: try edit.updateDocument(), as: UTF8.self) == #"{"data":{"type":"articles","id":"1"}}"#)
        // The same instant in another offset.
        edit["at"] = "2026-01-01T12:00:00.2500+02:00"
        #expect(!edit.hasChanges)
    }

    @Test func otherValuesAreChanges() throws {
        var edit = try Self.editing()
        edit["price"] = .number(JSONNumber("19.991")!)
        edit["at"] = "2026-01-01T10:00:00.251Z"
        edit["size"] = ["w": 1, "h": 2.5, "d": 1]
        edit["tags"] = ["b", "a"]
        edit["note"] = "2026-01-02"
        edit.setRelationship("comments", .toMany([ResourceIdentifier(type: "comments", id: "12"), ResourceIdentifier(type: "comments", id: "5")]))
        edit.setRelationship("author", .toOne(ResourceIdentifier(type: "people", id: "9")))
        #expect(edit.changedAttributes.keys == ["price", "at", "size", "tags", "note"])
        // Only the relationship whose linkage changed (order counts in a to-many).
        #expect(edit.changedRelationships.map(\.name) == ["comments"])
        // Set back to the original: no longer a change.
        edit.setRelationship("comments", .toMany([ResourceIdentifier(type: "comments", id: "5"), ResourceIdentifier(type: "comments", id: "12")]))
        #expect(edit.changedRelationships.isEmpty)
    }

    /// A model decoded from the resource and encoded back unchanged sends nothing, though its
    /// date comes back as `.250Z` where the document may have written `.25Z`, and its
    /// relationships are all set again.
    @Test func aModelEncodedBackUnchangedSendsNothing() throws {
        struct Article: Codable {
            var id: String
            var price: Double
            var at: Date
            var author: ResourceIdentifier
            var comments: [ResourceIdentifier]
        }
        let graph = try Graph(json: Self.document.replacingOccurrences(of: ".250Z", with: ".25Z"))
        let resource = try #require(graph[type: "articles", id: "1"])
        var model = try resource.decode(Article.self)
        var edit = EditableResource(editing: resource)
        try edit.update(encoding: model)
        #expect(!edit.hasChanges, "\(edit.changedAttributes) \(edit.changedRelationships)")
        model.price = 20
        model.comments.removeLast()
        try edit.update(encoding: model)
        #expect(edit.changedAttributes.keys == ["price"])
        #expect(edit.changedRelationships.map(\.name) == ["comments"])
    }

    @Test func numbersCompareByValue() {
        func same(_ a: String, _ b: String) -> Bool { JSONNumber(a)!.hasSameValue(as: JSONNumber(b)!) }
        #expect(same("19.99", "19.990"))
        #expect(same("1999e-2", "0.1999E2"))
        #expect(same("100", "1E+2"))
        #expect(same("-0", "0.0"))
        #expect(same("0", "0e10"))
        #expect(same("12345678901234567890123", "1.2345678901234567890123e22"))
        #expect(!same("19.99", "19.991"))
        #expect(!same("-1", "1"))
        #expect(!same("1e2", "1e3"))
        #expect(!same("0.1", "0.01"))
        // 2^53 + 1 and 2^53 are one Double, but not one number.
        #expect(!same("9007199254740993", "9007199254740992"))
    }

    @Test func stringsCompareAsInstantsOnlyWhenBothAreDateTimes() {
        func same(_ a: String, _ b: String) -> Bool { JSONValue.string(a).hasSameValue(as: .string(b)) }
        #expect(same("2026-01-01T10:00:00Z", "2026-01-01T10:00:00.000Z"))
        #expect(same("2026-01-01T10:00:00Z", "2026-01-01T11:00:00+01:00"))
        #expect(same("2026-01-01T10:00:00.123456789Z", "2026-01-01T10:00:00.12345678900Z"))
        #expect(!same("2026-01-01T10:00:00.123456789Z", "2026-01-01T10:00:00.123456788Z"))
        #expect(!same("2026-01-01", "2026-01-01T00:00:00Z"))
        #expect(!same("abc", "abd"))
    }
}
