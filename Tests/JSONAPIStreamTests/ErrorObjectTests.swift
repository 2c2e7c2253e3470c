import Foundation
import Testing
import JSONAPIStream

/// Typed document pieces: error objects, links, identifier meta; error documents refused as
/// primary data; values that know where they are in their document.
struct ErrorObjectTests {
    @Test func errorObjectsAreTyped() throws {
        let graph = try Graph(data: Data(contentsOf: corpusURL("documents/errors-all-members.json")))
        let errors = graph.errors
        try #require(errors.count == 3)
        let first = errors[0]
        #expect(first.id == "e-1")
        #expect(first.status == "400")
        #expect(first.code == "bad-parameter")
        #expect(first.title == "Invalid Query Parameter")
        #expect(first.detail == "The resource does not have an `auther` relationship path.")
        #expect(first.source == ErrorObject.Source(parameter: "include"))
        #expect(first.meta == ["request-id": "a1b2"])
        // `about` as a string, `type` as a link object: both typed, each as it came.
        #expect(first.links["about"] == Link("https://example.com/errors/e-1"))
        #expect(first.links["about"]?.isObject == false)
        #expect(first.links["type"] == Link(href: "https://example.com/errors/types/bad-parameter", title: "Bad parameter"))
        #expect(first.aboutLink == "https://example.com/errors/e-1")
        #expect(first.typeLink == "https://example.com/errors/types/bad-parameter")
        #expect(errors[1].sourceHeader == "Accept")
        #expect(errors[2].sourcePointer == "")
        #expect(first.description == "400 bad-parameter: Invalid Query Parameter: The resource does not have an `auther` relationship path. (parameter include)")
        // One document's errors, the same.
        #expect(graph.documents[0].errors == errors)
    }

