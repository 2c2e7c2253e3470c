/// A member that can be absent, `null`, or a value: the three states JSON:API gives an
/// attribute, where `Optional` has two.
///
/// `Optional` decodes a missing member and `null` alike as `nil`, and encodes `nil` by leaving
/// the member out. `Nullable` keeps them apart in both directions, with synthesized `Codable`
/// (no `init(from:)` to write):
///
/// ```swift
/// struct ArticlePatch: Codable {
///     var title: Nullable<String>        // .absent: not sent; .null: "title":null
///     var publishedAt: Nullable<Date>
/// }
/// ```
///
/// | member in the document | `Optional<T>` | `Nullable<T>` |
/// | --- | --- | --- |
/// | missing | `nil` | `.absent` |
/// | `null` | `nil` | `.null` |
/// | a value | the value | `.value(v)` |
///
/// Encoding writes nothing for `.absent`, `null` for `.null`. This works with any `Decoder`
/// and `Encoder` (the library's and Foundation's alike) because the keyed containers have
/// overloads for it, which synthesized code calls; outside a keyed container (an array
/// element, a single value) `.absent` cannot be told apart and is read and written as `null`.
public enum Nullable<Value> {
    /// The member is not there.
    case absent
    /// The member is `null`.
    case null
    /// The member has this value.
    case value(Value)

    /// `nil` for `nil`, the value otherwise: `.null` or `.value`, never `.absent`.
    public init(_ optional: Value?) {
        self = optional.map { .value($0) } ?? .null
    }

    /// The value, or `nil` when absent or `null`.
    public var value: Value? {
        if case .value(let v) = self { return v }
        return nil
    }

    /// Whether the member is not there.
    public var isAbsent: Bool {
        if case .absent = self { return true }
        return false
    }

    /// Whether the member is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

extension Nullable: Sendable where Value: Sendable {}
extension Nullable: Equatable where Value: Equatable {}
extension Nullable: Hashable where Value: Hashable {}

extension Nullable: ExpressibleByNilLiteral {
    /// `nil` is `.null`: a member written as `null` (leave it `.absent` to leave it out).
    public init(nilLiteral: ()) { self = .null }
}

extension Nullable: Decodable where Value: Decodable {
    /// Outside a keyed container: `null` or a value.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        self = c.decodeNil() ? .null : .value(try c.decode(Value.self))
    }
}

extension Nullable: Encodable where Value: Encodable {
    /// Outside a keyed container: `null` for `.absent` and `.null`, the value otherwise.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if case .value(let v) = self { try c.encode(v) } else { try c.encodeNil() }
    }
}

extension Nullable: CustomStringConvertible {
    public var description: String {
        switch self {
        case .absent: "absent"
        case .null: "null"
        case .value(let v): "\(v)"
        }
    }
}

extension KeyedDecodingContainer {
    /// A ``Nullable`` member: `.absent` when the container does not have it, `.null` for
    /// `null`, the decoded value otherwise. Synthesized `init(from:)` calls this.
    public func decode<Value: Decodable>(_: Nullable<Value>.Type, forKey key: Key) throws -> Nullable<Value> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .null }
        return .value(try decode(Value.self, forKey: key))
    }

    /// As ``decode(_:forKey:)`` (a ``Nullable`` declared optional: `nil` only for absent).
    public func decodeIfPresent<Value: Decodable>(_: Nullable<Value>.Type, forKey key: Key) throws -> Nullable<Value>? {
        guard contains(key) else { return nil }
        return try decode(Nullable<Value>.self, forKey: key)
    }
}

extension KeyedEncodingContainer {
    /// A ``Nullable`` member: nothing for `.absent`, `null` for `.null`, the value otherwise.
    /// Synthesized `encode(to:)` calls this.
    public mutating func encode<Value: Encodable>(_ value: Nullable<Value>, forKey key: Key) throws {
        switch value {
        case .absent: break
        case .null: try encodeNil(forKey: key)
        case .value(let v): try encode(v, forKey: key)
        }
    }

    /// As ``encode(_:forKey:)``; `nil` writes nothing.
    public mutating func encodeIfPresent<Value: Encodable>(_ value: Nullable<Value>?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
}
