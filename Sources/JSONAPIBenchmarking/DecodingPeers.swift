import JSONAPIStream
/// Typed decoding with this library (``Resource/decode(_:options:)``, ``Graph/decode(_:options:)``),
/// into models that hold the same values as Foundation's typed peer (``GeneratedDocument``):
/// each resource's type and id, every attribute, each relationship's identifiers, and the
/// resource's `links` and `meta`. The models are flat, as this library's decoder reads them
/// (attributes and relationships by name); numbers become `Double` the nearest way, as
/// Foundation does; dates stay strings on both sides.
enum DecodingPeers {
    static var options: DecodingOptions {
        var o = DecodingOptions()
        o.floatingPoint = .nearest
        return o
    }

    /// Decodes every resource of a generated document, on the calling thread or
    /// (`concurrently`) on every core; returns how many.
    static func decodeAll(_ graph: Graph, concurrently: Bool = false) throws -> Int {
        let o = options
        func all<T: Decodable & Sendable>(_: T.Type, _ type: String) throws -> Int {
            try concurrently ? graph.decodeConcurrently(T.self, ofType: type, options: o).count : graph.decode(T.self, ofType: type, options: o).count
        }
        return try decodePrimary(graph, concurrently: concurrently) + all(PersonModel.self, "people") + all(TagModel.self, "tags") + all(CommentModel.self, "comments")
    }

    /// Decodes the primary data of a generated document (its articles) and nothing else: the
    /// measure of issue 4's speed target. Returns how many.
    static func decodePrimary(_ graph: Graph, concurrently: Bool = false) throws -> Int {
        try concurrently ? graph.decodeConcurrently([ArticleModel].self, options: options).count : graph.decode([ArticleModel].self, options: options).count
    }

    /// ``decodePrimary(_:concurrently:)`` into ``ArticleReading``, which reads itself
    /// (``JSONAPIReadable``); the same values as ``ArticleModel``.
    static func readPrimary(_ graph: Graph, concurrently: Bool = false) throws -> Int {
        try concurrently ? graph.decodeConcurrently([ArticleReading].self, options: options).count : graph.decode([ArticleReading].self, options: options).count
    }
}

struct SelfLink: Decodable { var `self`: String }

struct ArticleModel: Decodable {
    struct Dimensions: Decodable { var width: Int; var height: Double; var ratio: Double }
    struct Meta: Decodable { var revision: Int }

    var type: String
    var id: String
    var title: String
    var body: String
    var summary: String
    var quote: String
    var views: Int
    var rating: Double
    var score: Double
    var published: Bool
    var publishedAt: String
    var deletedAt: String?
    var tagsList: [String]
    var dimensions: Dimensions
    var author: ResourceIdentifier
    var comments: [ResourceIdentifier]
    var tags: [ResourceIdentifier]
    var links: SelfLink
    var meta: Meta

    enum CodingKeys: String, CodingKey {
        case type, id, title, body, summary, quote, views, rating, score, published, publishedAt, deletedAt, dimensions
        case author, comments, tags, links, meta
        case tagsList = "tags-list"
    }
}

/// An ``ArticleModel`` read through ``JSONAPIReadable`` instead of its synthesized
/// `init(from:)`: the same values, in the same struct. Its nested values are read by
/// readable structs of their own (`DimensionsReading`, ...), as such a model's would be.
struct ArticleReading: JSONAPIReadable {
    var model: ArticleModel

    init(reading r: JSONAPIReader) throws {
        model = ArticleModel(
            type: try r.read("type"), id: try r.read("id"), title: try r.read("title"), body: try r.read("body"),
            summary: try r.read("summary"), quote: try r.read("quote"), views: try r.read("views"), rating: try r.read("rating"),
            score: try r.read("score"), published: try r.read("published"), publishedAt: try r.read("publishedAt"),
            deletedAt: try r.readIfPresent("deletedAt"), tagsList: try r.read("tags-list"),
            dimensions: try r.read("dimensions", as: DimensionsReading.self).model,
            author: try r.read("author"), comments: try r.read("comments"), tags: try r.read("tags"),
            links: SelfLink(self: try r.read("links", as: SelfLinkReading.self).href),
            meta: ArticleModel.Meta(revision: try r.read("meta", as: MetaReading.self).revision))
    }
}

struct DimensionsReading: JSONAPIReadable {
    var model: ArticleModel.Dimensions
    init(reading r: JSONAPIReader) throws { model = .init(width: try r.read("width"), height: try r.read("height"), ratio: try r.read("ratio")) }
}

struct SelfLinkReading: JSONAPIReadable {
    var href: String
    init(reading r: JSONAPIReader) throws { href = try r.read("self") }
}

struct MetaReading: JSONAPIReadable {
    var revision: Int
    init(reading r: JSONAPIReader) throws { revision = try r.read("revision") }
}

struct PersonModel: Decodable {
    var type: String
    var id: String
    var firstName: String
    var lastName: String
    var email: String
    var age: Int
    var links: SelfLink

    enum CodingKeys: String, CodingKey {
        case type, id, email, age, links
        case firstName = "first-name"
        case lastName = "last-name"
    }
}

struct TagModel: Decodable {
    var type: String
    var id: String
    var label: String
}

struct CommentModel: Decodable {
    var type: String
    var id: String
    var body: String
    var likes: Int
    var author: ResourceIdentifier
    var article: ResourceIdentifier
}
