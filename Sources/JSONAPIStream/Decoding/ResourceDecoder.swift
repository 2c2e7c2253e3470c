#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import CPlatform

/// Where a decoder or container is in a graph.
enum DecodingNode {
    /// The primary data of every document read.
    case primary
    /// A resource (its row): a keyed container over `id`, `type`, `lid`, attributes,
    /// relationships, then `meta` and `links`.
    case resource(Int)
    /// A stored JSON value: its span in the value store, and whether it is a string with a
    /// backslash.
    case value(Int, Int, escaped: Bool)
    /// A relationship (its index in the relationship table).
    case relationship(Int)
    /// One entry of resource linkage (its index in the linkage table).
    case linkage(Int)
    /// `id`, `type` or `lid`.
    case text(String)
}

/// One step of a JSON pointer inside a resource object, kept as offsets until an error
/// needs the text.
enum PointerSegment {
    case none
    /// A member of a stored object: its quoted name in the value store.
    case member(Int, Int)
    /// A top-level attribute: its quoted name in the value store.
    case attribute(Int, Int)
    /// A relationship's resource linkage: `/relationships/<name>/data`.
    case relationship(UInt32)
    /// `/id`, `/type`, `/lid`, `/meta`, `/links`.
    case fixed(StaticString)
    /// An array element.
    case index(Int)

    var isNone: Bool { if case .none = self { true } else { false } }
}

/// A coding key for array positions, spelled as `JSONDecoder` spells them.
struct IndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { return nil }
}

/// A coding key made from a stored name (`allKeys`, `superDecoder`).
struct NameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(_ name: String) { stringValue = name }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}

/// The coding path to a nested value, as a linked list made only when decoding descends
/// into a value that is not a scalar (scalars build their path only when they fail).
final class PathNode {
    let parent: PathNode?
    let key: (any CodingKey)?
    let segment: PointerSegment
    /// The resource whose JSON pointer `segment` extends (-1: none).
    let row: Int

    init(parent: PathNode?, key: (any CodingKey)?, segment: PointerSegment, row: Int) {
        self.parent = parent
        self.key = key
        self.segment = segment
        self.row = row
    }

    convenience init(_ location: Location) {
        self.init(parent: location.parent, key: location.key, segment: location.segment, row: location.row)
    }

    var codingPath: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node: PathNode? = self
        while let n = node {
            if let k = n.key { keys.append(k) }
            node = n.parent
        }
        return keys.reversed()
    }
}

/// Where a value is read from: the container's path, the key, the pointer step, and the
/// resource it belongs to. Becomes a ``PathNode`` only when decoding descends.
struct Location {
    var parent: PathNode?
    var key: (any CodingKey)?
    var segment: PointerSegment
    var row: Int

    var codingPath: [any CodingKey] {
        var path = parent?.codingPath ?? []
        if let key { path.append(key) }
        return path
    }
}

/// Types the decoder builds from the graph itself rather than from stored values
/// (``ResourceIdentifier``, ``Resource``, ``ToOne``, ...): an optional relationship of such
/// a type is present even when its target was not included.
protocol GraphIntrinsic {}

/// `Optional`, seen from generic code.
protocol OptionalDecoding {
    static var wrappedIsIntrinsic: Bool { get }
    static var nilValue: Self { get }
}

extension Optional: OptionalDecoding {
    static var wrappedIsIntrinsic: Bool { Wrapped.self is GraphIntrinsic.Type }
    static var nilValue: Optional { nil }
}

/// `value` as `T`, which the caller has checked is its type (`T.self == U.self`): no dynamic
/// cast. Unsafe: with any other `T` it reads memory as the wrong type.
@inline(__always)
func unsafeReinterpret<T, U>(_ value: U, as _: T.Type) -> T {
    withUnsafePointer(to: value) { UnsafeRawPointer($0).assumingMemoryBound(to: T.self).pointee }
}

