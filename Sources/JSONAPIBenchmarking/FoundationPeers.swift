import JSONAPIStream
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Foundation's JSON readers on the same bytes, for `jsonapi bench` and the benchmark package.
///
/// Two sets of `Codable` types: ones written for ``DocumentGenerator``'s documents, the way an
/// app with a known schema would decode them (every attribute a typed property, `included`
/// an enum switched on `type`), and generic JSON:API types that fit any document (attributes,
/// links and meta as `[String: AnyJSON]`). The typed ones hold the same values as this
/// library's typed models (``DecodingPeers``): type and id, every attribute, each
/// relationship's identifiers, the resource's `links` and `meta`; relationship links and
/// identifier meta are skipped on both sides. Numbers become `Double` or `Int` (Foundation
/// has no way to keep their text), dates stay strings.
enum FoundationPeers {
    /// Calls `body` with a `Data` over `bytes` (no copy).
    static func withData<R>(_ bytes: [UInt8], _ body: (Data) throws -> R) throws -> R {
        try bytes.withUnsafeBytes { raw in
            let data = raw.baseAddress.map { Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: $0), count: raw.count, deallocator: .none) } ?? Data()
            return try body(data)
        }
    }

    /// `JSONDecoder` into ``GeneratedDocument``; returns the resources it holds.
    static func typedDecoder(_ data: Data) throws -> Int {
        let document = try JSONDecoder().decode(GeneratedDocument.self, from: data)
        return document.data.count + document.included.count
    }

    /// `JSONDecoder` into ``GenericDocument``; returns the resources it holds.
    static func genericDecoder(_ data: Data) throws -> Int {
        let document = try JSONDecoder().decode(GenericDocument.self, from: data)
        return (document.data?.count ?? 0) + (document.included?.count ?? 0)
    }
}

// MARK: - Types for the generated documents

/// Primary data and included resources (the top-level `meta`, `links` and `jsonapi` are
/// skipped, as the library's typed peer skips them).
struct GeneratedDocument: Decodable {
    var data: [Article]
    var included: [Included]
}

struct ResourceLinks: Decodable { var `self`: String }
struct Identifier: Decodable { var type: String; var id: String }

struct Article: Decodable {
    struct Attributes: Decodable {
        struct Dimensions: Decodable { var width: Int; var height: Double; var ratio: Double }
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

        enum CodingKeys: String, CodingKey {
            case title, body, summary, quote, views, rating, score, published, publishedAt, deletedAt, dimensions
            case tagsList = "tags-list"
        }
    }
    struct Relationships: Decodable {
        struct ToOne: Decodable { var data: Identifier }
        struct ToMany: Decodable { var data: [Identifier] }
        var author: ToOne
        var comments: ToMany
        var tags: ToMany
    }
    struct Meta: Decodable { var revision: Int }

    var type: String
    var id: String
    var attributes: Attributes
    var relationships: Relationships
    var links: ResourceLinks
    var meta: Meta
}

struct Person: Decodable {
    struct Attributes: Decodable {
        var firstName: String
        var lastName: String
        var email: String
        var age: Int
        enum CodingKeys: String, CodingKey {
            case email, age
            case firstName = "first-name"
            case lastName = "last-name"
        }
    }
    var type: String
    var id: String
    var attributes: Attributes
    var links: ResourceLinks
}

struct Tag: Decodable {
    struct Attributes: Decodable { var label: String }
    var type: String
    var id: String
    var attributes: Attributes
}

struct Comment: Decodable {
    struct Attributes: Decodable { var body: String; var likes: Int }
    struct Relationships: Decodable {
        struct ToOne: Decodable { var data: Identifier }
        var author: ToOne
        var article: ToOne
    }
    var type: String
    var id: String
    var attributes: Attributes
    var relationships: Relationships
}

/// A member of `included`, decoded by its `type`.
enum Included: Decodable {
    case person(Person)
    case tag(Tag)
    case comment(Comment)

    private enum Keys: String, CodingKey { case type }

    init(from decoder: any Decoder) throws {
        let type = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .type)
        switch type {
        case "people": self = .person(try Person(from: decoder))
        case "tags": self = .tag(try Tag(from: decoder))
        case "comments": self = .comment(try Comment(from: decoder))
        default:
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "unknown type \(type)"))
        }
    }
}

// MARK: - Generic JSON:API types

/// Any JSON value, as generic `Codable` JSON:API clients declare it.
enum AnyJSON: Decodable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([AnyJSON])
    case object([String: AnyJSON])

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() {
            self = .null
        } else if let s = try? c.decode(String.self) {
            self = .string(s)
        } else if let n = try? c.decode(Double.self) {
            self = .number(n)
        } else if let b = try? c.decode(Bool.self) {
            self = .bool(b)
        } else if let o = try? c.decode([String: AnyJSON].self) {
            self = .object(o)
        } else {
            self = .array(try c.decode([AnyJSON].self))
        }
    }
}

struct GenericDocument: Decodable {
    var data: [GenericResource]?
    var included: [GenericResource]?
    var meta: [String: AnyJSON]?
    var links: [String: AnyJSON]?
    var jsonapi: [String: AnyJSON]?
    var errors: [AnyJSON]?

    private enum Keys: String, CodingKey { case data, included, meta, links, jsonapi, errors }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        // Primary data is one resource object, an array of them, or null. Opening an unkeyed
        // container tells an array apart without decoding it twice.
        if try !c.contains(.data) || c.decodeNil(forKey: .data) {
            data = nil
        } else if (try? c.nestedUnkeyedContainer(forKey: .data)) != nil {
            data = try c.decode([GenericResource].self, forKey: .data)
        } else {
            data = [try c.decode(GenericResource.self, forKey: .data)]
        }
        included = try c.decodeIfPresent([GenericResource].self, forKey: .included)
        meta = try c.decodeIfPresent([String: AnyJSON].self, forKey: .meta)
        links = try c.decodeIfPresent([String: AnyJSON].self, forKey: .links)
        jsonapi = try c.decodeIfPresent([String: AnyJSON].self, forKey: .jsonapi)
        errors = try c.decodeIfPresent([AnyJSON].self, forKey: .errors)
    }
}

struct GenericResource: Decodable {
    var type: String
    var id: String?
    var lid: String?
    var attributes: [String: AnyJSON]?
    var relationships: [String: GenericRelationship]?
    var links: [String: AnyJSON]?
    var meta: [String: AnyJSON]?
}

struct GenericRelationship: Decodable {
    var data: GenericLinkage?
    var links: [String: AnyJSON]?
    var meta: [String: AnyJSON]?
}

/// Resource linkage: null, one identifier, or an array of them.
enum GenericLinkage: Decodable {
    case one(GenericIdentifier)
    case many([GenericIdentifier])

    init(from decoder: any Decoder) throws {
        if (try? decoder.unkeyedContainer()) != nil {
            self = .many(try decoder.singleValueContainer().decode([GenericIdentifier].self))
        } else {
            self = .one(try GenericIdentifier(from: decoder))
        }
    }
}

struct GenericIdentifier: Decodable {
    var type: String
    var id: String?
    var lid: String?
    var meta: [String: AnyJSON]?
}
