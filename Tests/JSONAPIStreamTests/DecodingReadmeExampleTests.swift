import Foundation
import Testing
import JSONAPIStream

/// The README's decoding example, kept compiling and true (public API only).
struct DecodingReadmeExampleTests {
    struct Person: Decodable {
        let id: String
        let firstName: String
        let lastName: String
    }

    struct Comment: Decodable {
        let body: String
        let author: ResourceIdentifier  // the identifier, included or not
    }

    struct Article: Decodable {
        let id: String
        let title: String
        let views: Int
        let publishedAt: Date  // ISO 8601
        let author: Person?  // the included resource, decoded
        let comments: [Comment]
    }

    /// The README's `JSONAPIReadable` example.
    struct Headline: JSONAPIReadable {
        let id: String
        let title: String
        let views: Int
        let author: ResourceIdentifier

        init(reading r: JSONAPIReader) throws {
            id = try r.read("id")
            title = try r.read("title")
            views = try r.read("views")
            author = try r.read("author")
        }
    }

    @Test func readableExample() throws {
        let graph = try Graph(contentsOf: Self.path)
        let headlines = try graph.decode([Headline].self)
        #expect("\(headlines[0].title) \(headlines[0].views) \(headlines[0].author)" == "JSON:API paints my bikeshed! 1024 people/9")
        let readme = try String(contentsOf: URL(fileURLWithPath: Self.path).deletingLastPathComponent().appendingPathComponent("../../README.md").standardized, encoding: .utf8)
        #expect(readme.contains("// JSON:API paints my bikeshed! 1024 people/9"))
        #expect(readme.contains("struct Headline: JSONAPIReadable {"))
    }

    /// The document the README's example reads: `docs/examples/articles.json`.
    static let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/examples/articles.json").standardized.path

    @Test func readmeExample() throws {
        let graph = try Graph(contentsOf: Self.path)
        var options = DecodingOptions()
        options.keys = .camelCase  // `first-name` fills `firstName`
        let articles = try graph.decode([Article].self, options: options)
        #expect("\(articles[0].title) \(articles[0].author?.firstName ?? "?") \(articles[0].comments[0].author)" == "JSON:API paints my bikeshed! Dan people/2")
        #expect(articles[0].publishedAt == Date(timeIntervalSince1970: 1_772_368_200))

        var lines: [String] = []
        for article in graph.primary {
            let views = try article.attributes["views"]?.int() ?? 0
            lines.append("\(article.id ?? "-") \(views)")
        }
        #expect(lines == ["1 1024"])

        struct Strict: Decodable { let views: String }
        do {
            _ = try graph.decode([Strict].self)
            Issue.record("expected an error")
        } catch {
            #expect("\(error)".contains("articles/1 /attributes/views: expected String, found number 1024"), "\(error)")
        }
    }
}
