import Foundation
import Testing
@testable import JSONAPIStream
import JSONAPIStreamFoundation

/// `Encodable` models written as resource objects: identity, attributes, relationships,
/// key strategies, value forms, and the payloads made from them.
struct ResourceEncodingTests {
    struct Person: EncodableResource, Codable, Equatable {
        static let resourceType = "people"
        var id: String
        var firstName: String
    }

    struct Dimensions: Codable, Equatable {
        var width: Int
        var height: Double
    }

    enum Status: String, Codable { case draft, published }

    struct Article: Encodable {
        var lid = "new-1"
        var title: String
        var publishedAt: Date
        var views: Int
        var score: Double
        var price: Decimal
        var homepage: URL
        var tags: [String]
        var dimensions: Dimensions
        var status: Status
        var subtitle: String? = nil
        var exact: JSONValue
        var author: ResourceIdentifier
        var comments: [ResourceIdentifier]
        var editor: Person
        var reviewers: [Person]
    }

    static let sample = Article(
        title: "Hello \"world\"", publishedAt: Date(timeIntervalSince1970: 1_772_368_200.25), views: 1024,
        score: 0.1, price: Decimal(string: "19.99")!, homepage: URL(string: "https://example.com/a?b=c")!,
        tags: ["json", "api"], dimensions: Dimensions(width: 800, height: 600.5), status: .draft,
        exact: .number(JSONNumber("123456789012345678901234567890")!),
        author: ResourceIdentifier(type: "people", id: "9", lid: nil),
        comments: [ResourceIdentifier(type: "comments", id: "5", lid: nil), ResourceIdentifier(type: "comments", id: "12", lid: nil)],
        editor: Person(id: "2", firstName: "Ann"), reviewers: [Person(id: "3", firstName: "Bo")])

