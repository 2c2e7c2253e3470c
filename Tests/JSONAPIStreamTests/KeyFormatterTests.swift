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

    /// A graph written back as a document with the formatter: attribute, relationship and
    /// meta member names on the wire, types, ids and values as they are; read back with the
    /// same formatter, the model is the one that was read.
    @Test func aGraphIsWrittenWithTheFormatter() throws {
        let upper = KeyFormatter { $0.uppercased() }
        let doc = #"""
            {"data":{"type":"articles","id":"1","attributes":{"title":"Hi","publishedAt":"2026-01-01T00:00:00Z"},
              "relationships":{"author":{"data":{"type":"people","id":"9"},"meta":{"since":2}}},"meta":{"n":1}}}
            """#
        let graph = try Graph(json: doc)
        var options = DocumentEncodingOptions()
        options.keyFormatter = upper
        let text = String(decoding: try graph.document(options: options), as: UTF8.self)
        #expect(text.contains(#""attributes":{"TITLE":"Hi","PUBLISHEDAT":"2026-01-01T00:00:00Z"}"#), "\(text)")
        #expect(text.contains(#""relationships":{"AUTHOR":{"data":{"type":"people","id":"9"},"meta":{"SINCE":2}}}"#), "\(text)")
        #expect(text.contains(#""type":"articles","id":"1""#) && text.contains(#""meta":{"N":1}"#), "\(text)")
        var decoding = DecodingOptions()
        decoding.keys = .formatter(upper)
        let back = try Graph(json: text).decode(Article.self, options: decoding)
        let original = try graph.decode(Article.self)
        #expect(back.title == original.title && back.publishedAt == original.publishedAt && back.author == original.author)
    }

    /// Two names the formatter makes equal are refused (N04), naming the formatter.
    @Test func namesTheFormatterMakesEqualAreRefused() throws {
        let graph = try Graph(json: #"{"data":{"type":"a","id":"1","attributes":{"x":1,"y":2}}}"#)
        var options = DocumentEncodingOptions()
        options.keyFormatter = KeyFormatter { _ in "same" }
        do {
            _ = try graph.document(options: options)
            Issue.record("expected N04")
        } catch {
            #expect(error.diagnostic?.rule == .N04)
            #expect(error.diagnostic?.message.contains("the key formatter") == true, "\(error)")
        }
    }

    /// The writers of `normalize` take the same formatter: the built-in snake case as a
    /// formatter writes what `--keys snake` writes, in every format and in tables.
    @Test func theWritersTakeTheFormatterToo() throws {
        let path = corpusURL("documents/spec-compound.json").path
        for format in OutputFormat.allCases {
            func run(_ output: OutputOptions) throws -> String {
                let out = ByteWriter()
                let n = Normalizer(format: format, out: out, output: output)
                try n.read(.file(path))
                try n.finish()
                return out.string
            }
            var builtIn = OutputOptions()
            builtIn.keys = .snake
            var custom = OutputOptions()
            custom.keyFormatter = .snakeCase
            let a = try run(builtIn)
            #expect(a == (try run(custom)), "\(format)")
            if format != .edges { #expect(a.contains("first_name"), "\(format)") }
        }
        #expect(KeyFormatter.snakeCase == KeyFormatter.snakeCase && KeyFormatter.snakeCase != KeyFormatter { $0 })
    }
}
