#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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

    /// The defaults.
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
    /// Coding keys are passed through the formatter (model name to wire name), the one
    /// ``KeyDecodingStrategy/formatter(_:)`` takes for decoding.
    case formatter(KeyFormatter)

    /// `firstName` -> `first-name`, JSON:API's recommended naming.
    public static let kebabCase = KeyEncodingStrategy.format(.kebab)
    /// `firstName` -> `first_name`.
    public static let snakeCase = KeyEncodingStrategy.format(.snake)

    func convert(_ key: String) -> String {
        switch self {
        case .asIs: key
        case .format(let f): f.apply(key)
        case .custom(let body): body(key)
        case .formatter(let f): f.wireName(for: key)
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
    /// A string in the format (``DateTextFormat``; `DateFormatter` is one once
    /// `JSONAPIStreamFoundation` is imported).
    case formatted(any DateTextFormat)
    /// Your own value.
    case custom(@Sendable (Date) throws -> JSONValue)
}

/// What a `Double` or `Float` that is infinite or NaN becomes.
public enum NonFiniteFloatEncodingStrategy: Sendable, Hashable {
    /// Encoding fails, as every encoding failure of this library does, with
    /// ``JSONAPIError/misuse(_:)`` naming the model and the value's path
    /// (`cannot encode Reading at /values/1: nan is not a JSON number (value nan)`). The
    /// library's encoding entries throw ``JSONAPIError`` only (typed throws); an
    /// `EncodingError` from the model's own `encode(to:)` is described the same way.
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

    /// The defaults.
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