    @Test func modelBecomesACreatePayload() throws {
        var options = ResourceEncodingOptions()
        options.keys = .kebabCase
        let resource = try EditableResource(encoding: Self.sample, type: "articles", options: options)
        #expect(resource.identifier == ResourceIdentifier(type: "articles", id: nil, lid: "new-1"))
        let body = String(decoding: try resource.createDocument(), as: UTF8.self)
        #expect(
            body == #"""
                {"data":{"type":"articles","lid":"new-1","attributes":{"title":"Hello \"world\"","published-at":"2026-03-01T12:30:00.25Z","views":1024,"score":0.1,"price":19.99,"homepage":"https://example.com/a?b=c","tags":["json","api"],"dimensions":{"width":800,"height":600.5},"status":"draft","exact":123456789012345678901234567890},"relationships":{"author":{"data":{"type":"people","id":"9"}},"comments":{"data":[{"type":"comments","id":"5"},{"type":"comments","id":"12"}]},"editor":{"data":{"type":"people","id":"2"}},"reviewers":{"data":[{"type":"people","id":"3"}]}}}}
                """#)
    }

    /// Encoded with kebab-case keys, read back with the camelCase decoding strategy: the
    /// same values.
    @Test func encodedModelsDecodeBack() throws {
        struct Back: Decodable, Equatable {
            var lid: String
            var title: String
            var publishedAt: Date
            var views: Int
            var score: Double
            var price: Decimal
            var homepage: URL
            var tags: [String]
            var dimensions: Dimensions
            var status: Status
            var subtitle: String?
            var author: ResourceIdentifier
            var comments: [ResourceIdentifier]
            var editor: ResourceIdentifier
        }
        var options = ResourceEncodingOptions()
        options.keys = .kebabCase
        let body = try EditableResource(encoding: Self.sample, type: "articles", options: options).createDocument()
        var read = DocumentOptions()
        read.context = .create
        let graph = try Graph(bytes: body, options: read)
        var decoding = DecodingOptions()
        decoding.keys = .camelCase
        let back = try graph.decode(Back.self, options: decoding)
        let s = Self.sample
        #expect(
            back
                == Back(
                    lid: s.lid, title: s.title, publishedAt: s.publishedAt, views: s.views, score: s.score, price: s.price,
                    homepage: s.homepage, tags: s.tags, dimensions: s.dimensions, status: s.status, subtitle: nil,
                    author: s.author, comments: s.comments, editor: ResourceIdentifier(type: "people", id: "2", lid: nil)))
    }

    @Test func identityFromTheModel() throws {
        struct Tag: Encodable { var type = "tags"; var id = 7; var label = "x" }
        let tag = try EditableResource(encoding: Tag())
        #expect(tag.identifier == ResourceIdentifier(type: "tags", id: "7", lid: nil))
        #expect(String(decoding: try tag.createDocument(), as: UTF8.self) == #"{"data":{"type":"tags","id":"7","attributes":{"label":"x"}}}"#)
        let person = try EditableResource(encoding: Person(id: "9", firstName: "Dan"))
        #expect(person.type == "people")
        #expect(try ResourceIdentifier(of: Person(id: "9", firstName: "Dan")) == ResourceIdentifier(type: "people", id: "9", lid: nil))
        // `type:` gives the type when the model has none of its own.
        struct Plain: Encodable { var name = "n" }
        #expect(try EditableResource(encoding: Plain(), type: "things").type == "things")
    }

    @Test func updatePayloadHasOnlyWhatChanged() throws {
        let graph = try Graph(json: #"{"data":{"type":"people","id":"9","attributes":{"firstName":"Dan","age":40}}}"#)
        var edit = EditableResource(editing: try #require(graph[type: "people", id: "9"]))
        try edit.update(encoding: Person(id: "9", firstName: "Daniel"))
        #expect(String(decoding: try edit.updateDocument(), as: UTF8.self) == #"{"data":{"type":"people","id":"9","attributes":{"firstName":"Daniel"}}}"#)
        var same = EditableResource(editing: try #require(graph[type: "people", id: "9"]))
        try same.update(encoding: Person(id: "9", firstName: "Dan"))
        #expect(!same.hasChanges)
        // Another resource's model is refused.
        var other = EditableResource(editing: try #require(graph[type: "people", id: "9"]))
        #expect(throws: JSONAPIError.misuse(#"the model's id "1" is not the resource's "9""#)) { try other.update(encoding: Person(id: "1", firstName: "X")) }
    }

    @Test func relationshipHandlesAndNulls() throws {
        let graph = try decodingGraph()
        struct Read: Decodable { var author: ToOne<ResourceIdentifier>; var comments: ToMany<ResourceIdentifier>; var editor: ToOne<ResourceIdentifier> }
        let read = try graph.decode([Read].self)[0]
        struct Write: Encodable { var type = "articles"; var id = "1"; var author: ToOne<ResourceIdentifier>; var comments: ToMany<ResourceIdentifier>; var editor: ToOne<ResourceIdentifier> }
        let r = try EditableResource(encoding: Write(author: read.author, comments: read.comments, editor: read.editor))
        #expect(
            String(decoding: try r.updateDocument(), as: UTF8.self)
                == #"{"data":{"type":"articles","id":"1","relationships":{"author":{"data":{"type":"people","id":"9"}},"comments":{"data":[{"type":"comments","id":"5"},{"type":"comments","id":"12"}]},"editor":{"data":null}}}}"#
        )
    }

    @Test func dateForms() throws {
        struct D: Encodable { var type = "t"; var id = "1"; var at: Date }
        func attribute(_ date: Date, _ strategy: DateEncodingStrategy) throws -> JSONValue? {
            var o = ResourceEncodingOptions()
            o.dates = strategy
            return try EditableResource(encoding: D(at: date), options: o).changedAttributes["at"]
        }
        let date = Date(timeIntervalSince1970: 1_000_000_000.5)
        #expect(try attribute(date, .iso8601) == .string("2001-09-09T01:46:40.5Z"))
        #expect(try attribute(Date(timeIntervalSince1970: -1), .iso8601) == .string("1969-12-31T23:59:59Z"))
        #expect(try attribute(date, .secondsSince1970) == .number(JSONNumber("1000000000.5")!))
        #expect(try attribute(date, .millisecondsSince1970) == .number(JSONNumber("1000000000500")!))
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy/MM/dd"
        #expect(try attribute(date, .formatted(f)) == .string("2001/09/09"))
        #expect(try attribute(date, .custom { .number(JSONNumber(Int($0.timeIntervalSince1970))) }) == .number(JSONNumber(1_000_000_000)))
    }

    /// The RFC 3339 writer agrees with Foundation's formatter, and what it writes the
    /// default decoding strategy reads back to the millisecond.
    @Test func rfc3339AgreesWithFoundation() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let ms = Int64.random(in: -2_208_988_800_000...4_102_444_800_000, using: &rng)  // 1900...2100
            let date = Date(timeIntervalSince1970: Double(ms) / 1000)
            let ours = RFC3339.format(date)
            let theirs = formatter.string(from: date)
            // Foundation always writes three fraction digits; ours drops trailing zeros.
            #expect(formatter.date(from: ours.contains(".") ? ours : ours.replacingOccurrences(of: "Z", with: ".000Z")) == formatter.date(from: theirs), "\(ours) vs \(theirs)")
            let graph = try Graph(json: #"{"data":{"type":"t","id":"1","attributes":{"at":"\#(ours)"}}}"#)
            struct At: Decodable { var at: Date }
            let back = try graph.decode(At.self).at
            #expect(abs(back.timeIntervalSince1970 - date.timeIntervalSince1970) < 0.0005, "\(ours)")
        }
    }

    @Test func transformsAndNumbers() throws {
        struct Money: Encodable { var cents: Int }
        struct Priced: Encodable {
            var type = "items"; var id = "1"
            var price = Money(cents: 1999)
            var small: Float = 0.1
            var whole: Double = 5
            var big: UInt64 = .max
            var tiny: Double = .leastNonzeroMagnitude  // 5e-324
            var flags: [Bool] = [true, false]
            var data = Data([0, 1, 2])
        }
        var o = ResourceEncodingOptions()
        o.transforms.register(Money.self) { .string("$\($0.cents / 100).\($0.cents % 100)") }
        let r = try EditableResource(encoding: Priced(), options: o)
        #expect(
            String(decoding: try r.createDocument(), as: UTF8.self)
                == #"{"data":{"type":"items","id":"1","attributes":{"price":"$19.99","small":0.1,"whole":5,"big":18446744073709551615,"tiny":5e-324,"flags":[true,false],"data":"AAEC"}}}"#)
    }

    @Test func failuresSayWhatAndWhere() throws {
        struct Bad: Encodable { var type = "t"; var id = "1"; var nested = Inner() }
        struct Inner: Encodable { var values: [Double] = [1, .nan] }
        #expect(throws: JSONAPIError.misuse("cannot encode Bad at /nested/values/1: nan is not a JSON number (value nan)")) {
            _ = try EditableResource(encoding: Bad())
        }
        var nulls = ResourceEncodingOptions()
        nulls.nonFiniteFloats = .null
        #expect(try EditableResource(encoding: Bad(), options: nulls).changedAttributes["nested"] == ["values": [1, nil]])

        struct Untyped: Encodable { var name = "x" }
        #expect(throws: JSONAPIError.misuse("the type of Untyped resources is unknown: give `type:`, a `type` property, or conform to EncodableResource")) {
            _ = try EditableResource(encoding: Untyped())
        }
        #expect(throws: JSONAPIError.misuse("Array<String> does not encode as an object (a resource needs keyed members)")) {
            _ = try EditableResource(encoding: ["a"], type: "t")
        }
        struct ObjectID: Encodable { var type = "t"; var id = ["x"] }
        #expect(throws: JSONAPIError.misuse("ObjectID.id must be a string or an integer to be a resource's id")) {
            _ = try EditableResource(encoding: ObjectID())
        }
        // A name the member-name rules refuse is caught before the payload is written.
        var badKeys = ResourceEncodingOptions()
        badKeys.keys = .custom { "+" + $0 }
        let r = try EditableResource(encoding: Untyped(), type: "t", options: badKeys)
        #expect(throws: JSONAPIError.self) { try r.createDocument() }
        do {
            _ = try r.createDocument()
        } catch {
            #expect(error.diagnostic?.pointer == "/data/attributes/+name", "\(error)")
        }
    }

    /// `JSONValue` in other encoders: exact where the encoder can be.
    @Test func jsonValuesInJSONEncoder() throws {
        let v: JSONValue = ["a": 1, "b": [true, nil, "s"], "c": .number(JSONNumber("12345678901234567890.5")!)]
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys  // JSONEncoder does not keep member order
        let text = String(decoding: try encoder.encode(v), as: UTF8.self)
        #expect(try JSONValue(parsing: Array(text.utf8)) == v, "\(text)")
    }
}
