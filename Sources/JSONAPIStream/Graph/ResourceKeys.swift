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

    @inline(__always)
    static func idTag(_ type: UInt32) -> UInt32 { type << 1 }
    @inline(__always)
    static func lidTag(_ type: UInt32) -> UInt32 { type << 1 | 1 }

    /// Keys so far.
    var count: Int { keys.count }

    /// The key of `(type, id)`, or of `(type, lid)` when `isLid`, adding it when new.
    mutating func intern(type: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer, isLid: Bool) -> UInt32 {
        let t = types.intern(type)
        return keys.intern(id, tag: isLid ? Self.lidTag(t) : Self.idTag(t))
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

    /// The type of key `key` of `other`, as `other` numbers it.
    static func type(of key: UInt32, in other: borrowing ResourceKeys) -> UInt32 { other.keys.tag(of: key) >> 1 }

    /// The number here of type `t` of `other`, interning it when new.
    mutating func internType(_ t: UInt32, from other: borrowing ResourceKeys) -> UInt32 {
        types.intern(other.types.bytes(of: t))
    }

    /// The same key in this table: key `key` of `other`, whose type is `t` here (from
    /// ``internType(_:from:)``), interned here; with the hash ``warm(_:from:type:)`` gave for
    /// it, if any.
    mutating func intern(_ key: UInt32, from other: borrowing ResourceKeys, type t: UInt32, hash: UInt64?) -> UInt32 {
        let name = other.keys.bytes(of: key)
        let tag = other.keys.tag(of: key) & 1 == 1 ? Self.lidTag(t) : Self.idTag(t)
        if let hash { return keys.intern(name, tag: tag, hash: hash) }
        return keys.intern(name, tag: tag)
    }

    /// Asks for the slot where ``intern(_:from:type:hash:)`` of key `key` of `other`, whose
    /// type is `t` here, will look, and returns the hash to look it up with then.
    func warm(_ key: UInt32, from other: borrowing ResourceKeys, type t: UInt32) -> UInt64 {
        let h = keys.hash(of: other.keys.bytes(of: key), tag: other.keys.tag(of: key) & 1 == 1 ? Self.lidTag(t) : Self.idTag(t))
        keys.prefetch(hash: h)
        return h
    }

    /// The key in a sentence: `type "articles" and id "1"` (or `lid`).
    func describeInMessage(_ key: UInt32) -> String {
        let tag = keys.tag(of: key)
        return "type \(quoted(types.string(of: tag >> 1))) and \(tag & 1 == 1 ? "lid" : "id") \(quoted(keys.string(of: key)))"
    }
}
