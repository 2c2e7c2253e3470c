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

    /// Identifiers written in place (`appendIdentifier`), ids that need escaping among them,
    /// come back as the same text appended whole, whether they stay in memory, cross the
    /// limit (where the most an identifier can take no longer fits) or go to the file.
    @Test(arguments: [1 << 20, 100, 37]) func identifiersWrittenInPlaceAreTheTextAppended(limit: Int) throws {
        let inPlace = SpillBuffer(memoryLimit: limit)
        let whole = SpillBuffer(memoryLimit: limit)
        for i in 0..<500 {
            let type = Array((i % 3 == 0 ? "articles" : "p\"e\\ople").utf8)
            let id = i % 7 == 0 ? nil : Array("\(i)\(i % 5 == 0 ? "\n\u{1}" : "")".utf8)
            let lid = i % 4 == 0 ? Array("l\(i)".utf8) : nil
            var text = ByteArena(capacity: 64)
            if i > 0 { text.append(UInt8(ascii: ",")) }
            try type.withUnsafeBytes { t in
                try (id ?? []).withUnsafeBytes { d in
                    try (lid ?? []).withUnsafeBytes { l in
                        JSONEscaping.appendIdentifier(type: t, id: id == nil ? nil : d, lid: lid == nil ? nil : l, to: &text)
                        try inPlace.appendIdentifier(type: t, id: id == nil ? nil : d, lid: lid == nil ? nil : l, comma: i > 0)
                    }
                }
            }
            try text.withBytes { (b) throws(JSONAPIError) in try whole.append(b) }
            #expect(inPlace.count == whole.count)
        }
        var a: [UInt8] = []
        var b: [UInt8] = []
        try inPlace.drain { (bytes) throws(JSONAPIError) in a += bytes }
        try whole.drain { (bytes) throws(JSONAPIError) in b += bytes }
        #expect(a == b)
        #expect(String(decoding: a, as: UTF8.self).hasPrefix(#"{"type":"articles","lid":"l0"},{"type":"p\"e\\ople","id":"1"}"#))
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
