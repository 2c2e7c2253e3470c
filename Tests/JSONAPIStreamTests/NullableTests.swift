import Foundation
import Testing
import JSONAPIStream

/// `Nullable`: absent, `null` and a value kept apart with synthesized `Codable`, through the
/// library's decoder and encoder and through Foundation's.
struct NullableTests {
    struct Article: Codable, Equatable {
        var id: String
        var title: Nullable<String>
        var subtitle: Nullable<String>
        var body: Nullable<String>
        var rating: Nullable<Double>
        var extra: Nullable<JSONValue>
        var tags: [Nullable<String>]?
    }

    static let document = #"""
        {"data":{"type":"articles","id":"1","attributes":{"title":"A","subtitle":null,"rating":4.5,"extra":null,"tags":["x",null]}}}
        """#

    static let expected = Article(
        id: "1", title: .value("A"), subtitle: .null, body: .absent, rating: .value(4.5), extra: .null, tags: [.value("x"), .null])

    @Test func decodingFromAGraphKeepsTheThreeStates() throws {
        let article = try Graph(json: Self.document).decode(Article.self)
        #expect(article == Self.expected)
        #expect(article.body.isAbsent && !article.body.isNull)
        #expect(article.subtitle.isNull && article.subtitle.value == nil)
        // Optional cannot tell them apart; that is what Nullable is for.
        struct Plain: Decodable {
            let subtitle: String?
            let body: String?
        }
        let plain = try Graph(json: Self.document).decode(Plain.self)
        #expect(plain.subtitle == nil && plain.body == nil)
    }

    @Test func decodingWithFoundationKeepsTheThreeStates() throws {
        let json = #"{"id":"1","title":"A","subtitle":null,"rating":4.5,"extra":null,"tags":["x",null]}"#
        #expect(try JSONDecoder().decode(Article.self, from: Data(json.utf8)) == Self.expected)
    }

    @Test func encodingWritesNullAndLeavesAbsentOut() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let text = String(decoding: try encoder.encode(Self.expected), as: UTF8.self)
        #expect(text == #"{"extra":null,"id":"1","rating":4.5,"subtitle":null,"tags":["x",null],"title":"A"}"#)
    }

    @Test func createPayloadsWriteNullAndLeaveAbsentOut() throws {
        let resource = try EditableResource(encoding: Self.expected, type: "articles")
        let doc = try JSONValue(parsing: resource.createDocument())
        let attributes = try #require(doc["data"]?["attributes"]?.objectValue)
        #expect(attributes.keys == ["title", "subtitle", "rating", "extra", "tags"])
        #expect(attributes["subtitle"] == .null)
        #expect(attributes["extra"] == .null)
        #expect(attributes["title"] == "A")
        #expect(attributes["tags"] == ["x", nil])
    }

    @Test func conveniences() {
        #expect(Nullable<Int>(nil) == .null)
        #expect(Nullable(3) == .value(3))
        let n: Nullable<Int> = nil
        #expect(n.isNull)
        #expect("\(Nullable<Int>.absent) \(n) \(Nullable(7))" == "absent null 7")
    }

    /// The README's example, as written there, prints what the README shows.
    @Test func readmeExamplePrintsWhatTheReadmeShows() throws {
        struct ArticlePatch: Codable {
            var title: Nullable<String>
            var subtitle: Nullable<String>
            var body: Nullable<String>
        }
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        let patch = try Graph(json: #"{"data":{"type":"articles","id":"1","attributes":{"title":"A","subtitle":null}}}"#)
            .decode(ArticlePatch.self)
        print(patch.title, patch.subtitle, patch.body)
        let payload = try EditableResource(encoding: patch, type: "articles").createDocument()
        print(String(decoding: payload, as: UTF8.self))
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("prints\n\n```\n" + printed.joined(separator: "\n") + "\n```"), "\(printed)")
        #expect(readme.contains("print(patch.title, patch.subtitle, patch.body)"))
    }
}
