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
    /// The types met lately: each resource and identifier names one, most of them the same few.
    private var recentTypes = RecentNames()

    @inline(__always)
    static func idTag(_ type: UInt32) -> UInt32 { type << 1 }
    @inline(__always)
    static func lidTag(_ type: UInt32) -> UInt32 { type << 1 | 1 }

    /// Keys so far.
    var count: Int { keys.count }

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

    /// Key `key` of `other`, not translated yet, interned here through `translation` (its type
    /// numbered here when first met, in the order one reader meets them; a warmed key looked
    /// up with its hash).
    mutating func intern(_ key: UInt32, from other: borrowing ResourceKeys, via translation: inout KeyTranslation) -> UInt32 {
        let t = Int(KeyTranslation.type(of: key, in: other.keys))
        if translation.types[t] == .max { translation.types[t] = types.intern(other.types.bytes(of: UInt32(t))) }
        return translation.translate(key, from: other.keys, into: &keys)
    }

    /// Warms key `key` of `other` for ``intern(_:from:via:)`` (``KeyTranslation/warm(_:from:in:)``).
    func warm(_ key: UInt32, from other: borrowing ResourceKeys, via translation: inout KeyTranslation) {
        translation.warm(key, from: other.keys, in: keys)
    }

    /// The key in a sentence: `type "articles" and id "1"` (or `lid`).
    func describeInMessage(_ key: UInt32) -> String {
        let tag = keys.tag(of: key)
        return "type \(quoted(types.string(of: tag >> 1))) and \(tag & 1 == 1 ? "lid" : "id") \(quoted(keys.string(of: key)))"
    }
}

/// The last four names of up to 16 bytes interned, compared in full (length, first and last
/// eight bytes): a document's resources and identifiers name a few types over and over, so
/// most lookups end here without hashing. Newer names replace the oldest.
struct RecentNames {
    private struct Slot {
        var count: Int = -1
        var prefix: UInt64 = 0
        var suffix: UInt64 = 0
        var symbol: UInt32 = 0
    }
    private var slots = (Slot(), Slot(), Slot(), Slot())
    private var next = 0

    @inline(__always)
    func lookUp(_ name: UnsafeRawBufferPointer) -> UInt32? {
        let n = name.count
        guard n <= 16 else { return nil }
        let (prefix, suffix) = ShortName.words(name)
        @inline(__always) func matches(_ s: Slot) -> Bool { s.count == n && s.prefix == prefix && s.suffix == suffix }
        if matches(slots.0) { return slots.0.symbol }
        if matches(slots.1) { return slots.1.symbol }
        if matches(slots.2) { return slots.2.symbol }
        if matches(slots.3) { return slots.3.symbol }
        return nil
    }

    mutating func remember(_ name: UnsafeRawBufferPointer, _ symbol: UInt32) {
        let n = name.count
        guard n <= 16 else { return }
        let (prefix, suffix) = ShortName.words(name)
        let slot = Slot(count: n, prefix: prefix, suffix: suffix, symbol: symbol)
        switch next {
        case 0: slots.0 = slot
        case 1: slots.1 = slot
        case 2: slots.2 = slot
        default: slots.3 = slot
        }
        next = (next + 1) & 3
    }
}
