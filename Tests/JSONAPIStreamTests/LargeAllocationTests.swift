import CPlatform
import Foundation
import Testing

@testable import JSONAPIStream

/// Blocks mapped below the huge-page threshold (`mapFrom`, as the graph's record tables ask):
/// whole pages, grown by `mremap` across the threshold, the bytes kept.
struct LargeAllocationTests {
    /// Whether `p` starts a mapping of at least `length` bytes of its own (Linux): page
    /// aligned (a `malloc` block of this size is not: its header comes first), and every page
    /// of the range mapped (`msync` fails with `ENOMEM` on a page that is not).
    static func isMapped(_ p: UnsafeMutableRawPointer, length: Int) -> Bool {
        UInt(bitPattern: p) % UInt(LargeAllocation.page) == 0 && msync(p, length, MS_ASYNC) == 0
    }

    @Test func blocksMappedBelowTheThresholdAreWholePagesAndKeepTheirBytes() {
        let from = 256 * 1024
        #expect(LargeAllocation.mappedSize(from + 1) == from + 4096)
        #expect(LargeAllocation.mappedSize(3 << 20) == 4 << 20)
        let sizes = [300_000, 700_001, 1_500_000, 3 << 20, 5 << 20]
        var p = LargeAllocation.allocate(byteCount: sizes[0], hugePages: false, mapFrom: from)
        var size = sizes[0]
        func fill(_ p: UnsafeMutableRawPointer, _ n: Int) {
            for i in stride(from: 0, to: n, by: 997) { p.storeBytes(of: UInt8(truncatingIfNeeded: i &* 31), toByteOffset: i, as: UInt8.self) }
        }
        func check(_ p: UnsafeMutableRawPointer, _ n: Int) -> Bool {
            stride(from: 0, to: n, by: 997).allSatisfy { p.load(fromByteOffset: $0, as: UInt8.self) == UInt8(truncatingIfNeeded: $0 &* 31) }
        }
        fill(p, size)
        #if os(Linux)
        // A mapping of its own, as long as `mappedSize` says.
        #expect(Self.isMapped(p, length: LargeAllocation.mappedSize(size)))
        #endif
        for next in sizes.dropFirst() {
            p = LargeAllocation.reallocate(p, from: size, to: next, used: size, hugePages: false, mapFrom: from)
            #expect(check(p, size), "bytes lost growing \(size) to \(next)")
            #if os(Linux)
            #expect(Self.isMapped(p, length: LargeAllocation.mappedSize(next)))
            #endif
            size = next
            fill(p, size)
        }
        #expect(check(p, size))
        LargeAllocation.deallocate(p, byteCount: size, mapFrom: from)
        // Below `mapFrom`: malloc, as before.
        let small = LargeAllocation.allocate(byteCount: 1000, hugePages: false, mapFrom: from)
        fill(small, 1000)
        let grown = LargeAllocation.reallocate(small, from: 1000, to: 400_000, used: 1000, hugePages: false, mapFrom: from)
        #expect(check(grown, 1000))
        LargeAllocation.deallocate(grown, byteCount: 400_000, mapFrom: from)
    }
}

/// Zeroed tables whose pages come mapped for writing (`jsonapi_calloc_written`, the key
/// tables' slots): read first, as a hash table's probes read them, then written, they fault
/// no more. (A fresh `calloc` block read first maps the shared zero page, and each first write
/// then faults again, flushing the other threads' address caches.)
struct WrittenTableTests {
    #if os(Linux)
    @Test func zeroedTablesComeWithTheirPagesMappedForWriting() throws {
        // Past glibc's largest threshold for mapping a block of its own (32 MiB): fresh pages.
        let slots = (40 << 20) / 24
        let p = try #require(jsonapi_calloc_written(slots, 24))
        defer { free(p) }
        let bytes = slots * 24
        // This thread's page faults (`RUSAGE_THREAD`, 1: other tests run on other threads).
        let thread = __rusage_who_t(1)
        var before = rusage()
        var after = rusage()
        getrusage(thread, &before)
        var sum = 0
        for i in stride(from: 0, to: bytes, by: 4096) { sum &+= Int(p.load(fromByteOffset: i, as: UInt8.self)) }
        for i in stride(from: 0, to: bytes, by: 4096) { p.storeBytes(of: 1, toByteOffset: i, as: UInt8.self) }
        getrusage(thread, &after)
        #expect(sum == 0)
        // Every byte zero (a sample of each page's), and the 10,240 pages did not fault again.
        #expect(stride(from: 8, to: bytes, by: 4093).allSatisfy { $0 % 4096 == 0 || p.load(fromByteOffset: $0, as: UInt8.self) == 0 })
        #expect(after.ru_minflt - before.ru_minflt < 64, "page faults after: \(after.ru_minflt - before.ru_minflt)")
        // Small ones come from calloc as they are, zeroed.
        let q = try #require(jsonapi_calloc_written(100, 24))
        defer { free(q) }
        #expect((0..<2400).allSatisfy { q.load(fromByteOffset: $0, as: UInt8.self) == 0 })
    }
    #endif
}
