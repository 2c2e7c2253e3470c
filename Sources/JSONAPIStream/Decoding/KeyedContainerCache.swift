/// Keyed containers (and ``JSONAPIReader`` tables) kept for reuse while a decoder decodes
/// many models of the same types: an array of primary data, a decode by type, each run of a
/// parallel decode, a to-many relationship's models.
///
/// `container(keyedBy:)` has to return a `KeyedDecodingContainer<Key>`, which the standard
/// library makes by boxing ours in a new instance of a generic class. For a `Key` known only
/// at run time that costs two generic metadata lookups (the box's type and our container's,
/// about 1,000 instructions together) and an allocation, for every model and every nested
/// object in it: more than a tenth of decoding a typical resource. So a decoder that decodes
/// many models keeps, per key type, the last container it made. When nothing outside the
/// cache holds that container any more (the model that asked for it has returned), its box
/// is uniquely referenced, and the next `container(keyedBy:)` for the same key type refills
/// its member table in place and returns it again. A container still held (a recursive model
/// with the same keys, a container kept by the model) is never touched: a new one is made.
///
/// This relies on `KeyedDecodingContainer` being one stored reference, its box; the standard
/// library has been so since Swift 4, and ``layoutIsOneReference`` checks it once per process
/// with a `Mirror` (the cache stays off otherwise).
///
/// A kept table holds its decoder, so the cache is a cycle while it lives:
/// ``ResourceDecoder/reusingKeyedContainers(_:)`` empties it when its decode returns or
/// throws.
struct KeyedContainerCache {
    struct Entry {
        /// The key type (its metadata's identity).
        let key: ObjectIdentifier
        /// The container's box: `KeyedDecodingContainer<Key>`'s one stored reference.
        var box: AnyObject
        /// The member table of the container in `box`.
        var table: MemberTable
    }

    var entries: [Entry] = []
    /// Member tables of ``JSONAPIReader``s, kept the same way: a reader is a table, with no
    /// box, so any kept table nothing else holds serves the next reader (at most
    /// ``maxReaderTables``, for readers nested in readers).
    var readerTables: [MemberTable] = []
    static let maxReaderTables = 8
    /// Whether containers are kept (``ResourceDecoder/reusingKeyedContainers(_:)`` is running).
    var isOn = false

    /// Whether nothing outside the cache holds entry `i`'s container (its box is uniquely
    /// referenced, in place in the array's storage).
    @inline(__always)
    mutating func isFree(_ i: Int) -> Bool {
        entries.withUnsafeMutableBufferPointer { isKnownUniquelyReferenced(&$0[i].box) }
    }

    /// A kept reader table nothing else holds, if any.
    @inline(__always)
    mutating func freeReaderTable() -> Int? {
        readerTables.withUnsafeMutableBufferPointer { tables in
            for i in tables.indices where isKnownUniquelyReferenced(&tables[i]) { return i }
            return nil
        }
    }

    /// Key types are few (a model and its nested objects): a linear search.
    @inline(__always)
    func index(of key: ObjectIdentifier) -> Int? {
        var i = 0
        while i < entries.count {
            if entries[i].key == key { return i }
            i &+= 1
        }
        return nil
    }

    /// Whether a `KeyedDecodingContainer` is exactly one stored reference to a class
    /// instance (its box), the layout the cache stores and restores with `unsafeBitCast`
    /// (the same for every key type: only the box's class depends on it).
    static let layoutIsOneReference: Bool = {
        let container = KeyedDecodingContainer(ProbeContainer())
        guard MemoryLayout<KeyedDecodingContainer<ProbeKey>>.size == MemoryLayout<AnyObject>.size else { return false }
        let children = Mirror(reflecting: container).children
        guard children.count == 1, let box = children.first?.value, type(of: box) is AnyClass else { return false }
        // Safe from here: a struct of one stored class reference is laid out as that reference.
        return (box as AnyObject) === unsafeBitCast(container, to: AnyObject.self)
    }()

