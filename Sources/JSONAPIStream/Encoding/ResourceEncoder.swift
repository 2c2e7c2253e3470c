import Foundation

/// A model type that stands for resources of one JSON:API type. When a property of an
/// encoded model holds one (or an array of them), it is written as a relationship: only
/// its identifier, never its attributes.
///
/// ```swift
/// struct Person: EncodableResource {
///     static let resourceType = "people"
///     var id: String
///     var firstName: String
/// }
/// ```
public protocol EncodableResource: Encodable {
    /// The JSON:API type of this model's resources (`"people"`).
    static var resourceType: String { get }
}

/// How models are encoded as resource objects (``EditableResource/init(encoding:type:options:)``).
///
/// The counterpart of ``DecodingOptions``: the same key formats and the same date forms, so
/// that a model encoded with some options decodes back with the matching ones.
public struct ResourceEncodingOptions: Sendable {
    /// How the model's coding keys become attribute and relationship names.
    public var keys: KeyEncodingStrategy = .asIs
    /// How `Date` values are written.
    public var dates: DateEncodingStrategy = .iso8601
    /// How non-finite `Double` and `Float` values are written (JSON has no such numbers).
    public var nonFiniteFloats: NonFiniteFloatEncodingStrategy = .throw
    /// Encoders for types of your own, used before their `Encodable` conformance.
    public var transforms = EncodingTransforms()
    /// Passed to `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    public init() {}
}

/// How a model's coding keys become attribute and relationship names. Only those names are
/// converted (as ``KeyDecodingStrategy`` converts only them): members nested inside
/// attribute values, and `id`, `type`, `lid`, keep their names.
public enum KeyEncodingStrategy: Sendable {
    /// Coding keys are written as they are.
    case asIs
    /// Coding keys are rewritten in `format` (`.format(.kebab)`: `firstName` -> `first-name`).
    case format(KeyFormat)
    /// Coding keys are passed through the function.
    case custom(@Sendable (String) -> String)

    /// `firstName` -> `first-name`, JSON:API's recommended naming.
    public static let kebabCase = KeyEncodingStrategy.format(.kebab)
    /// `firstName` -> `first_name`.
    public static let snakeCase = KeyEncodingStrategy.format(.snake)

    func convert(_ key: String) -> String {
        switch self {
        case .asIs: key
        case .format(let f): f.apply(key)
        case .custom(let body): body(key)
        }
    }
}

/// How `Date` values are written.
public enum DateEncodingStrategy: Sendable {
    /// An RFC 3339 date-time string in UTC, with fractional seconds only when the date has
    /// them (`2026-03-01T12:30:00Z`, `2026-03-01T12:30:00.125Z`): what
    /// ``DateDecodingStrategy/iso8601`` reads.
    case iso8601
    /// A number of seconds since 1970-01-01T00:00:00Z.
    case secondsSince1970
    /// A whole number of milliseconds since 1970-01-01T00:00:00Z.
    case millisecondsSince1970
    /// A string from the formatter.
    case formatted(DateFormatter)
    /// Your own value.
    case custom(@Sendable (Date) throws -> JSONValue)
}

/// What a `Double` or `Float` that is infinite or NaN becomes.
public enum NonFiniteFloatEncodingStrategy: Sendable, Hashable {
    /// Encoding fails with an `EncodingError` naming the value's path.
    case `throw`
    /// The value is written as `null`.
    case null
}

/// Encoders for types of your own, keyed by type.
///
/// ```swift
/// options.transforms.register(Money.self) { money in .string(money.formatted) }
/// ```
public struct EncodingTransforms: Sendable {
    typealias Transform = @Sendable (Any) throws -> JSONValue
    var table: [ObjectIdentifier: Transform] = [:]

    public init() {}

    /// Registers `transform` for `type`, replacing an earlier one.
    public mutating func register<T>(_ type: T.Type, _ transform: @escaping @Sendable (T) throws -> JSONValue) {
        table[ObjectIdentifier(type)] = { value in
            // The table is keyed by T's identifier, so only T values reach this closure.
            guard let typed = value as? T else { return .null }
            return try transform(typed)
        }
    }

    /// Removes the transform for `type`.
    public mutating func remove<T>(_ type: T.Type) { table[ObjectIdentifier(type)] = nil }
}

// MARK: - Models as editable resources

extension EditableResource {
    /// A new resource from a model: `id`, `lid` and `type` coding keys give its identity
    /// (`type` defaults to `type:` or the model's ``EncodableResource/resourceType``);
    /// properties holding ``ResourceIdentifier``s, ``ToOne``/``ToMany`` handles or
    /// ``EncodableResource`` models (one, optional, or an array) become relationships; every
    /// other property becomes an attribute. Properties that encode nothing (a `nil` optional
    /// with synthesized `Encodable`) are left out.
    ///
    /// ```swift
    /// struct NewArticle: Encodable {
    ///     var lid = "a1"
    ///     var title: String
    ///     var publishedAt: Date
    ///     var author: ResourceIdentifier
    /// }
    /// var options = ResourceEncodingOptions()
    /// options.keys = .kebabCase
    /// let article = try EditableResource(encoding: model, type: "articles", options: options)
    /// let body = try article.createDocument()
    /// ```
    public init<Model: Encodable>(encoding model: Model, type: String? = nil, options: ResourceEncodingOptions = .init()) throws(JSONAPIError) {
        let parts = try ModelParts(model, options: options)
        guard let resolved = parts.type ?? type ?? (Model.self as? any EncodableResource.Type)?.resourceType else {
            throw JSONAPIError.misuse("the type of \(Model.self) resources is unknown: give `type:`, a `type` property, or conform to EncodableResource")
        }
        self.init(type: resolved, id: parts.id, lid: parts.lid)
        for m in parts.attributes.members { setAttribute(m.key, m.value) }
        for (name, linkage) in parts.relationships { setRelationship(name, linkage) }
    }

