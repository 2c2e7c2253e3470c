/// One query parameter, decoded: its name and its values as the server reads them, before
/// percent-encoding. Several values are written as a comma-separated list
/// (`include=author,tags`); a comma inside one value is percent-encoded.
public struct QueryItem: Sendable, Hashable, CustomStringConvertible {
    /// The parameter's name.
    public var name: String
    /// Its values (written comma-separated).
    public var values: [String]

    /// A parameter with one value.
    public init(_ name: String, _ value: String) {
        self.name = name
        self.values = [value]
    }

    /// A list parameter: `values` joined with literal commas.
    public init(_ name: String, list values: [String]) {
        self.name = name
        self.values = values
    }

    /// The value as the server decodes it (list items joined with commas).
    public var value: String { values.joined(separator: ",") }

    /// `name=value`, percent-encoded for a URI's query component.
    public var encoded: String {
        QueryEncoding.encode(name) + "=" + values.map(QueryEncoding.encode).joined(separator: ",")
    }

    public var description: String { "\(name)=\(value)" }
}

/// Percent-encoding of query parameter names and values (RFC 3986, section 3.4).
///
/// Only the unreserved characters (`A-Z a-z 0-9 - . _ ~`) and `! $ ' ( ) * : @ / ?` are
/// left as they are. Everything else is encoded as UTF-8 bytes in `%XX` form, in particular:
/// `[` and `]` (gen-delims, allowed in a URI only in an IP literal: the JSON:API spec's
/// `fields[articles]` is written `fields%5Barticles%5D`), `&`, `=`, `;` and `#` (they would
/// split the query), `+` (form decoders read it as a space), `,` inside a value (commas that
/// separate list items are added literally by ``JSONAPIQuery``), `%`, space and non-ASCII.
public enum QueryEncoding {
    /// `text` with every byte outside the allowed set percent-encoded.
    ///
    /// - Complexity: O(n) in the UTF-8 length of `text`.
    public static func encode(_ text: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count)
        for b in text.utf8 {
            if isAllowed(b) {
                out.append(b)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(b >> 4)])
                out.append(hex[Int(b & 0x0F)])
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// `text` with `%XX` sequences decoded (and `+` kept as it is); `nil` when a `%` is
    /// not followed by two hex digits or the bytes are not UTF-8.
    public static func decode(_ text: Substring) -> String? {
        var out = [UInt8]()
        var bytes = text.utf8.makeIterator()
        while let b = bytes.next() {
            guard b == UInt8(ascii: "%") else { out.append(b); continue }
            guard let h = bytes.next().flatMap(hexValue), let l = bytes.next().flatMap(hexValue) else { return nil }
            out.append(h << 4 | l)
        }
        return String(validating: out, as: UTF8.self)
    }

    /// The decoded items of a percent-encoded query (`a=1&b=2`), in order.
    static func items(ofEncodedQuery query: String) -> [QueryItem]? {
        var items: [QueryItem] = []
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let pair = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(pair[0]), let value = decode(pair.count > 1 ? pair[1] : "") else { return nil }
            items.append(QueryItem(name, value))
        }
        return items
    }

    private static let hex = Array("0123456789ABCDEF".utf8)

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): c - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    @inline(__always)
    private static func isAllowed(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"),
            UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "*"), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
            return true
        default:
            return false
        }
    }
}
