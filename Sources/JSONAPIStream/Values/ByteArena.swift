#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A growable run of bytes with a stable element type and no copy-on-write: the storage of
/// the value store, the key stack and the read buffers.
///
/// It is `~Copyable`, so exactly one owner frees it. Views handed out by ``withBytes(_:)``
/// and ``bytes(in:)`` stay valid only until the next mutation (growth may move the storage).
package struct ByteArena: ~Copyable {
    private(set) var base: UnsafeMutableRawPointer
    package private(set) var count: Int
    private(set) var capacity: Int

    package init(capacity: Int = 4096) {
        let c = LargeAllocation.roundUp(Swift.max(capacity, 16))
        // A set size (a worker's piece, sized like the last): exact, so that it leaves a
        // large kept mapping to the store that grows into it (``grow(minimum:)``).
        base = LargeAllocation.allocate(byteCount: c)
        self.capacity = c
        count = 0
    }

    deinit { LargeAllocation.deallocate(base, byteCount: capacity) }

    package var isEmpty: Bool { count == 0 }

    @inline(__always)
    package mutating func append(_ byte: UInt8) {
        if count == capacity { grow(minimum: count + 1) }
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count &+= 1
    }

    @inline(__always)
    package mutating func append(_ a: UInt8, _ b: UInt8) {
        if count &+ 2 > capacity { grow(minimum: count + 2) }
        base.storeBytes(of: a, toByteOffset: count, as: UInt8.self)
        base.storeBytes(of: b, toByteOffset: count &+ 1, as: UInt8.self)
        count &+= 2
    }

    @inline(__always)
    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        let n = bytes.count
        guard n > 0 else { return }
        if count &+ n > capacity { grow(minimum: count + n) }
        copyBytes(to: base + count, from: bytes.baseAddress.unsafelyUnwrapped, count: n)
        count &+= n
    }

    /// Appends `n` in decimal (a `-` before a negative number), without making a `String`.
    package mutating func appendDecimal(_ n: Int) {
        // Most are row numbers and positions: one or two digits without the loop.
        if n >= 0 && n < 100 {
            if n < 10 { return append(UInt8(truncatingIfNeeded: n) &+ UInt8(ascii: "0")) }
            return append(UInt8(truncatingIfNeeded: n / 10) &+ UInt8(ascii: "0"), UInt8(truncatingIfNeeded: n % 10) &+ UInt8(ascii: "0"))
        }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: Int.min has 19 digits.
        var magnitude = n.magnitude
        var k = 24
        withUnsafeMutableBytes(of: &digits) { d in
            repeat {
                k -= 1
                d[k] = UInt8(truncatingIfNeeded: magnitude % 10) &+ UInt8(ascii: "0")
                magnitude /= 10
            } while magnitude > 0
            if n < 0 { append(UInt8(ascii: "-")) }
            append(UnsafeRawBufferPointer(rebasing: d[k...]))
        }
    }

    /// Appends the bytes of `other` in `range`.
    package mutating func append(from other: borrowing ByteArena, _ range: Range<Int>) {
        append(other.bytes(in: range))
    }

    @inline(__always)
    package mutating func append(_ string: StaticString) {
        append(UnsafeRawBufferPointer(start: string.utf8Start, count: string.utf8CodeUnitCount))
    }

    package mutating func append<S: Sequence<UInt8>>(contentsOf bytes: S) {
        for b in bytes { append(b) }
    }

    /// Reserves `n` bytes at the end and returns where they start; the caller must write all
    /// of them before the next call.
    @inline(__always)
    package mutating func reserveTail(_ n: Int) -> UnsafeMutableRawPointer {
        if count &+ n > capacity { grow(minimum: count + n) }
        let p = base + count
        count &+= n
        return p
    }

    /// Gives back the last `n` bytes taken by ``reserveTail(_:)`` and not written.
    @inline(__always)
    package mutating func shrink(by n: Int) { count &-= n }

    package mutating func truncate(to newCount: Int) {
        precondition(newCount >= 0 && newCount <= count)
        count = newCount
    }

    package mutating func removeAll() { count = 0 }

    /// Takes `n` as the count: bytes written into the storage from outside (the tape
    /// recorder's C callbacks, which append through the base and capacity lent to them).
    @inline(__always)
    package mutating func adoptCount(_ n: Int) {
        precondition(n >= 0 && n <= capacity)
        count = n
    }

    /// Drops the first `n` bytes, moving the rest to the front.
    ///
    /// - Complexity: O(`count - n`).
    package mutating func removeFirst(_ n: Int) {
        precondition(n >= 0 && n <= count)
        if n == count { count = 0; return }
        (base).copyMemory(from: base + n, byteCount: count - n)
        count -= n
    }

    /// Writes `bytes` over the bytes from `offset` (which must already be part of the arena).
    package mutating func overwrite(at offset: Int, with bytes: UnsafeRawBufferPointer) {
        precondition(offset >= 0 && offset + bytes.count <= count)
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        (base + offset).copyMemory(from: source, byteCount: bytes.count)
    }

    /// Copies the bytes in `source` to `offset` (both inside the arena; they may overlap).
    package mutating func copyWithin(_ source: Range<Int>, to offset: Int) {
        precondition(source.lowerBound >= 0 && source.upperBound <= count && offset >= 0 && offset + source.count <= count)
        (base + offset).copyMemory(from: base + source.lowerBound, byteCount: source.count)
    }

    /// Replaces the byte at `index`, which must be `expected` (a writer's own mark).
    package mutating func replace(at index: Int, with byte: UInt8, expecting expected: UInt8) {
        precondition(index >= 0 && index < count && self[index] == expected)
        base.storeBytes(of: byte, toByteOffset: index, as: UInt8.self)
    }

    @inline(__always)
    subscript(_ i: Int) -> UInt8 {
        base.load(fromByteOffset: i, as: UInt8.self)
    }

    /// A borrowed view of `range`; valid until the next mutation.
    @inline(__always)
    package func bytes(in range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count)
    }

    package func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// A copy of `range` as an array.
    package func array(_ range: Range<Int>) -> [UInt8] { Array(bytes(in: range)) }

    @inline(never)
    package mutating func grow(minimum: Int) {
        // Doubling keeps appends amortized O(1); one append larger than that (a long string)
        // takes what it needs, not the next power of two.
        let newCapacity = LargeAllocation.roundUp(Swift.max(Swift.max(capacity, 16) &* 2, minimum))
        (base, capacity) = LargeAllocation.reallocate(base, from: capacity, to: newCapacity, used: count)
    }

    package mutating func reserveCapacity(_ n: Int) { if n > capacity { grow(minimum: n) } }

    /// Gives the storage back to the system when it grew past `limit` (for one long token)
    /// and holds no more than `size` bytes now: the pages a long string needed do not stay
    /// resident for the rest of the run.
    @inline(__always)
    package mutating func giveBack(ifAbove limit: Int, to size: Int) {
        if capacity > limit && count <= size { resize(to: size) }
    }

    @inline(never)
    private mutating func resize(to size: Int) {
        let c = LargeAllocation.roundUp(Swift.max(size, count, 16))
        let p = LargeAllocation.allocate(byteCount: c)
        p.copyMemory(from: base, byteCount: count)
        LargeAllocation.deallocate(base, byteCount: capacity)
        base = p
        capacity = c
    }

    /// Gives memory back when far more is held than used.
    package mutating func shrinkToFit() {
        if capacity > 2 * count + 4096 { resize(to: count) }
    }
}

