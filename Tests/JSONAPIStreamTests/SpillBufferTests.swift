import Foundation
import Testing

@testable import JSONAPIStream

/// A document's primary linkage, held in memory up to a limit and then in a temporary file,
/// comes back whole and in order, in pieces no larger than `SpillBuffer.drainPiece`.
struct SpillBufferTests {
    /// Appends `count` numbered pieces of varying length and drains them.
    private func roundTrip(limit: Int, count: Int) throws -> (expected: [UInt8], pieces: [Int], drained: [UInt8]) {
        let buffer = SpillBuffer(memoryLimit: limit)
        var expected: [UInt8] = []
        for i in 0..<count {
            let piece = Array(#"{"type":"t","id":"\#(i)\#(String(repeating: "x", count: i % 37))"},"#.utf8)
            expected += piece
            try piece.withUnsafeBytes { try buffer.append($0) }
        }
        #expect(buffer.count == expected.count)
        var pieces: [Int] = []
        var drained: [UInt8] = []
        try buffer.drain { (b) throws(JSONAPIError) in
            pieces.append(b.count)
            drained += b
        }
        #expect(buffer.isEmpty)
        return (expected, pieces, drained)
    }

    @Test(arguments: [1 << 20, 1000]) func drainsWholeInBoundedPieces(limit: Int) throws {
        // About 2.6 MB: past the limit, so it is in the file, or with the default limit
        // it goes to the file after the first MiB.
        let r = try roundTrip(limit: limit, count: 60_000)
        #expect(r.drained == r.expected)
        #expect(r.pieces.count > 1)
        #expect(r.pieces.allSatisfy { $0 > 0 && $0 <= SpillBuffer.drainPiece }, "\(r.pieces.max() ?? 0)")
    }

    @Test func drainsWhatStayedInMemoryInBoundedPieces() throws {
        // About 300 kB, under the limit: drained from memory, also in pieces.
        let r = try roundTrip(limit: 1 << 20, count: 7_000)
        #expect(r.expected.count > 4 * SpillBuffer.drainPiece && r.expected.count < 1 << 20)
        #expect(r.drained == r.expected)
        #expect(r.pieces.allSatisfy { $0 > 0 && $0 <= SpillBuffer.drainPiece })
    }

    @Test func anEmptyBufferDrainsNothingAndCanBeUsedAgain() throws {
        let buffer = SpillBuffer(memoryLimit: 10)
        var calls = 0
        try buffer.drain { (_) throws(JSONAPIError) in calls += 1 }
        #expect(calls == 0)
        try Array("0123456789abcdef".utf8).withUnsafeBytes { try buffer.append($0) }
        var text: [UInt8] = []
        try buffer.drain { (b) throws(JSONAPIError) in text += b }
        #expect(String(decoding: text, as: UTF8.self) == "0123456789abcdef")
        try Array("again".utf8).withUnsafeBytes { try buffer.append($0) }
        text = []
        try buffer.drain { (b) throws(JSONAPIError) in text += b }
        #expect(String(decoding: text, as: UTF8.self) == "again")
    }

    /// A document whose primary linkage spills (60,000 primary resources, about 2 MB of
    /// identifiers): its NDJSON document line lists every one of them, in order, through a
    /// file writer that flushes between the pieces, the same as from a memory writer.
    @Test func aDocumentLineWithASpilledLinkageIsWhole() throws {
        let n = 60_000
        var text = #"{"data":["#
        for i in 0..<n { text += (i == 0 ? "" : ",") + #"{"type":"articles","id":"\#(i)"}"# }
        text += "]}"
        let input = Array(text.utf8)

        func normalize(_ out: ByteWriter) throws {
            let normalizer = Normalizer(format: .ndjson, out: out)
            try normalizer.beginInput(named: "-")
            try input.withUnsafeBytes { try normalizer.feed($0) }
            try normalizer.finish()
            try out.flush()
        }
        let memory = ByteWriter()
        try normalize(memory)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("spill-\(UUID().uuidString).ndjson").path
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { unlink(path) }
        try normalize(ByteWriter(fd: fd, bufferSize: 16 * 1024))
        close(fd)
        let written = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(written == Data(memory.bytes))

        let lines = memory.string.split(separator: "\n")
        #expect(lines.count == n + 1)
        let last = try #require(lines.last)
        var expected = #"{"document":{"data":["#
        for i in 0..<n { expected += (i == 0 ? "" : ",") + #"{"type":"articles","id":"\#(i)"}"# }
        expected += "]}}"
        #expect(last == expected[...])
    }
}
