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
