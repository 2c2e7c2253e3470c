#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

internal import CPlatform

/// Interns byte strings (with a small integer tag) to dense `UInt32` numbers, without
/// creating a `String`: the bytes are hashed and compared where they lie, and copied once
/// into the interner's own arena when new.
///
/// The layout follows `OrderedSet`: entries in a contiguous array in first-seen order, and a
/// separate open-addressing table (linear probing, load at most 1/2). Each table slot holds
/// the entry's number, its first eight bytes, its length and tag, so a lookup of a name of up
/// to 8 bytes (most numeric ids) reads one slot and never the entries or the arena. Symbols for type and member names use tag 0; resource keys use the type's
/// symbol as tag, so that `("articles", "1")` and `("people", "1")` are different keys.
package struct ByteInterner: ~Copyable {
    struct Entry {
        /// Where the bytes are in `bytes`.
        var start: Int
        var count: Int32
        var tag: UInt32
    }

    /// A table slot, 16 bytes: the name's first eight bytes (``ShortName/prefix(_:)``) and
    /// `info`, with the entry's number, its length and tag where they fit and a few bits of
    /// its hash. A lookup of a name of up to 8 bytes with a tag below `0xFFFF` compares one
    /// slot and reads nothing else; another is confirmed against its entry. (Slots of 24
    /// bytes that held the last eight bytes too, deciding names of up to 16 bytes, made the
    /// key table of a 128 MB document 12 MiB instead of 8, a quarter of what the graph holds
    /// besides its values; slots of 32 bytes with the whole hash, 16 MiB.)
    struct Slot {
        var prefix: UInt64
        /// `hashBits << 53 | length << 48 | tag << 32 | (number + 1)`: the top 11 bits of
        /// the 32-bit hash, the length up to 30 (31: longer), the tag below `0xFFFF`
        /// (`0xFFFF`: larger); 0 for an empty slot.
        var info: UInt64
    }

    /// The key of the table's hash (``SeededHash``), taken once when the interner is made.
    let seed: HashSeed
    private(set) var bytes = ByteArena(capacity: 4096)
    /// A ``RecordTable``, not an `Array`: a large table grows in place (`mremap`) instead of
    /// being copied, and is unmapped when freed rather than left in `malloc`'s heap.
    private(set) var entries = RecordTable<Entry>()
    private var table = ByteInterner.emptySlots(64)
    private var tableSize = 64
    private var mask: UInt64 = 63

    init(seed: HashSeed) {
        self.init(seedValue: seed)
    }

    package init() { self.init(seedValue: .process) }

    private init(seedValue seed: HashSeed) {
        self.seed = seed
    }

    deinit { free(table) }

    /// `n` empty slots, from `calloc`: a large table then comes from fresh pages of the
    /// system, already zero, instead of being written over with zeros first (a memset of the
    /// whole table at each doubling); freed with `free`. Its pages come mapped for writing
    /// (``jsonapi_calloc_written``): probed before they were written, each page of a new
    /// table faulted twice, the second time flushing the other threads' address caches (the
    /// key table's doublings were 5 % of a graph's processor time on 2 workers).
    private static func emptySlots(_ n: Int) -> UnsafeMutablePointer<Slot> {
        // Invariant: `Slot` is plain data, and all zeros is an empty slot (`info` 0).
        guard let p = jsonapi_calloc_written(n, MemoryLayout<Slot>.stride) else { MemoryBudget.outOfMemory(needing: n * MemoryLayout<Slot>.stride) }
        return p.bindMemory(to: Slot.self, capacity: n)
    }

    package var count: Int { entries.count }

    /// A 32-bit hash of `(tag, name)` under `seed`.
    @inline(__always)
    static func hash(_ name: UnsafeRawBufferPointer, _ prefix: UInt64, _ suffix: UInt64, tag: UInt32, seed: HashSeed) -> UInt64 {
        SeededHash.bytes(name, prefix: prefix, suffix: suffix, extra: UInt64(tag) &<< 32, seed: seed) &>> 32
    }

    private static let numberBits: UInt64 = 0xFFFF_FFFF
    private static let largeTag: UInt64 = 0xFFFF
    private static let longName: UInt64 = 31

    /// A slot's `info` without the number, for a name of `count` bytes with tag `tag` and
    /// 32-bit hash `h`.
    @inline(__always)
    private static func infoKey(hash h: UInt64, count: Int, tag: UInt32) -> UInt64 {
        (h &>> 21) &<< 53 | Swift.min(UInt64(count), longName) &<< 48 | Swift.min(UInt64(tag), largeTag) &<< 32
    }

    /// The number for `(tag, name)`, adding it when new.
    ///
    /// - Complexity: O(`name.count`) expected.
    @inline(__always)
    package mutating func intern(_ name: UnsafeRawBufferPointer, tag: UInt32 = 0) -> UInt32 {
        let p = probe(name, tag: tag)
        if p.found >= 0 { return UInt32(truncatingIfNeeded: p.found) }
        return insert(name, tag: tag, p.prefix, p.key, at: p.slot)
    }

    /// Whether the table is larger than a core's caches keep (``cachedSlots``): below that a
    /// slot is found in cache anyway and ``prefetch(_:tag:)`` would only add its hashing.
    /// Kept rather than computed at each call: it is read at every key, and ``cachedSlots``
    /// is a lazily made global. Set at each ``rebuild(size:)`` (and moved with the table by
    /// ``takeSlots(from:)``).
    private(set) var outgrowsCache = false

    /// The most slots a table the caches keep has: half of a core's level 2 cache (the
    /// parse that goes on between lookups has the other half), from 128 KiB to 1 MiB of
    /// slots; 512 KiB when the system does not say. (It was 1 MiB everywhere, which a core
    /// of 512 KiB does not keep: on such a VM a graph of 15.7 MB, whose key table is 1 MiB,
    /// spent three quarters of the key translation's time waiting for slots, on one load, with
    /// no slot asked for ahead. At 256 KiB there, the translation took half as many of a
    /// profile's samples, and the key table's functions 11 to 12 % of a graph's instead of 16
    /// to 17.)
    static let cachedSlots: Int = {
        let l2 = ParseOptions.level2CacheBytes
        let bytes = l2 > 0 ? Swift.min(Swift.max(l2 / 2, 128 << 10), 1 << 20) : 512 << 10
        return bytes / MemoryLayout<Slot>.stride
    }()

    /// Asks for the cache line of the slot where a lookup of `(tag, name)` starts, without
    /// waiting for it: a large document's table is megabytes, so that slot is usually not in
    /// cache. Hinting several keys before looking them up lets their misses overlap.
    @inline(__always)
    func prefetch(_ name: UnsafeRawBufferPointer, tag: UInt32) {
        prefetch(hash: lookupStart(of: name, tag: tag).hash)
    }

    /// Asks for the cache line of the slot where a lookup with hash `h` (from
    /// ``lookupStart(of:tag:)``) starts, without waiting for it.
    @inline(__always)
    func prefetch(hash h: UInt64) {
        // A hint only: the slot is in the table (`h & mask` < tableSize); the lookup reads it
        // again, and a table rebuilt meanwhile makes the hint merely useless.
        jsonapi_prefetch(table + Int(h & mask))
    }

    /// The hash a lookup of `(tag, name)` starts from and the name's first word (every lookup
    /// starts here): a caller that knows a name some time before it interns it
    /// (``KeyTranslation``) computes them once, asks for the slot (``prefetch(hash:)``), and
    /// interns the name later with both (``intern(_:tag:hash:prefix:)``).
    @inline(__always)
    func lookupStart(of name: UnsafeRawBufferPointer, tag: UInt32) -> (hash: UInt64, prefix: UInt64) {
        let (prefix, suffix) = ShortName.words(name)
        return (Self.hash(name, prefix, suffix, tag: tag, seed: seed), prefix)
    }

    /// ``intern(_:tag:)`` with the hash and first word ``lookupStart(of:tag:)`` gave for the
    /// same `(tag, name)`.
    @inline(__always)
    mutating func intern(_ name: UnsafeRawBufferPointer, tag: UInt32, hash h: UInt64, prefix: UInt64) -> UInt32 {
        let p = probe(name, tag: tag, prefix: prefix, hash: h)
        if p.found >= 0 { return UInt32(truncatingIfNeeded: p.found) }
        return insert(name, tag: tag, p.prefix, p.key, at: p.slot)
    }

    /// The number for `(tag, name)` if it was interned.
    func find(_ name: UnsafeRawBufferPointer, tag: UInt32 = 0) -> UInt32? {
        precondition(!slotsGivenUp, "an interner whose slots were given up looks nothing up")
        let p = probe(name, tag: tag)
        return p.found >= 0 ? UInt32(truncatingIfNeeded: p.found) : nil
    }

    /// Where a probe for a name ended: its number (`found`, -1 when absent), or the empty
    /// slot where it goes with what the slot keeps of it.
    private struct Probe {
        var found: Int64
        var slot: Int
        var prefix: UInt64
        var key: UInt64
    }

    /// Looks `(tag, name)` up, from its hash's slot to the first match or empty slot.
    @inline(__always)
    private func probe(_ name: UnsafeRawBufferPointer, tag: UInt32) -> Probe {
        let start = lookupStart(of: name, tag: tag)
        return probe(name, tag: tag, prefix: start.prefix, hash: start.hash)
    }

    /// The probe with the name's first word and its hash already known.
    @inline(__always)
    private func probe(_ name: UnsafeRawBufferPointer, tag: UInt32, prefix: UInt64, hash h: UInt64) -> Probe {
        // The fields it reads, passed as they are: through `self`, a lookup inlined into a
        // `mutating` caller copied the whole interner (88 bytes) to the stack at each name.
        Self.probe(name, tag: tag, prefix: prefix, hash: h, table: table, mask: mask, entries: entries.unsafeRecords, bytes: bytes.base)
    }

    /// The probe over `table` (`mask`: its size - 1), whose numbers are indices of `entries`,
    /// whose bytes start at `bytes`.
    @inline(__always)
    private static func probe(
        _ name: UnsafeRawBufferPointer, tag: UInt32, prefix: UInt64, hash h: UInt64, table: UnsafeMutablePointer<Slot>, mask: UInt64,
        entries: UnsafeBufferPointer<Entry>, bytes: UnsafeRawPointer
    ) -> Probe {
        let key = infoKey(hash: h, count: name.count, tag: tag)
        // The slot says it all for a name of up to 8 bytes (its prefix is all its bytes)
        // with a tag that fits.
        let slotDecides = name.count <= 8 && UInt64(tag) < largeTag
        var i = h & mask
        while true {
            let slot = table[Int(i)]
            if slot.info == 0 { break }
            if slot.info & ~numberBits == key && slot.prefix == prefix {
                let e = UInt32(truncatingIfNeeded: slot.info) &- 1
                if slotDecides || entryEquals(entries[Int(e)], name, tag: tag, bytes: bytes) {
                    return Probe(found: Int64(e), slot: Int(i), prefix: prefix, key: key)
                }
            }
            i = (i &+ 1) & mask
        }
        return Probe(found: -1, slot: Int(i), prefix: prefix, key: key)
    }

    func find(_ name: String, tag: UInt32 = 0) -> UInt32? {
        var name = name
        return name.withUTF8 { find(UnsafeRawBufferPointer($0), tag: tag) }
    }

    mutating func intern(_ name: String, tag: UInt32 = 0) -> UInt32 {
        var name = name
        return name.withUTF8 { intern(UnsafeRawBufferPointer($0), tag: tag) }
    }

    /// Whether `entry` (its bytes from `bytes`) is `(tag, name)`, for what its slot does not
    /// say.
    @inline(never)
    private static func entryEquals(_ entry: Entry, _ name: UnsafeRawBufferPointer, tag: UInt32, bytes: UnsafeRawPointer) -> Bool {
        entry.tag == tag && Int(entry.count) == name.count && memoryEqual(UnsafeRawBufferPointer(start: bytes + entry.start, count: name.count), name)
    }

    @inline(never)
    private mutating func insert(
        _ name: UnsafeRawBufferPointer, tag: UInt32, _ prefix: UInt64, _ key: UInt64, at i: Int
    ) -> UInt32 {
        precondition(!slotsGivenUp, "an interner whose slots were given up looks nothing up")
        let n = UInt32(entries.count)
        let start = bytes.count
        bytes.append(name)
        entries.appendToOwn(Entry(start: start, count: Int32(name.count), tag: tag))
        table[i] = Slot(prefix: prefix, info: key | UInt64(n &+ 1))
        if entries.count * 2 > tableSize { rebuild(size: tableSize * 2) }
        return n
    }

    /// A table of `size` slots, filled again from the entries in order (the slots keep too
    /// little of the hash to move by it; hashing the names again costs a few nanoseconds
    /// each, once per doubling).
    private mutating func rebuild(size: Int) {
        let newTable = Self.emptySlots(size)
        let newMask = UInt64(size - 1)
        /// Entry `entry`'s hash and first eight bytes.
        @inline(__always)
        func hashed(_ entry: Entry) -> (hash: UInt64, prefix: UInt64) {
            let name = bytes.bytes(in: entry.start..<entry.start + Int(entry.count))
            let (prefix, suffix) = ShortName.words(name)
            return (Self.hash(name, prefix, suffix, tag: entry.tag, seed: seed), prefix)
        }
        /// Puts entry `n` (its hash `h` and first word) in its slot of the new table.
        @inline(__always)
        func place(_ n: Int, _ entry: Entry, _ h: UInt64, _ prefix: UInt64) {
            var i = h & newMask
            while newTable[Int(i)].info != 0 { i = (i &+ 1) & newMask }
            newTable[Int(i)] = Slot(prefix: prefix, info: Self.infoKey(hash: h, count: Int(entry.count), tag: entry.tag) | UInt64(n + 1))
        }
        if size * MemoryLayout<Slot>.stride <= 1 << 20 {
            // A table the caches hold: one entry after another.
            for (n, entry) in entries.enumerated() {
                let e = hashed(entry)
                place(n, entry, e.hash, e.prefix)
            }
        } else {
            // A larger one: a group of entries at a time, every slot of the group asked for
            // (a prefetch) before the first is written, so that their cache misses overlap
            // instead of coming one after another. Kept per entry of the group: its hash and
            // first eight bytes.
            let group = 16
            withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * group) { kept in
                var first = 0
                while first < entries.count {
                    let end = Swift.min(first + group, entries.count)
                    for n in first..<end {
                        let e = hashed(entries[n])
                        let k = 2 * (n - first)
                        kept[k] = e.hash
                        kept[k + 1] = e.prefix
                        jsonapi_prefetch(newTable + Int(e.hash & newMask))
                    }
                    for n in first..<end {
                        let k = 2 * (n - first)
                        place(n, entries[n], kept[k], kept[k + 1])
                    }
                    first = end
                }
            }
        }
        free(table)
        table = newTable
        tableSize = size
        mask = newMask
        outgrowsCache = size > Self.cachedSlots
    }

    /// Takes `other`'s slot table, cleared, when it is larger than this empty interner's,
    /// and leaves `other` this one's (a worker's next piece taking the last piece's table).
    /// `other` keeps its entries (``count``, ``bytes(of:)``, ``tag(of:)``, what a merge reads)
    /// but can no longer look a name up or add one: its lookups are refused (the empty table
    /// it is left finds nothing, so an `intern` reaches ``insert``) rather than answered
    /// wrongly. A worker's key table is a fresh allocation at each piece otherwise, whose
    /// lines come from memory at their first probe (on a VM of 512 KiB of level 2 cache a
    /// core, a third of a graph worker's `appendRelationship` waited on that load); taken, it
    /// is cleared in this core's cache.
    mutating func takeSlots(from other: inout ByteInterner) {
        precondition(entries.count == 0 && !slotsGivenUp, "slots are taken by an empty interner")
        guard other.tableSize > tableSize else { return }
        swap(&table, &other.table)
        swap(&tableSize, &other.tableSize)
        swap(&mask, &other.mask)
        swap(&outgrowsCache, &other.outgrowsCache)
        other.slotsGivenUp = true
        // Invariant: `table` holds `tableSize` slots; all zeros is an empty slot (this
        // interner's own table, now `other`'s, was empty already).
        memset(table, 0, tableSize * MemoryLayout<Slot>.stride)
    }

    /// Whether another interner took the slot table (``takeSlots(from:)``).
    private var slotsGivenUp = false

    /// Makes room for `n` names without growing the table on the way.
    mutating func reserveCapacity(_ n: Int) {
        entries.reserveCapacity(n)
        var size = tableSize
        while size < 2 * n { size *= 2 }
        if size > tableSize { rebuild(size: size) }
    }

    /// The bytes of entry `n`; valid until the next insertion.
    @inline(__always)
    package func bytes(of n: UInt32) -> UnsafeRawBufferPointer {
        let e = entries[Int(n)]
        return bytes.bytes(in: e.start..<e.start + Int(e.count))
    }

    func tag(of n: UInt32) -> UInt32 { entries[Int(n)].tag }

    func string(of n: UInt32) -> String { String(decoding: bytes(of: n), as: UTF8.self) }

    /// The slots a lookup of every entry reads, in all: a measure of how well the hash
    /// spreads what the table holds (about 1.5 per entry at half load for a good one).
    var lookupProbes: Int {
        var total = 0
        for k in 0..<tableSize where table[k].info != 0 {
            let entry = entries[Int(UInt32(truncatingIfNeeded: table[k].info) - 1)]
            let name = bytes.bytes(in: entry.start..<entry.start + Int(entry.count))
            let (prefix, suffix) = ShortName.words(name)
            let home = Int(Self.hash(name, prefix, suffix, tag: entry.tag, seed: seed) & mask)
            total += ((k - home) & Int(mask)) + 1
        }
        return total
    }

    /// Approximate memory held, in bytes.
    var memoryFootprint: Int { bytes.capacity + entries.capacity * MemoryLayout<Entry>.stride + tableSize * MemoryLayout<Slot>.stride }
}

