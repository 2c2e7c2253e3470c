internal import CPlatform
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory for the large arenas (the value store, interner bytes): on Linux, anonymous
/// mappings that ask for transparent huge pages (one page fault per 2 MiB instead of per
/// 4 KiB) up to ``hugePageLimit``, and grow with `mremap` (the kernel moves page tables; no
/// bytes are copied). Freed mappings are kept for the next blocks, up to
/// ``MemoryBudget/keptFreedBytesLimit``.
/// Elsewhere, ordinary allocation. Blocks below `threshold` always use `malloc`.
enum LargeAllocation {
    static let threshold = 1 << 21
    static let hugePage = 1 << 21

    static let page = 4096

    /// Rounds a byte count up to what `allocate` will hand out.
    static func roundUp(_ n: Int) -> Int {
        n < threshold ? n : (n + hugePage - 1) & ~(hugePage - 1)
    }

    /// The length of the mapping for a block of `n` bytes: whole huge pages from
    /// ``threshold`` on, whole pages below it.
    static func mappedSize(_ n: Int) -> Int {
        n < threshold ? (n + page - 1) & ~(page - 1) : roundUp(n)
    }

    /// Memory for `n` bytes. A block that is mapped (``threshold`` bytes or more, or `mapFrom`)
    /// is first counted against the ``MemoryBudget`` (past it, the run is marked over and the
    /// parser stops at its next check); a block the system refuses ends in ``MemoryBudget/outOfMemory(needing:)``.
    ///
    /// `hugePages`: whether a mapping asks for transparent huge pages. They make faulting a
    /// large arena in cheap, but each is resident whole once touched, so a block that grows
    /// a record at a time holds up to 2 MiB it has not used yet (the graph's record tables
    /// ask for none).
    ///
    /// `mapFrom`: the size from which a block is mapped rather than taken from `malloc`
    /// (``threshold`` unless given; the same value must be passed to ``reallocate`` and
    /// ``deallocate`` for the block). Mapped blocks below ``threshold`` are whole pages.
    static func allocate(byteCount n: Int, hugePages: Bool = true, mapFrom: Int = threshold) -> UnsafeMutableRawPointer {
        #if os(Linux)
        if n >= mapFrom {
            let size = mappedSize(n)
            // A mapping freed earlier (``deallocate``), cut to `size`: its pages are resident
            // already, so none is zeroed again as it is written.
            if let p = jsonapi_kept_take(jsonapi_kept_default(), size, hugePages ? 1 : 0, nil) { return p }
            return map(size, hugePages: hugePages)
        }
        #endif
        guard let p = malloc(Swift.max(n, 16)) else { MemoryBudget.outOfMemory(needing: n) }
        return p
    }

    /// Memory for at least `n` bytes, and how many bytes it is: a block that grows (a value
    /// store, a record table) takes the largest mapping kept (``deallocate``) whole, the room
    /// it may grow into without a page of it zeroed again. The count returned is a mapped
    /// size (``mappedSize(_:)`` gives it back unchanged) to pass to ``deallocate``.
    static func allocateGrowing(byteCount n: Int, hugePages: Bool = true, mapFrom: Int = threshold) -> (base: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        if n >= mapFrom {
            let size = mappedSize(n)
            var whole = 0
            if let p = jsonapi_kept_take(jsonapi_kept_default(), size, hugePages ? 1 : 0, &whole) { return (p, whole) }
            return (map(size, hugePages: hugePages), size)
        }
        #endif
        return (allocate(byteCount: n, hugePages: hugePages, mapFrom: mapFrom), n)
    }

    #if os(Linux)
    /// A new anonymous mapping of `size` bytes (a mapped size), counted against the budget.
    private static func map(_ size: Int, hugePages: Bool) -> UnsafeMutableRawPointer {
        _ = jsonapi_memory_reserve(Int64(size))
        let p = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let p, p != MAP_FAILED else { MemoryBudget.outOfMemory(needing: size) }
        if hugePages { advise(p, size) }
        return p
    }

    /// The largest mapping that asks for huge pages: 256 MiB, or `JSONAPI_HUGE_PAGE_LIMIT_MIB`
    /// (a whole number of MiB; 0 asks for none), read once. A mapping that grows past it
    /// keeps the huge pages it has, and its pages after them come 4 KiB at a time.
    ///
    /// On the VMs this was measured on, a huge page touched for the first time costs more
    /// than its 512 small pages once a process has asked for hundreds of them (the guest gives
    /// free memory back to the host, which backs it again on first touch): a graph of the
    /// 1.07 GB dump, whose value store is 800 MB, took 1.63 to 2.18 s with huge pages
    /// throughout (median 1.89) and 1.68 to 1.85 s with this limit (median 1.75); below it,
    /// huge pages are still the faster (docs/changes.md).
    static let hugePageLimit: Int = {
        guard let v = getenv("JSONAPI_HUGE_PAGE_LIMIT_MIB"), let mib = Int(String(cString: v)), mib >= 0, mib < 1 << 40 else {
            return 256 << 20
        }
        return mib << 20
    }()

    /// Asks for huge pages for the mapping at `p` of `size` bytes up to ``hugePageLimit``,
    /// and past it for small pages from here on (the pages faulted in keep their size).
    private static func advise(_ p: UnsafeMutableRawPointer, _ size: Int) {
        _ = madvise(p, size, size <= hugePageLimit ? 14 /* MADV_HUGEPAGE */ : 15 /* MADV_NOHUGEPAGE */)
    }
    #endif

    /// Grows a block from `old` to `new` bytes, keeping its first `used` bytes (`hugePages` as
    /// for ``allocate(byteCount:hugePages:)``).
    static func reallocate(
        _ p: UnsafeMutableRawPointer, from old: Int, to new: Int, used: Int, hugePages: Bool = true, mapFrom: Int = threshold
    ) -> (base: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        if old >= mapFrom {
            let size = mappedSize(new)
            _ = jsonapi_memory_reserve(Int64(size - mappedSize(old)))
            // Invariant: p was mapped with mmap and is `mappedSize(old)` bytes long.
            if let q = jsonapi_mremap(p, mappedSize(old), size) {
                if hugePages { advise(q, size) }
                return (q, new)
            }
        }
        #endif
        let (q, n) = allocateGrowing(byteCount: new, hugePages: hugePages, mapFrom: mapFrom)
        q.copyMemory(from: p, byteCount: used)
        deallocate(p, byteCount: old, hugePages: hugePages, mapFrom: mapFrom)
        return (q, n)
    }

    /// Frees a block of ``allocate(byteCount:hugePages:mapFrom:)`` (the same `hugePages` and
    /// `mapFrom`). A mapping may be kept for the next large block instead of unmapped
    /// (``MemoryBudget/keptFreedBytesLimit``).
    static func deallocate(_ p: UnsafeMutableRawPointer, byteCount n: Int, hugePages: Bool = true, mapFrom: Int = threshold) {
        #if os(Linux)
        if n >= mapFrom {
            let size = mappedSize(n)
            if jsonapi_kept_keep(jsonapi_kept_default(), p, size, hugePages ? 1 : 0) == 0 { munmap(p, size) }
            return
        }
        #endif
        free(p)
    }
}
