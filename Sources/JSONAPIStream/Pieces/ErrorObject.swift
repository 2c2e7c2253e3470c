/// A JSON:API error object (the members of `errors`): what went wrong, where, and links to
/// more about it.
///
/// Read from a graph (``Graph/errors``), from a response by `JSONAPIClient`, or built in
/// code. Members of the wrong type are left out when it is read (the validator reports them,
/// rules R30–R36); `status` is kept as text, also when a server sends it as a number.
///
/// ```swift
/// let graph = try Graph(json: #"{"errors":[{"status":"422","title":"Invalid","source":{"pointer":"/data/attributes/title"}}]}"#)
/// for error in graph.errors { print(error) }   // 422 Invalid (at /data/attributes/title)
/// ```
public struct ErrorObject: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The error object's `id`.
    public var id: String?
    /// Its `links`: `about` and `type` (JSON:API 1.1), and any other.
    public var links: [String: Link]
    /// The HTTP status code applicable to this problem, as a string (`"422"`).
    public var status: String?
    /// An application-specific error code.
    public var code: String?
    /// A short summary that does not change from occurrence to occurrence.
    public var title: String?
    /// An explanation specific to this occurrence.
    public var detail: String?
    /// What in the request caused the error.
    public var source: Source?
    /// `meta`, when present.
    public var meta: JSONValue?

    /// The `source` of an error object.
    public struct Source: Sendable, Hashable, Codable {
        /// A JSON pointer to the value in the request document that caused the error
        /// (`/data/attributes/title`).
        public var pointer: String?
        /// The query parameter that caused the error.
        public var parameter: String?
        /// The request header that caused the error.
        public var header: String?

        /// A source with these members.
        public init(pointer: String? = nil, parameter: String? = nil, header: String? = nil) {
            self.pointer = pointer
            self.parameter = parameter
            self.header = header
        }
    }

    /// An error object with these members.
    public init(
        id: String? = nil, links: [String: Link] = [:], status: String? = nil, code: String? = nil, title: String? = nil,
        detail: String? = nil, source: Source? = nil, meta: JSONValue? = nil
    ) {
        self.id = id
        self.links = links
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.source = source
        self.meta = meta
    }

    /// An error object with these members, `source.pointer` given as `sourcePointer`.
    public init(status: String? = nil, code: String? = nil, title: String? = nil, detail: String? = nil, sourcePointer: String?) {
        self.init(status: status, code: code, title: title, detail: detail, source: sourcePointer.map { Source(pointer: $0) })
    }

    /// Reads an error object; members of the wrong type are left out (a value that is not
    /// an object gives an error object with no members).
    public init(_ value: JSONValue) {
        func text(_ value: JSONValue?) -> String? {
            switch value {
            case .string(let s)?: s
            case .number(let n)?: n.text  // some servers send the status as a number
            default: nil
            }
        }
        self.init()
        id = text(value["id"])
        status = text(value["status"])
        code = text(value["code"])
        title = value["title"]?.stringValue
        detail = value["detail"]?.stringValue
        if case .object(let s)? = value["source"] {
            source = Source(pointer: s["pointer"]?.stringValue, parameter: s["parameter"]?.stringValue, header: s["header"]?.stringValue)
        }
        if case .object(let l)? = value["links"] {
            for (name, v) in l { if let link = Link(v) { links[name] = link } }
        }
        meta = value["meta"]
    }

    /// The error objects of an `errors` value: each element of an array, or the value itself
    /// when it is not one (which the rules report, R08).
    public static func list(_ errors: JSONValue) -> [ErrorObject] {
        if case .array(let items) = errors { return items.map(ErrorObject.init) }
        return [ErrorObject(errors)]
    }

    private enum Key: String, CodingKey {
        case id, links, status, code, title, detail, source, meta
    }

    /// Reads an error object as ``init(_:)`` does, from any decoder.
    public init(from decoder: any Decoder) throws {
        self.init(try JSONValue(from: decoder))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encodeIfPresent(id, forKey: .id)
        if !links.isEmpty {
            // Names in order, so that the same error object is written the same way.
            var l = c.nestedContainer(keyedBy: AnyKey.self, forKey: .links)
            for name in links.keys.sorted() { try l.encode(links[name]!, forKey: AnyKey(name)) }
        }
        try c.encodeIfPresent(status, forKey: .status)
        try c.encodeIfPresent(code, forKey: .code)
        try c.encodeIfPresent(title, forKey: .title)
        try c.encodeIfPresent(detail, forKey: .detail)
        try c.encodeIfPresent(source, forKey: .source)
        try c.encodeIfPresent(meta, forKey: .meta)
    }

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ s: String) { stringValue = s }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    // MARK: - Shorthands

    /// `source.pointer`.
    public var sourcePointer: String? {
        get { source?.pointer }
        set { source = Self.source(source, \.pointer, newValue) }
    }
    /// `source.parameter`.
    public var sourceParameter: String? {
        get { source?.parameter }
        set { source = Self.source(source, \.parameter, newValue) }
    }
    /// `source.header`.
    public var sourceHeader: String? {
        get { source?.header }
        set { source = Self.source(source, \.header, newValue) }
    }
    /// `links.about`'s `href`: a link that leads to further details about this occurrence.
    public var aboutLink: String? {
        get { links["about"]?.href }
        set { links["about"] = newValue.map { Link($0) } }
    }
    /// `links.type`'s `href`: a link that identifies the type of the error.
    public var typeLink: String? {
        get { links["type"]?.href }
        set { links["type"] = newValue.map { Link($0) } }
    }

    private static func source(_ s: Source?, _ member: WritableKeyPath<Source, String?>, _ value: String?) -> Source? {
        var s = s ?? Source()
        s[keyPath: member] = value
        return s.pointer == nil && s.parameter == nil && s.header == nil ? nil : s
    }

    /// `422 invalid: Title is too short (at /data/attributes/title)`.
    public var description: String {
        var parts: [String] = []
        if let status { parts.append(status) }
        if let code { parts.append(code + ":") }
        if let title, title != detail { parts.append(title + (detail == nil ? "" : ":")) }
        if let detail { parts.append(detail) }
        if let pointer = source?.pointer {
            parts.append("(at \(pointer))")
        } else if let parameter = source?.parameter {
            parts.append("(parameter \(parameter))")
        } else if let header = source?.header {
            parts.append("(header \(header))")
        }
        return parts.isEmpty ? "(an error object with no members)" : parts.joined(separator: " ")
    }
}

/// Primary data asked of a document that holds errors instead (`{"errors":[…]}`, no
/// `data`): what the server said went wrong.
///
/// Thrown by ``Graph/decode(_:options:)`` and ``Graph/decodeConcurrently(_:options:)``, where
/// decoding would otherwise give an empty array or a missing resource.
public struct ErrorDocument: Error, Sendable, CustomStringConvertible {
    /// The error objects, in document order.
    public var errors: [ErrorObject]

    /// An error document's error objects.
    public init(errors: [ErrorObject]) { self.errors = errors }

    public var description: String {
        "the document holds errors, not primary data: " + errors.map(\.description).joined(separator: "; ")
    }
}