/// Why a scalar did not decode, before it is given a location.
struct ScalarFailure: Error {
    enum Reason {
        /// Another kind of value: what was expected.
        case mismatch(String?)
        /// A number that does not convert.
        case number(StoredNumber.Failure)
        /// A string of the wrong form: what was expected.
        case invalid(String)
        case message(String)
        /// A transform threw.
        case transform(any Error)
    }

    var type: Any.Type
    var reason: Reason

    init(_ type: Any.Type, _ reason: Reason) {
        self.type = type
        self.reason = reason
    }
}

/// The `Decoder` over a graph: reads the value store directly (no intermediate tree), and
/// resolves relationships through the graph's tables.
///
/// One instance serves a whole decode call: descending into a nested value saves the
/// current node, points the decoder at the child and restores it afterwards, as
/// Foundation's `JSONDecoderImpl` does. Containers copy the node they were made for.
final class ResourceDecoder: Decoder {
    let graph: Graph
    let storage: GraphStorage
    /// The whole value store; valid while `graph` lives (a graph never changes).
    let bytes: UnsafeRawBufferPointer
    let options: DecodingOptions

    // The decoder is used by one thread at a time and these are only touched in short,
    // non-overlapping accesses: exclusivity checks would cost a tenth of decoding.
    @exclusivity(unchecked) var node: DecodingNode
    @exclusivity(unchecked) var path: PathNode?
    /// The resource whose JSON pointer the current node is in (-1: none).
    @exclusivity(unchecked) var row: Int
    /// The resource this decode level entered (pushed on `activeRows`), or -1.
    @exclusivity(unchecked) var levelRow = -1
    /// Resources being decoded, outermost first: a relationship back to one is a cycle.
    @exclusivity(unchecked) var activeRows: [Int] = []

    /// Related resources decoded as models so far (through a relationship or a linkage
    /// entry), and how many are allowed (``DecodingOptions/maxResolvedResources``).
    @exclusivity(unchecked) var resolved = 0
    let resolutionLimit: Int

    /// The members of the object being indexed, before they become a ``MemberTable``.
    @exclusivity(unchecked) var scratch = UnsafeStack<MemberEntry>(capacity: 32)
    /// Keyed containers kept for reuse, while ``reusingKeyedContainers(_:)`` runs.
    @exclusivity(unchecked) var keyedCache = KeyedContainerCache()
    @exclusivity(unchecked) var attributeAliases = AliasCache()
    @exclusivity(unchecked) var escapedNames = AliasCache()
    @exclusivity(unchecked) var relationshipAliases = AliasCache()
    var allocations: [UnsafeMutableRawPointer] = []
    /// The formatter of ``KeyDecodingStrategy/formatter(_:)``, and the wire names it gave,
    /// by coding key.
    let keyFormatter: KeyFormatter?
    var wireNames: [String: UnsafeRawBufferPointer] = [:]
    /// Where a value decoded by itself (``LazyValue/decode(_:options:)``) is in its document
    /// (`/errors/0`), when known: its places are named from there.
    var valuePointer = ""

    init(graph: Graph, options: DecodingOptions, node: DecodingNode, path: PathNode?, row: Int) {
        self.graph = graph
        self.storage = graph.storage
        self.bytes = graph.storage.values.bytes(in: 0..<graph.storage.values.count)
        self.options = options
        self.node = node
        self.path = path
        self.row = row
        let automatic = 4 &* (graph.storage.resources.count &+ graph.storage.linkage.count) &+ 10_000
        self.resolutionLimit = max(0, options.maxResolvedResources ?? automatic)
        if case .formatter(let f) = options.keys { keyFormatter = f } else { keyFormatter = nil }
    }

    deinit { for p in allocations { p.deallocate() } }

    /// `decoder` when it is this library's decoder: a comparison of its dynamic type, not a
    /// dynamic cast (which costs a runtime lookup per model).
    @inline(__always)
    static func unwrap(_ decoder: any Decoder) -> ResourceDecoder? {
        func open<D: Decoder>(_ d: D) -> ResourceDecoder? {
            // Invariant: D is ResourceDecoder (checked), so the value is that class reference.
            D.self == ResourceDecoder.self ? unsafeReinterpret(d, as: ResourceDecoder.self) : nil
        }
        return open(decoder)
    }