/// How many slots a ``SymbolCache`` has, fixed by its type so that a slot's number is found
/// with a constant shift.
protocol SymbolCacheSize {
    /// The cache has `2^bits` slots.
    static var bits: Int { get }
}

/// 256 slots: a graph's type and relationship names.
enum ManyNames: SymbolCacheSize { static var bits: Int { 8 } }

/// 64 slots (1.5 KiB): the types of one document's keys, in a table a validator makes for
/// every document.
enum FewNames: SymbolCacheSize { static var bits: Int { 6 } }

/// A slot of a ``SymbolCache`` (not nested in the generic type, whose own types would be
/// generic too: their metadata made at run time).
private struct SymbolCacheSlot {
    var count: Int32 = -1
    var symbol: UInt32 = 0
    var prefix: UInt64 = 0
    var suffix: UInt64 = 0
}

/// A direct-mapped cache in front of an interner for names of up to 16 bytes, keyed exactly
/// by length, first and last eight bytes: type and relationship names repeat on every
/// resource, so most lookups end here.
struct SymbolCache<Size: SymbolCacheSize> {
    private typealias Slot = SymbolCacheSlot
    private var slots = [Slot](repeating: Slot(), count: 1 << Size.bits)
    private let seed: HashSeed

    init(seed: HashSeed = .process) { self.seed = seed }

