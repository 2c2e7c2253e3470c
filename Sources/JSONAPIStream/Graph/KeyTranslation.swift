/// The keys of another key table, a worker's (a graph piece's, or a worker validator's
/// facts'), as this table numbers them. Both tables tag a key with its type and kind
/// (``ResourceKeys/idTag(_:)``, ``ResourceKeys/lidTag(_:)``); the caller numbers the other
/// table's types its own way and records them in ``types``, then translates every key at once
/// (``translateAll(from:into:)``), in the other table's order.
///
/// Each key's slot is asked for ``keysAhead`` keys before its lookup, with its hash kept for
/// it, so that the lookups' cache misses overlap instead of coming one after another (at 128 MB
/// on 2 workers, a third of the merging thread's time had gone to them when they did not).
/// Whatever the table's size: the merging thread reads the input through between two pieces
/// (the element splitter) and copies their values, so its caches do not keep the table even
/// when they could hold it (see ``translateAll(from:into:)``).
struct KeyTranslation {
    /// Each key of the other table here (``translateAll(from:into:)`` fills it).
    private var keys: [UInt32] = []
    /// Each type (symbol) of the other table here; the caller fills it.
    var types: [UInt32] = []

    /// Forgets every translation (keeping the storage), with room for the other table's
    /// `types` types.
    mutating func reset(types: Int) {
        self.types.removeAll(keepingCapacity: true)
        self.types.append(contentsOf: repeatElement(0, count: types))
    }

    /// The tag here of a key whose type is `type` here and whose tag in the other table is
    /// `other` (an id's or a lid's).
    @inline(__always)
    private static func tag(_ type: UInt32, kindOf other: UInt32) -> UInt32 {
        other & 1 == 1 ? ResourceKeys.lidTag(type) : ResourceKeys.idTag(type)
    }

    /// Key `k` of the other table here, once ``translateAll(from:into:)`` has run.
    @inline(__always)
    func translated(_ k: UInt32) -> UInt32 { keys[Int(k)] }

    /// Calls `body` with every translation: of keys (key `k` of the other table at index `k`)
    /// and of types (``types``).
    @inline(__always)
    func withTranslations<R, E: Error>(_ body: (UnsafeBufferPointer<UInt32>, UnsafeBufferPointer<UInt32>) throws(E) -> R) throws(E) -> R {
        try keys.withUnsafeBufferPointer { (k) throws(E) in try types.withUnsafeBufferPointer { (t) throws(E) in try body(k, t) } }
    }

    /// Every key of `other`, in its order, interned into `table` and remembered: a worker's
    /// table numbers its keys in the order its reader met them, which is the order one reader
    /// meets them in, so they are numbered here as one reader numbers them. Every type of
    /// `other` must be in ``types``. Each key's slot is asked for ``keysAhead`` keys before its
    /// lookup, with its hash kept for it, so that the misses overlap.
    ///
    /// Also below ``ByteInterner/cachedSlots``, where it once looked each key up in turn, as if
    /// the table were in cache: on the merging thread it is not (a graph of 15.7 MB on 2
    /// workers, whose 28,100 keys take 1 MiB of slots, half that VM's level 2 cache, spent half
    /// of this function's samples waiting on one load, the slot's). Asked for ahead there too,
    /// the merging thread's processor time fell 6 % and the graph's and the validation's wall
    /// time 1.6 to 2 % (Intel Xeon VM, 9 interleaved rounds); at 128.5 MB, where the table
    /// outgrew the caches, nothing changed. The ring keeps each key's name and first word with
    /// its hash, so that a key's entry is read once (172 to 162 instructions a key).
    mutating func translateAll(from other: borrowing ByteInterner, into table: inout ByteInterner) {
        let n = other.count
        keys.removeAll(keepingCapacity: true)
        keys.append(contentsOf: repeatElement(0, count: n))
        // Every type of `other` is in `types` (the caller's precondition): read unchecked.
        types.withUnsafeBufferPointer { types in
            keys.withUnsafeMutableBufferPointer { keys in
                // A ring of the next keys, each with where its lookup starts here (its hash
                // and first word under its tag here), so that a key's name and tag are read
                // once: `ahead` is a power of two.
                let ahead = Self.keysAhead
                let ring = ahead - 1
                withUnsafeTemporaryAllocation(of: Ahead.self, capacity: ahead) { kept in
                    /// Key `j` of `other` as it is looked up here, its slot asked for.
                    @inline(__always)
                    func start(_ j: Int) -> Ahead {
                        let k = UInt32(truncatingIfNeeded: j)
                        let tagThere = other.tag(of: k)
                        // Every type of `other` is in `types` (the caller's precondition).
                        let tag = Self.tag(types[Int(tagThere >> 1)], kindOf: tagThere)
                        let name = other.bytes(of: k)
                        let (hash, prefix) = table.lookupStart(of: name, tag: tag)
                        table.prefetch(hash: hash)
                        return Ahead(name: name, hash: hash, prefix: prefix, tag: tag)
                    }
                    // Invariant: `kept[j & ring]` holds key j, for every j from k to
                    // k + ahead - 1 below n. (The names stay where they are: `other` does not
                    // change during the call.)
                    for j in 0..<Swift.min(ahead, n) { (kept.baseAddress! + j).initialize(to: start(j)) }
                    for k in 0..<n {
                        let a = kept[k & ring]
                        keys[k] = table.intern(a.name, tag: a.tag, hash: a.hash, prefix: a.prefix)
                        let j = k &+ ahead
                        if j < n { kept[j & ring] = start(j) }
                    }
                }
            }
        }
    }

    /// A key of the other table as the ring of ``translateAll(from:into:)`` keeps it: its
    /// name, and where its lookup starts here.
    private struct Ahead {
        var name: UnsafeRawBufferPointer
        var hash: UInt64
        var prefix: UInt64
        var tag: UInt32
    }

    /// Keys whose slots ``translateAll(from:into:)`` asks for ahead of their lookup (a power
    /// of two).
    static let keysAhead = 8
}
