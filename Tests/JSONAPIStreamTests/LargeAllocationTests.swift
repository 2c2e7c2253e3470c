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
            let (q, bytes) = LargeAllocation.reallocate(p, from: size, to: next, used: size, hugePages: false, mapFrom: from)
            p = q
            #expect(bytes == next, "a mapping grown in place is as long as asked")
            #expect(check(p, size), "bytes lost growing \(size) to \(next)")
            #if os(Linux)
            #expect(Self.isMapped(p, length: LargeAllocation.mappedSize(next)))
            #endif
            size = next
            fill(p, size)
        }
        #expect(check(p, size))
        LargeAllocation.deallocate(p, byteCount: size, hugePages: false, mapFrom: from)
        // Below `mapFrom`: malloc, as before.
        let small = LargeAllocation.allocate(byteCount: 1000, hugePages: false, mapFrom: from)
        fill(small, 1000)
        let (grown, bytes) = LargeAllocation.reallocate(small, from: 1000, to: 400_000, used: 1000, hugePages: false, mapFrom: from)
        #expect(bytes >= 400_000 && LargeAllocation.mappedSize(bytes) == bytes)
        #expect(check(grown, 1000))
        LargeAllocation.deallocate(grown, byteCount: bytes, hugePages: false, mapFrom: from)
    }
}

/// Mappings ask for huge pages up to ``LargeAllocation/hugePageLimit`` and for small pages
/// once they grow past it, still one mapping that grows in place.
struct HugePageLimitTests {
    #if os(Linux)
    /// The `VmFlags` of the mapping of this process that holds `p` (`/proc/self/smaps`).
    static func flags(at p: UnsafeMutableRawPointer) throws -> [Substring] {
        // Read to its end (a file of /proc says its size is 0).
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/self/smaps"))
        defer { try? handle.close() }
        let smaps = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        let address = UInt(bitPattern: p)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let ends = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = ends.count == 2 && ends[0] <= address && address < ends[1]
            } else if inside && line.hasPrefix("VmFlags:") {
                return Array(fields.dropFirst())
            }
        }
        throw CocoaError(.fileReadUnknown)
    }

    @Test func mappingsAskForHugePagesUpToTheLimitAndSmallOnesPastIt() throws {
        let limit = LargeAllocation.hugePageLimit
        // A kernel without transparent huge pages refuses both advices: no flag either way.
        let kernelHasThem = FileManager.default.fileExists(atPath: "/sys/kernel/mm/transparent_hugepage/enabled")
        #expect(limit == 256 << 20 || ProcessInfo.processInfo.environment["JSONAPI_HUGE_PAGE_LIMIT_MIB"] != nil)
        let small = 4 << 20
        let p = LargeAllocation.allocate(byteCount: small)
        p.storeBytes(of: 42, toByteOffset: small - 1, as: UInt8.self)
        #expect(try Self.flags(at: p).contains("hg") == (kernelHasThem && small <= limit), "a mapping under the limit asks for huge pages")
        // Grown past the limit: small pages from here on (`nh`), the bytes kept.
        let (q, bytes) = LargeAllocation.reallocate(p, from: small, to: limit + (2 << 20), used: small)
        #expect(q.load(fromByteOffset: small - 1, as: UInt8.self) == 42)
        let flags = try Self.flags(at: q)
        #expect(flags.contains("nh") == kernelHasThem && !flags.contains("hg"), "past the limit: \(flags)")
        // Its last page is part of the same mapping (grown by `mremap`, not copied piecewise).
        q.storeBytes(of: 7, toByteOffset: bytes - 1, as: UInt8.self)
        #expect(try Self.flags(at: q + (bytes - 1)) == flags)
        LargeAllocation.deallocate(q, byteCount: bytes)
    }
    #endif
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
        // (Under AddressSanitizer, `Scripts/asan.sh`, each access first reads the shadow byte of
        // its 8 bytes: the shadow's pages, an eighth of the table's, fault once each; unpopulated,
        // the table's own would fault 10,240 times or more.)
        let shadowPages = Self.underAddressSanitizer ? bytes / 8 / 4096 : 0
        #expect(stride(from: 8, to: bytes, by: 4093).allSatisfy { $0 % 4096 == 0 || p.load(fromByteOffset: $0, as: UInt8.self) == 0 })
        #expect(after.ru_minflt - before.ru_minflt < 64 + shadowPages, "page faults after: \(after.ru_minflt - before.ru_minflt)")
        // Small ones come from calloc as they are, zeroed.
        let q = try #require(jsonapi_calloc_written(100, 24))
        defer { free(q) }
        #expect((0..<2400).allSatisfy { q.load(fromByteOffset: $0, as: UInt8.self) == 0 })
    }

    /// Whether this process runs under AddressSanitizer (its runtime is linked in).
    static var underAddressSanitizer: Bool { dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil }
    #endif
}

