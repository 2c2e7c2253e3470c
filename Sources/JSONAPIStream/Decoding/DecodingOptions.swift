#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How resources and values of a ``Graph`` are decoded into `Decodable` types.
///
/// ```swift
/// var options = DecodingOptions()
/// options.keys = .camelCase                       // `first-name` fills `firstName`
/// options.baseURL = URL(string: "https://api.example.com/")
/// options.transforms.register(Money.self) { value in try Money(cents: value.int()) }
/// let people = try graph.decode([Person].self, options: options)
/// ```
public struct DecodingOptions: Sendable {
    /// How stored attribute and relationship names are matched to the model's coding keys.
    public var keys: KeyDecodingStrategy = .asIs
    /// How `Date` properties are read.
    public var dates: DateDecodingStrategy = .iso8601
    /// How JSON numbers become `Double` and `Float`.
    public var floatingPoint: FloatingPointDecodingStrategy = .exact
    /// What a relationship that leads back to a resource being decoded does.
    public var cycles: CycleDecodingStrategy = .error
    /// How many related resources decoding one resource may decode as models (each element of
    /// `graph.decode([T].self)` and `decode(_:ofType:)` counts on its own); beyond it the call
    /// throws a `DecodingError`. `nil` (the default): four per resource and per linkage entry
    /// of the graph, plus 10,000, far more than a model that reads each resource once needs;
    /// use `Int.max` for no limit.
    ///
    /// A recursive model (`let children: [Node]`) decodes every path through the graph, so
    /// resources that several others link to are decoded once per path. In a document where
    /// each of 30 layers of two resources links to both resources of the next (about 6 KB),
    /// that is 2^31 - 2 models: without the limit, a few kilobytes of input would take all
    /// memory (each layer doubles the work; 20 layers took a second).
    public var maxResolvedResources: Int? = nil
    /// Relative `URL` values are resolved against this URL (`nil`: kept relative).
    public var baseURL: URL? = nil
    /// Decoders for types of your own, used before their `Decodable` conformance.
    public var transforms = ValueTransforms()
    /// Passed to `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// The defaults.
    public init() {}

    /// The defaults: keys as they are, ISO 8601 dates, no transforms.
    public static let `default` = DecodingOptions()
}

/// How stored attribute and relationship names are matched to a model's coding keys.
///
/// Only attribute names (the top level of `attributes`) and relationship names are
/// converted, as `jsonapi normalize --keys` rewrites them; members nested inside attribute
/// values, and `id`, `type`, `lid`, keep their names. Words are split as ``KeyFormat``
/// splits them (`first-name`, `first_name` and `firstName` are the same words).
///
/// A coding key renamed in `CodingKeys` (`case when = "publishedAt"`) takes part as renamed:
/// compared as it is with `.asIs`, with the converted stored names with `.format` and
/// `.custom` (so write it in the converted form: `"publishedAt"` under `.camelCase`), and
/// formatted with `.formatter` (`published-at` under ``KeyFormatter/kebabCase``).
public enum KeyDecodingStrategy: Sendable {
    /// Names are compared byte for byte.
    case asIs
    /// Each stored name is rewritten in `format` before it is compared: `.format(.camel)`
    /// lets `firstName` match `first-name` and `first_name`.
    case format(KeyFormat)
    /// Each stored name is passed through the function, whose result is compared.
    case custom(@Sendable (String) -> String)
    /// Each coding key is passed through the formatter (model name to wire name), whose
    /// result is looked up among the stored names: the one formatter
    /// (``ResourceEncodingOptions/keys`` takes it too) for both directions.
    case formatter(KeyFormatter)

    /// Stored kebab-case or snake-case names match camelCase coding keys.
    public static let camelCase = KeyDecodingStrategy.format(.camel)
    /// Same as ``camelCase``, under the name `JSONDecoder` users look for.
    public static let convertFromKebabCase = KeyDecodingStrategy.format(.camel)
    /// `snake_case` member names read into `camelCase` properties (as `JSONDecoder`'s strategy of that name).
    public static let convertFromSnakeCase = KeyDecodingStrategy.format(.camel)

    var isAsIs: Bool { if case .asIs = self { true } else { false } }

    /// Whether stored names are converted before they are compared (not for `.asIs`, nor
    /// for `.formatter`, which converts coding keys instead).
    var convertsStoredNames: Bool {
        switch self {
        case .asIs, .formatter: false
        case .format, .custom: true
        }
    }

