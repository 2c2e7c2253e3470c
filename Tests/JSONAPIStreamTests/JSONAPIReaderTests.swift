import Foundation
import Testing
@testable import JSONAPIBenchmarking
@testable import JSONAPIStream

// Models that read themselves (JSONAPIReadable), each beside the synthesized Decodable model
// that reads the same members, so that values and errors can be compared.

private struct Person: JSONAPIReadable, Equatable {
    var id: String
    var firstName: String
    var twitter: String?
    init(id: String, firstName: String, twitter: String?) {
        (self.id, self.firstName, self.twitter) = (id, firstName, twitter)
    }
    init(reading r: JSONAPIReader) throws {
        id = try r.read("id")
        firstName = try r.read("first-name")
        twitter = try r.readIfPresent("twitter")
    }
}

private struct Dimensions: JSONAPIReadable {
    var width: Int
    var aspect: String
    init(reading r: JSONAPIReader) throws {
        width = try r.read("width")
        aspect = try r.read("aspect-ratio")
    }
}

/// Property names that differ from the member names: a synthesized `init(from:)` could not
/// read this model, so decoding it shows that `init(reading:)` ran.
private struct Article: JSONAPIReadable {
    var identifier: String
    var heading: String
    var viewCount: Int
    var stars: Double
    var live: Bool
    var gone: String?
    var labels: [String]
    var size: Dimensions
    var writer: Person?
    var checker: Person?
    var chiefEditor: ResourceIdentifier?
    var remarks: [ResourceIdentifier]
    var revision: Int
    var path: [String] = []

    init(reading r: JSONAPIReader) throws {
        identifier = try r.read("id")
        heading = try r.read("title")
        viewCount = try r.read("views")
        stars = try r.read("rating")
        live = try r.read("published")
        gone = try r.readIfPresent("deletedAt")
        labels = try r.read("tags-list")
        size = try r.read("dimensions")
        writer = try r.readIfPresent("author")
        checker = try r.readIfPresent("reviewer")
        chiefEditor = try r.readIfPresent("editor")
        remarks = try r.read("comments")
        revision = try r.read("meta", as: [String: Int].self)["revision"] ?? -1
        path = r.codingPath.map(\.stringValue)
    }
}

/// Reads one member as `T` (required, or if present): the reader's side of an error
/// comparison.
private struct One<T: Decodable>: JSONAPIReadable {
    var value: T?
    init(reading r: JSONAPIReader) throws { value = try r.read(Key.name, as: T.self) }
}

/// The member name `One` reads, set per test through a task-local (models cannot take
/// arguments).
private enum Key {
    @TaskLocal static var name: StaticString = "views"
}

@Suite struct JSONAPIReaderTests {
    @Test func aModelReadsItselfFromResourcesAndValues() throws {
        let g = try decodingGraph()
        let a = try g.decode([Article].self)[0]
        #expect(a.identifier == "1" && a.heading == "JSON:API paints my bikeshed!" && a.viewCount == 1024)
        #expect(a.stars == 4.5 && a.live && a.gone == nil && a.labels == ["json", "api"])
        #expect(a.size.width == 800 && a.size.aspect == "4:3")
        #expect(a.writer == Person(id: "9", firstName: "Dan", twitter: "dgeb"))
        // Not included: nil for an optional related model; null linkage: nil.
        #expect(a.checker == nil && a.chiefEditor == nil)
        #expect(a.remarks == [ResourceIdentifier(type: "comments", id: "5"), ResourceIdentifier(type: "comments", id: "12")])
        #expect(a.revision == 3)
        #expect(a.path == ["Index 0"])
        // The same through every entry point that decodes.
        #expect(try g.primary[0].decode(Article.self).heading == a.heading)
        #expect(try g.decode(Article.self, ofType: "articles").map(\.heading) == [a.heading])
        #expect(try g.decode(Person.self, ofType: "people") == [Person(id: "9", firstName: "Dan", twitter: "dgeb")])
        #expect(try g.primary[0].attributes["dimensions"]!.decode(Dimensions.self).width == 800)
    }

