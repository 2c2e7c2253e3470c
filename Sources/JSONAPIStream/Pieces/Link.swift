/// A JSON:API link (1.1): a URI-reference as a string, or a link object with `href` and the
/// optional `rel`, `describedby`, `title`, `type`, `hreflang` and `meta`.
///
/// Decodes from either form and encodes back to the form it came in (a string stays a
/// string); `null` is a missing link, read as `Link?`. Used for top-level, resource,
/// relationship and error links:
///
/// ```swift
/// struct Article: Decodable {
///     let id: String
///     let links: [String: Link]?
/// }
/// let url = article.links?["self"]?.href
/// ```
public struct Link: Sendable, Hashable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The link's URI-reference.
    public var href: String
    /// The link relation type (`rel`).
    public var rel: String?
    /// A link to a description document (`describedby`), such as a JSON Schema.
    public var describedBy: Link? {
        get { describedByBox.first }
        set { describedByBox = newValue.map { [$0] } ?? [] }
    }
    /// A human-readable label (`title`).
    public var title: String?
    /// The media type of the link's target (`type`).
    public var type: String?
    /// The languages of the link's target (`hreflang`: one language tag or several).
    public var hreflang: [String]?
    /// Non-standard meta-information about the link.
    public var meta: JSONValue?
    /// Whether the link is written as a link object (otherwise as its `href` string).
    public var isObject: Bool

    // `describedby` is a link itself: held in an array, the one way a struct can hold a
    // value of its own type.
    private var describedByBox: [Link] = []
    // Whether `hreflang` came as an array (a single tag is written back as it came).
    private var hreflangIsArray = false

    /// A link written as a plain URI-reference string.
    public init(_ href: String) {
        self.href = href
        isObject = false
    }

    public init(stringLiteral href: String) { self.init(href) }

    /// A link object.
    public init(
        href: String, rel: String? = nil, describedBy: Link? = nil, title: String? = nil, type: String? = nil,
        hreflang: [String]? = nil, meta: JSONValue? = nil
    ) {
        self.href = href
        self.rel = rel
        self.title = title
        self.type = type
        self.hreflang = hreflang
        self.meta = meta
        isObject = true
        self.describedBy = describedBy
        hreflangIsArray = (hreflang?.count ?? 0) != 1
    }

    /// The link as a ``JSONValue`` (`nil` for values that are neither a string nor an object
    /// with a string `href`; other members of the wrong type are left out).
    public init?(_ value: JSONValue) {
        switch value {
        case .string(let s): self.init(s)
        case .object(let o):
            guard case .string(let href)? = o["href"] else { return nil }
            self.init(href: href)
            rel = o["rel"]?.stringValue
            describedBy = o["describedby"].flatMap(Link.init)
            title = o["title"]?.stringValue
            type = o["type"]?.stringValue
            switch o["hreflang"] {
            case .string(let tag)?:
                hreflang = [tag]
                hreflangIsArray = false
            case .array(let tags)?:
                hreflang = tags.compactMap(\.stringValue)
                hreflangIsArray = true
            default: break
            }
            meta = o["meta"]
        default: return nil
        }
    }

    private enum Key: String, CodingKey {
        case href, rel, describedby, title, type, hreflang, meta
    }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let s = try? single.decode(String.self) {
            self.init(s)
            return
        }
        let c = try decoder.container(keyedBy: Key.self)
        self.init(href: try c.decode(String.self, forKey: .href))
        rel = try c.decodeIfPresent(String.self, forKey: .rel)
        describedBy = try c.decodeIfPresent(Link.self, forKey: .describedby)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        type = try c.decodeIfPresent(String.self, forKey: .type)
        if c.contains(.hreflang) {
            if let tags = try? c.decode([String].self, forKey: .hreflang) {
                hreflang = tags
                hreflangIsArray = true
            } else {
                hreflang = [try c.decode(String.self, forKey: .hreflang)]
                hreflangIsArray = false
            }
        }
        meta = try c.decodeIfPresent(JSONValue.self, forKey: .meta)
    }

    public func encode(to encoder: any Encoder) throws {
        guard isObject else {
            var single = encoder.singleValueContainer()
            try single.encode(href)
            return
        }
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(href, forKey: .href)
        try c.encodeIfPresent(rel, forKey: .rel)
        try c.encodeIfPresent(describedBy, forKey: .describedby)
        try c.encodeIfPresent(title, forKey: .title)
        try c.encodeIfPresent(type, forKey: .type)
        if let hreflang {
            if hreflang.count == 1 && !hreflangIsArray {
                try c.encode(hreflang[0], forKey: .hreflang)
            } else {
                try c.encode(hreflang, forKey: .hreflang)
            }
        }
        try c.encodeIfPresent(meta, forKey: .meta)
    }

    /// The `href`.
    public var description: String { href }
}