    @inline(__always)
    private func index(_ n: Int, _ prefix: UInt64, _ suffix: UInt64) -> Int {
        Int(truncatingIfNeeded: SeededHash.short(prefix: prefix, suffix: suffix, extra: UInt64(n), seed: seed) &>> UInt64(64 - Size.bits))
    }

    /// Two ways per set: a name lives in slot `i` or `i ^ 1`.
    @inline(__always)
    func lookUp(_ name: UnsafeRawBufferPointer) -> UInt32? {
        let n = name.count
        guard n <= 16 else { return nil }
        let (prefix, suffix) = ShortName.words(name)
        let i = index(n, prefix, suffix)
        let a = slots[i]
        if a.count == Int32(n) && a.prefix == prefix && a.suffix == suffix { return a.symbol }
        let b = slots[i ^ 1]
        if b.count == Int32(n) && b.prefix == prefix && b.suffix == suffix { return b.symbol }
        return nil
    }

    @inline(__always)
    mutating func remember(_ name: UnsafeRawBufferPointer, _ symbol: UInt32) {
        let n = name.count
        guard n <= 16 else { return }
        let (prefix, suffix) = ShortName.words(name)
        let i = index(n, prefix, suffix)
        // The newest goes first; the one it displaces moves to the other way.
        slots[i ^ 1] = slots[i]
        slots[i] = Slot(count: Int32(n), symbol: symbol, prefix: prefix, suffix: suffix)
    }
}