    @Test func readsTheSameValuesAsTheSynthesizedModel() throws {
        // A generated document: escapes, -0, 1e300, non-ASCII text, every relationship shape
        // the benchmark's models read; 1,100 articles, so that decodeConcurrently shares them out.
        let input = try BenchmarkPass.generatedDocument(resources: 1_100, seed: 3)
        let g = try input.withUnsafeBytes { try BenchmarkPasses.graph($0, chunkSize: 4096) }
        let o = DecodingPeers.options
        let models = try g.decode([ArticleModel].self, options: o)
        for readings in [try g.decode([ArticleReading].self, options: o), try g.decodeConcurrently([ArticleReading].self, options: o)] {
            try #require(readings.count == models.count && models.count == 1_100)
            for (m, reading) in zip(models, readings) {
                let r = reading.model
                #expect(r.type == m.type && r.id == m.id && r.title == m.title && r.body == m.body && r.summary == m.summary && r.quote == m.quote)
                #expect(r.views == m.views && r.published == m.published && r.publishedAt == m.publishedAt && r.deletedAt == m.deletedAt)
                #expect(r.rating.bitPattern == m.rating.bitPattern && r.score.bitPattern == m.score.bitPattern, "\(m.id)")
                #expect(r.tagsList == m.tagsList && r.dimensions.width == m.dimensions.width)
                #expect(r.dimensions.height.bitPattern == m.dimensions.height.bitPattern && r.dimensions.ratio.bitPattern == m.dimensions.ratio.bitPattern)
                #expect(r.author == m.author && r.comments == m.comments && r.tags == m.tags)
                #expect(r.links.`self` == m.links.`self` && r.meta.revision == m.meta.revision)
            }
        }
        #expect(models.contains { $0.score.sign == .minus && $0.score == 0 } && models.contains { $0.score == 1e300 })
        #expect(models.contains { $0.summary.utf8.count > $0.summary.count })
        #expect(models.contains { $0.quote.contains("\"") || $0.quote.contains("\n") })
        #expect(try BenchmarkPass.readPrimary.run(input) == 1_100)
        #expect(try BenchmarkPass.readPrimaryConcurrent.run(input) == 1_100)
    }

    /// Each failure, read through a reader and through a synthesized model of the same member
    /// and type: the same `DecodingError` case, coding path and description.
    @Test func failsAsTheSynthesizedModelFails() throws {
        let g = try decodingGraph()
        func compare<R: Decodable, D: Decodable>(_ key: StaticString, _ reading: R.Type, _ decoding: D.Type, _ expected: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let ours = Key.$name.withValue(key) { decodingError { try g.decode([R].self) } }
            let theirs = decodingError { try g.decode([D].self) }
            guard let ours, let theirs else { return }
            #expect(kind(ours) == kind(theirs), sourceLocation: sourceLocation)
            #expect(path(ours) == path(theirs), sourceLocation: sourceLocation)
            #expect(message(ours) == message(theirs), sourceLocation: sourceLocation)
            #expect(message(ours).contains(expected), "\(message(ours))", sourceLocation: sourceLocation)
        }
        struct ViewsAsString: Decodable { var views: String }
        struct ViewsAsBool: Decodable { var views: Bool }
        struct TitleAsInt: Decodable { var title: Int }
        struct TitleAsDouble: Decodable { var title: Double }
        struct Missing: Decodable { var missing: String }
        struct DeletedAt: Decodable { var deletedAt: String }
        struct Big: Decodable { var big: Int8 }
        struct Width: Decodable {
            struct D: Decodable { var width: String }
            var dimensions: D
        }
        struct Reviewer: Decodable {
            struct P: Decodable { var id: String }
            var reviewer: P
        }
        struct Editor: Decodable { var editor: ResourceIdentifier }
        compare("views", One<String>.self, ViewsAsString.self, "/attributes/views")
        compare("views", One<Bool>.self, ViewsAsBool.self, "/attributes/views")
        compare("title", One<Int>.self, TitleAsInt.self, "/attributes/title")
        compare("title", One<Double>.self, TitleAsDouble.self, "/attributes/title")
        compare("missing", One<String>.self, Missing.self, "no attribute or relationship \"missing\"")
        compare("deletedAt", One<String>.self, DeletedAt.self, "/attributes/deletedAt")
        compare("big", One<Int8>.self, Big.self, "/attributes/big")
        compare("reviewer", One<Reviewer.P>.self, Reviewer.self, "people/404")
        compare("editor", One<ResourceIdentifier>.self, Editor.self, "editor")
        // Inside a nested reader: the path goes through the member that holds it.
        struct WidthReading: JSONAPIReadable {
            var width: String
            init(reading r: JSONAPIReader) throws { width = try r.read("width") }
        }
        compare("dimensions", One<WidthReading>.self, Width.self, "/attributes/dimensions/width")
    }

