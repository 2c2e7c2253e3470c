/// Interns byte strings (with a small integer tag) to dense `UInt32` numbers, without
/// creating a `String`: the bytes are hashed and compared where they lie, and copied once
/// into the interner's own arena when new.
///
/// The layout follows `OrderedSet`: entries in a contiguous array in first-seen order, and a
/// separate open-addressing table (linear probing, load at most 1/2). Each table slot holds
/// the entry's 32-bit hash and number, and each entry holds its first and last eight bytes,
/// so a lookup of a name of up to 16 bytes (most ids) reads one slot and one entry and never
/// the arena. Symbols for type and member names use tag 0; resource keys use the type's
/// symbol as tag, so that `("articles", "1")` and `("people", "1")` are different keys.
struct ByteInterner: ~Copyable {
    struct Entry {
        /// First eight bytes, little-endian, zero-padded.
        var prefix: UInt64
        /// Last eight bytes (names of 9 to 16 bytes), else 0.
        var suffix: UInt64
        /// Where the bytes are in `bytes`.
        var start: Int
        var count: Int32
        var tag: UInt32
    }

    private(set) var bytes = ByteArena(capacity: 4096)
    private(set) var entries: [Entry] = []
    /// `hash << 32 | (number + 1)`, or 0 for an empty slot.
    private var table: [UInt64] = [UInt64](repeating: 0, count: 64)
    private var mask = 63

    init() {}

    var count: Int { entries.count }

    @inline(__always)
    static func words(_ name: UnsafeRawBufferPointer) -> (UInt64, UInt64) {
        let n = name.count
        if n >= 8 {
            return (name.loadUnaligned(as: UInt64.self), n > 8 && n <= 16 ? name.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self) : 0)
        }
        var v: UInt64 = 0
        var shift: UInt64 = 0
        for b in name {
            v |= UInt64(b) &<< shift
            shift &+= 8
        }
        return (v, 0)
    }

    @inline(__always)
    static func hash(_ name: UnsafeRawBufferPointer, _ prefix: UInt64, _ suffix: UInt64, tag: UInt32) -> UInt64 {
        let n = name.count
        var h: UInt64
        if n <= 16 {
            h = (prefix ^ (suffix &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(n) &<< 56) &* 0x9E37_79B9_7F4A_7C15
            h ^= h &>> 31
        } else {
            h = hashBytes(name)
        }
        return (h ^ (UInt64(tag) &* 0xFF51_AFD7_ED55_8CCD)) &* 0x9E37_79B9_7F4A_7C15
    }

    /// The number for `(tag, name)`, adding it when new.
    ///
    /// - Complexity: O(`name.count`) expected.
    @inline(__always)
    mutating func intern(_ name: UnsafeRawBufferPointer, tag: UInt32 = 0) -> UInt32 {
        let (prefix, suffix) = Self.words(name)
        let h = Self.hash(name, prefix, suffix, tag: tag)
        let h32 = h &>> 32
        var slot = Int(truncatingIfNeeded: h) & mask
        while true {
            let v = table[slot]
            if v == 0 { break }
            if v &>> 32 == h32 {
                let e = Int(truncatingIfNeeded: v & 0xFFFF_FFFF) &- 1
                if matches(entries[e], name, prefix, suffix, tag) { return UInt32(e) }
            }
            slot = (slot &+ 1) & mask
        }
        return insert(name, prefix, suffix, tag: tag, hash32: h32, slot: slot)
    }

    /// The number for `(tag, name)` if it was interned.
    func find(_ name: UnsafeRawBufferPointer, tag: UInt32 = 0) -> UInt32? {
        let (prefix, suffix) = Self.words(name)
        let h = Self.hash(name, prefix, suffix, tag: tag)
        let h32 = h &>> 32
        var slot = Int(truncatingIfNeeded: h) & mask
        while true {
            let v = table[slot]
            if v == 0 { return nil }
            if v &>> 32 == h32 {
                let e = Int(truncatingIfNeeded: v & 0xFFFF_FFFF) &- 1
                if matches(entries[e], name, prefix, suffix, tag) { return UInt32(e) }
            }
            slot = (slot &+ 1) & mask
        }
    }

    func find(_ name: String, tag: UInt32 = 0) -> UInt32? {
        var name = name
        return name.withUTF8 { find(UnsafeRawBufferPointer($0), tag: tag) }
    }

    mutating func intern(_ name: String, tag: UInt32 = 0) -> UInt32 {
        var name = name
        return name.withUTF8 { intern(UnsafeRawBufferPointer($0), tag: tag) }
    }

    @inline(__always)
    private func matches(_ e: Entry, _ name: UnsafeRawBufferPointer, _ prefix: UInt64, _ suffix: UInt64, _ tag: UInt32) -> Bool {
        guard e.prefix == prefix && e.suffix == suffix && Int(e.count) == name.count && e.tag == tag else { return false }
        if name.count <= 16 { return true }
        return memoryEqual(bytes.bytes(in: e.start..<e.start + name.count), name)
    }

    @inline(never)
    private mutating func insert(
        _ name: UnsafeRawBufferPointer, _ prefix: UInt64, _ suffix: UInt64, tag: UInt32, hash32: UInt64, slot: Int
    ) -> UInt32 {
        let n = UInt32(entries.count)
        let start = bytes.count
        bytes.append(name)
        entries.append(Entry(prefix: prefix, suffix: suffix, start: start, count: Int32(name.count), tag: tag))
        table[slot] = hash32 &<< 32 | UInt64(n &+ 1)
        if entries.count * 2 > table.count { grow() }
        return n
    }

    private mutating func grow() {
        let size = table.count * 2
        var newTable = [UInt64](repeating: 0, count: size)
        let newMask = size - 1
        for (i, e) in entries.enumerated() {
            let name = bytes.bytes(in: e.start..<e.start + Int(e.count))
            let h = Self.hash(name, e.prefix, e.suffix, tag: e.tag)
            var slot = Int(truncatingIfNeeded: h) & newMask
            while newTable[slot] != 0 { slot = (slot &+ 1) & newMask }
            newTable[slot] = (h &>> 32) &<< 32 | UInt64(i &+ 1)
        }
        table = newTable
        mask = newMask
    }

    /// The bytes of entry `n`; valid until the next insertion.
    @inline(__always)
    func bytes(of n: UInt32) -> UnsafeRawBufferPointer {
        let e = entries[Int(n)]
        return bytes.bytes(in: e.start..<e.start + Int(e.count))
    }

    func tag(of n: UInt32) -> UInt32 { entries[Int(n)].tag }

    func string(of n: UInt32) -> String { String(decoding: bytes(of: n), as: UTF8.self) }

    /// Approximate memory held, in bytes.
    var memoryFootprint: Int { bytes.capacity + entries.capacity * MemoryLayout<Entry>.stride + table.capacity * 8 }
}