/// Freed mappings kept for the next large block (`jsonapi_kept_*`), each test on a set of its
/// own (the process's set is shared by every test running at the same time).
struct KeptMappingsTests {
    #if os(Linux)
    static let mib = 1 << 20

    /// A fresh mapping of `size` bytes with a pattern in each page.
    static func mapped(_ size: Int, seed: UInt8) throws -> UnsafeMutableRawPointer {
        let p = try #require(mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        try #require(p != MAP_FAILED)
        for i in stride(from: 0, to: size, by: 4096) { p.storeBytes(of: seed &+ UInt8(truncatingIfNeeded: i >> 12), toByteOffset: i, as: UInt8.self) }
        return p
    }

    static func holdsPattern(_ p: UnsafeMutableRawPointer, _ size: Int, seed: UInt8) -> Bool {
        stride(from: 0, to: size, by: 4096).allSatisfy { p.load(fromByteOffset: $0, as: UInt8.self) == seed &+ UInt8(truncatingIfNeeded: $0 >> 12) }
    }

    /// Whether the page at `p` (page aligned) is no longer mapped.
    static func isUnmapped(_ p: UnsafeMutableRawPointer) -> Bool { !LargeAllocationTests.isMapped(p, length: 4096) }

    static func state(_ k: OpaquePointer) -> (bytes: Int, cap: Int) {
        var bytes: Int64 = 0
        var cap: Int64 = 0
        jsonapi_kept_state(k, &bytes, &cap)
        return (Int(bytes), Int(cap))
    }

    @Test func aFreedMappingIsTakenAgainWholeWithItsPages() throws {
        let k = try #require(jsonapi_kept_create(Int64(64 * Self.mib)))
        defer { jsonapi_kept_destroy(k) }
        let p = try Self.mapped(4 * Self.mib, seed: 7)
        #expect(jsonapi_kept_keep(k, p, 4 * Self.mib, 1) == 1)
        #expect(Self.state(k) == (4 * Self.mib, 64 * Self.mib))
        var whole = 0
        // Another kind, or more than it holds: not taken.
        #expect(jsonapi_kept_take(k, 2 * Self.mib, 0, &whole) == nil)
        #expect(jsonapi_kept_take(k, 6 * Self.mib, 1, &whole) == nil)
        let q = try #require(jsonapi_kept_take(k, 2 * Self.mib, 1, &whole))
        #expect(q == p && whole == 4 * Self.mib)
        // The same pages, as written: nothing was zeroed or unmapped.
        #expect(Self.holdsPattern(q, whole, seed: 7))
        #expect(Self.state(k).bytes == 0)
        #expect(jsonapi_kept_take(k, 2 * Self.mib, 1, &whole) == nil)
        munmap(q, whole)
    }

    @Test func aMappingTakenForASetSizeIsTheSmallestThatFitsCutToSize() throws {
        let k = try #require(jsonapi_kept_create(Int64(64 * Self.mib)))
        defer { jsonapi_kept_destroy(k) }
        let large = try Self.mapped(8 * Self.mib, seed: 1)
        let small = try Self.mapped(Self.mib, seed: 2)
        #expect(jsonapi_kept_keep(k, large, 8 * Self.mib, 0) == 1)
        #expect(jsonapi_kept_keep(k, small, Self.mib, 0) == 1)
        // Not for a block of less than half its size: a large mapping is left to a block
        // that grows.
        #expect(jsonapi_kept_take(k, 256 * 1024, 0, nil) == nil)
        // Cut to size: the smallest that fits, its tail unmapped.
        let p = try #require(jsonapi_kept_take(k, 512 * 1024, 0, nil))
        #expect(p == small)
        #expect(Self.holdsPattern(p, 512 * 1024, seed: 2))
        #expect(Self.isUnmapped(p + 512 * 1024))
        #expect(Self.state(k).bytes == 8 * Self.mib)
        // Whole: the largest, even for a small block.
        var whole = 0
        let q = try #require(jsonapi_kept_take(k, 256 * 1024, 0, &whole))
        #expect(q == large && whole == 8 * Self.mib)
        munmap(p, 512 * 1024)
        munmap(q, whole)
    }