    @Test func membersOfTheWrongTypeAreLeftOut() throws {
        let graph = try Graph(
            json: #"{"errors":[{"status":404,"title":7,"links":{"about":{"title":"no href"},"type":"t"},"source":"x","meta":{"a":1}}]}"#)
        let e = try #require(graph.errors.first)
        #expect(e.status == "404")  // a number, kept as its text
        #expect(e.title == nil)
        #expect(e.links == ["type": Link("t")])  // a link object without href is no link
        #expect(e.source == nil)
        #expect(e.meta == ["a": 1])
    }

    /// A decoding error inside an error object names the place from the document's top
    /// (`/errors/1/status`), not from the error object (`/status`).
    @Test func decodingErrorsNamePlacesInTheDocument() throws {
        struct Strict: Decodable {
            let status: Int
        }
        let graph = try Graph(json: #"{"errors":[{"status":"400"},{"status":"x","meta":{"n":"y"}}]}"#)
        let values = graph.errorValues
        try #require(values.count == 2)
        let error = try #require(throws: DecodingError.self) { try values[1].decode(Strict.self) }
        #expect("\(error)".contains("/errors/1/status"), "\(error)")
        let nested = try #require(throws: DecodingError.self) { try values[1]["meta"]?["n"]?.decode(Int.self) }
        #expect("\(nested)".contains("/errors/1/meta/n"), "\(nested)")
        let meta = try #require(throws: DecodingError.self) {
            try Graph(json: #"{"meta":{"count":"many"},"data":[]}"#).meta?["count"]?.decode(Int.self)
        }
        #expect("\(meta)".contains("/meta/count"), "\(meta)")
    }

    @Test func primaryDataOfAnErrorDocumentThrowsTheErrors() throws {
        struct Article: Decodable, Sendable {
            let id: String
        }
        let graph = try Graph(data: Data(contentsOf: corpusURL("documents/errors-multiple.json")))
        let error = try #require(throws: ErrorDocument.self) { try graph.decode([Article].self) }
        #expect(error.errors.map(\.code) == ["123", "225", "226"])
        #expect(error.errors[0].sourcePointer == "/data/attributes/firstName")
        #expect("\(error)".hasPrefix("the document holds errors, not primary data: 123: Value is too short:"))
        #expect(throws: ErrorDocument.self) { try graph.decode(Article?.self) }
        #expect(throws: ErrorDocument.self) { try graph.decodeConcurrently([Article].self) }
        // A document with data decodes as before, empty or not.
        #expect(try Graph(json: #"{"data":[]}"#).decode([Article].self).isEmpty)
        #expect(try Graph(json: #"{"data":null}"#).decode(Article?.self) == nil)
    }

    @Test func linksDecodeAndEncodeInTheFormTheyCame() throws {
        struct Article: Decodable {
            let id: String
            let links: [String: Link]
        }
        let doc = #"""
            {"data":{"type":"articles","id":"1","links":{
              "self":"https://h/articles/1",
              "describedby":{"href":"https://h/schemas/article","type":"application/schema+json",
                "describedby":{"href":"https://h/meta-schema"}},
              "alternate":{"href":"https://h/fr/articles/1","rel":"alternate","hreflang":"fr","title":"En français","meta":{"n":1}},
              "mirror":{"href":"https://m/articles/1","hreflang":["en","de"]}}}}
            """#
        let article = try Graph(json: doc).decode(Article.self)
        let links = article.links
        #expect(links["self"] == Link("https://h/articles/1"))
        let describedBy = try #require(links["describedby"])
        #expect(describedBy.type == "application/schema+json")
        #expect(describedBy.describedBy?.href == "https://h/meta-schema")
        #expect(links["alternate"]?.hreflang == ["fr"])
        #expect(links["alternate"]?.rel == "alternate")
        #expect(links["alternate"]?.meta == ["n": 1])
        #expect(links["mirror"]?.hreflang == ["en", "de"])
        // Written back as they came: a string stays a string, one language tag stays a string.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        func text(_ l: Link?) throws -> String { String(decoding: try encoder.encode(l), as: UTF8.self) }
        #expect(try text(links["self"]) == #""https:\/\/h\/articles\/1""#)
        #expect(try text(links["alternate"]) == #"{"href":"https:\/\/h\/fr\/articles\/1","hreflang":"fr","meta":{"n":1},"rel":"alternate","title":"En français"}"#)
        #expect(try text(links["mirror"]) == #"{"href":"https:\/\/m\/articles\/1","hreflang":["en","de"]}"#)
        // And read again by Foundation's decoder, equal.
        for (_, link) in links { #expect(try JSONDecoder().decode(Link.self, from: encoder.encode(link)) == link) }
    }

    @Test func errorObjectsRoundTripThroughFoundation() throws {
        let graph = try Graph(data: Data(contentsOf: corpusURL("documents/errors-all-members.json")))
        for e in graph.errors {
            let again = try JSONDecoder().decode(ErrorObject.self, from: JSONEncoder().encode(e))
            #expect(again == e)
        }
    }

    /// Identifier meta is reachable from typed relationships, whether or not the related
    /// resource was included.
    @Test func identifierMetaFromTypedRelationships() throws {
        struct Person: Decodable {
            let id: String
        }
        struct Article: Decodable {
            let id: String
            let author: ToOne<Person>
            let reviewers: ToMany<Person>
        }
        let doc = #"""
            {"data":{"type":"articles","id":"1","relationships":{
              "author":{"data":{"type":"people","id":"9","meta":{"role":"editor"}}},
              "reviewers":{"data":[{"type":"people","id":"7","meta":{"round":1}},{"type":"people","id":"8"}]}}}}
            """#
        let article = try Graph(json: doc).decode(Article.self)
        #expect(try article.author.identifierMeta?["role"]?.decode(String.self) == "editor")
        #expect(article.author.linkage?.identifier == ResourceIdentifier(type: "people", id: "9"))
        #expect(article.reviewers.linkage.count == 2)
        #expect(try article.reviewers.linkage[0].meta?["round"]?.decode(Int.self) == 1)
        #expect(article.reviewers.linkage[1].meta == nil)
        #expect(article.reviewers.linkage[1].resource == nil)

        // Linkage as the property's type: the identifier and its meta, never the related
        // model (neither person is included, and Person could not be decoded from them).
        struct ArticleLinks: Decodable {
            let author: Linkage?
            let editor: Linkage?
            let reviewers: [Linkage]
        }
        let withEditor = doc.replacingOccurrences(of: #""reviewers":"#, with: #""editor":{"data":null},"reviewers":"#)
        let links = try Graph(json: withEditor).decode(ArticleLinks.self)
        #expect(links.author?.identifier == ResourceIdentifier(type: "people", id: "9"))
        #expect(try links.author?.meta?["role"]?.decode(String.self) == "editor")
        #expect(links.author?.resource == nil)
        #expect(links.editor == nil)
        #expect(links.reviewers.map(\.identifier.id) == ["7", "8"])
        #expect(try links.reviewers[0].meta?["round"]?.decode(Int.self) == 1)
        // A to-many relationship is not one Linkage.
        struct Wrong: Decodable { let reviewers: Linkage }
        #expect(throws: DecodingError.self) { try Graph(json: doc).decode(Wrong.self) }
    }

    /// The README's error-handling example, as written there (public API only), prints what
    /// the README shows.
    @Test func readmeExamplePrintsWhatTheReadmeShows() throws {
        struct Article: Decodable {
            let id: String
        }
        var printed: [String] = []
        func print(_ s: Any) { printed.append("\(s)") }
        let graph = try Graph(contentsOf: repositoryRoot.appendingPathComponent("docs/examples/errors.json").path)
        do {
            let articles = try graph.decode([Article].self)
            print(articles.count)
        } catch let error as ErrorDocument {
            for e in error.errors {
                print(e)
                print(e.links["about"]?.href ?? "no link")
            }
        }
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(printed.count == 2)
        #expect(readme.contains("prints\n\n```\n" + printed.joined(separator: "\n") + "\n```"), "\(printed)")
        #expect(readme.contains("} catch let error as ErrorDocument {\n    for e in error.errors {"))
    }
}
