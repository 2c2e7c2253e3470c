/// A graph's table of plain records (resources, relationships, identifiers, member spans): an
/// array that grows in place.
///
/// A Swift `Array` grows by allocating twice its capacity and moving its elements there, so
/// while it does, both buffers are resident: the old one's records and the new one's copy. For
/// the tables of a 128 MB document that briefly held 6 MiB more than the graph. Here the
/// storage is a ``LargeAllocation``: past 256 KiB an anonymous mapping that `mremap` grows
/// without copying (the kernel moves page tables), and that a memory budget counts. Its
/// capacity beyond `count` is address space only: pages no record was written to are not
/// resident (it asks for no huge pages, which would be resident 2 MiB at a time).
///
/// A value type with copy-on-write, like `Array`: copies share a buffer until one of them
/// changes.
struct RecordTable<Record: BitwiseCopyable>: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    /// The records; the only owner of their memory.
    private final class Buffer {
        /// Blocks from this size on are mappings that `mremap` grows: a table of a large
        /// graph is not copied as it doubles (which touched each new block's pages, about
        /// as many again as the table holds), only its new pages are.
        static var mapFrom: Int { 256 * 1024 }

        /// Invariant: `capacity` records' worth of memory from ``LargeAllocation``, of which
        /// the first `count` are written.
        var base: UnsafeMutablePointer<Record>
        var count: Int
        var capacity: Int

        /// Exactly `capacity` records (a table reserved like another, as a worker's piece's
        /// are, leaves a large kept mapping to the table that grows into it, ``grow(to:)``).
        init(capacity: Int) {
            self.capacity = capacity
            count = 0
            base = LargeAllocation.allocate(byteCount: Swift.max(capacity, 1) * MemoryLayout<Record>.stride, hugePages: false, mapFrom: Self.mapFrom)
                .bindMemory(to: Record.self, capacity: Swift.max(capacity, 1))
        }

        deinit {
            LargeAllocation.deallocate(
                UnsafeMutableRawPointer(base), byteCount: Swift.max(capacity, 1) * MemoryLayout<Record>.stride, hugePages: false,
                mapFrom: Self.mapFrom)
        }

        /// Grows to `newCapacity` records, keeping the written ones (in place when the
        /// mapping can grow).
        func grow(to newCapacity: Int) {
            let stride = MemoryLayout<Record>.stride
            let (p, bytes) = LargeAllocation.reallocate(
                UnsafeMutableRawPointer(base), from: Swift.max(capacity, 1) * stride, to: newCapacity * stride, used: count * stride,
                hugePages: false, mapFrom: Self.mapFrom)
            capacity = RecordTable.records(in: bytes)
            base = p.bindMemory(to: Record.self, capacity: capacity)
        }

        func copy(capacity: Int) -> Buffer {
            let b = Buffer(capacity: Swift.max(capacity, count))
            b.base.initialize(from: base, count: count)
            b.count = count
            return b
        }
    }

    /// The records a block of `bytes` holds. A kept mapping taken whole
    /// (``LargeAllocation/allocateGrowing(byteCount:hugePages:mapFrom:)``) may be no multiple
    /// of the stride: the capacity is what fits, and since a stride is less than a page,
    /// ``LargeAllocation/mappedSize(_:)`` of the capacity's bytes is the whole mapping again,
    /// which is what the table frees.
    static func records(in bytes: Int) -> Int {
        precondition(MemoryLayout<Record>.stride < LargeAllocation.page)
        return Swift.max(bytes / MemoryLayout<Record>.stride, 1)
    }

    /// nil until the first record: an empty table allocates nothing.
    private var buffer: Buffer?

    /// The storage object (tests: a table that is not shared grows it in place, keeping it).
    var storageIdentity: ObjectIdentifier? { buffer.map { ObjectIdentifier($0) } }

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { buffer?.count ?? 0 }
    var count: Int { buffer?.count ?? 0 }
    var capacity: Int { buffer?.capacity ?? 0 }

    @inline(__always)
    subscript(i: Int) -> Record {
        get {
            precondition(i >= 0 && i < count, "record index out of range")
            return buffer.unsafelyUnwrapped.base[i]
        }
        set {
            precondition(i >= 0 && i < count, "record index out of range")
            makeUnique(capacity: capacity)
            buffer.unsafelyUnwrapped.base[i] = newValue
        }
    }

    /// Makes the buffer this table's own, with room for at least `capacity` records.
    @inline(__always)
    private mutating func makeUnique(capacity minimum: Int) {
        if isKnownUniquelyReferenced(&buffer), let b = buffer, b.capacity >= minimum { return }
        reallocate(minimum: minimum)
    }

    @inline(never)
    private mutating func reallocate(minimum: Int) {
        if buffer == nil {
            buffer = Buffer(capacity: Swift.max(minimum, 16))
            return
        }
        // Asked before the buffer is bound to a local: that reference would make it shared,
        // and every growth a copy into a new block instead of `mremap` in place.
        let unique = isKnownUniquelyReferenced(&buffer)
        let b = buffer.unsafelyUnwrapped
        let newCapacity = Swift.max(minimum, b.capacity)
        if unique {
            b.grow(to: newCapacity)
        } else {
            buffer = b.copy(capacity: newCapacity)
        }
    }

    /// The capacity for `needed` records: doubling, so that appends are amortized O(1).
    @inline(__always)
    private func grownCapacity(for needed: Int) -> Int {
        needed <= capacity ? capacity : Swift.max(needed, capacity * 2, 16)
    }

    @inline(__always)
    mutating func append(_ record: Record) {
        let n = count
        makeUnique(capacity: grownCapacity(for: n + 1))
        let b = buffer.unsafelyUnwrapped
        b.base[n] = record
        b.count = n + 1
    }

    /// ``append(_:)`` to a table the caller owns alone: a sink's tables while it builds them,
    /// before any graph over them exists. The uniqueness check `append` makes for
    /// copy-on-write is a call into the runtime per record; this skips it while there is room
    /// (debug builds check it all the same). A table shared with a copy must not be given
    /// here: the copy would see the record.
    @inline(__always)
    mutating func appendToOwn(_ record: Record) {
        assert(buffer == nil || isKnownUniquelyReferenced(&buffer), "appendToOwn on a shared table")
        if let b = buffer, b.count < b.capacity {
            b.base[b.count] = record
            b.count &+= 1
            return
        }
        append(record)
    }

    /// Sets record `i` of a table the caller owns alone, as ``appendToOwn(_:)`` appends: without
    /// the uniqueness check (a call into the runtime) the subscript's setter makes.
    @inline(__always)
    mutating func setOwn(_ i: Int, _ record: Record) {
        assert(buffer == nil || isKnownUniquelyReferenced(&buffer), "setOwn on a shared table")
        precondition(i >= 0 && i < count, "record index out of range")
        buffer.unsafelyUnwrapped.base[i] = record
    }

    mutating func reserveCapacity(_ n: Int) {
        makeUnique(capacity: Swift.max(n, count))
    }

    /// Room for `n` more records, grown as appends grow it (doubling), so that the next `n`
    /// appends to a table the caller owns (``appendToOwn(_:)``) all find room.
    mutating func reserveMore(_ n: Int) {
        let needed = count + n
        if needed > capacity { makeUnique(capacity: grownCapacity(for: needed)) }
    }

    /// The records, read in place without a check at each access. Unsafe: valid only while
    /// the table is neither changed nor freed, which the caller ensures (a finished graph's
    /// tables, which the graph holds and nothing changes).
    var unsafeRecords: UnsafeBufferPointer<Record> {
        guard let b = buffer else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: b.base, count: b.count)
    }

    mutating func replaceSubrange<C: Collection<Record>>(_ subrange: Range<Int>, with records: C) {
        precondition(subrange.lowerBound >= 0 && subrange.upperBound <= count, "record range out of range")
        let inserted = records.count
        let oldCount = count
        let newCount = oldCount - subrange.count + inserted
        makeUnique(capacity: grownCapacity(for: newCount))
        let b = buffer.unsafelyUnwrapped
        // Plain records (BitwiseCopyable): moving the tail is a memmove (`copyMemory` allows
        // the regions to overlap).
        let tail = oldCount - subrange.upperBound
        if tail > 0 && inserted != subrange.count {
            UnsafeMutableRawPointer(b.base + subrange.lowerBound + inserted)
                .copyMemory(from: b.base + subrange.upperBound, byteCount: tail * MemoryLayout<Record>.stride)
        }
        var i = subrange.lowerBound
        for r in records {
            b.base[i] = r
            i += 1
        }
        b.count = newCount
    }
}
