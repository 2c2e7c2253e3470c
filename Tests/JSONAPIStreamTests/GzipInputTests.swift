import Foundation
import Testing
@testable import JSONAPIStream

/// Inputs that start with gzip's magic bytes are decompressed as they are read: the same
/// output as the plain bytes, at every read size; several members read as one stream;
/// positions count decompressed bytes; bad, truncated or trailing data is a clear error.
@Suite struct GzipInput {
    /// `bytes` compressed by gzip(1).
    static func gzip(_ bytes: [UInt8], level: Int = 6) throws -> [UInt8] {
        try compress(bytes, "/bin/gzip", { ["-\(level)", "-n", $0] }, suffix: ".gz")
    }

    /// `bytes` written to a file, compressed by `program` with `arguments(path)`, read back
    /// from `path + suffix`.
    static func compress(_ bytes: [UInt8], _ program: String, _ arguments: (String) -> [String], suffix: String) throws -> [UInt8] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("compressed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in").path
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: program)
        p.arguments = arguments(file)
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "\(program) failed (Scripts/setup.sh installs it)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: file + suffix)))
    }

    /// The message of the input error that reading `bytes` ends with (nil: read fine).
    static func inputError(_ bytes: [UInt8], name: String) -> String? {
        do {
            _ = try ndjson(.bytes(bytes, name: name), chunk: 64)
            return nil
        } catch {
            guard case .input(let message) = error else { return "not an input error: \(error)" }
            return message
        }
    }

    /// Normalizes `source` to NDJSON, read in chunks of `chunk`.
    static func ndjson(_ source: InputSource, chunk: Int) throws(JSONAPIError) -> String {
        let out = ByteWriter()
        let n = Normalizer(format: .ndjson, out: out, output: OutputOptions(), document: .default, duplicates: .last)
        try n.beginInput(named: "test")
        try source.read(chunkSize: chunk) { (b) throws(JSONAPIError) in try n.feed(b) }
        try n.endInput()
        try n.finish()
        return out.string
    }

    @Test func aCompressedDocumentReadsLikeThePlainOne() throws {
        let plain = Array(try Data(contentsOf: corpusURL("documents/spec-compound.json")))
        let compressed = try Self.gzip(plain)
        #expect(compressed.count < plain.count)
        let expected = try Self.ndjson(.bytes(plain, name: "plain"), chunk: 1 << 20)
        for chunk in [1, 2, 3, 7, 100, 4096, 1 << 20] {
            #expect(try Self.ndjson(.bytes(compressed, name: "gz"), chunk: chunk) == expected, "read size \(chunk)")
        }
        #expect(InputSource.bytes(compressed, name: "gz").knownSize == nil)
        #expect(InputSource.bytes(plain, name: "plain").knownSize == plain.count)
    }

    /// A FIFO is not opened to look at its size or its first bytes in advance (opening it
    /// waits for a writer, and the bytes read are gone); read in its turn, a compressed
    /// stream through it still comes out whole.
    @Test func aFIFOIsNotOpenedBeforeItIsRead() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("in").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let source = InputSource.file(fifo)
        let plain = Array(try Data(contentsOf: corpusURL("documents/spec-compound.json")))
        let compressed = try Self.gzip(plain)
        #expect(compressed.count < 16 << 10, "fits a pipe's buffer")
        // Held open for reading and writing (which does not wait for a partner) with the
        // compressed bytes in it: looking at the FIFO must not take any of them.
        let held = open(fifo, O_RDWR | O_NONBLOCK)
        #expect(held >= 0)
        #expect(compressed.withUnsafeBytes { write(held, $0.baseAddress!, $0.count) } == compressed.count)
        #expect(source.knownSize == nil)
        #expect(source.compression == Compression.none)
        var back = [UInt8](repeating: 0, count: compressed.count + 1)
        let n = back.withUnsafeMutableBytes { read(held, $0.baseAddress!, $0.count) }
        #expect(n == compressed.count, "bytes taken from the FIFO before its turn")
        close(held)
        // Read in its turn: gzip through the FIFO, the same lines as the plain bytes.
        Thread.detachNewThread {
            let w = open(fifo, O_WRONLY)
            guard w >= 0 else { return }
            _ = compressed.withUnsafeBytes { write(w, $0.baseAddress!, $0.count) }
            close(w)
        }
        #expect(try Self.ndjson(source, chunk: 3) == Self.ndjson(.bytes(plain, name: "plain"), chunk: 1 << 20))
    }

    @Test func membersOneAfterAnotherAreOneStream() throws {
        let a = Array(#"{"data":{"type":"a","id":"1"}}"#.utf8) + [0x0A]
        let b = Array(#"{"data":{"type":"b","id":"2"}}"#.utf8) + [0x0A]
        let both = try Self.gzip(a) + Self.gzip(b)
        let expected = try Self.ndjson(.bytes(a + b, name: "plain"), chunk: 1 << 20)
        for chunk in [1, 5, 64, 1 << 20] {
            #expect(try Self.ndjson(.bytes(both, name: "gz"), chunk: chunk) == expected)
        }
    }

    /// Output far larger than its input (a run of spaces) comes out whole, in pieces no larger
    /// than the read size, whatever the read size.
    @Test func highlyCompressedInputIsDrained() throws {
        let plain = Array(#"{"data":"#.utf8) + [UInt8](repeating: 0x20, count: 3 << 20) + Array(#"{"type":"a","id":"1"}}"#.utf8)
        let compressed = try Self.gzip(plain, level: 9)
        #expect(compressed.count < 8192)
        for chunk in [1, 1000, 1 << 20] {
            var total = 0
            var largest = 0
            try InputSource.bytes(compressed, name: "gz").read(chunkSize: chunk) { b in
                total += b.count
                largest = max(largest, b.count)
            }
            #expect(total == plain.count, "read size \(chunk)")
            #expect(largest <= max(chunk, 64 * 1024))
        }
    }

    @Test func positionsCountDecompressedBytes() throws {
        let plain = Array("{\"data\":{\"type\":\"a\",\n\"id\":\"1\",}}".utf8)
        let compressed = try Self.gzip(plain)
        do {
            _ = try Self.ndjson(.bytes(compressed, name: "gz"), chunk: 3)
            Issue.record("accepted")
        } catch {
            guard case .syntax(let d) = error else { Issue.record("\(error)"); return }
            #expect(d.location.offset == 30 && d.location.line == 2 && d.location.column == 10, "\(d)")
        }
    }

    @Test func badTruncatedAndTrailingDataAreErrors() throws {
        let plain = Array(try Data(contentsOf: corpusURL("documents/spec-compound.json")))
        let compressed = try Self.gzip(plain)
        func failure(_ bytes: [UInt8]) -> String? { GzipInput.inputError(bytes, name: "doc.json.gz") }
        let truncated = failure(Array(compressed.prefix(compressed.count / 2)))
        #expect(truncated?.contains("ends inside a member") == true, "\(truncated ?? "accepted")")
        var corrupt = compressed
        for i in 20..<40 { corrupt[i] ^= 0x5A }
        let bad = failure(corrupt)
        #expect(bad?.contains("invalid gzip data near compressed byte") == true, "\(bad ?? "accepted")")
        let trailing = failure(compressed + Array("junk".utf8))
        #expect(trailing?.contains("data after the end of the gzip stream at compressed byte \(compressed.count)") == true, "\(trailing ?? "accepted")")
        // A bad CRC (the last 8 bytes are CRC-32 and size).
        var crc = compressed
        crc[crc.count - 6] ^= 0xFF
        let badCRC = failure(crc)
        #expect(badCRC?.contains("invalid gzip data") == true, "\(badCRC ?? "accepted")")
    }
}