    // MARK: Decoder

    var codingPath: [any CodingKey] { path?.codingPath ?? [] }

    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try makeKeyed(Key.self, node: node, path: path, row: row, tracksCycles: true)
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try makeUnkeyed(node: node, path: path, row: row)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        GraphSingleValueContainer(decoder: self, node: node, path: path, row: row)
    }

    /// A separate decoder at `node` (for `superDecoder`), sharing the cycle state.
    func fork(node: DecodingNode, location: Location) -> ResourceDecoder {
        let d = ResourceDecoder(graph: graph, options: options, node: node, path: PathNode(location), row: location.row)
        d.activeRows = activeRows
        d.resolved = resolved
        return d
    }

    // MARK: Decoding a value

    /// Decodes `T` from `node`: scalars and Foundation types straight from the bytes,
    /// registered transforms, graph types, and otherwise `T(from:)` with the decoder
    /// pointed at `node`.
    func decode<T: Decodable>(_ type: T.Type, node: DecodingNode, at location: Location) throws -> T {
        do throws(ScalarFailure) {
            if case .value = node {
                if T.self == String.self { return unsafeReinterpret(try string(node), as: T.self) }
                if T.self == Int.self { return unsafeReinterpret(try integer(Int.self, node), as: T.self) }
                if T.self == Double.self { return unsafeReinterpret(try double(node), as: T.self) }
                if T.self == Bool.self { return unsafeReinterpret(try bool(node), as: T.self) }
            }
            if !options.transforms.isEmpty, let transform = options.transforms.transform(for: T.self), let value = lazyValue(node) {
                return try apply(transform, to: value, as: T.self)
            }
            if T.self == Date.self { return unsafeReinterpret(try date(node), as: T.self) }
            if T.self == URL.self { return unsafeReinterpret(try url(node), as: T.self) }
            if T.self == Decimal.self { return unsafeReinterpret(try decimal(node), as: T.self) }
        } catch {
            throw self.error(error, node, location)
        }
        if case .value(let s, let e, _) = node, bytes[s] == UInt8(ascii: "[") {
            // Arrays of scalars without an unkeyed container per array.
            if T.self == [String].self { return unsafeReinterpret(try scalars(String.self, s, e, location), as: T.self) }
            if T.self == [Int].self { return unsafeReinterpret(try scalars(Int.self, s, e, location), as: T.self) }
            if T.self == [Double].self { return unsafeReinterpret(try scalars(Double.self, s, e, location), as: T.self) }
        }
        if T.self == ResourceIdentifier.self, let id = try identifier(node, location) { return unsafeReinterpret(id, as: T.self) }
        if T.self == [ResourceIdentifier].self, case .relationship(let i) = node, storage.relationships[i].kind == .toMany {
            // A to-many relationship's identifiers without an unkeyed container and a
            // `ResourceIdentifier.init(from:)` per entry (which would make the same values).
            let rel = storage.relationships[i]
            let start = Int(rel.targetStart)
            var ids: [ResourceIdentifier] = []
            ids.reserveCapacity(Int(rel.targetCount))
            for k in start..<(start + Int(rel.targetCount)) { ids.append(storage.identifier(linkage: k)) }
            return unsafeReinterpret(ids, as: T.self)
        }
        let childPath = location.key == nil && location.segment.isNone ? location.parent : PathNode(location)
        return try decodeNested(T.self, node: node, path: childPath, row: location.row)
    }

    /// The elements of the stored array at `s..<e`, each a `T`.
    func scalars<T: StoredScalar>(_: T.Type, _ s: Int, _ e: Int, _ location: Location) throws -> [T] {
        var out: [T] = []
        var i = s + 1
        let end = e - 1
        while i < end {
            var escaped = false
            let valueEnd = StoredJSON.skipValue(bytes, at: i, escaped: &escaped)
            let node = DecodingNode.value(i, valueEnd, escaped: escaped)
            do throws(ScalarFailure) {
                out.append(try T.decodeScalar(self, node))
            } catch {
                let element = Location(parent: PathNode(location), key: IndexKey(out.count), segment: .index(out.count), row: location.row)
                throw self.error(error, node, element)
            }
            i = valueEnd + 1
        }
        return out
    }

    /// Stack that must be left before decoding descends into another `init(from:)`: room for
    /// one more level of decoding, a model's own `init(from:)` and an error's message.
    static let stackReserve = 64 * 1024

    /// `T(from: self)` with the decoder pointed at `node`.
    ///
    /// - Throws: `DecodingError.dataCorrupted` instead of descending when less than
    ///   ``stackReserve`` bytes of the thread's stack are left: a recursive model over a long
    ///   chain of related resources (each decoded as the next one's model) or over deeply
    ///   nested values would otherwise overflow it and crash the process.
    func decodeNested<T: Decodable>(_ type: T.Type, node: DecodingNode, path: PathNode?, row: Int) throws -> T {
        guard jsonapi_stack_room(Self.stackReserve) != 0 else { throw tooDeep(T.self, Location(parent: path, key: nil, segment: .none, row: row)) }
        let saved = (self.node, self.path, self.row, levelRow)
        let depth = activeRows.count
        self.node = node
        self.path = path
        self.row = row
        levelRow = -1
        defer {
            (self.node, self.path, self.row, levelRow) = saved
            if activeRows.count > depth { activeRows.removeLast(activeRows.count - depth) }
        }
        return try T(from: self)
    }

    @inline(never)
    func tooDeep(_ type: Any.Type, _ location: Location) -> DecodingError {
        let levels = location.codingPath.count
        let resources = activeRows.count
        let advice =
            resources > 1
            ? ", through \(resources) related resources each decoded as a model; decode long chains of relationships as ResourceIdentifier or ToOne/ToMany handles, or decode on a thread with a larger stack"
            : "; decode on a thread with a larger stack"
        return .dataCorrupted(context(location, "decoding \(type) here would overflow this thread's stack (\(levels) coding keys deep)" + advice))
    }

    func apply<T>(_ transform: ValueTransforms.Transform, to value: LazyValue, as _: T.Type) throws(ScalarFailure) -> T {
        let result: Any
        do {
            result = try transform(value)
        } catch {
            throw ScalarFailure(T.self, .transform(error))
        }
        guard let typed = result as? T else { throw ScalarFailure(T.self, .message("the transform for \(T.self) returned a \(type(of: result))")) }
        return typed
    }

}

