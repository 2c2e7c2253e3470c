/// Resource identities, `(type, id)` and `(type, lid)`, as dense numbers: the type is
/// interned as a symbol, then the id or lid is interned tagged with it (``idTag(_:)``,
/// ``lidTag(_:)``), so an id and a lid with the same text, or the same id under two types,
/// are different keys. The graph's storage (whose symbols also hold member names), the
/// validator and the streaming writers' duplicate tracker number resources this one way.
struct ResourceKeys: ~Copyable {
    /// Type names.
    private(set) var types = ByteInterner()
    /// Ids and lids, tagged with their type and kind.
    private(set) var keys = ByteInterner()
    /// The types met lately: each resource and identifier names one, most of them the same
    /// few (a validator makes a new table for every document: a small cache).
    private var recentTypes = SymbolCache<FewNames>()

    @inline(__always)
    static func idTag(_ type: UInt32) -> UInt32 { type << 1 }
    @inline(__always)
    static func lidTag(_ type: UInt32) -> UInt32 { type << 1 | 1 }

    /// Keys so far.
    var count: Int { keys.count }

    /// Makes room for `n` keys without growing on the way.
    mutating func reserveCapacity(_ n: Int) { keys.reserveCapacity(n) }

    /// The key of `(type, id)`, or of `(type, lid)` when `isLid`, adding it when new.
    mutating func intern(type: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer, isLid: Bool) -> UInt32 {
        let t = recentTypes.lookUp(type) ?? internType(type)
        return keys.intern(id, tag: isLid ? Self.lidTag(t) : Self.idTag(t))
    }

    @inline(never)
    private mutating func internType(_ type: UnsafeRawBufferPointer) -> UInt32 {
        let t = types.intern(type)
        recentTypes.remember(type, t)
        return t
    }

    /// Asks for the cache line where a lookup of `(type, id)` starts, without waiting for it
    /// (see ``KeyHints``): only when the table has outgrown the caches, and the type is
    /// already interned (interning it here would number the types in another order).
    @inline(__always)
    func prefetch(type: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer) {
        guard keys.outgrowsCache, let t = types.find(type) else { return }
        keys.prefetch(id, tag: Self.idTag(t))
    }

    /// The key for messages: `(type "articles", id "1")` or `(type "articles", lid "a")`.
    func describe(_ key: UInt32) -> String {
        let tag = keys.tag(of: key)
        let type = types.string(of: tag >> 1)
        return "(type \(quoted(type)), \(tag & 1 == 1 ? "lid" : "id") \(quoted(keys.string(of: key))))"
    }

    /// Every type, then every key, of `other` interned here through `translation`, each in
    /// `other`'s order (``KeyTranslation/translateAll(from:into:)``).
    mutating func internAll(from other: borrowing ResourceKeys, via translation: inout KeyTranslation) {
        translation.reset(types: other.types.count)
        for t in 0..<other.types.count { translation.types[t] = types.intern(other.types.bytes(of: UInt32(t))) }
        translation.translateAll(from: other.keys, into: &keys)
    }

    /// The key in a sentence: `type "articles" and id "1"` (or `lid`).
    func describeInMessage(_ key: UInt32) -> String {
        let tag = keys.tag(of: key)
        return "type \(quoted(types.string(of: tag >> 1))) and \(tag & 1 == 1 ? "lid" : "id") \(quoted(keys.string(of: key)))"
    }
}
