#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory an input is read into (``InputPuller`` in block mode) that the batches of a
/// ``ParallelReader`` may view instead of copying: a batch keeps the blocks its views lie
/// in, and a block is freed when the puller and every batch viewing it have let go of it.
/// The puller reads into a block again only while it alone keeps it.
///
/// Batches are made on the reader's thread and let go of their bytes on a worker's, once
/// read (``ParallelWorker/read(_:)``): reference counting is atomic, and a worker's last read
/// of the bytes comes before its release, which the puller's uniqueness check sees.
final class ReadBlock: @unchecked Sendable {
    /// Invariant: `capacity` bytes from `malloc`, owned by this object, freed in `deinit`;
    /// written only while the reader alone keeps the block (before any batch views them).
    let base: UnsafeMutableRawPointer
    let capacity: Int

    init(capacity: Int) {
        let size = max(1, capacity)
        guard let p = malloc(size) else { MemoryBudget.outOfMemory(needing: size) }
        base = p
        self.capacity = size
    }

    deinit { free(base) }

    /// Whether `bytes` lie in this block.
    func contains(_ bytes: UnsafeRawBufferPointer) -> Bool {
        UnsafeRawBufferPointer(start: base, count: capacity).encloses(bytes)
    }

    /// The read sizes blocks are used for: below, nearly every batch would straddle blocks
    /// (a view per block); above, a block would be a lot of memory for a batch to keep (a
    /// read size may be up to 1 GiB).
    static let readSizes = 64 * 1024...(8 << 20)

    /// The largest block, and so the largest read into one: a batch's size
    /// (``ParseOptions/workerBatchBytes``' default). Blocks of a MiB (the default read size)
    /// kept by the batches in flight took 1.5 MiB more at the peak than copies of the batches
    /// (30.8 against 29.2 MiB for NDJSON of the 1.06 GB document on 2 workers); blocks of 256
    /// KiB keep about as much as the copies did (within half a MiB). A batch that straddles
    /// blocks has a view of each.
    static let largest = 256 * 1024
}

/// Where a chunk fed to a ``ParallelReader`` lies, and so whether a batch may view it rather
/// than copy it (``BatchBytes``).
enum ChunkPlace {
    /// Valid only during the call that feeds it: copied.
    case transient
    /// Valid until the workers stop (``ParallelReader/readWhole(_:name:chunkSize:)``).
    case stable
    /// In a block, valid while the block is kept.
    case block(ReadBlock)

    var isTransient: Bool {
        if case .transient = self { return true }
        return false
    }

    /// The block a view of the chunk keeps (none for the other places).
    var block: ReadBlock? {
        if case .block(let b) = self { return b }
        return nil
    }
}