/// A direct-mapped cache in front of an interner for names of up to 16 bytes, keyed exactly
/// by length, first and last eight bytes: type and relationship names repeat on every
/// resource, so most lookups end here.
struct SymbolCache {
    private struct Slot {
        var count: Int32 = -1
        var symbol: UInt32 = 0
        var prefix: UInt64 = 0
        var suffix: UInt64 = 0
    }
    private var slots = [Slot](repeating: Slot(), count: 256)

    @inline(__always)
    private static func index(_ n: Int, _ prefix: UInt64, _ suffix: UInt64) -> Int {
        var h = (prefix ^ (suffix &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(n)) &* 0x9E37_79B9_7F4A_7C15
        h ^= h &>> 29
        return Int(truncatingIfNeeded: (h &* 0xFF51_AFD7_ED55_8CCD) &>> 56)
    }

    @inline(__always)
    func lookUp(_ name: UnsafeRawBufferPointer) -> UInt32? {
        let n = name.count
        guard n <= 16 else { return nil }
        let (prefix, suffix) = ByteInterner.words(name)
        let s = slots[Self.index(n, prefix, suffix)]
        return s.count == Int32(n) && s.prefix == prefix && s.suffix == suffix ? s.symbol : nil
    }

    @inline(__always)
    mutating func remember(_ name: UnsafeRawBufferPointer, _ symbol: UInt32) {
        let n = name.count
        guard n <= 16 else { return }
        let (prefix, suffix) = ByteInterner.words(name)
        slots[Self.index(n, prefix, suffix)] = Slot(count: Int32(n), symbol: symbol, prefix: prefix, suffix: suffix)
    }
}
