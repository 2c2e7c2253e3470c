import Foundation
import Testing
@testable import JSONAPIStream

/// Reading into blocks (``InputPuller`` in block mode, ``ReadBlock``): every chunk read as it
/// is lies in the block it names; a block someone keeps is never read into again, one no one
/// keeps is; decompressed and held-back bytes name no block.
struct ReadBlockTests {
    /// A file holding `bytes`, removed after `body`.
    static func withFile<R>(_ bytes: [UInt8], _ body: (String) throws -> R) throws -> R {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-blocks-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        return try body(path)
    }

    static let text: [UInt8] = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    @Test func chunksLieInTheirBlocksAndKeptBlocksAreNotReadIntoAgain() throws {
        try Self.withFile(Self.text) { path in
            let puller = InputPuller(.file(path), chunkSize: 1000, blocks: true)
            var read: [UInt8] = []
            // Every other chunk's block is kept (as a batch viewing it would), with a copy of
            // what it held then.
            var kept: [(ReadBlock, UnsafeRawBufferPointer, [UInt8])] = []
            var blocksSeen: [ObjectIdentifier] = []
            var n = 0
            while try puller.step({ chunk in
                read += Array(chunk)
                let block = puller.chunkBlock
                #expect(block != nil, "bytes read as they are name their block")
                if let block {
                    #expect(block.contains(chunk))
                    blocksSeen.append(ObjectIdentifier(block))
                    if n % 2 == 0 { kept.append((block, chunk, Array(chunk))) }
                }
                n += 1
            }) {}
            #expect(read == Self.text)
            #expect(n == 10)
            #expect(puller.chunkBlock == nil, "named only during the body")
            // A kept block still holds what it held: nothing was read into it since.
            for (_, bytes, copy) in kept { #expect(Array(bytes) == copy) }
            // Blocks no one kept were read into again: fewer blocks than chunks.
            let distinct = Set(blocksSeen).count
            #expect(distinct < n, "a block no one keeps is read into again")
            #expect(distinct >= kept.count, "a kept block is never read into again")
        }
    }

    /// A pipe gives what has been written so far: the next read goes on in the same block,
    /// after the last, until the block is full (not a block per short read).
    @Test func shortReadsFillTheirBlockBeforeTheNext() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-fifo-\(UUID().uuidString)").path
        #expect(mkfifo(path, 0o600) == 0)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let text = Self.text
        // The writer sends 1,000 bytes at a time, pausing between them, so that reads are short.
        let writer = Thread {
            let fd = open(path, O_WRONLY)
            guard fd >= 0 else { return }
            text.withUnsafeBytes { all in
                var i = 0
                while i < all.count {
                    let end = min(i + 1000, all.count)
                    _ = write(fd, all.baseAddress! + i, end - i)
                    i = end
                    usleep(2000)
                }
            }
            close(fd)
        }
        writer.start()
        let puller = InputPuller(.file(path), chunkSize: 4096, blocks: true)
        var read: [UInt8] = []
        var chunks: [(block: ObjectIdentifier, start: UnsafeRawPointer, count: Int)] = []
        var kept: [ReadBlock] = []
        while try puller.step({ chunk in
            read += Array(chunk)
            guard let block = puller.chunkBlock else {
                Issue.record("a chunk read as it is names its block")
                return
            }
            kept.append(block)  // as batches viewing each chunk would
            chunks.append((ObjectIdentifier(block), chunk.baseAddress!, chunk.count))
        }) {}
        #expect(read == text)
        #expect(chunks.count >= 10, "short reads: \(chunks.count)")
        // Each chunk follows on from the one before it in the same block, or starts a block
        // once the last is full.
        var blocks = 0
        for (i, c) in chunks.enumerated() {
            if i == 0 || c.block != chunks[i - 1].block {
                blocks += 1
                if i > 0 { #expect(chunks.filter { $0.block == chunks[i - 1].block }.reduce(0) { $0 + $1.count } == 4096, "a block is full before the next") }
            } else {
                #expect(c.start == chunks[i - 1].start + chunks[i - 1].count, "chunk \(i) follows on in its block")
            }
        }
        #expect(blocks == (text.count + 4095) / 4096)
        // Bytes read into a block that batches kept are still what was read.
        var offset = 0
        for c in chunks {
            #expect(Array(UnsafeRawBufferPointer(start: c.start, count: c.count)) == Array(text[offset..<offset + c.count]))
            offset += c.count
        }
        _ = kept
    }

    @Test func withoutBlocksOrForCompressedInputNoChunkNamesABlock() throws {
        try Self.withFile(Self.text) { path in
            let plain = InputPuller(.file(path), chunkSize: 1000)
            var named = 0
            while try plain.step({ _ in if plain.chunkBlock != nil { named += 1 } }) {}
            #expect(named == 0)
        }
        // gzip: the decompressed bytes are the decoder's, not a block's.
        let json = Array("{\"data\":[]}".utf8)
        let zipped = try GzipInput.gzip(json)
        try Self.withFile(zipped) { path in
            let puller = InputPuller(.file(path), chunkSize: 1000, blocks: true)
            var out: [UInt8] = []
            var named = 0
            while try puller.step({ chunk in
                out += Array(chunk)
                if puller.chunkBlock != nil { named += 1 }
            }) {}
            #expect(out == json)
            #expect(named == 0)
        }
        // Bytes in memory are never read into blocks.
        let inMemory = InputPuller(.bytes(json, name: "m"), chunkSize: 4, blocks: true)
        var named = 0
        while try inMemory.step({ _ in if inMemory.chunkBlock != nil { named += 1 } }) {}
        #expect(named == 0)
    }
}
