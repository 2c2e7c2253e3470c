#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads an ``InputSource`` one chunk at a time, when asked: ``InputSource/read(chunkSize:_:)``
/// calls ``step(_:)`` in a loop, and a reader that pulls (``ResourceStream``) calls it as it
/// needs bytes.
///
/// A source that starts with gzip's magic bytes (`1f 8b`) or zstd's (`28 b5 2f fd`) is
/// decompressed as it is read; the decision waits for the first four bytes.
final class InputPuller {
    private let source: InputSource
    private let size: Int
    /// The open file or standard input; -1 before the first read and after the last.
    private var fd: Int32 = -1
    private var ownsFD = false
    /// Where the next chunk of `.bytes` starts.
    private var offset = 0
    private var buffer: UnsafeMutableRawPointer?
    private var decoder: Decompressor? = nil
    private var decided = false
    /// The first bytes, while fewer than a magic's length, all a magic's prefix.
    private var held: [UInt8] = []
    private(set) var isFinished = false
    /// In block mode, whether the file or standard input is read into blocks (else into
    /// `buffer`), the blocks made so far (at most ``keptBlocks``), and the one read into last.
    private let readsBlocks: Bool
    private var blocks: [ReadBlock] = []
    private var block: ReadBlock?
    /// The bytes of `block` read into so far: a short read (a pipe gives 64 KiB or less at a
    /// time) is followed by the next read in the same block, after it.
    private var filled = 0
    /// The blocks a puller keeps for reading into again: batches in flight (their window is
    /// about 1 to 2 MiB of input on 2 workers) keep 5 to 10 of ``ReadBlock/largest`` at a
    /// time. A block made beyond these is freed when the last batch viewing it goes.
    static let keptBlocks = 8
    /// The block the chunk being given to `step`'s body lies in: set in block mode for bytes
    /// read as they are (not decompressed, not held back), `nil` otherwise.
    private(set) var chunkBlock: ReadBlock?

    /// `blocks`: the file or standard input is read into ``ReadBlock``s, each time one that no
    /// one else keeps any more (``chunkBlock``), so that the reader may keep views of what it
    /// read. Blocks are read into again rather than freed and made anew: a new one's pages
    /// are faults, and unmapping them stops every thread of the process.
    init(_ source: InputSource, chunkSize: Int, blocks: Bool = false) {
        self.source = source
        size = InputSource.readSize(chunkSize)
        readsBlocks = blocks && !source.isInMemory
        blockSize = min(size, ReadBlock.largest)
    }

    /// The size of a block, and of a read into one: the read size, at most
    /// ``ReadBlock/largest``.
    private let blockSize: Int

    /// A block no one else keeps (views of it are gone), to read into.
    private func freeBlock() -> ReadBlock {
        block = nil
        // Only this puller keeps it: no batch views its bytes any more, and none can come to
        // (batches take a block only from a chunk read into it, which is `chunkBlock` during
        // `step`'s body alone), so it may be written. The same check as copy-on-write's,
        // and as safe across threads: a worker's last use of the bytes comes before its
        // release of the block.
        for i in blocks.indices where isKnownUniquelyReferenced(&blocks[i]) { return blocks[i] }
        let new = ReadBlock(capacity: blockSize)
        // All kept ones viewed, and as many as are kept: the oldest is left to its views, this
        // one kept instead.
        if blocks.count == Self.keptBlocks { blocks.removeFirst() }
        blocks.append(new)
        return new
    }

    deinit {
        closeFile()
        free(buffer)
    }

    /// The read buffer, from `malloc`: a size the system refuses (a large `--chunk-size` under
    /// an address-space limit) ends in ``MemoryBudget/outOfMemory(needing:)``, an error with
    /// status 1 in the command, not a crash.
    private static func allocateBuffer(_ size: Int) -> UnsafeMutableRawPointer {
        guard let p = malloc(size) else { MemoryBudget.outOfMemory(needing: size) }
        return p
    }

