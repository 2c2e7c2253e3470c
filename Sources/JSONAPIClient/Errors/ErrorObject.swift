import JSONAPIStream

/// One error object of a JSON:API error document (`{"errors":[…]}`), with the members the
/// spec defines. Members a server left out are `nil`.
public struct ErrorObject: Sendable, Hashable, CustomStringConvertible {
    /// The error object's `id`.
    public var id: String?
    /// The HTTP status code applicable to this problem, as a string (`"422"`).
    public var status: String?
    /// An application-specific error code.
    public var code: String?
    /// A short summary that does not change from occurrence to occurrence.
    public var title: String?
    /// An explanation specific to this occurrence.
    public var detail: String?
    /// `source.pointer`: a JSON pointer to the value in the request document that caused
    /// the error (`/data/attributes/title`).
    public var sourcePointer: String?
    /// `source.parameter`: the query parameter that caused the error.
    public var sourceParameter: String?
    /// `source.header`: the request header that caused the error.
    public var sourceHeader: String?
    /// `links.about` and `links.type` (as URIs, or a link object's `href`).
    public var aboutLink: String?
    /// `links.type`: a link that identifies the type of the error.
    public var typeLink: String?
    /// `meta`, when present.
    public var meta: JSONValue?

    /// An error object with these members.
    public init(status: String? = nil, code: String? = nil, title: String? = nil, detail: String? = nil, sourcePointer: String? = nil) {
        self.status = status
        self.code = code
        self.title = title
        self.detail = detail
        self.sourcePointer = sourcePointer
    }

    /// Reads an error object; members of the wrong type are left out.
    init(_ v: JSONValue) {
        func text(_ value: JSONValue?) -> String? {
            switch value {
            case .string(let s)?: s
            case .number(let n)?: n.text  // some servers send the status as a number
            default: nil
            }
        }
        func link(_ value: JSONValue?) -> String? {
            switch value {
            case .string(let s)?: s
            case .object(let o)?: o["href"]?.stringValue
            default: nil
            }
        }
        id = text(v["id"])
        status = text(v["status"])
        code = text(v["code"])
        title = v["title"]?.stringValue
        detail = v["detail"]?.stringValue
        sourcePointer = v["source"]?["pointer"]?.stringValue
        sourceParameter = v["source"]?["parameter"]?.stringValue
        sourceHeader = v["source"]?["header"]?.stringValue
        aboutLink = link(v["links"]?["about"])
        typeLink = link(v["links"]?["type"])
        meta = v["meta"]
    }

    /// The error objects of an error document, or `nil` when `body` is not one.
    static func parseDocument(_ body: [UInt8]) -> [ErrorObject]? {
        guard let doc = try? JSONValue(parsing: body), case .array(let errors)? = doc["errors"] else { return nil }
        return errors.map(ErrorObject.init)
    }

    /// `422 invalid: Title is too short (at /data/attributes/title)`.
    public var description: String {
        var parts: [String] = []
        if let status { parts.append(status) }
        if let code { parts.append(code + ":") }
        if let title, title != detail { parts.append(title + (detail == nil ? "" : ":")) }
        if let detail { parts.append(detail) }
        if let sourcePointer {
            parts.append("(at \(sourcePointer))")
        } else if let sourceParameter {
            parts.append("(parameter \(sourceParameter))")
        } else if let sourceHeader {
            parts.append("(header \(sourceHeader))")
        }
        return parts.isEmpty ? "(an error object with no members)" : parts.joined(separator: " ")
    }
}
