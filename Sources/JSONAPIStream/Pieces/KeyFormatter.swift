/// How a model's names become names on the wire: one function from a model's coding key to
/// the attribute or relationship name the document uses, for decoding and encoding alike
/// (Spine's `KeyFormatter`).
///
/// ```swift
/// let upper = KeyFormatter { $0.uppercased() }      // title -> TITLE
/// var decoding = DecodingOptions()
/// decoding.keys = .formatter(upper)                  // the TITLE attribute fills `title`
/// var encoding = ResourceEncodingOptions()
/// encoding.keys = .formatter(upper)                  // `title` is written as TITLE
/// ```
///
/// Only attribute and relationship names are formatted; `id`, `type`, `lid`, `meta`,
/// `links` and members nested inside attribute values keep their names. A coding key
/// renamed in `CodingKeys` (`case publishedAt = "published"`) is formatted too: the
/// formatter sees `published`.
///
/// Two formatters are equal when they are copies of one made by ``init(_:)`` (functions
/// cannot be compared).
public struct KeyFormatter: Sendable, Hashable {
    private let body: @Sendable (String) -> String
    /// Who this formatter is, for equality.
    private let identity = Identity()

    private final class Identity: Sendable {}

    /// A formatter from model names to wire names.
    public init(_ wireName: @escaping @Sendable (String) -> String) { body = wireName }

    /// Whether both are copies of one formatter.
    public static func == (a: KeyFormatter, b: KeyFormatter) -> Bool { a.identity === b.identity }

    /// Hashes the formatter's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(identity)) }

    /// The name on the wire of the model's `name`.
    public func wireName(for name: String) -> String { body(name) }

    /// Names as they are.
    public static let asIs = KeyFormatter { $0 }
    /// `firstName` -> `first-name` (JSON:API's recommended naming).
    public static let kebabCase = KeyFormatter { KeyFormat.kebab.apply($0) }
    /// `firstName` -> `first_name`.
    public static let snakeCase = KeyFormatter { KeyFormat.snake.apply($0) }
    /// `first_name` -> `firstName`.
    public static let camelCase = KeyFormatter { KeyFormat.camel.apply($0) }
}
