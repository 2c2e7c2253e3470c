import Foundation
import Testing

@testable import JSONAPIStream

/// Blocks mapped below the huge-page threshold (`mapFrom`, as the graph's record tables ask):
/// whole pages, grown by `mremap` across the threshold, the bytes kept.
struct LargeAllocationTests {
    /// The anonymous mapping that starts at `p`, from `/proc/self/maps` (Linux): its length.
    static func mappingLength(at p: UnsafeMutableRawPointer) -> Int? {
        guard let maps = try? String(contentsOfFile: "/proc/self/maps", encoding: .utf8) else { return nil }
        let start = UInt(bitPattern: p)
        for line in maps.split(separator: "\n") {
            let range = line.prefix { $0 != " " }.split(separator: "-")
            guard range.count == 2, let lo = UInt(range[0], radix: 16), let hi = UInt(range[1], radix: 16) else { continue }
            // Neighbouring anonymous mappings may be merged into one line: the block lies within.
            if lo <= start && start < hi { return Int(hi - start) }
        }
        return nil
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
        // A mapping of its own, as long as `mappedSize` says, or more when a neighbour merged.
        #expect((Self.mappingLength(at: p) ?? 0) >= LargeAllocation.mappedSize(size))
        #endif
        for next in sizes.dropFirst() {
            p = LargeAllocation.reallocate(p, from: size, to: next, used: size, hugePages: false, mapFrom: from)
            #expect(check(p, size), "bytes lost growing \(size) to \(next)")
            #if os(Linux)
            #expect((Self.mappingLength(at: p) ?? 0) >= LargeAllocation.mappedSize(next))
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