/// Names under which stored names are matched (unescaped, or converted by the key
/// strategy), cached by the stored bytes.
struct AliasCache {
    private var index: [UInt64: Int] = [:]
    private var entries: [(stored: [UInt8], alias: UnsafeRawBufferPointer?)] = []

    /// The alias of `stored` (a quoted stored name when `quoted`, else raw name bytes), or
    /// `nil` when it is matched as it is.
    mutating func alias(for stored: UnsafeRawBufferPointer, quoted escaped: Bool, keys: KeyDecodingStrategy, decoder: ResourceDecoder) -> UnsafeRawBufferPointer? {
        let h = SeededHash.bytes(stored, seed: .process)
        if let i = index[h], entries[i].stored.elementsEqual(stored) { return entries[i].alias }
        var raw: [UInt8]
        if escaped {
            raw = Array(StoredJSON.decodeString(stored, 0..<stored.count).utf8)
        } else {
            raw = Array(stored)
        }
        let unchanged = escaped && raw.elementsEqual(stored[1..<(stored.count - 1)])
        var alias: UnsafeRawBufferPointer? = nil
        let converted = raw.withUnsafeBytes { keys.convert($0) }
        if let converted { raw = converted }
        if converted != nil || (escaped && !unchanged) { alias = decoder.keep(raw) }
        if index[h] == nil {
            index[h] = entries.count
            entries.append((Array(stored), alias))
        }
        return alias
    }
}
