import Foundation
import Testing
@testable import JSONAPIStream
@testable import JSONAPIBenchmarking

/// The typed-decoding passes of `jsonapi bench` compare this library's decoder with
/// Foundation's `JSONDecoder`. The comparison is fair only if both produce the same values
/// from the same bytes: these tests decode one generated document both ways and compare
/// every field, and check what each pass counts.
@Suite struct BenchmarkPeersTests {
    static func input() throws -> [UInt8] { try BenchmarkPass.generatedDocument(resources: 60, seed: 7) }

    static func graph() throws -> Graph {
        try input().withUnsafeBytes { try BenchmarkPasses.graph($0, chunkSize: 4096) }
    }

    static func foundation() throws -> GeneratedDocument {
        try JSONDecoder().decode(GeneratedDocument.self, from: Data(input()))
    }

    static func same(_ a: JSONAPIBenchmarking.Identifier, _ b: ResourceIdentifier) -> Bool {
        a.type == b.type && a.id == b.id
    }

    @Test func articlesHoldWhatJSONDecoderReads() throws {
        let theirs = try Self.foundation().data
        let ours = try Self.graph().decode([ArticleModel].self, options: DecodingPeers.options)
        #expect(ours.count == 60)
        try #require(theirs.count == ours.count)
        for (f, m) in zip(theirs, ours) {
            let a = f.attributes
            #expect(m.type == f.type && m.id == f.id)
            #expect(m.title == a.title && m.body == a.body && m.summary == a.summary && m.quote == a.quote)
            #expect(m.views == a.views && m.published == a.published && m.publishedAt == a.publishedAt && m.deletedAt == a.deletedAt)
            // Bit for bit: -0 stays -0, and both read the nearest double.
            #expect(m.rating.bitPattern == a.rating.bitPattern && m.score.bitPattern == a.score.bitPattern, "\(m.id)")
            #expect(m.tagsList == a.tagsList)
            #expect(m.dimensions.width == a.dimensions.width && m.dimensions.height.bitPattern == a.dimensions.height.bitPattern)
            #expect(m.dimensions.ratio.bitPattern == a.dimensions.ratio.bitPattern)
            #expect(Self.same(f.relationships.author.data, m.author))
            #expect(m.comments.count == f.relationships.comments.data.count && zip(f.relationships.comments.data, m.comments).allSatisfy(Self.same))
            #expect(m.tags.count == f.relationships.tags.data.count && zip(f.relationships.tags.data, m.tags).allSatisfy(Self.same))
            #expect(m.links.`self` == f.links.`self` && m.meta.revision == f.meta.revision)
        }
        // The document has the values that tell a careless reader apart.
        #expect(ours.contains { $0.score.sign == .minus && $0.score == 0 })
        #expect(ours.contains { $0.quote.contains("\"") || $0.quote.contains("\n") })
        #expect(ours.contains { $0.score == 1e300 } && ours.contains { $0.summary.utf8.count > $0.summary.count })
    }

    @Test func includedResourcesHoldWhatJSONDecoderReads() throws {
        let g = try Self.graph()
        let o = DecodingPeers.options
        var people: [JSONAPIBenchmarking.Person] = [], tags: [JSONAPIBenchmarking.Tag] = [], comments: [JSONAPIBenchmarking.Comment] = []
        for member in try Self.foundation().included {
            switch member {
            case .person(let p): people.append(p)
            case .tag(let t): tags.append(t)
            case .comment(let c): comments.append(c)
            }
        }
        let ourPeople = try g.decode(PersonModel.self, ofType: "people", options: o)
        let ourTags = try g.decode(TagModel.self, ofType: "tags", options: o)
        let ourComments = try g.decode(CommentModel.self, ofType: "comments", options: o)
        #expect(!people.isEmpty && !tags.isEmpty && !comments.isEmpty)
        #expect(ourPeople.map(\.id) == people.map(\.id))
        for (m, f) in zip(ourPeople, people) {
            #expect(m.type == f.type && m.firstName == f.attributes.firstName && m.lastName == f.attributes.lastName)
            #expect(m.email == f.attributes.email && m.age == f.attributes.age && m.links.`self` == f.links.`self`)
        }
        #expect(ourTags.map(\.id) == tags.map(\.id) && ourTags.map(\.label) == tags.map(\.attributes.label))
        #expect(ourComments.map(\.id) == comments.map(\.id))
        for (m, f) in zip(ourComments, comments) {
            #expect(m.body == f.attributes.body && m.likes == f.attributes.likes)
            #expect(Self.same(f.relationships.author.data, m.author) && Self.same(f.relationships.article.data, m.article))
        }
    }

    @Test func eachDecodingPassCountsWhatItDecoded() throws {
        let document = try Self.foundation()
        let input = try Self.input()
        let all = document.data.count + document.included.count
        #expect(try BenchmarkPass.decode.run(input) == all)
        #expect(try BenchmarkPass.decodeConcurrent.run(input) == all)
        #expect(try BenchmarkPass.jsonDecoder.run(input) == all)
        // The primary-data passes decode the articles and nothing else.
        #expect(try BenchmarkPass.decodePrimary.run(input) == document.data.count)
        #expect(try BenchmarkPass.decodePrimaryConcurrent.run(input) == document.data.count)
        #expect(document.data.count == 60 && all > 60)
    }
}
