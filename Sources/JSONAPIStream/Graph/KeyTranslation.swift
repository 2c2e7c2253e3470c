/// The keys of another key table, a worker's (a graph piece's, or a worker validator's
/// facts'), as this table numbers them: each translated once, when first met. Both tables tag
/// a key with its type and kind (``ResourceKeys/idTag(_:)``, ``ResourceKeys/lidTag(_:)``); the
/// caller numbers the other table's types its own way and records them in ``types`` before it
/// translates a key of that type.
///
/// Once this table is larger than the caches (``ByteInterner/outgrowsCache``), a caller that
/// takes the other table's resources in order warms each resource's keys ``ahead`` resources
/// before it translates them (``warm(_:from:in:)``): their slots are asked for and their hashes
/// kept, so that the lookups' cache misses overlap instead of coming one after another (at
/// 128 MB on 2 workers, a third of the merging thread's time had gone to them).
struct KeyTranslation {
    /// Resources (or rows) a caller warms ahead of the one it takes in: a resource takes a few
    /// hundred instructions to take in, about as long as a slot takes to come from memory.
    static let ahead = 4
    /// Marks a kept hash (hashes are 32 bits).
    private static let hashed: UInt64 = 1 << 63

    /// Each key of the other table here (`.max`: not translated yet).
    private var keys: [UInt32] = []
    /// Each type (symbol) of the other table here (`.max`: not numbered yet).
    var types: [UInt32] = []
    /// Each key's hash here with ``hashed`` set, once warmed (0: not yet); empty while this
    /// table is small enough not to warm.
    private var hashes: [UInt64] = []

    /// Room for `keys` keys and `types` types of the other table, and for their hashes when
    /// `warming`; what is translated already stays.
    mutating func prepare(keys: Int, types: Int, warming: Bool) {
        if self.keys.count < keys { self.keys.append(contentsOf: repeatElement(.max, count: keys - self.keys.count)) }
        if self.types.count < types { self.types.append(contentsOf: repeatElement(.max, count: types - self.types.count)) }
        if warming && hashes.count < keys { hashes.append(contentsOf: repeatElement(0, count: keys - hashes.count)) }
    }

    /// Forgets every translation (keeping the storage) and prepares for another table.
    mutating func reset(keys: Int, types: Int, warming: Bool) {
        self.keys.removeAll(keepingCapacity: true)
        self.types.removeAll(keepingCapacity: true)
        hashes.removeAll(keepingCapacity: true)
        prepare(keys: keys, types: types, warming: warming)
    }

    /// Whether keys are warmed (this table was past the caches when prepared).
    var warming: Bool { !hashes.isEmpty }

    /// Key `k` of the other table here, if translated.
    @inline(__always)
    func key(_ k: UInt32) -> UInt32? {
        let known = keys[Int(k)]
        return known == .max ? nil : known
    }

    /// The type of key `k` of `other`, as `other` numbers it.
    @inline(__always)
    static func type(of k: UInt32, in other: borrowing ByteInterner) -> UInt32 { other.tag(of: k) >> 1 }

    /// The tag here of a key whose type is `type` here and whose tag in the other table is
    /// `other` (an id's or a lid's).
    @inline(__always)
    private static func tag(_ type: UInt32, kindOf other: UInt32) -> UInt32 {
        other & 1 == 1 ? ResourceKeys.lidTag(type) : ResourceKeys.idTag(type)
    }

    /// Asks for the slot of `table` where key `k` of `other` will be looked up, and keeps its
    /// hash for ``translate(_:from:into:)``: only a key not translated or warmed yet, whose
    /// type is numbered here already (numbering it here would number the types in another
    /// order than one reader does).
    @inline(__always)
    mutating func warm(_ k: UInt32, from other: borrowing ByteInterner, in table: borrowing ByteInterner) {
        guard keys[Int(k)] == .max && hashes[Int(k)] == 0 else { return }
        let tag = other.tag(of: k)
        let type = types[Int(tag >> 1)]
        guard type != .max else { return }
        let h = table.hash(of: other.bytes(of: k), tag: Self.tag(type, kindOf: tag))
        table.prefetch(hash: h)
        hashes[Int(k)] = h | Self.hashed
    }

    /// Key `k` of `other` interned into `table` (with its kept hash, when warmed) and
    /// remembered. Its type must be in ``types``. (Inlined into its callers' slow paths,
    /// which are out of line themselves.)
    @inline(__always)
    mutating func translate(_ k: UInt32, from other: borrowing ByteInterner, into table: inout ByteInterner) -> UInt32 {
        let tag = other.tag(of: k)
        let here = Self.tag(types[Int(tag >> 1)], kindOf: tag)
        let hashed = hashes.isEmpty ? 0 : hashes[Int(k)]
        let key =
            hashed != 0
            ? table.intern(other.bytes(of: k), tag: here, hash: hashed & ~Self.hashed) : table.intern(other.bytes(of: k), tag: here)
        keys[Int(k)] = key
        return key
    }
}
