import Foundation
import Testing
@testable import JSONAPIStream
import JSONAPIBenchmarking

/// Decoding gives the same values whatever the chunk size the graph was fed with, and the
/// generator's documents decode in full.
struct DecodingStreamingTests {
    struct Person: Decodable, Equatable {
        var id: String
        var firstName: String
        var lastName: String
        var twitter: String
    }

    struct Comment: Decodable, Equatable {
        var id: String
        var body: String
        var author: ResourceIdentifier
        var article: ResourceIdentifier
    }

    struct Article: Decodable, Equatable {
        struct Dimensions: Decodable, Equatable {
            var width: Int
            var height: Double
            var aspectRatio: String
            // The key strategy converts attribute names only, as `--keys` does.
            enum CodingKeys: String, CodingKey { case width, height, aspectRatio = "aspect-ratio" }
        }
        var id: String
        var title: String
        var body: String
        var views: Int
        var rating: Double
        var score: JSONNumber
        var published: Bool
        var publishedAt: Date
        var editedAt: Date
        var deletedAt: Date?
        var tagsList: [String]
        var dimensions: Dimensions
        var counts: [String: Int]
        var author: Person
        var comments: [Comment]
        var reviewer: ResourceIdentifier?
        var watchers: [ResourceIdentifier]
    }

    @Test func everyChunkSizeGivesTheSameValues() throws {
        var options = DecodingOptions()
        options.keys = .camelCase
        let whole = try decodingGraph().decode([Article].self, options: options)
        #expect(whole.count == 1)
        #expect(whole[0].author.twitter == "dgeb")
        #expect(whole[0].dimensions.aspectRatio == "4:3")
        for chunk in 1...31 {
            let g = try decodingGraph(chunk: chunk)
            #expect(try g.decode([Article].self, options: options) == whole, "chunk \(chunk)")
            #expect(try g.primary[0].attributes["views"]?.int() == 1024, "chunk \(chunk)")
        }
    }

    // MARK: - Generated documents

    struct GeneratedArticle: Decodable, Equatable {
        struct Dimensions: Decodable, Equatable { var width: Int; var height: Double; var ratio: Double }
        var id: String
        var title: String
        var body: String
        var summary: String
        var quote: String
        var views: Int
        var rating: Double
        var score: JSONNumber
        var published: Bool
        var publishedAt: Date
        var deletedAt: Date?
        var tagsList: [String]
        var dimensions: Dimensions
        var author: GeneratedPerson
        var comments: [GeneratedComment]
        var tags: [ResourceIdentifier]
    }
    struct GeneratedPerson: Decodable, Equatable { var id: String; var firstName: String; var lastName: String; var email: String; var age: Int }
    struct GeneratedComment: Decodable, Equatable { var body: String; var likes: Int; var author: ResourceIdentifier; var article: ToOne<GeneratedArticle> }

    @Test func generatedDocumentDecodesAtAnyChunkSize() throws {
        let writer = ByteWriter()
        try DocumentGenerator(resources: 40, seed: 3).write(to: writer)
        let text = writer.string
        var options = DecodingOptions()
        options.keys = .camelCase
        let whole = try graph(text).decode([GeneratedArticle].self, options: options)
        #expect(whole.count == 40)
        #expect(whole.allSatisfy { $0.comments.count == 2 && $0.deletedAt == nil && !$0.tagsList.isEmpty })
        #expect(Set(whole.map(\.score.text)).contains("1e400"))
        for chunk in [1, 7, 64, 4096] {
            #expect(try graph(text, chunk: chunk).decode([GeneratedArticle].self, options: options).map(\.title) == whole.map(\.title), "chunk \(chunk)")
        }
        // The same values as the lazy accessors.
        let g = try graph(text)
        for (a, r) in zip(whole, g.primary) {
            #expect(a.views == (try r.attributes["views"]?.int()))
            #expect(a.body == r.attributes["body"]?.string)
            #expect(a.quote == r.attributes["quote"]?.string)
        }
    }
}
