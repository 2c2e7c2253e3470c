/// A model that reads its members by name from a ``JSONAPIReader``: the fast way into typed
/// models, beside the `init(from:)` that `Decodable` synthesizes.
///
/// A conforming type writes one initializer instead of a `CodingKeys` enum:
///
/// ```swift
/// struct Article: JSONAPIReadable {
///     var id: String
///     var title: String
///     var views: Int
///     var deletedAt: String?
///     var dimensions: Dimensions          // a JSONAPIReadable (or Decodable) value
///     var author: ResourceIdentifier      // a relationship
///
///     init(reading r: JSONAPIReader) throws {
///         id = try r.read("id")
///         title = try r.read("title")
///         views = try r.read("views")
///         deletedAt = try r.readIfPresent("deletedAt")
///         dimensions = try r.read("dimensions")
///         author = try r.read("author")
///     }
/// }
/// let articles = try graph.decode([Article].self)
/// ```
///
/// Every entry point that decodes (``Graph/decode(_:options:)``,
/// ``Graph/decodeConcurrently(_:options:)``, ``Resource/decode(_:options:)``, ``ToOne``,
/// ``ToMany``, a property of another model) takes such a model as it takes any `Decodable`
/// one, with the same options, the same values and the same errors (coding path, resource and
/// JSON pointer). What it saves is `Decodable`'s machinery: no keyed container box, no
/// coding key `String` per member, no generic container metadata looked up at run time, and
/// scalars read by concrete (not generic) calls. On the benchmark's articles it costs about
/// a fifth fewer instructions than the synthesized `init(from:)`; most of what is left is
/// making the `String`s (`Scripts/callgrind.sh --passes "decode-primary read-primary"`).
///
/// The protocol refines `Decodable` and implements `init(from:)` with `init(reading:)`, so a
/// conforming model also decodes with any other decoder (`JSONDecoder`: its reader then reads
/// through a keyed container). Member names are `StaticString`s and are matched as they are
/// stored, after the ``DecodingOptions/keys`` strategy, exactly as coding keys are.
public protocol JSONAPIReadable: Decodable {
    /// Reads the model from a resource (its `id`, `type`, `lid`, attributes, relationships,
    /// `meta` and `links`, found in that order as a coding key would be) or from a stored
    /// object value (its members).
    init(reading reader: JSONAPIReader) throws
}

extension JSONAPIReadable {
    /// Reads the model through ``init(reading:)``: over the graph's member table when the
    /// decoder is this library's, else through the decoder's keyed container.
    public init(from decoder: any Decoder) throws {
        if let d = ResourceDecoder.unwrap(decoder) {
            self = try Self(reading: JSONAPIReader(table: try d.readerTable(node: d.node, path: d.path, row: d.row)))
        } else {
            self = try Self(reading: JSONAPIReader(container: try decoder.container(keyedBy: ReaderKey.self)))
        }
    }
}

/// The members of one resource or stored object, read by name into Swift values: what
/// ``JSONAPIReadable/init(reading:)`` is given.
///
/// `read` requires the member (a `DecodingError.keyNotFound` otherwise) and `readIfPresent`
/// gives `nil` for a member that is absent or `null` (for a relationship: `null` linkage, no
/// linkage, or a related model whose resource is not in the document), as
/// `decode(_:forKey:)` and `decodeIfPresent(_:forKey:)` do. `String`, `Int`, `Double` and
/// `Bool` are read by calls of their own; any other `Decodable` (`Date`, `[String]`,
/// `ResourceIdentifier`, a related model, a nested ``JSONAPIReadable`` value, ...) goes
/// through the decoder as a property of a synthesized model would.
///
/// A reader is valid only inside the `init(reading:)` it was given to.
public struct JSONAPIReader {
    // One of the two is set. Two optionals, not an enum: switching over an enum with two
    // reference payloads copied (and retained) it on every call.

    /// This library's decoder: the object's member table.
    private let table: MemberTable?
    /// Any other decoder: its keyed container.
    private let container: KeyedDecodingContainer<ReaderKey>?

    init(table: MemberTable) {
        self.table = table
        container = nil
    }

    init(container: KeyedDecodingContainer<ReaderKey>) {
        table = nil
        self.container = container
    }

    /// The coding keys from the decode's root to this object.
    public var codingPath: [any CodingKey] {
        if let t = table { return t.path?.codingPath ?? [] }
        return container.unsafelyUnwrapped.codingPath
    }