    @Test func handlesDecodeReadableModels() throws {
        // A relationship read as a lazy handle; the handle decodes the related resources into
        // readable models when asked.
        struct Comment: JSONAPIReadable, Equatable {
            var body: String
            init(body: String) { self.body = body }
            init(reading r: JSONAPIReader) throws { body = try r.read("body") }
        }
        struct Handles: JSONAPIReadable {
            var author: ToOne<Person>, editor: ToOne<Person>, comments: ToMany<Comment>
            init(reading r: JSONAPIReader) throws {
                author = try r.read("author")
                editor = try r.read("editor")
                comments = try r.read("comments")
            }
        }
        let h = try decodingGraph().decode([Handles].self)[0]
        #expect(try h.author.decode() == Person(id: "9", firstName: "Dan", twitter: "dgeb"))
        #expect(try h.editor.decode() == nil)
        #expect(try h.comments.decode() == [Comment(body: "First!"), Comment(body: "I like XML better")])
    }

    @Test func readIfPresentGivesNilForAbsentAndNull() throws {
        struct Optionals: JSONAPIReadable {
            var absent: String?, null: String?, present: Int?, absentModel: Person?, nullLinkage: ResourceIdentifier?, noLinkage: ResourceIdentifier?
            var has: [Bool]
            init(reading r: JSONAPIReader) throws {
                absent = try r.readIfPresent("nope")
                null = try r.readIfPresent("deletedAt")
                present = try r.readIfPresent("views")
                absentModel = try r.readIfPresent("reviewer")
                nullLinkage = try r.readIfPresent("editor")
                noLinkage = try r.readIfPresent("history")
                has = [r.contains("title"), r.contains("nope"), r.contains("id"), r.contains("meta"), r.contains("editor"), r.contains("deletedAt")]
            }
        }
        let o = try decodingGraph().decode([Optionals].self)[0]
        #expect(o.absent == nil && o.null == nil && o.present == 1024)
        #expect(o.absentModel == nil && o.nullLinkage == nil && o.noLinkage == nil)
        #expect(o.has == [true, false, true, true, true, true])
    }

    @Test func storedNamesFollowTheKeyStrategy() throws {
        struct CamelPerson: JSONAPIReadable {
            var firstName: String, lastName: String
            init(reading r: JSONAPIReader) throws {
                firstName = try r.read("firstName")
                lastName = try r.read("lastName")
            }
        }
        var options = DecodingOptions()
        options.keys = .camelCase
        let p = try decodingGraph().decode(CamelPerson.self, ofType: "people", options: options)
        #expect(p.map(\.firstName) == ["Dan"] && p.map(\.lastName) == ["Gebhardt"])
        #expect(decodingError { try decodingGraph().decode(CamelPerson.self, ofType: "people") }.map(kind) == "keyNotFound")
    }

    @Test func anyOtherDecoderReadsThroughItsContainer() throws {
        let json = Data(#"{"id":"7","first-name":"Ada","twitter":null,"dimensions":{"width":3,"aspect-ratio":"1:1"}}"#.utf8)
        #expect(try JSONDecoder().decode(Person.self, from: json) == Person(id: "7", firstName: "Ada", twitter: nil))
        struct Holder: JSONAPIReadable {
            var size: Dimensions
            var path: [String]
            init(reading r: JSONAPIReader) throws {
                size = try r.read("dimensions")
                path = r.codingPath.map(\.stringValue)
                #expect(r.contains("id") && !r.contains("nope"))
            }
        }
        let h = try JSONDecoder().decode(Holder.self, from: json)
        #expect(h.size.width == 3 && h.size.aspect == "1:1" && h.path == [])
        let error = decodingError { try JSONDecoder().decode(Person.self, from: Data(#"{"id":"7"}"#.utf8)) }
        #expect(error.map(kind) == "keyNotFound" && error.map(path) == ["first-name"])
    }
}
