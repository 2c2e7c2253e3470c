import Foundation
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
/// cast.
@inline(__always)
func reinterpret<T, U>(_ value: U, as _: T.Type) -> T {
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

    @exclusivity(unchecked) private var scratch: [MemberEntry] = []
    @exclusivity(unchecked) private var attributeAliases = AliasCache()
    @exclusivity(unchecked) private var escapedNames = AliasCache()
    @exclusivity(unchecked) private var relationshipAliases = AliasCache()
    @exclusivity(unchecked) private var allocations: [UnsafeMutableRawPointer] = []

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
    }

    deinit { for p in allocations { p.deallocate() } }

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
                if T.self == String.self { return reinterpret(try string(node), as: T.self) }
                if T.self == Int.self { return reinterpret(try integer(Int.self, node), as: T.self) }
                if T.self == Double.self { return reinterpret(try double(node), as: T.self) }
                if T.self == Bool.self { return reinterpret(try bool(node), as: T.self) }
            }
            if !options.transforms.isEmpty, let transform = options.transforms.transform(for: T.self), let value = lazyValue(node) {
                return try apply(transform, to: value, as: T.self)
            }
            if T.self == Date.self { return reinterpret(try date(node), as: T.self) }
            if T.self == URL.self { return reinterpret(try url(node), as: T.self) }
            if T.self == Decimal.self { return reinterpret(try decimal(node), as: T.self) }
        } catch {
            throw self.error(error, node, location)
        }
        if case .value(let s, let e, _) = node, bytes[s] == UInt8(ascii: "[") {
            // Arrays of scalars without an unkeyed container per array.
            if T.self == [String].self { return reinterpret(try scalars(String.self, s, e, location), as: T.self) }
            if T.self == [Int].self { return reinterpret(try scalars(Int.self, s, e, location), as: T.self) }
            if T.self == [Double].self { return reinterpret(try scalars(Double.self, s, e, location), as: T.self) }
        }
        if T.self == ResourceIdentifier.self, let id = try identifier(node, location) { return reinterpret(id, as: T.self) }
        if T.self == [ResourceIdentifier].self, case .relationship(let i) = node, storage.relationships[i].kind == .toMany {
            // A to-many relationship's identifiers without an unkeyed container and a
            // `ResourceIdentifier.init(from:)` per entry (which would make the same values).
            let rel = storage.relationships[i]
            let start = Int(rel.targetStart)
            var ids: [ResourceIdentifier] = []
            ids.reserveCapacity(Int(rel.targetCount))
            for k in start..<(start + Int(rel.targetCount)) { ids.append(Linkage(graph: graph, index: k).identifier) }
            return reinterpret(ids, as: T.self)
        }
        let childPath = location.key == nil && location.segment.isNone ? location.parent : PathNode(location)
        return try decodeNested(T.self, node: node, path: childPath, row: location.row)
    }

    /// The elements of the stored array at `s..<e`, each a `T`.
    private func scalars<T: StoredScalar>(_: T.Type, _ s: Int, _ e: Int, _ location: Location) throws -> [T] {
        var out: [T] = []
        var i = s + 1
        let end = e - 1
        while i < end {
            var escaped = false
            let valueEnd = StoredScan.skipValue(bytes, at: i, escaped: &escaped)
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
    private func tooDeep(_ type: Any.Type, _ location: Location) -> DecodingError {
        let levels = location.codingPath.count
        let resources = activeRows.count
        let advice = resources > 1
            ? ", through \(resources) related resources each decoded as a model; decode long chains of relationships as ResourceIdentifier or ToOne/ToMany handles, or decode on a thread with a larger stack"
            : "; decode on a thread with a larger stack"
        return .dataCorrupted(context(location, "decoding \(type) here would overflow this thread's stack (\(levels) coding keys deep)" + advice))
    }

    private func apply<T>(_ transform: ValueTransforms.Transform, to value: LazyValue, as _: T.Type) throws(ScalarFailure) -> T {
        let result: Any
        do {
            result = try transform(value)
        } catch {
            throw ScalarFailure(T.self, .transform(error))
        }
        guard let typed = result as? T else { throw ScalarFailure(T.self, .message("the transform for \(T.self) returned a \(type(of: result))")) }
        return typed
    }

    // MARK: Scalars
    //
    // These throw a `ScalarFailure` without a location; the caller, which knows the key,
    // turns it into a `DecodingError` (so the common path builds no coding path).

    /// The stored bytes of a number at `node`, or `nil` when it is not a number.
    @inline(__always)
    private func numberText(_ node: DecodingNode) -> UnsafeRawBufferPointer? {
        guard case .value(let s, let e, _) = node else { return nil }
        let c = bytes[s]
        guard c == UInt8(ascii: "-") || (c &- 0x30) < 10 else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[s..<e])
    }

    @inline(__always)
    func string(_ node: DecodingNode) throws(ScalarFailure) -> String {
        switch node {
        case .value(let s, let e, let escaped) where bytes[s] == 0x22:
            return StoredScan.string(bytes, s, e, escaped: escaped)
        case .text(let t):
            return t
        default:
            throw ScalarFailure(String.self, .mismatch(nil))
        }
    }

    @inline(__always)
    func bool(_ node: DecodingNode) throws(ScalarFailure) -> Bool {
        if case .value(let s, _, _) = node {
            if bytes[s] == UInt8(ascii: "t") { return true }
            if bytes[s] == UInt8(ascii: "f") { return false }
        }
        throw ScalarFailure(Bool.self, .mismatch(nil))
    }

    @inline(__always)
    func integer<T: FixedWidthInteger>(_ type: T.Type, _ node: DecodingNode) throws(ScalarFailure) -> T {
        let result: Result<T, StoredNumber.Failure>
        if let text = numberText(node) {
            result = StoredNumber.integer(text, as: T.self)
        } else if case .text(var t) = node {
            // An id written as digits ("42") reads as an integer.
            result = t.withUTF8 { StoredNumber.integer(UnsafeRawBufferPointer($0), as: T.self) }
            if case .failure = result { throw ScalarFailure(T.self, .mismatch(nil)) }
        } else {
            throw ScalarFailure(T.self, .mismatch(nil))
        }
        switch result {
        case .success(let v): return v
        case .failure(let f): throw ScalarFailure(T.self, .number(f))
        }
    }

    @inline(__always)
    func double(_ node: DecodingNode) throws(ScalarFailure) -> Double {
        guard let text = numberText(node) else { throw ScalarFailure(Double.self, .mismatch(nil)) }
        switch StoredNumber.double(text, strategy: options.floatingPoint) {
        case .success(let v): return v
        case .failure(let f): throw ScalarFailure(Double.self, .number(f))
        }
    }

    func float(_ node: DecodingNode) throws(ScalarFailure) -> Float {
        guard let text = numberText(node) else { throw ScalarFailure(Float.self, .mismatch(nil)) }
        switch StoredNumber.float(text, strategy: options.floatingPoint) {
        case .success(let v): return v
        case .failure(let f): throw ScalarFailure(Float.self, .number(f))
        }
    }

    func decimal(_ node: DecodingNode) throws(ScalarFailure) -> Decimal {
        guard let text = numberText(node) else { throw ScalarFailure(Decimal.self, .mismatch("a number")) }
        switch StoredNumber.decimal(text) {
        case .success(let v): return v
        case .failure(let f): throw ScalarFailure(Decimal.self, .number(f))
        }
    }

    func date(_ node: DecodingNode) throws(ScalarFailure) -> Date {
        switch options.dates {
        case .iso8601:
            if case .value(let s, let e, let escaped) = node, bytes[s] == 0x22, !escaped {
                if let t = ISO8601Parsing.secondsSince1970(UnsafeRawBufferPointer(rebasing: bytes[(s + 1)..<(e - 1)])) {
                    return Date(timeIntervalSince1970: t)
                }
            } else {
                var text: String
                do throws(ScalarFailure) { text = try string(node) } catch { throw ScalarFailure(Date.self, .mismatch("an ISO 8601 date-time string")) }
                if let t = text.withUTF8({ ISO8601Parsing.secondsSince1970(UnsafeRawBufferPointer($0)) }) {
                    return Date(timeIntervalSince1970: t)
                }
            }
            throw ScalarFailure(Date.self, .invalid("an ISO 8601 date-time (like 2026-03-01T12:30:00Z or 2026-03-01T12:30:00.250+01:00)"))
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try dateNumber(node))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try dateNumber(node) / 1000)
        case .formatted(let formatter):
            let text: String
            do throws(ScalarFailure) { text = try string(node) } catch { throw ScalarFailure(Date.self, .mismatch("a date string")) }
            if let date = formatter.date(from: text) { return date }
            throw ScalarFailure(Date.self, .invalid("a date in the format \"\(formatter.dateFormat ?? "")\""))
        case .custom(let body):
            guard let value = lazyValue(node) else { throw ScalarFailure(Date.self, .mismatch("a date")) }
            return try apply({ try body($0) }, to: value, as: Date.self)
        }
    }

    private func dateNumber(_ node: DecodingNode) throws(ScalarFailure) -> Double {
        guard let text = numberText(node) else { throw ScalarFailure(Date.self, .mismatch("a number of seconds")) }
        switch StoredNumber.double(text, strategy: .nearest) {
        case .success(let v): return v
        case .failure(let f): throw ScalarFailure(Date.self, .number(f))
        }
    }

    func url(_ node: DecodingNode) throws(ScalarFailure) -> URL {
        let text: String
        do throws(ScalarFailure) { text = try string(node) } catch { throw ScalarFailure(URL.self, .mismatch("a URL string")) }
        if let base = options.baseURL {
            if let url = URL(string: text, relativeTo: base) { return url.absoluteURL }
        } else if let url = URL(string: text) {
            return url
        }
        throw ScalarFailure(URL.self, .invalid("a URL"))
    }

    /// `error` as a `DecodingError` at `location`.
    @inline(never)
    func error(_ failure: ScalarFailure, _ node: DecodingNode, _ location: Location) -> DecodingError {
        switch failure.reason {
        case .mismatch(let expected):
            return mismatch(failure.type, node, location, expected: expected)
        case .number(let f):
            return numberFailure(failure.type, f, node, location)
        case .invalid(let expected):
            return .dataCorrupted(context(location, "expected \(expected), found \(describe(node))"))
        case .message(let text):
            return .dataCorrupted(context(location, text))
        case .transform(let error):
            if let e = error as? DecodingError { return e }
            return .dataCorrupted(context(location, "the transform for \(failure.type) failed: \(error)", underlying: error))
        }
    }

    func isNil(_ node: DecodingNode) -> Bool {
        switch node {
        case .value(let s, _, _): return bytes[s] == UInt8(ascii: "n")
        case .relationship(let i):
            let kind = storage.relationships[i].kind
            return kind == .null || kind == .absent
        case .primary: return storage.primaryRows.isEmpty
        case .resource, .linkage, .text: return false
        }
    }

    /// The stored value at `node` as a ``LazyValue`` (for transforms), or `nil` for graph
    /// nodes.
    func lazyValue(_ node: DecodingNode) -> LazyValue? {
        switch node {
        case .value(let s, let e, _): return LazyValue(storage: storage, span: ValueSpan(start: s, count: e - s))
        case .text(let t): return LazyValue(detached: .string(t))
        default: return nil
        }
    }

    // MARK: Graph nodes

    /// The row a linkage entry names, or -1 when the documents did not hold it.
    @inline(__always)
    func resolve(linkage i: Int) -> Int {
        let l = storage.linkage[i]
        let r = storage.keyRow[Int(l.key)]
        if r >= 0 { return Int(r) }
        if l.lidKey != GraphStorage.noKey {
            let lr = storage.keyRow[Int(l.lidKey)]
            if lr >= 0 { return Int(lr) }
        }
        return -1
    }

    /// The identifier at a graph node; `nil` for stored values (decoded as objects).
    func identifier(_ node: DecodingNode, _ location: Location) throws -> ResourceIdentifier? {
        switch node {
        case .value: return nil
        case .resource(let r): return Resource(graph: graph, row: r).identifier
        case .linkage(let i): return Linkage(graph: graph, index: i).identifier
        case .relationship(let i):
            let rel = storage.relationships[i]
            guard rel.kind == .toOne else { throw relationshipShape(ResourceIdentifier.self, rel, location, wanted: "a to-one relationship") }
            return Linkage(graph: graph, index: Int(rel.targetStart)).identifier
        case .primary:
            let rows = storage.primaryRows
            guard rows.count == 1 else { throw primaryShape(ResourceIdentifier.self, location) }
            return Resource(graph: graph, row: Int(rows[0])).identifier
        case .text:
            throw mismatch(ResourceIdentifier.self, node, location, expected: "a resource identifier")
        }
    }

    /// The resource at a graph node.
    func resource(_ node: DecodingNode, _ location: Location) throws -> Resource {
        switch node {
        case .resource(let r): return Resource(graph: graph, row: r)
        case .primary:
            let rows = storage.primaryRows
            guard rows.count == 1 else { throw primaryShape(Resource.self, location) }
            return Resource(graph: graph, row: Int(rows[0]))
        case .linkage(let i):
            let t = resolve(linkage: i)
            guard t >= 0 else { throw unresolved(Resource.self, linkage: i, location) }
            return Resource(graph: graph, row: t)
        case .relationship(let i):
            let rel = storage.relationships[i]
            guard rel.kind == .toOne else { throw relationshipShape(Resource.self, rel, location, wanted: "a to-one relationship") }
            let t = resolve(linkage: Int(rel.targetStart))
            guard t >= 0 else { throw unresolved(Resource.self, linkage: Int(rel.targetStart), location) }
            return Resource(graph: graph, row: t)
        case .value, .text:
            throw mismatch(Resource.self, node, location, expected: "a relationship or a resource")
        }
    }

    /// The relationship at a graph node.
    func relationship(_ type: Any.Type, _ node: DecodingNode, _ location: Location) throws -> Relationship {
        guard case .relationship(let i) = node else { throw mismatch(type, node, location, expected: "a relationship") }
        return Relationship(graph: graph, index: i)
    }

    /// The location of the current node (for errors raised by graph types).
    var here: Location { Location(parent: path, key: nil, segment: .none, row: row) }

    // MARK: Containers

    func makeKeyed<Key: CodingKey>(_: Key.Type, node: DecodingNode, path: PathNode?, row: Int, tracksCycles: Bool) throws -> KeyedDecodingContainer<Key> {
        let here = Location(parent: path, key: nil, segment: .none, row: row)
        switch node {
        case .value(let s, let e, _):
            guard bytes[s] == UInt8(ascii: "{") else { throw mismatch([String: Any].self, node, here, expected: nil) }
            return KeyedDecodingContainer(GraphKeyedContainer<Key>(table: valueTable(s, e, path: path, row: row)))
        case .resource(let r):
            return try resourceContainer(r, path: path, tracksCycles: tracksCycles)
        case .primary:
            let rows = storage.primaryRows
            guard rows.count == 1 else { throw primaryShape([String: Any].self, here) }
            return try resourceContainer(Int(rows[0]), path: path, tracksCycles: tracksCycles)
        case .relationship(let i):
            let rel = storage.relationships[i]
            guard rel.kind == .toOne else { throw relationshipShape([String: Any].self, rel, here, wanted: "a to-one relationship (a related resource)") }
            let t = resolve(linkage: Int(rel.targetStart))
            guard t >= 0 else { throw unresolved([String: Any].self, linkage: Int(rel.targetStart), here) }
            try countResolution(here)
            return try resourceContainer(t, path: path, tracksCycles: tracksCycles)
        case .linkage(let i):
            let t = resolve(linkage: i)
            guard t >= 0 else { throw unresolved([String: Any].self, linkage: i, here) }
            try countResolution(here)
            return try resourceContainer(t, path: path, tracksCycles: tracksCycles)
        case .text:
            throw mismatch([String: Any].self, node, here, expected: nil)
        }
    }

    /// Counts one related resource decoded as a model; throws past the limit.
    @inline(__always)
    private func countResolution(_ here: Location) throws {
        resolved &+= 1
        if resolved > resolutionLimit { throw tooManyResolved(here) }
    }

    @inline(never)
    private func tooManyResolved(_ here: Location) -> DecodingError {
        .dataCorrupted(context(here, "this decode has decoded \(resolutionLimit) related resources as models, the limit (DecodingOptions.maxResolvedResources)"
            + "; a recursive model decodes a resource once for every path that leads to it, and this document's relationships multiply the paths."
            + " Decode such relationships as ResourceIdentifier or ToOne/ToMany handles, or raise the limit"))
    }

    private func resourceContainer<Key: CodingKey>(_ t: Int, path: PathNode?, tracksCycles: Bool) throws -> KeyedDecodingContainer<Key> {
        if tracksCycles && levelRow != t {
            if activeRows.contains(t) { throw cycle(to: t, Location(parent: path, key: nil, segment: .none, row: row)) }
            activeRows.append(t)
            levelRow = t
        }
        return KeyedDecodingContainer(GraphKeyedContainer<Key>(table: resourceTable(t, path: path)))
    }

    func makeUnkeyed(node: DecodingNode, path: PathNode?, row: Int) throws -> any UnkeyedDecodingContainer {
        let here = Location(parent: path, key: nil, segment: .none, row: row)
        switch node {
        case .value(let s, let e, _):
            guard bytes[s] == UInt8(ascii: "[") else { throw mismatch([Any].self, node, here, expected: nil) }
            return GraphUnkeyedContainer(decoder: self, source: .array(s, e), path: path, row: row)
        case .relationship(let i):
            let rel = storage.relationships[i]
            guard rel.kind == .toMany else { throw relationshipShape([Any].self, rel, here, wanted: "a to-many relationship (an array of identifiers)") }
            return GraphUnkeyedContainer(decoder: self, source: .linkage(Int(rel.targetStart), Int(rel.targetCount)), path: path, row: row)
        case .primary:
            return GraphUnkeyedContainer(decoder: self, source: .primary(storage.primaryRows.count), path: path, row: row)
        case .resource, .linkage, .text:
            throw mismatch([Any].self, node, here, expected: nil)
        }
    }

    /// Indexes the members of the stored object at `s..<e`.
    func valueTable(_ s: Int, _ e: Int, path: PathNode?, row: Int) -> MemberTable {
        scratch.removeAll(keepingCapacity: true)
        appendMembers(s, e, attributes: false)
        return scratch.withUnsafeBufferPointer { MemberTable.make($0, decoder: self, path: path, row: row, resourceLevel: false) }
    }

    /// Indexes the attributes and relationships of resource `r`.
    func resourceTable(_ r: Int, path: PathNode?) -> MemberTable {
        scratch.removeAll(keepingCapacity: true)
        let record = storage.resources[r]
        if !record.attributes.isNone {
            let span = record.attributes.range
            appendMembers(span.lowerBound, span.upperBound, attributes: true)
        }
        let convert = !options.keys.isAsIs
        let start = Int(record.relationshipStart)
        for i in start..<(start + Int(record.relationshipCount)) {
            let symbol = storage.relationships[i].name
            var name = storage.symbols.bytes(of: symbol)
            if convert, let alias = relationshipAliases.alias(for: name, quoted: false, keys: options.keys, decoder: self) { name = alias }
            scratch.append(MemberEntry(
                name: name.baseAddress ?? bytes.baseAddress!, nameCount: name.count, storedStart: Int(symbol), storedEnd: 0,
                valueStart: i, valueEnd: 0, flags: MemberEntry.relationship))
        }
        return scratch.withUnsafeBufferPointer { MemberTable.make($0, decoder: self, path: path, row: r, resourceLevel: true) }
    }

    private func appendMembers(_ s: Int, _ e: Int, attributes: Bool) {
        guard e - s >= 2, bytes[s] == UInt8(ascii: "{") else { return }
        let convert = attributes && !options.keys.isAsIs
        var i = s + 1
        let end = e - 1
        while i < end {
            var nameEscaped = false
            let nameEnd = StoredScan.skipString(bytes, at: i, escaped: &nameEscaped)
            let valueStart = nameEnd + 1
            var valueEscaped = false
            let valueEnd = StoredScan.skipValue(bytes, at: valueStart, escaped: &valueEscaped)
            var name = UnsafeRawBufferPointer(rebasing: bytes[(i + 1)..<(nameEnd - 1)])
            if nameEscaped || convert {
                let quoted = UnsafeRawBufferPointer(rebasing: bytes[i..<nameEnd])
                let alias = convert
                    ? attributeAliases.alias(for: quoted, quoted: true, keys: options.keys, decoder: self)
                    : escapedNames.alias(for: quoted, quoted: true, keys: .asIs, decoder: self)
                if let alias { name = alias }
            }
            scratch.append(MemberEntry(
                name: name.baseAddress ?? bytes.baseAddress!, nameCount: name.count, storedStart: i, storedEnd: nameEnd,
                valueStart: valueStart, valueEnd: valueEnd, flags: valueEscaped ? MemberEntry.escaped : 0))
            i = valueEnd + 1
        }
    }

    /// Copies `bytes` into memory the decoder owns (freed with it).
    func keep(_ source: [UInt8]) -> UnsafeRawBufferPointer {
        let p = UnsafeMutableRawPointer.allocate(byteCount: max(source.count, 1), alignment: 1)
        source.withUnsafeBytes { if let b = $0.baseAddress { p.copyMemory(from: b, byteCount: $0.count) } }
        allocations.append(p)
        return UnsafeRawBufferPointer(start: p, count: source.count)
    }

    // MARK: Errors

    /// `articles/1 /attributes/views`, with the resource it was reached from.
    ///
    /// A long chain of related resources is shortened to its first two and its last:
    /// `n/40 /relationships/next/data (reached from n/39 … (reached from … 37 more resources …
    /// (reached from n/0 …)))`. Iterative, so that a chain as long as the stack allowed is
    /// described without recursing again.
    func place(_ location: Location) -> String {
        // One location per resource on the way, innermost first.
        var levels = [location]
        var node = location.parent
        while let n = node {
            if n.row != levels[levels.count - 1].row {
                guard n.row >= 0 else { break }
                levels.append(Location(parent: n.parent, key: n.key, segment: n.segment, row: n.row))
            }
            node = n.parent
        }
        let shown = levels.count <= 4 ? Array(levels.indices) : [0, 1, levels.count - 1]
        var text = ""
        for (k, i) in shown.enumerated() {
            if k > 0 {
                text += " (reached from "
                if i - shown[k - 1] > 1 { text += "… \(i - shown[k - 1] - 1) more resources … (reached from " }
            }
            text += levelText(levels[i])
        }
        for (k, i) in shown.enumerated() where k > 0 {
            text += i - shown[k - 1] > 1 ? "))" : ")"
        }
        return text
    }

    /// One resource's part of ``place(_:)``: the resource and the pointer inside it.
    private func levelText(_ location: Location) -> String {
        var segments: [String] = []
        if let s = segmentText(location.segment) { segments.append(s) }
        var node = location.parent
        while let n = node, n.row == location.row {
            if let s = segmentText(n.segment) { segments.append(s) }
            node = n.parent
        }
        let pointer = segments.reversed().joined()
        if location.row >= 0 {
            let text = Resource(graph: graph, row: location.row).description
            return pointer.isEmpty ? text : text + " " + pointer
        }
        return pointer.isEmpty ? "the value" : pointer
    }

    private func segmentText(_ segment: PointerSegment) -> String? {
        func escape(_ s: String) -> String {
            s.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
        }
        switch segment {
        case .none: return nil
        case .member(let s, let e): return "/" + escape(StoredJSON.decodeString(bytes, s..<e))
        case .attribute(let s, let e): return "/attributes/" + escape(StoredJSON.decodeString(bytes, s..<e))
        case .relationship(let symbol): return "/relationships/" + escape(storage.symbols.string(of: symbol)) + "/data"
        case .fixed(let text): return "\(text)"
        case .index(let i): return "/\(i)"
        }
    }

    func context(_ location: Location, _ message: String, underlying: (any Error)? = nil) -> DecodingError.Context {
        DecodingError.Context(codingPath: location.codingPath, debugDescription: place(location) + ": " + message, underlyingError: underlying)
    }

    /// What is at `node`, for "found ..." in messages.
    func describe(_ node: DecodingNode) -> String {
        switch node {
        case .value(let s, let e, _): return StoredScan.describe(bytes, s, e)
        case .text(let t): return "string \"\(t)\""
        case .resource(let r): return "resource \(Resource(graph: graph, row: r))"
        case .linkage(let i): return "resource identifier \(Linkage(graph: graph, index: i).identifier)"
        case .primary: return "primary data of \(storage.primaryRows.count) resources"
        case .relationship(let i):
            let rel = storage.relationships[i]
            switch rel.kind {
            case .toOne: return "a to-one relationship"
            case .toMany: return "a to-many relationship (\(rel.targetCount) identifiers)"
            case .null: return "a relationship with null data"
            case .absent: return "a relationship without data"
            }
        }
    }

    /// A wrong kind of value (or `null` where a value is required). `expected` describes
    /// what would do when the type name alone does not say it.
    func mismatch(_ type: Any.Type, _ node: DecodingNode, _ location: Location, expected: String?) -> DecodingError {
        let wanted = expected.map { "\(typeName(type)) (\($0))" } ?? typeName(type)
        let message = "expected \(wanted), found \(describe(node))"
        if isNil(node) { return .valueNotFound(type, context(location, message)) }
        return .typeMismatch(type, context(location, message))
    }

    func numberFailure(_ type: Any.Type, _ failure: StoredNumber.Failure, _ node: DecodingNode, _ location: Location) -> DecodingError {
        .dataCorrupted(context(location, "expected \(typeName(type)), found \(describe(node)), which \(failure.reason(typeName(type)))"))
    }

    func unresolved(_ type: Any.Type, linkage i: Int, _ location: Location) -> DecodingError {
        let id = Linkage(graph: graph, index: i).identifier
        return .valueNotFound(type, context(location, "the related resource \(id) is not in the document (not included); declare the property optional, or as ResourceIdentifier, ToOne or ToMany"))
    }

    func relationshipShape(_ type: Any.Type, _ rel: GraphStorage.RelationshipRecord, _ location: Location, wanted: String) -> DecodingError {
        let found: String
        switch rel.kind {
        case .toOne: found = "a to-one relationship"
        case .toMany: found = "a to-many relationship (\(rel.targetCount) identifiers)"
        case .null: found = "null resource linkage"
        case .absent: found = "a relationship without data (no resource linkage)"
        }
        let message = "expected \(wanted), found \(found)"
        if rel.kind == .null || rel.kind == .absent { return .valueNotFound(type, context(location, message)) }
        return .typeMismatch(type, context(location, message))
    }

    func primaryShape(_ type: Any.Type, _ location: Location) -> DecodingError {
        let n = storage.primaryRows.count
        if n == 0 { return .valueNotFound(type, context(location, "expected one resource, found no primary data")) }
        return .typeMismatch(type, context(location, "expected one resource, found primary data of \(n) resources; decode an array"))
    }

    func cycle(to t: Int, _ location: Location) -> DecodingError {
        let start = activeRows.firstIndex(of: t) ?? 0
        let chain = (activeRows[start...] + [t]).map { Resource(graph: graph, row: $0).description }.joined(separator: " → ")
        return .dataCorrupted(context(location, "the relationship leads back to a resource being decoded (\(chain)); declare one side as ResourceIdentifier, ToOne, ToMany or Resource, or set cycles to .nilForOptionals for an optional to-one"))
    }

    func typeName(_ type: Any.Type) -> String {
        if type == [String: Any].self { return "an object" }
        if type == [Any].self { return "an array" }
        return String(describing: type)
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