    /// Whether the object has the member (for a resource: `id`, `type`, `lid`, an attribute,
    /// a relationship, `meta` or `links`), even when its value is `null`.
    public func contains(_ key: StaticString) -> Bool {
        if let t = table { return t.lookup(named: key) != nil }
        return container.unsafelyUnwrapped.contains(ReaderKey(key))
    }

    // MARK: Scalars

    /// The member as a `String`; throws when it is absent, `null` or of another kind.
    public func read(_ key: StaticString, as _: String.Type = String.self) throws -> String { try scalar(key) }
    /// The member as an `Int`; throws when it is absent, `null` or of another kind.
    public func read(_ key: StaticString, as _: Int.Type = Int.self) throws -> Int { try scalar(key) }
    /// The member as a `Double`; throws when it is absent, `null` or of another kind.
    public func read(_ key: StaticString, as _: Double.Type = Double.self) throws -> Double { try scalar(key) }
    /// The member as a `Bool`; throws when it is absent, `null` or of another kind.
    public func read(_ key: StaticString, as _: Bool.Type = Bool.self) throws -> Bool { try scalar(key) }

    /// The member as a `String`, or `nil` when it is absent or `null`.
    public func readIfPresent(_ key: StaticString, as _: String.Type = String.self) throws -> String? { try scalarIfPresent(key) }
    /// The member as an `Int`, or `nil` when it is absent or `null`.
    public func readIfPresent(_ key: StaticString, as _: Int.Type = Int.self) throws -> Int? { try scalarIfPresent(key) }
    /// The member as a `Double`, or `nil` when it is absent or `null`.
    public func readIfPresent(_ key: StaticString, as _: Double.Type = Double.self) throws -> Double? { try scalarIfPresent(key) }
    /// The member as a `Bool`, or `nil` when it is absent or `null`.
    public func readIfPresent(_ key: StaticString, as _: Bool.Type = Bool.self) throws -> Bool? { try scalarIfPresent(key) }

    // MARK: Any Decodable

    /// The member as `T`, decoded as a model's property of that type would be.
    public func read<T: Decodable>(_ key: StaticString, as _: T.Type = T.self) throws -> T {
        if let t = table { return try t.decode(T.self, t.require(t.lookup(named: key), key: ReaderKey(key)), key: ReaderKey(key)) }
        return try container.unsafelyUnwrapped.decode(T.self, forKey: ReaderKey(key))
    }

    /// The member as `T`, or `nil` when it is absent or `null`, as `decodeIfPresent` gives it.
    public func readIfPresent<T: Decodable>(_ key: StaticString, as _: T.Type = T.self) throws -> T? {
        if let t = table { return try t.decodeIfPresent(T.self, t.lookup(named: key), key: ReaderKey(key)) }
        return try container.unsafelyUnwrapped.decodeIfPresent(T.self, forKey: ReaderKey(key))
    }

    // MARK: -

    @inline(__always)
    private func scalar<T: StoredScalar & Decodable>(_ key: StaticString) throws -> T {
        if let t = table { return try t.scalar(t.require(t.lookup(named: key), key: ReaderKey(key)), key: ReaderKey(key)) }
        return try container.unsafelyUnwrapped.decode(T.self, forKey: ReaderKey(key))
    }

    @inline(__always)
    private func scalarIfPresent<T: StoredScalar & Decodable>(_ key: StaticString) throws -> T? {
        if let t = table { return try t.scalarIfPresent(t.lookup(named: key), key: ReaderKey(key)) }
        return try container.unsafelyUnwrapped.decodeIfPresent(T.self, forKey: ReaderKey(key))
    }
}

/// The coding key of a member read through a ``JSONAPIReader``: the model's own name,
/// kept as the `StaticString` (it fits an existential's inline buffer, so a coding path or a
/// location holds it without an allocation; its text is made only when asked for).
///
/// Its keys are the names a model reads, never names made at run time: `init(stringValue:)`
/// gives `nil`, so a keyed container's `allKeys` over it is empty (a reader never asks).
struct ReaderKey: CodingKey {
    let name: StaticString

    init(_ name: StaticString) { self.name = name }
    init?(stringValue: String) { return nil }
    init?(intValue: Int) { return nil }

    var stringValue: String { name.description }
    var intValue: Int? { nil }
}

extension MemberTable {
    /// ``lookup(_:)`` by a static name (either of its representations).
    @inline(__always)
    func lookup(named key: StaticString) -> MemberLookup? {
        key.withUTF8Buffer { lookup(UnsafeRawBufferPointer($0)) }
    }
}