    private struct ProbeKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A container with nothing in it, to look at the standard library's box.
    private struct ProbeContainer: KeyedDecodingContainerProtocol {
        var codingPath: [any CodingKey] { [] }
        var allKeys: [ProbeKey] { [] }
        func contains(_ key: ProbeKey) -> Bool { false }
        func decodeNil(forKey key: ProbeKey) throws -> Bool { true }
        func decode<T: Decodable>(_ type: T.Type, forKey key: ProbeKey) throws -> T { throw missing(key) }
        func nestedContainer<N: CodingKey>(keyedBy type: N.Type, forKey key: ProbeKey) throws -> KeyedDecodingContainer<N> { throw missing(key) }
        func nestedUnkeyedContainer(forKey key: ProbeKey) throws -> any UnkeyedDecodingContainer { throw missing(key) }
        func superDecoder() throws -> any Decoder { throw missing(ProbeKey(stringValue: "super")) }
        func superDecoder(forKey key: ProbeKey) throws -> any Decoder { throw missing(key) }
        private func missing(_ key: ProbeKey) -> DecodingError {
            .keyNotFound(key, DecodingError.Context(codingPath: [], debugDescription: "an empty container"))
        }
    }
}

extension ResourceDecoder {
    /// Runs `body` with keyed containers reused across the models it decodes (see
    /// ``KeyedContainerCache``), and drops them when it returns or throws.
    func reusingKeyedContainers<R>(_ body: () throws -> R) rethrows -> R {
        // Off when the layout is not as expected, and left to the outer call when nested.
        guard KeyedContainerCache.layoutIsOneReference, !keyedCache.isOn else { return try body() }
        keyedCache.isOn = true
        defer {
            keyedCache.isOn = false
            keyedCache.entries.removeAll()
            keyedCache.readerTables.removeAll()
        }
        return try body()
    }

    /// `makeKeyed` with the cache on: the kept container for `Key`, refilled, when nothing
    /// else holds it; otherwise a new container (kept when none was).
    func reusedKeyed<Key: CodingKey>(_: Key.Type, node: DecodingNode, path: PathNode?, row: Int, tracksCycles: Bool) throws -> KeyedDecodingContainer<Key> {
        let key = ObjectIdentifier(Key.self)
        if let i = keyedCache.index(of: key) {
            guard keyedCache.isFree(i) else {
                // Still held by whoever asked for it last: leave it alone.
                return KeyedDecodingContainer(GraphKeyedContainer<Key>(table: try memberTable(node: node, path: path, row: row, tracksCycles: tracksCycles)))
            }
            let old = keyedCache.entries[i].table
            let table = try memberTable(node: node, path: path, row: row, tracksCycles: tracksCycles, reusing: old)
            if table === old {
                // Invariant: `box` is the stored reference of a KeyedDecodingContainer<Key>
                // (the cache is on only when `layoutIsOneReference`, and entries are found by
                // key type), whose GraphKeyedContainer's table is `old`, now refilled.
                return unsafeBitCast(keyedCache.entries[i].box, to: KeyedDecodingContainer<Key>.self)
            }
            // More members than the old table has room for: a new container replaces it.
            let container = KeyedDecodingContainer(GraphKeyedContainer<Key>(table: table))
            keyedCache.entries[i] = KeyedContainerCache.Entry(key: key, box: unsafeBitCast(container, to: AnyObject.self), table: table)
            return container
        }
        let table = try memberTable(node: node, path: path, row: row, tracksCycles: tracksCycles)
        let container = KeyedDecodingContainer(GraphKeyedContainer<Key>(table: table))
        keyedCache.entries.append(KeyedContainerCache.Entry(key: key, box: unsafeBitCast(container, to: AnyObject.self), table: table))
        return container
    }

    /// The member table of a ``JSONAPIReader`` for the current node: with the cache on, a
    /// kept table nothing else holds, refilled, or a new one (kept while there is room).
    func readerTable(node: DecodingNode, path: PathNode?, row: Int) throws -> MemberTable {
        guard keyedCache.isOn else { return try memberTable(node: node, path: path, row: row, tracksCycles: true) }
        if let i = keyedCache.freeReaderTable() {
            let old = keyedCache.readerTables[i]
            let table = try memberTable(node: node, path: path, row: row, tracksCycles: true, reusing: old)
            // More members than it had room for: the new table takes its place.
            if table !== old { keyedCache.readerTables[i] = table }
            return table
        }
        let table = try memberTable(node: node, path: path, row: row, tracksCycles: true)
        if keyedCache.readerTables.count < KeyedContainerCache.maxReaderTables { keyedCache.readerTables.append(table) }
        return table
    }
}
