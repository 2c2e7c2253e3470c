#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One encoded value under construction. Containers share nodes by reference, as
/// `Encoder` requires (a container may be asked for after values were written to it).
final class EncodedNode {
    enum Kind {
        case empty
        case value(JSONValue)
        case object([(String, EncodedNode)])
        case array([EncodedNode])
    }
    var kind: Kind = .empty
    /// Set when the value encoded is a relationship's linkage (an identifier, a model that
    /// is a resource, or an array of them).
    var linkage: RelationshipLinkage?

    init() {}
    init(_ value: JSONValue) { kind = .value(value) }

    func resolve() -> JSONValue {
        switch kind {
        case .empty: return .object(JSONObject())
        case .value(let v): return v
        case .object(let members): return .object(JSONObject(members.map { (key: $0.0, value: $0.1.resolve()) }))
        case .array(let items): return .array(items.map { $0.resolve() })
        }
    }

    func set(_ key: String, _ node: EncodedNode) {
        if case .object(var members) = kind {
            kind = .empty  // drop the reference so the append does not copy
            if let i = members.firstIndex(where: { $0.0 == key }) { members[i].1 = node } else { members.append((key, node)) }
            kind = .object(members)
        } else {
            kind = .object([(key, node)])
        }
    }

    func append(_ node: EncodedNode) {
        if case .array(var items) = kind {
            kind = .empty
            items.append(node)
            kind = .array(items)
        } else {
            kind = .array([node])
        }
    }

    var count: Int {
        switch kind {
        case .object(let m): m.count
        case .array(let a): a.count
        default: 0
        }
    }
}

struct EncodingIndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "\(intValue!)" }
    init(_ i: Int) { intValue = i }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// Encodes values into ``EncodedNode``s, with the options' date and number forms and
/// transforms. Resource models met below the top level become linkage.
final class ValueEncoder: Encoder {
    let options: ResourceEncodingOptions
    let codingPath: [any CodingKey]
    /// Whether this encoder encodes the resource model itself (its properties may be
    /// relationships).
    let resourceLevel: Bool
    var root: EncodedNode?

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    init(options: ResourceEncodingOptions, path: [any CodingKey], resourceLevel: Bool = false) {
        self.options = options
        self.codingPath = path
        self.resourceLevel = resourceLevel
    }

