import Foundation
import Testing
import JSONAPIStream

/// One formatter, model name to wire name, for decoding and encoding alike.
struct KeyFormatterTests {
    struct Person: Codable {
        var id: String
        var name: String
    }

    struct Article: Codable {
        var id: String
        var title: String
        var publishedAt: Date
        var author: ResourceIdentifier
    }

    /// Spine's own example: an all-caps formatter, with no table of names.
    @Test func anAllCapsFormatterReadsAndWrites() throws {
        let upper = KeyFormatter { $0.uppercased() }
        let doc = #"""
            {"data":{"type":"articles","id":"1","attributes":{"TITLE":"Hi","PUBLISHEDAT":"2026-01-01T00:00:00Z"},
              "relationships":{"AUTHOR":{"data":{"type":"people","id":"9"}}},"meta":{"n":1}}}
            """#
        var decoding = DecodingOptions()
        decoding.keys = .formatter(upper)
        let article = try Graph(json: doc).decode(Article.self, options: decoding)
        #expect(article.id == "1" && article.title == "Hi" && article.author == ResourceIdentifier(type: "people", id: "9"))
        #expect(article.publishedAt == Date(timeIntervalSince1970: 1_767_225_600))

        var encoding = ResourceEncodingOptions()
        encoding.keys = .formatter(upper)
        let payload = try EditableResource(encoding: article, type: "articles", options: encoding).createDocument()
        #expect(
            String(decoding: payload, as: UTF8.self)
                == #"{"data":{"type":"articles","id":"1","attributes":{"TITLE":"Hi","PUBLISHEDAT":"2026-01-01T00:00:00Z"},"relationships":{"AUTHOR":{"data":{"type":"people","id":"9"}}}}}"#
        )
    }

    /// A coding key renamed in `CodingKeys` is formatted as renamed; the built-in formatters
    /// agree with the built-in key strategies.
    @Test func renamedKeysAreFormattedAsRenamed() throws {
        struct Post: Decodable {
            var id: String
            var when: Date
            var firstLine: String
            enum CodingKeys: String, CodingKey {
                case id
                case when = "publishedAt"
                case firstLine
            }
        }
        let doc = #"{"data":{"type":"posts","id":"1","attributes":{"published-at":"2026-01-01T00:00:00Z","first-line":"x"}}}"#
        var options = DecodingOptions()
        options.keys = .formatter(.kebabCase)
        let post = try Graph(json: doc).decode(Post.self, options: options)
        #expect(post.firstLine == "x" && post.when == Date(timeIntervalSince1970: 1_767_225_600))
        // The stored-name strategy reads the same document with the same keys.
        options.keys = .camelCase
        #expect(try Graph(json: doc).decode(Post.self, options: options).firstLine == "x")
        #expect(KeyFormatter.snakeCase.wireName(for: "firstLine") == "first_line")
        #expect(KeyFormatter.camelCase.wireName(for: "first_line") == "firstLine")
        #expect(KeyFormatter.asIs.wireName(for: "first_line") == "first_line")
    }

    @Test func aMissingMemberSaysWhichNameWasLookedUp() throws {
        var options = DecodingOptions()
        options.keys = .formatter(.kebabCase)
        let error = try #require(throws: DecodingError.self) {
            try Graph(json: #"{"data":{"type":"people","id":"1","attributes":{"nom":"x"}}}"#).decode(Person.self, options: options)
        }
        #expect("\(error)".contains(#"no attribute or relationship "name""#), "\(error)")
        #expect("\(error)".contains("looked up under the formatter's names"), "\(error)")
    }
}