    @Test func theOldestAreGivenBackFirstAndNoMoreThanTheCapIsKept() throws {
        let k = try #require(jsonapi_kept_create(Int64(3 * Self.mib)))
        defer { jsonapi_kept_destroy(k) }
        let blocks = try (0..<4).map { try Self.mapped(Self.mib, seed: UInt8($0)) }
        for b in blocks.prefix(3) { #expect(jsonapi_kept_keep(k, b, Self.mib, 0) == 1) }
        #expect(Self.state(k).bytes == 3 * Self.mib)
        // A fourth: the first (the oldest) is unmapped to make room.
        #expect(jsonapi_kept_keep(k, blocks[3], Self.mib, 0) == 1)
        #expect(Self.isUnmapped(blocks[0]))
        #expect(blocks[1...].allSatisfy { !Self.isUnmapped($0) })
        // More than the cap: refused, nothing given back; the caller unmaps it.
        let big = try Self.mapped(4 * Self.mib, seed: 9)
        #expect(jsonapi_kept_keep(k, big, 4 * Self.mib, 0) == 0)
        #expect(Self.state(k).bytes == 3 * Self.mib)
        munmap(big, 4 * Self.mib)
        // A lower cap gives back the oldest over it; releasing gives back the rest.
        jsonapi_kept_set_cap(k, Int64(Self.mib))
        #expect(Self.state(k) == (Self.mib, Self.mib))
        #expect(Self.isUnmapped(blocks[1]) && Self.isUnmapped(blocks[2]) && !Self.isUnmapped(blocks[3]))
        #expect(jsonapi_kept_release(k, 0) == Int64(Self.mib))
        #expect(Self.isUnmapped(blocks[3]))
        #expect(Self.state(k).bytes == 0)
        // A cap of 0 keeps nothing.
        jsonapi_kept_set_cap(k, 0)
        let one = try Self.mapped(Self.mib, seed: 3)
        #expect(jsonapi_kept_keep(k, one, Self.mib, 0) == 0)
        munmap(one, Self.mib)
    }

    /// Under a budget, kept mappings are given back before the process is found over it: a
    /// child process (the caps are the process's) keeps 48 MiB it has written, then sets a
    /// resident cap 16 MiB below what it holds. The check unmaps them and passes; with the
    /// cap below what remains, it fails.
    @Test func keptMappingsAreGivenBackBeforeTheBudgetIsFoundOver() async {
        await #expect(processExitsWith: .success) {
            let size = 48 << 20
            guard let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED else { exit(2) }
            for i in stride(from: 0, to: size, by: 4096) { p.storeBytes(of: 1, toByteOffset: i, as: UInt8.self) }
            let k = jsonapi_kept_default()
            jsonapi_kept_set_cap(k, Int64(64 << 20))
            guard jsonapi_kept_keep(k, p, size, 0) == 1, MemoryBudget.keptFreedBytes == size else { exit(3) }
            guard let held = MemoryBudget.usage()?.resident else { exit(4) }
            MemoryBudget.caps = MemoryBudget.Caps(resident: held - (16 << 20))
            guard jsonapi_memory_check() == 1 else { exit(5) }
            guard MemoryBudget.keptFreedBytes == 0, KeptMappingsTests.isUnmapped(p) else { exit(6) }
            // Nothing left to give back: below what the process holds now, it is over.
            guard let now = MemoryBudget.usage()?.resident else { exit(4) }
            MemoryBudget.caps = MemoryBudget.Caps(resident: now - (8 << 20))
            guard jsonapi_memory_check() == 0 else { exit(7) }
            exit(0)
        }
    }

    @Test func noMoreThanEightAreKept() throws {
        let k = try #require(jsonapi_kept_create(Int64(64 * Self.mib)))
        defer { jsonapi_kept_destroy(k) }
        let blocks = try (0..<9).map { try Self.mapped(256 * 1024, seed: UInt8($0)) }
        for b in blocks { #expect(jsonapi_kept_keep(k, b, 256 * 1024, 0) == 1) }
        #expect(Int(JSONAPI_KEPT_SLOTS) == 8)
        #expect(Self.state(k).bytes == 8 * 256 * 1024)
        #expect(Self.isUnmapped(blocks[0]))
        #expect(blocks[1...].allSatisfy { !Self.isUnmapped($0) })
    }
    #endif

    /// A record table that takes a kept mapping whole holds what fits, and frees exactly that
    /// mapping: the mapped size of its capacity is the mapping's length, whatever the stride.
    @Test func aTableTakingAMappingWholeFreesThatMapping() {
        func check<R: BitwiseCopyable>(_: R.Type) {
            for size in [256 * 1024, 256 * 1024 + 4096, 1_048_576 + 12 * 4096, 2 << 20, 6 << 20, 14 << 20] {
                let records = RecordTable<R>.records(in: size)
                #expect(records * MemoryLayout<R>.stride <= size)
                #expect(LargeAllocation.mappedSize(records * MemoryLayout<R>.stride) == size, "\(R.self) in \(size) bytes")
            }
        }
        check(UInt8.self)
        check((UInt64, UInt32).self)
        check((UInt64, UInt64, UInt64).self)
        check(GraphStorage.ResourceRecord.self)
        check((SIMD64<UInt8>, SIMD16<UInt8>, UInt8).self)
    }
}