extension ByteArena {
    /// The bytes in `range`, as a `String` (they are valid UTF-8 by construction).
    package func string(_ range: Range<Int>) -> String {
        String(decoding: bytes(in: range), as: UTF8.self)
    }
}

/// Copies `n` bytes; short runs (the common case: names, ids, short strings) without a call
/// to `memcpy`, with two overlapping loads and stores that stay inside both ranges.
@inline(__always)
func copyBytes(to d: UnsafeMutableRawPointer, from s: UnsafeRawPointer, count n: Int) {
    if n >= 8 && n <= 16 {
        let a = s.loadUnaligned(as: UInt64.self)
        let b = s.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self)
        d.storeBytes(of: a, as: UInt64.self)
        d.storeBytes(of: b, toByteOffset: n &- 8, as: UInt64.self)
    } else if n >= 4 && n < 8 {
        let a = s.loadUnaligned(as: UInt32.self)
        let b = s.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
        d.storeBytes(of: a, as: UInt32.self)
        d.storeBytes(of: b, toByteOffset: n &- 4, as: UInt32.self)
    } else if n < 4 {
        if n == 0 { return }
        let a = s.load(as: UInt8.self)
        let b = s.load(fromByteOffset: n &- 1, as: UInt8.self)
        let m = s.load(fromByteOffset: n &>> 1, as: UInt8.self)
        d.storeBytes(of: a, as: UInt8.self)
        d.storeBytes(of: m, toByteOffset: n &>> 1, as: UInt8.self)
        d.storeBytes(of: b, toByteOffset: n &- 1, as: UInt8.self)
    } else {
        d.copyMemory(from: s, byteCount: n)
    }
}

/// Whether two byte runs are equal.
@inline(__always)
package func memoryEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    if a.count == 0 { return true }
    return memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
}