    /// The name a stored name is matched under, or `nil` when it is unchanged.
    func convert(_ stored: UnsafeRawBufferPointer) -> [UInt8]? {
        switch self {
        case .asIs:
            return nil
        case .format(let format):
            var out: [UInt8] = []
            return format.apply(stored, into: &out) ? out : nil
        case .custom(let body):
            let converted = body(String(decoding: stored, as: UTF8.self))
            return converted.utf8.elementsEqual(stored) ? nil : Array(converted.utf8)
        case .formatter:
            return nil
        }
    }

    var summary: String {
        switch self {
        case .asIs: "as is"
        case .format(let f): "converted to \(f.rawValue) case"
        case .custom: "converted by the custom key strategy"
        case .formatter: "looked up under the formatter's names for the coding keys"
        }
    }
}

/// How `Date` properties are read.
public enum DateDecodingStrategy: Sendable {
    /// An RFC 3339 / ISO 8601 date-time string, with or without fractional seconds:
    /// `2026-03-01T12:30:00Z`, `2026-03-01T12:30:00.125+01:00`.
    case iso8601
    /// A number of seconds since 1970-01-01T00:00:00Z.
    case secondsSince1970
    /// A number of milliseconds since 1970-01-01T00:00:00Z.
    case millisecondsSince1970
    /// A string read by the format: `DateFormatter` is one once `JSONAPIStreamFoundation` is
    /// imported (it is Foundation's, which this library does not link).
    case formatted(any DateTextFormat)
    /// Your own function of the stored value.
    case custom(@Sendable (LazyValue) throws -> Date)
}

/// A format of dates as text, for ``DateDecodingStrategy/formatted(_:)`` and
/// ``DateEncodingStrategy/formatted(_:)``. `JSONAPIStreamFoundation` makes Foundation's
/// `DateFormatter` one:
///
/// ```swift
/// import JSONAPIStreamFoundation
///
/// let formatter = DateFormatter()
/// formatter.dateFormat = "yyyy/MM/dd"
/// options.dates = .formatted(formatter)
/// ```
public protocol DateTextFormat: Sendable {
    /// The date the text spells, or `nil` when it spells none in this format.
    func date(from text: String) -> Date?
    /// The date as text in this format.
    func string(from date: Date) -> String
    /// The format as an error names it: `a date in the format "yyyy/MM/dd"`.
    var formatDescription: String { get }
}

/// How JSON numbers become `Double` and `Float`.
public enum FloatingPointDecodingStrategy: Sendable, Hashable {
    /// The number must survive the conversion: it may not overflow, underflow to zero, or
    /// have more significant digits than the type keeps (`0.1` and `1.25e-3` decode;
    /// `9007199254740993` and `3.14159265358979323846` do not decode as `Double`). An integer
    /// below 2^64 in magnitude that the type holds exactly decodes whatever its length
    /// (`-9223372036854775808`).
    case exact
    /// The nearest value; only overflow and underflow to zero fail.
    case nearest
}

/// What a relationship that leads back to a resource being decoded does (an article whose
/// comments each decode their article as a model).
public enum CycleDecodingStrategy: Sendable, Hashable {
    /// Throw a `DecodingError` naming the cycle. Declare one side as ``ResourceIdentifier``,
    /// ``ToOne``/``ToMany`` or ``Resource`` to break it.
    case error
    /// An optional to-one relationship that closes a cycle decodes as `nil`; anything else
    /// still throws.
    case nilForOptionals
}

/// Decoders for types of your own, keyed by type; used instead of the type's `Decodable`
/// conformance wherever a value of that type is decoded from a stored value.
///
/// ```swift
/// options.transforms.register(Money.self) { value in
///     guard let text = value.string else { throw Money.Error.notAString }
///     return try Money(parsing: text)
/// }
/// ```
public struct ValueTransforms: Sendable {
    typealias Transform = @Sendable (LazyValue) throws -> Any
    var table: [ObjectIdentifier: Transform] = [:]

    /// The defaults.
    public init() {}

    /// Whether no transform is registered.
    public var isEmpty: Bool { table.isEmpty }

    /// Registers `transform` for `type`, replacing an earlier one.
    public mutating func register<T>(_ type: T.Type, _ transform: @escaping @Sendable (LazyValue) throws -> T) {
        table[ObjectIdentifier(type)] = { try transform($0) }
    }

    /// Removes the transform for `type`.
    public mutating func remove<T>(_ type: T.Type) { table[ObjectIdentifier(type)] = nil }

    func transform(for type: Any.Type) -> Transform? { table[ObjectIdentifier(type)] }
}