    private func node() -> EncodedNode {
        if let root { return root }
        let n = EncodedNode()
        root = n
        return n
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let n = node()
        if case .object = n.kind {} else { n.kind = .object([]) }
        return KeyedEncodingContainer(KeyedNodeContainer<Key>(encoder: self, node: n, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let n = node()
        if case .array = n.kind {} else { n.kind = .array([]) }
        return UnkeyedNodeContainer(encoder: self, node: n, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleNodeContainer(encoder: self, codingPath: codingPath)
    }

    /// Encodes `value` as this encoder's root.
    func encodeValue<T: Encodable>(_ value: T) throws {
        root = try box(value, path: codingPath, topLevel: true)
    }

    /// A value as a node: special types first, then transforms, then its own encoding.
    func box<T: Encodable>(_ value: T, path: [any CodingKey], topLevel: Bool = false) throws -> EncodedNode {
        if let transform = options.transforms.table[ObjectIdentifier(T.self)] {
            return EncodedNode(try transform(value))
        }
        switch value {
        case let v as String: return EncodedNode(.string(v))
        case let v as Bool: return EncodedNode(.bool(v))
        case let v as Date: return EncodedNode(try encodeDate(v, path: path))
        case let v as URL: return EncodedNode(.string(v.absoluteString))
        case let v as Decimal:
            guard v.isFinite else { throw EncodingError.invalidValue(v, .init(codingPath: path, debugDescription: "a NaN Decimal has no JSON form")) }
            return EncodedNode(.number(JSONNumber(v.description)!))
        case let v as Data: return EncodedNode(.string(v.base64EncodedString()))
        case let v as JSONValue: return EncodedNode(v)
        case let v as JSONNumber: return EncodedNode(.number(v))
        case let v as LazyValue: return EncodedNode(v.jsonValue)
        case let v as ResourceIdentifier where !topLevel:
            let n = EncodedNode(v.jsonValue)
            n.linkage = .toOne(v)
            return n
        case let v as [ResourceIdentifier] where !topLevel:
            let n = EncodedNode(.array(v.map(\.jsonValue)))
            n.linkage = .toMany(v)
            return n
        case let v as any LinkageConvertible where !topLevel:
            let linkage = v.encodedLinkage
            let n = EncodedNode(linkage.jsonValue)
            n.linkage = linkage
            return n
        default: break
        }
        if !topLevel && resourceLevel && path.count == 1 {
            // A property of the resource model holding resource models: linkage.
            if let one = value as? any EncodableResource {
                let id = try Self.identifier(one)
                let n = EncodedNode(id.jsonValue)
                n.linkage = .toOne(id)
                return n
            }
            if let many = value as? [any EncodableResource] {
                let ids = try many.map { try Self.identifier($0) }
                let n = EncodedNode(.array(ids.map(\.jsonValue)))
                n.linkage = .toMany(ids)
                return n
            }
        }
        if let number = Self.number(value) {
            return EncodedNode(try number.get(path: path, options: options))
        }
        let nested = ValueEncoder(options: options, path: path, resourceLevel: topLevel && resourceLevel)
        try value.encode(to: nested)
        return nested.root ?? EncodedNode(.object(JSONObject()))
    }

    private static func identifier(_ model: some EncodableResource) throws -> ResourceIdentifier {
        try ResourceIdentifier(of: model)
    }

    private func encodeDate(_ date: Date, path: [any CodingKey]) throws -> JSONValue {
        switch options.dates {
        case .iso8601: return .string(RFC3339.format(date))
        case .secondsSince1970: return .number(JSONNumber(uncheckedText: Self.shortest(date.timeIntervalSince1970)))
        case .millisecondsSince1970:
            let ms = (date.timeIntervalSince1970 * 1000).rounded()
            guard ms.isFinite, abs(ms) < 9.2e18 else { throw EncodingError.invalidValue(date, .init(codingPath: path, debugDescription: "the date is out of range")) }
            return .number(JSONNumber(Int64(ms)))
        case .formatted(let f): return .string(f.string(from: date))
        case .custom(let body): return try body(date)
        }
    }

    /// Numbers by kind, so that their text is exact (integers) or the shortest that reads
    /// back the same (`Double`, `Float`).
    enum Number {
        case integer(String)
        case double(Double)
        case float(Float)

        func get(path: [any CodingKey], options: ResourceEncodingOptions) throws -> JSONValue {
            switch self {
            case .integer(let text): return .number(JSONNumber(uncheckedText: text))
            case .double(let d):
                guard d.isFinite else { return try nonFinite(d, path: path, options: options) }
                return .number(JSONNumber(uncheckedText: ValueEncoder.shortest(d)))
            case .float(let f):
                guard f.isFinite else { return try nonFinite(f, path: path, options: options) }
                return .number(JSONNumber(uncheckedText: ValueEncoder.shortest(f)))
            }
        }

        private func nonFinite(_ v: Any, path: [any CodingKey], options: ResourceEncodingOptions) throws -> JSONValue {
            if options.nonFiniteFloats == .null { return .null }
            throw EncodingError.invalidValue(v, .init(codingPath: path, debugDescription: "\(v) is not a JSON number"))
        }
    }

    static func number(_ value: Any) -> Number? {
        switch value {
        case let v as Int: .integer(String(v))
        case let v as Int8: .integer(String(v))
        case let v as Int16: .integer(String(v))
        case let v as Int32: .integer(String(v))
        case let v as Int64: .integer(String(v))
        case let v as UInt: .integer(String(v))
        case let v as UInt8: .integer(String(v))
        case let v as UInt16: .integer(String(v))
        case let v as UInt32: .integer(String(v))
        case let v as UInt64: .integer(String(v))
        case let v as Double: .double(v)
        case let v as Float: .float(v)
        default: nil
        }
    }

    /// The shortest text that reads back as `d` (Swift's own), without a trailing `.0` for
    /// whole numbers, as `JSONEncoder` writes them.
    static func shortest<F: BinaryFloatingPoint & LosslessStringConvertible>(_ d: F) -> String {
        var text = d.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}

/// Types whose value is a relationship's linkage when they are a model's property.