    /// Reads one chunk of the source and gives `body` what it holds (decompressed when the
    /// source is compressed: none, one or several pieces). At the end, gives what was held
    /// back, ends decompression, and returns `false`.
    ///
    /// - Throws: ``JSONAPIError/input(_:)`` when the source cannot be opened or read, or its
    ///   compressed data is invalid or truncated; any error `body` throws.
    func step(_ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void) throws(JSONAPIError) -> Bool {
        guard !isFinished else { return false }
        if case .bytes(let all, _) = source {
            if offset < all.count {
                let end = min(offset + size, all.count)
                let start = offset
                offset = end
                try withContiguousBytes(of: all[start..<end]) { (chunk) throws(JSONAPIError) in try take(chunk, body) }
                return true
            }
        } else if let chunk = try readChunk() {
            try take(chunk, body)
            return true
        }
        isFinished = true
        closeFile()
        if !decided && !held.isEmpty {
            decided = true
            try withContiguousBytes(of: held) { (h) throws(JSONAPIError) in try body(h) }
        }
        switch decoder {
        case .gzip(let g)?: try g.finish()
        case .zstd(let z)?: try z.finish()
        case nil: break
        }
        return false
    }

    /// A chunk as stored: decided on (compressed or not) once there are enough bytes to tell.
    private func take(_ chunk: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void) throws(JSONAPIError) {
        if decided { return try pass(chunk, body) }
        let first = held + Array(chunk.prefix(4))
        switch Compression.detect(first) {
        case .undecided:
            held = first  // fewer than 4 bytes so far, all a magic's prefix
            return
        case .gzip: decoder = .gzip(try GzipStream(name: source.name, outputSize: size))
        case .zstd: decoder = .zstd(try ZstdStream(name: source.name, outputSize: size))
        case .none: break
        }
        decided = true
        if !held.isEmpty { try withContiguousBytes(of: held) { (h) throws(JSONAPIError) in try pass(h, body) } }
        held = []
        try pass(chunk, body)
    }

    private func pass(_ chunk: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void) throws(JSONAPIError) {
        switch decoder {
        case .gzip(let g)?: try g.feed(chunk, body)
        case .zstd(let z)?: try z.feed(chunk, body)
        case nil:
            // Bytes read as they are lie in the block (held-back bytes do not).
            chunkBlock = block.flatMap { $0.contains(chunk) ? $0 : nil }
            defer { chunkBlock = nil }
            try body(chunk)
        }
    }

    /// The next chunk of the file or standard input (valid until the next call), or `nil` at
    /// its end.
    private func readChunk() throws(JSONAPIError) -> UnsafeRawBufferPointer? {
        if fd < 0 {
            switch source {
            case .standardInput: fd = 0
            case .file(let path):
                let opened = open(path, O_RDONLY)
                guard opened >= 0 else { throw JSONAPIError.input("cannot open \(path): \(String(cString: strerror(errno)))") }
                fd = opened
                ownsFD = true
                var st = stat()
                if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                    throw JSONAPIError.input("\(path) is a directory")
                }
            case .bytes: return nil
            }
        }
        let buffer: UnsafeMutableRawPointer
        let readSize: Int
        if readsBlocks {
            if let b = block, filled < b.capacity {
                // Room after what the last reads put in the block: batches view only bytes
                // read before (below `filled`), so these may be written whoever keeps it.
                buffer = b.base + filled
                readSize = b.capacity - filled
            } else {
                let b = freeBlock()
                block = b
                filled = 0
                buffer = b.base
                readSize = blockSize
            }
        } else {
            buffer = self.buffer ?? Self.allocateBuffer(size)
            self.buffer = buffer
            readSize = size
        }
        while true {
            let n = systemRead(fd, buffer, readSize)
            if n < 0 {
                if errno == EINTR { continue }
                throw JSONAPIError.input("cannot read \(source.name): \(String(cString: strerror(errno)))")
            }
            if readsBlocks { filled += n }
            return n == 0 ? nil : UnsafeRawBufferPointer(start: buffer, count: n)
        }
    }

    private func closeFile() {
        if ownsFD && fd >= 0 { close(fd) }
        fd = -1
        ownsFD = false
    }
}
