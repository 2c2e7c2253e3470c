import Foundation
import Testing
@testable import JSONAPIStream

/// Decoding resources into models: every value kind, id/type, relationships, cycles, primary
/// data.
struct DecodingModelTests {
    struct Dimensions: Decodable, Equatable {
        var width: Int
        var height: Double
        var aspectRatio: String

        enum CodingKeys: String, CodingKey {
            case width, height
            case aspectRatio = "aspect-ratio"
        }
    }

    enum Status: String, Decodable { case draft, published }

    struct Article: Decodable, Equatable {
        var id: String
        var type: String
        var title: String
        var body: String
        var views: Int
        var rating: Double
        var ratio: Double
        var score: JSONNumber
        var negativeZero: Double
        var published: Bool
        var publishedAt: Date
        var editedAt: Date
        var deletedAt: Date?
        var tagsList: [String]
        var dimensions: Dimensions
        var status: Status
        var homepage: URL
        var price: String
        var counts: [String: Int]
        var matrix: [[Int]]
        var nothing: [String]
        var missing: String?
        var author: ResourceIdentifier
        var comments: [ResourceIdentifier]
        var editor: ResourceIdentifier?

        enum CodingKeys: String, CodingKey {
            case id, type, title, body, views, rating, ratio, score, negativeZero, published, publishedAt, editedAt,
                deletedAt, dimensions, status, homepage, price, counts, matrix, nothing, missing, author, comments, editor
            case tagsList = "tags-list"
        }
    }

    @Test func everyAttributeKind() throws {
        let a = try article1().decode(Article.self)
        #expect(a.id == "1")
        #expect(a.type == "articles")
        #expect(a.title == "JSON:API paints my bikeshed!")
        #expect(a.body == "Line one\nLine \"two\" \u{01} é 🚲")
        #expect(a.views == 1024)
        #expect(a.rating == 4.5)
        #expect(a.ratio == 0.00125)
        #expect(a.score.text == "123456789012345678901234567890")
        #expect(a.negativeZero == 0 && a.negativeZero.sign == .minus)
        #expect(a.published)
        #expect(a.publishedAt == Date(timeIntervalSince1970: 1_772_368_200))
        #expect(a.editedAt == Date(timeIntervalSince1970: 1_772_434_800.25))
        #expect(a.deletedAt == nil)
        #expect(a.tagsList == ["json", "api"])
        #expect(a.dimensions == Dimensions(width: 800, height: 600.5, aspectRatio: "4:3"))
        #expect(a.status == .draft)
        #expect(a.homepage.relativeString == "/articles/1")
        #expect(a.counts == ["a": 1, "b": 2])
        #expect(a.matrix == [[1, 2], [3]])
        #expect(a.nothing == [])
        #expect(a.missing == nil)
        #expect(a.author == ResourceIdentifier(type: "people", id: "9"))
        #expect(a.comments.map(\.description) == ["comments/5", "comments/12"])
        #expect(a.editor == nil)
    }

    @Test func foundationAndGraphValueTypes() throws {
        struct Values: Decodable {
            var score: Decimal
            var views: Int64
            var rating: Float
            var dimensions: JSONValue
            var tagsList: LazyValue
            var price: Decimal?
            var counts: [String: UInt8]
            var empty: [String: String]
            enum CodingKeys: String, CodingKey { case score, views, rating, dimensions, counts, empty, tagsList = "tags-list", price = "nothing-here" }
        }
        let v = try article1().decode(Values.self)
        #expect(v.score == Decimal(string: "123456789012345678901234567890"))
        #expect(v.views == 1024)
        #expect(v.rating == 4.5)
        #expect(v.dimensions == ["width": 800, "height": .number(JSONNumber("600.5")!), "aspect-ratio": "4:3"])
        #expect(v.tagsList.jsonText == #"["json","api"]"#)
        #expect(v.price == nil)
        #expect(v.counts == ["a": 1, "b": 2])
        #expect(v.empty.isEmpty)
    }

