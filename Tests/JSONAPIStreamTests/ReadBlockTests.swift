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