    /// Sets the attributes and relationships a model encodes (an update: attributes equal
    /// to the original's record no change). The model's identity must match this
    /// resource's when it has one.
    public mutating func update<Model: Encodable>(encoding model: Model, options: ResourceEncodingOptions = .init()) throws(JSONAPIError) {
        let parts = try ModelParts(model, options: options)
        if let t = parts.type, t != type { throw JSONAPIError.misuse("the model's type \(quoted(t)) is not the resource's \(quoted(type))") }
        if let i = parts.id, let id, i != id { throw JSONAPIError.misuse("the model's id \(quoted(i)) is not the resource's \(quoted(id))") }
        for m in parts.attributes.members { setAttribute(m.key, m.value) }
        for (name, linkage) in parts.relationships { setRelationship(name, linkage) }
    }
}

extension ResourceIdentifier {
    /// The identifier of a model (its `type`, `id` and `lid` coding keys, or its
    /// ``EncodableResource/resourceType``).
    public init<Model: EncodableResource>(of model: Model) throws(JSONAPIError) {
        let parts = try ModelParts(model, options: .init())
        guard parts.id != nil || parts.lid != nil else {
            throw JSONAPIError.misuse("a \(Model.self) needs an id or a lid to be linked to")
        }
        self.init(type: parts.type ?? Model.resourceType, id: parts.id, lid: parts.lid)
    }
}

/// What a model encodes to, split into identity, attributes and relationships.
struct ModelParts {
    var type: String?
    var id: String?
    var lid: String?
    var attributes = JSONObject()
    var relationships: [(String, RelationshipLinkage)] = []

    init<Model: Encodable>(_ model: Model, options: ResourceEncodingOptions) throws(JSONAPIError) {
        let encoder = ValueEncoder(options: options, path: [], resourceLevel: true)
        do {
            try encoder.encodeValue(model)
        } catch let error as EncodingError {
            throw JSONAPIError.misuse(Self.describe(error, model: Model.self))
        } catch let error as JSONAPIError {
            throw error
        } catch {
            throw JSONAPIError.misuse("cannot encode \(Model.self): \(error)")
        }
        guard let root = encoder.root, case .object(let members) = root.kind else {
            throw JSONAPIError.misuse("\(Model.self) does not encode as an object (a resource needs keyed members)")
        }
        for (key, node) in members {
            switch key {
            case "type", "id", "lid":
                let text: String
                switch node.kind {
                case .value(.string(let s)): text = s
                case .value(.number(let n)): text = n.text
                case .value(.null): continue
                default: throw JSONAPIError.misuse("\(Model.self).\(key) must be a string or an integer to be a resource's \(key)")
                }
                if key == "type" { type = text } else if key == "id" { id = text } else { lid = text }
            default:
                let name = options.keys.convert(key)
                if let linkage = node.linkage {
                    relationships.append((name, linkage))
                } else {
                    attributes[name] = node.resolve()
                }
            }
        }
    }

    static func describe(_ error: EncodingError, model: Any.Type) -> String {
        switch error {
        case .invalidValue(let value, let context):
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
            return "cannot encode \(model) at /\(path): \(context.debugDescription) (value \(value))"
        @unknown default:
            return "cannot encode \(model): \(error)"
        }
    }
}

// MARK: - The encoder

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
            let linkage = v.linkage
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
protocol LinkageConvertible {
    var linkage: RelationshipLinkage { get }
}

extension ToOne: LinkageConvertible {
    var linkage: RelationshipLinkage { .toOne(identifier) }
}

extension ToMany: LinkageConvertible {
    var linkage: RelationshipLinkage { .toMany(identifiers) }
}

extension ToOne: Encodable {
    /// The identifier (or `null`): what a relationship's `data` holds.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let identifier { try c.encode(identifier) } else { try c.encodeNil() }
    }
}

extension ToMany: Encodable {
    /// The identifiers: what a relationship's `data` holds.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(identifiers)
    }
}

struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder
    let node: EncodedNode
    let codingPath: [any CodingKey]

    private func put(_ value: JSONValue, _ key: Key) { node.set(key.stringValue, EncodedNode(value)) }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        node.set(key.stringValue, try encoder.box(value, path: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodedNode()
        child.kind = .object([])
        node.set(key.stringValue, child)
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(encoder: encoder, node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = EncodedNode()
        child.kind = .array([])
        node.set(key.stringValue, child)
        return UnkeyedNodeContainer(encoder: encoder, node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue, key: key) }

    private func superEncoder(named name: String, key: (any CodingKey)? = nil) -> any Encoder {
        let sub = NodeReferencingEncoder(options: encoder.options, path: codingPath + [key ?? SuperKey()])
        sub.attach = { [node] child in node.set(name, child) }
        return sub
    }
}

struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) {}
    init?(intValue: Int) { nil }
}

/// An encoder for `superEncoder`: its root is attached to the parent when first made.
final class NodeReferencingEncoder: Encoder {
    let inner: ValueEncoder
    var attach: ((EncodedNode) -> Void)?
    var codingPath: [any CodingKey] { inner.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { inner.userInfo }

    init(options: ResourceEncodingOptions, path: [any CodingKey]) {
        inner = ValueEncoder(options: options, path: path)
    }

    private func attachOnce() {
        if let attach {
            let n = EncodedNode()
            inner.root = n
            attach(n)
            self.attach = nil
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        attachOnce()
        return inner.container(keyedBy: type)
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        attachOnce()
        return inner.unkeyedContainer()
    }
    func singleValueContainer() -> any SingleValueEncodingContainer {
        attachOnce()
        return SingleNodeContainer(encoder: inner, codingPath: codingPath)
    }
}

struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let encoder: ValueEncoder
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    private var nextPath: [any CodingKey] { codingPath + [EncodingIndexKey(count)] }

    mutating func encodeNil() throws { node.append(EncodedNode(.null)) }
    mutating func encode(_ value: Bool) throws { node.append(EncodedNode(.bool(value))) }
    mutating func encode(_ value: String) throws { node.append(EncodedNode(.string(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { node.append(try encoder.box(value, path: nextPath)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let child = EncodedNode()
        child.kind = .object([])
        node.append(child)
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(encoder: encoder, node: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let child = EncodedNode()
        child.kind = .array([])
        node.append(child)
        return UnkeyedNodeContainer(encoder: encoder, node: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let sub = NodeReferencingEncoder(options: encoder.options, path: nextPath)
        sub.attach = { [node] child in node.append(child) }
        return sub
    }
}

struct SingleNodeContainer: SingleValueEncodingContainer {
    let encoder: ValueEncoder
    let codingPath: [any CodingKey]

    private func set(_ n: EncodedNode) {
        if let root = encoder.root {
            root.kind = n.kind
            root.linkage = n.linkage
        } else {
            encoder.root = n
        }
    }

    mutating func encodeNil() throws { set(EncodedNode(.null)) }
    mutating func encode(_ value: Bool) throws { set(EncodedNode(.bool(value))) }
    mutating func encode(_ value: String) throws { set(EncodedNode(.string(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { set(try encoder.box(value, path: codingPath)) }
}

// MARK: - RFC 3339 dates

enum RFC3339 {
    /// `2026-03-01T12:30:00Z`, with `.fff` (milliseconds, trailing zeros dropped) when the
    /// date has a fraction of a second.
    static func format(_ date: Date) -> String {
        let t = date.timeIntervalSince1970
        var seconds = t.rounded(.down)
        var millis = Int(((t - seconds) * 1000).rounded())
        if millis == 1000 { seconds += 1; millis = 0 }
        let total = Int64(seconds)
        var days = total / 86_400
        var rem = total % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        let (y, m, d) = civil(fromDays: days)
        var s = pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2)
        s += "T" + pad(Int(rem / 3600), 2) + ":" + pad(Int(rem % 3600 / 60), 2) + ":" + pad(Int(rem % 60), 2)
        if millis != 0 {
            var frac = pad(millis, 3)
            while frac.hasSuffix("0") { frac.removeLast() }
            s += "." + frac
        }
        return s + "Z"
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let text = String(abs(v))
        let padded = String(repeating: "0", count: max(0, width - text.count)) + text
        return v < 0 ? "-" + padded : padded
    }

    /// Year, month, day of a count of days since 1970-01-01 (proleptic Gregorian).
    private static func civil(fromDays z0: Int64) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return (Int(y), Int(m), Int(d))
    }
}

// MARK: - Values in other encoders

extension JSONValue: Encodable {
    /// Encodes the value in any `Encoder`. ``EditableResource/init(encoding:type:options:)``
    /// writes numbers' text as it is; other encoders get an integer when the text is one
    /// that fits, else a `Decimal` (exact up to 38 digits), as `JSONEncoder` can write.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .string(let s): try c.encode(s)
        case .number(let n): try c.encode(n)
        case .array(let a): try c.encode(a)
        case .object(let o):
            var k = encoder.container(keyedBy: AnyKey.self)
            for m in o.members { try k.encode(m.value, forKey: AnyKey(m.key)) }
        }
    }
}

extension JSONNumber: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let i = Int64(text) { try c.encode(i) } else if let u = UInt64(text) { try c.encode(u) } else if let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) { try c.encode(d) } else {
            throw EncodingError.invalidValue(text, .init(codingPath: encoder.codingPath, debugDescription: "\(text) has no exact form in this encoder"))
        }
    }
}

struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
