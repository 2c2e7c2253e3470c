/// The top-level `links` and `meta` of one document, copied out as the document closed.
///
/// A reader that must act on a document before the whole input is read (a paginated crawl
/// needs `links.next` of a page before it asks for the next one) turns on
/// ``GraphParser/recordsTopLevel`` or ``Normalizer/recordsTopLevel`` and reads
/// ``GraphParser/lastDocument`` after each input.
///
/// ```swift
/// parser.recordsTopLevel = true
/// try parser.beginInput(named: "page 1")
/// for chunk in body { try parser.feed(chunk) }
/// try parser.endInput()
/// let next = parser.lastDocument?.link("next")   // "https://…/articles?page%5Bnumber%5D=2"
/// ```
public struct DocumentTopLevel: Sendable, Hashable {
    /// The document's position among all documents read by the parser (0 for the first).
    public let index: Int
    /// Top-level `links` as minified JSON text, `nil` when the document had none.
    public let linksJSON: [UInt8]?
    /// Top-level `meta` as minified JSON text, `nil` when the document had none.
    public let metaJSON: [UInt8]?

    init(index: Int, linksJSON: [UInt8]?, metaJSON: [UInt8]?) {
        self.index = index
        self.linksJSON = linksJSON
        self.metaJSON = metaJSON
    }

    /// Top-level `links`, decoded (`nil` when absent).
    public var links: JSONValue? { linksJSON.map(Self.decode) }

    /// Top-level `meta`, decoded (`nil` when absent).
    public var meta: JSONValue? { metaJSON.map(Self.decode) }

    /// The text as the builder stored it, decoded as it is: it was checked when it was read,
    /// under the parse's own rules (a member name repeated inside a value under
    /// `allowInValues`, raised limits), which parsing it again with the defaults would refuse.
    private static func decode(_ text: [UInt8]) -> JSONValue {
        text.withUnsafeBytes { b in b.isEmpty ? .null : StoredJSON.decode(b, 0..<b.count) }
    }

    /// The URI of the link `name` in top-level `links`: the string itself, or a link object's
    /// `href`; `nil` when the link is absent or `null` (the last page's `next`).
    public func link(_ name: String) -> String? {
        switch links?[name] {
        case .string(let s)?: return s
        case .object(let o)?: return o["href"]?.stringValue
        default: return nil
        }
    }
}