    @Test func idCanBeAnInteger() throws {
        struct Numbered: Decodable { var id: Int; var type: String }
        #expect(try article1().decode(Numbered.self).id == 1)
        let g = try graph(#"{"data":{"type":"a","id":"x1"}}"#)
        let e = try #require(decodingError { try g.primary[0].decode(Numbered.self) })
        #expect(kind(e) == "typeMismatch")
        #expect(message(e) == #"a/x1 /id: expected Int, found string "x1""#)
    }

    @Test func localIdentifiers() throws {
        struct New: Decodable { var type: String; var id: String?; var lid: String?; var name: String }
        let g = try graph(
            #"{"data":{"type":"people","lid":"tmp-1","attributes":{"name":"N"}}}"#,
            options: {
                var o = DocumentOptions(); o.context = .create; return o
            }())
        let p = try g.decode(New.self)
        #expect(p.lid == "tmp-1")
        #expect(p.id == nil)
        #expect(p.name == "N")
    }

    @Test func metaAndLinksOfTheResource() throws {
        struct WithMeta: Decodable {
            struct Meta: Decodable { var revision: Int }
            var meta: Meta
            var links: [String: URL]
        }
        let w = try article1().decode(WithMeta.self)
        #expect(w.meta.revision == 3)
        #expect(w.links["self"]?.absoluteString == "http://example.com/articles/1")
    }

    // MARK: - Relationships

    struct Person: Decodable, Equatable {
        var id: String
        var firstName: String
        var lastName: String
        enum CodingKeys: String, CodingKey {
            case id
            case firstName = "first-name"
            case lastName = "last_name"
        }
    }

    struct Comment: Decodable, Equatable {
        var id: String
        var body: String
        var author: Person?
        var article: ResourceIdentifier
    }

    @Test func relatedModelsResolveThroughTheGraph() throws {
        struct Full: Decodable {
            var author: Person
            var comments: [Comment]
            var editor: Person?
            var reviewer: Person?
            var history: Person?
            var watchers: [Person?]
        }
        let f = try article1().decode(Full.self)
        #expect(f.author == Person(id: "9", firstName: "Dan", lastName: "Gebhardt"))
        #expect(f.comments.map(\.body) == ["First!", "I like XML better"])
        #expect(f.comments[0].author == nil)  // people/2 is not included
        #expect(f.comments[1].author?.id == "9")
        #expect(f.comments[1].article == ResourceIdentifier(type: "articles", id: "1"))
        #expect(f.editor == nil)  // null
        #expect(f.reviewer == nil)  // people/404 not included
        #expect(f.history == nil)  // no data
        #expect(f.watchers.map { $0?.id } == ["9", nil])
    }

    @Test func identifiersNeverNeedTheTarget() throws {
        struct Ids: Decodable {
            var reviewer: ResourceIdentifier
            var watchers: [ResourceIdentifier]
            var history: ResourceIdentifier?
            var editor: ResourceIdentifier?
        }
        let ids = try article1().decode(Ids.self)
        #expect(ids.reviewer.description == "people/404")
        #expect(ids.watchers.map(\.description) == ["people/9", "people/404"])
        #expect(ids.history == nil && ids.editor == nil)
    }

    @Test func relationshipFailures() throws {
        struct NeedsReviewer: Decodable { var reviewer: Person }
        var e = try #require(decodingError { try article1().decode(NeedsReviewer.self) })
        #expect(kind(e) == "valueNotFound")
        #expect(message(e).hasPrefix("articles/1 /relationships/reviewer/data: the related resource people/404 is not in the document"))
        #expect(path(e) == ["reviewer"])

        struct NeedsEditor: Decodable { var editor: ResourceIdentifier }
        e = try #require(decodingError { try article1().decode(NeedsEditor.self) })
        #expect(kind(e) == "valueNotFound")
        #expect(message(e) == "articles/1 /relationships/editor/data: expected a to-one relationship, found null resource linkage")

        struct WrongShape: Decodable { var comments: ResourceIdentifier }
        e = try #require(decodingError { try article1().decode(WrongShape.self) })
        #expect(kind(e) == "typeMismatch")
        #expect(message(e).contains("found a to-many relationship (2 identifiers)"))

        struct WrongShape2: Decodable { var author: [ResourceIdentifier] }
        e = try #require(decodingError { try article1().decode(WrongShape2.self) })
        #expect(kind(e) == "typeMismatch")

        struct AllWatchers: Decodable { var watchers: [Person] }
        e = try #require(decodingError { try article1().decode(AllWatchers.self) })
        #expect(message(e).hasPrefix("articles/1 /relationships/watchers/data/1: the related resource people/404 is not in the document"))
        #expect(path(e) == ["watchers", "1"])

        struct NotAString: Decodable { var author: String }
        e = try #require(decodingError { try article1().decode(NotAString.self) })
        #expect(message(e) == "articles/1 /relationships/author/data: expected String, found a to-one relationship")
    }

    @Test func errorsInsideRelatedResourcesNameThem() throws {
        struct Aged: Decodable { var age: Int }
        struct WithAuthor: Decodable { var author: Aged }
        let e = try #require(decodingError { try article1().decode(WithAuthor.self) })
        #expect(kind(e) == "typeMismatch")
        #expect(message(e) == #"people/9 /attributes/age (reached from articles/1 /relationships/author/data): expected Int, found string "old""#)
        #expect(path(e) == ["author", "age"])
        #expect("\(e)".contains("people/9 /attributes/age"))
    }

    @Test func lazyHandles() throws {
        struct Lazy: Decodable {
            var author: ToOne<Person>
            var reviewer: ToOne<Person>
            var editor: ToOne<Person>
            var history: ToOne<Person>
            var comments: ToMany<Comment>
            var watchers: ToMany<Person>
        }
        let l = try article1().decode(Lazy.self)
        #expect(l.author.identifier?.description == "people/9")
        #expect(try l.author.decode()?.firstName == "Dan")
        #expect(l.reviewer.identifier?.description == "people/404")
        #expect(l.reviewer.resource == nil)
        #expect(try l.reviewer.decode() == nil)
        #expect(l.editor.identifier == nil)
        #expect(l.history.identifier == nil && l.history.relationship.kind == .absent)
        #expect(l.comments.count == 2)
        #expect(try l.comments.decode().map(\.id) == ["5", "12"])
        #expect(l.watchers.identifiers.count == 2)
        #expect(try l.watchers.decodeIncluded().map(\.id) == ["9"])
        let e = try #require(decodingError { try l.watchers.decode() })
        #expect(message(e).hasPrefix("articles/1 /relationships/watchers/data/1: the related resource people/404"))

        struct Wrong: Decodable { var comments: ToOne<Comment> }
        #expect(kind(try #require(decodingError { try article1().decode(Wrong.self) })) == "typeMismatch")
        // Outside a graph they cannot be decoded.
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ToOne<Person>.self, from: Data("{}".utf8)) }
    }

    @Test func resourceAndRelationshipViews() throws {
        struct Views: Decodable {
            var author: Resource
            var comments: [Resource]
            var history: Relationship
            var watchers: Relationship
        }
        let v = try article1().decode(Views.self)
        #expect(v.author.attributes["twitter"]?.string == "dgeb")
        #expect(v.comments.map(\.id) == ["5", "12"])
        #expect(v.history.links?["related"]?.string == "/articles/1/history")
        #expect(v.watchers.identifiers.count == 2)
    }

    // MARK: - Cycles

    struct CyclicArticle: Decodable {
        var title: String
        var comments: [CyclicComment]
    }
    struct CyclicComment: Decodable {
        var body: String
        var article: CyclicArticle
    }

    @Test func cyclesThrowInsteadOfRecursing() throws {
        let e = try #require(decodingError { try article1().decode(CyclicArticle.self) })
        #expect(kind(e) == "dataCorrupted")
        #expect(message(e).contains("articles/1 → comments/5 → articles/1"))
        #expect(message(e).hasPrefix("comments/5 /relationships/article/data (reached from articles/1 /relationships/comments/data/0)"))
        #expect(path(e) == ["comments", "0", "article"])
    }

    @Test func cyclesBreakWithHandlesOrNil() throws {
        struct Article: Decodable { var comments: [Comment] }
        struct Comment: Decodable { var article: ToOne<Article>; var body: String }
        let a = try article1().decode(Article.self)
        #expect(a.comments.map(\.body) == ["First!", "I like XML better"])
        #expect(try a.comments[0].article.decode()?.comments.count == 2)

        struct OptionalBack: Decodable { var body: String; var article: OptionalArticle? }
        struct OptionalArticle: Decodable { var title: String; var comments: [OptionalBack] }
        var options = DecodingOptions()
        options.cycles = .nilForOptionals
        let o = try article1().decode(OptionalArticle.self, options: options)
        #expect(o.comments.map { $0.article == nil } == [true, true])
        // Without the option it still throws.
        #expect(throws: DecodingError.self) { try article1().decode(OptionalArticle.self) }
    }

    @Test func sameResourceTwiceIsNotACycle() throws {
        struct Comment: Decodable { var author: Person? }
        struct Article: Decodable { var author: Person; var comments: [Comment]; var watchers: [Person?] }
        let a = try article1().decode(Article.self)
        #expect(a.author.id == "9" && a.comments[1].author?.id == "9" && a.watchers[0]?.id == "9")
    }

    @Test func customInitReadingTheContainerTwice() throws {
        // The `included` pattern: read `type`, then decode the model from the same decoder.
        enum Any_: Decodable {
            case person(Person)
            case comment(Comment)
            enum K: String, CodingKey { case type }
            init(from decoder: any Decoder) throws {
                switch try decoder.container(keyedBy: K.self).decode(String.self, forKey: .type) {
                case "people": self = .person(try Person(from: decoder))
                default: self = .comment(try Comment(from: decoder))
                }
            }
        }
        let g = try decodingGraph()
        let all = try g.resources.dropFirst().map { try $0.decode(Any_.self) }
        #expect(all.count == 3)
        if case .person(let p) = all[0] { #expect(p.firstName == "Dan") } else { Issue.record("expected a person") }
    }

    // MARK: - Primary data

    @Test func primaryData() throws {
        struct Titled: Decodable { var title: String }
        let g = try decodingGraph()
        #expect(try g.decode([Titled].self).map(\.title) == ["JSON:API paints my bikeshed!"])
        #expect(try g.decode(Titled.self).title == "JSON:API paints my bikeshed!")
        struct Body: Decodable { var body: String }
        #expect(try g.decode(Body.self, ofType: "comments").map(\.body) == ["First!", "I like XML better"])

        let empty = try graph(#"{"data":null}"#)
        #expect(try empty.decode(Titled?.self) == nil)
        #expect(try empty.decode([Titled].self).isEmpty)
        #expect(kind(try #require(decodingError { try empty.decode(Titled.self) })) == "valueNotFound")

        let many = try graph(#"{"data":[{"type":"a","id":"1","attributes":{"title":"x"}},{"type":"a","id":"2","attributes":{"title":"y"}}]}"#)
        #expect(try many.decode([Titled].self).map(\.title) == ["x", "y"])
        let e = try #require(decodingError { try many.decode(Titled.self) })
        #expect(message(e).contains("primary data of 2 resources"))

        let bad = try graph(#"{"data":[{"type":"a","id":"1","attributes":{"title":"x"}},{"type":"a","id":"2","attributes":{"title":2}}]}"#)
        let e2 = try #require(decodingError { try bad.decode([Titled].self) })
        #expect(message(e2) == "a/2 /attributes/title: expected String, found number 2")
        #expect(path(e2) == ["1", "title"])
    }

    @Test func keysNotFoundListWhatIsThere() throws {
        struct Sub: Decodable { var subtitle: String }
        let e = try #require(decodingError { try article1().decode(Sub.self) })
        #expect(kind(e) == "keyNotFound")
        #expect(message(e).hasPrefix(#"articles/1: no attribute or relationship "subtitle"; it has title, body, views"#))
        #expect(path(e) == ["subtitle"])

        struct Dim: Decodable { var depth: Int }
        struct Outer: Decodable { var dimensions: Dim }
        let e2 = try #require(decodingError { try article1().decode(Outer.self) })
        #expect(message(e2) == #"articles/1 /attributes/dimensions: no member "depth"; it has width, height, aspect-ratio"#)
        #expect(path(e2) == ["dimensions", "depth"])
    }

    @Test func decodingErrorDescriptionsAreReadable() throws {
        struct Wrong: Decodable { struct D: Decodable { var width: String }; var dimensions: D }
        let e = try #require(decodingError { try article1().decode(Wrong.self) })
        let text = "\(e)"
        #expect(text.contains("dimensions.width"), "\(text)")
        #expect(text.contains("articles/1 /attributes/dimensions/width: expected String, found number 800"), "\(text)")
    }
}

/// Hand-written `init(from:)`: nested containers, super decoders, user info, and decoding one
/// graph from several tasks at once.
struct DecodingContainerTests {
    @Test func nestedContainersAndUserInfo() throws {
        struct Hand: Decodable {
            var width: Int
            var firstTag: String
            var tagCount: Int?
            var authorID: String
            var scale: Int
            enum Keys: String, CodingKey { case dimensions, tags = "tags-list", author }
            enum DimensionKeys: String, CodingKey { case width }
            enum IdentifierKeys: String, CodingKey { case id }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: Keys.self)
                width = try c.nestedContainer(keyedBy: DimensionKeys.self, forKey: .dimensions).decode(Int.self, forKey: .width)
                var tags = try c.nestedUnkeyedContainer(forKey: .tags)
                tagCount = tags.count
                firstTag = try tags.decode(String.self)
                // A relationship's nested container is the related resource's.
                authorID = try c.nestedContainer(keyedBy: IdentifierKeys.self, forKey: .author).decode(String.self, forKey: .id)
                scale = decoder.userInfo[CodingUserInfoKey(rawValue: "scale")!] as? Int ?? 0
            }
        }
        var options = DecodingOptions()
        options.userInfo[CodingUserInfoKey(rawValue: "scale")!] = 3
        let h = try article1().decode(Hand.self, options: options)
        #expect(h.width == 800 && h.firstTag == "json" && h.tagCount == 2 && h.authorID == "9" && h.scale == 3)
    }

    @Test func superDecoders() throws {
        class Base: Decodable {
            var title: String
            enum K: String, CodingKey { case title }
            required init(from decoder: any Decoder) throws { title = try decoder.container(keyedBy: K.self).decode(String.self, forKey: .title) }
        }
        final class Derived: Base, @unchecked Sendable {
            var width: Int
            enum K: String, CodingKey { case dimensions }
            enum D: String, CodingKey { case width }
            required init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: K.self)
                width = try c.superDecoder(forKey: .dimensions).container(keyedBy: D.self).decode(Int.self, forKey: .width)
                try super.init(from: decoder)
            }
        }
        let d = try article1().decode(Derived.self)
        #expect(d.title == "JSON:API paints my bikeshed!" && d.width == 800)
    }

    @Test func oneGraphManyTasks() async throws {
        struct Small: Decodable, Sendable, Equatable { var id: String; var views: Int; var tagsList: [String] }
        let options = {
            var o = DecodingOptions(); o.keys = .camelCase; return o
        }()
        let g = try decodingGraph()
        let expected = try g.decode([Small].self, options: options)
        let results = try await withThrowingTaskGroup(of: [Small].self) { group in
            for _ in 0..<8 { group.addTask { try g.decode([Small].self, options: options) } }
            var all: [[Small]] = []
            for try await r in group { all.append(r) }
            return all
        }
        #expect(results.count == 8 && results.allSatisfy { $0 == expected })
    }
}
