/// Interns byte strings (with a small integer tag) to dense `UInt32` numbers, without
/// creating a `String`: the bytes are hashed and compared where they lie, and copied once
/// into the interner's own arena when new.
///
/// The layout follows `OrderedSet`: entries in a contiguous array in first-seen order, and a
/// separate open-addressing table of entry numbers (linear probing, load at most 1/2).
/// Symbols for type and member names use tag 0; resource keys use the type's symbol as tag,
/// so that `("articles", "1")` and `("people", "1")` are different keys.
struct ByteInterner: ~Copyable {
    struct Entry {
        var start: Int
        var count: Int32
        var tag: UInt32
        var hash: UInt32
    }

    private(set) var bytes = ByteArena(capacity: 4096)
    private(set) var entries: [Entry] = []
    private var table: [Int32] = [Int32](repeating: -1, count: 64)
    private var mask = 63

    init() {}

    var count: Int { entries.count }

    /// The number for `(tag, name)`, adding it when new.
    ///
    /// - Complexity: O(`name.count`) expected.
    @inline(__always)
    mutating func intern(_ name: UnsafeRawBufferPointer, tag: UInt32 = 0) -> UInt32 {
        let h = Self.hash(name, tag: tag)
        var slot = Int(truncatingIfNeeded: h) & mask
        while true {
            let e = table[slot]
            if e < 0 { break }
            let entry = entries[Int(e)]
            if entry.hash == UInt32(truncatingIfNeeded: h) && entry.tag == tag && Int(entry.count) == name.count
                && memoryEqual(bytes.bytes(in: entry.start..<entry.start + name.count), name)
            {
                return UInt32(e)
            }
            slot = (slot &+ 1) & mask
        }
        return insert(name, tag: tag, hash: h, slot: slot)
    }

    /// The number for `(tag, name)` if it was interned.
    func find(_ name: UnsafeRawBufferPointer, tag: UInt32 = 0) -> UInt32? {
        let h = Self.hash(name, tag: tag)
        var slot = Int(truncatingIfNeeded: h) & mask
        while true {
            let e = table[slot]
            if e < 0 { return nil }
            let entry = entries[Int(e)]
            if entry.hash == UInt32(truncatingIfNeeded: h) && entry.tag == tag && Int(entry.count) == name.count
                && memoryEqual(bytes.bytes(in: entry.start..<entry.start + name.count), name)
            {
                return UInt32(e)
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

    @inline(never)
    private mutating func insert(_ name: UnsafeRawBufferPointer, tag: UInt32, hash h: UInt64, slot: Int) -> UInt32 {
        let n = UInt32(entries.count)
        let start = bytes.count
        bytes.append(name)
        entries.append(Entry(start: start, count: Int32(name.count), tag: tag, hash: UInt32(truncatingIfNeeded: h)))
        table[slot] = Int32(bitPattern: n)
        if entries.count * 2 > table.count { grow() }
        return n
    }

    private mutating func grow() {
        let size = table.count * 2
        table = [Int32](repeating: -1, count: size)
        mask = size - 1
        for (i, e) in entries.enumerated() {
            var slot = Int(e.hash) & mask
            while table[slot] >= 0 { slot = (slot &+ 1) & mask }
            table[slot] = Int32(i)
        }
    }

    @inline(__always)
    static func hash(_ name: UnsafeRawBufferPointer, tag: UInt32) -> UInt64 {
        hashBytes(name) ^ (UInt64(tag) &* 0x9E37_79B9_7F4A_7C15)
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
    var memoryFootprint: Int { bytes.capacity + entries.capacity * MemoryLayout<Entry>.stride + table.capacity * 4 }
}
