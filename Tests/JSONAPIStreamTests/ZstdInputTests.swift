import Foundation
import Testing
@testable import JSONAPIStream

/// zstd input, like gzip: decompressed as it is read, the same output at every read size,
/// several frames as one stream, clear errors.
@Suite struct ZstdInput {
    static func zstd(_ bytes: [UInt8], level: Int = 3) throws -> [UInt8] {
        try GzipInput.compress(bytes, "/usr/bin/zstd", { ["-q", "-\(level)", $0, "-o", $0 + ".zst"] }, suffix: ".zst")
    }

    @Test func aCompressedDocumentReadsLikeThePlainOne() throws {
        let plain = Array(try Data(contentsOf: corpusURL("documents/spec-compound.json")))
        let compressed = try Self.zstd(plain)
        #expect(InputSource.bytes(compressed, name: "z").compression == .zstd)
        #expect(InputSource.bytes(plain, name: "p").compression == .none)
        let expected = try GzipInput.ndjson(.bytes(plain, name: "plain"), chunk: 1 << 20)
        for chunk in [1, 2, 3, 5, 100, 4096, 1 << 20] {
            #expect(try GzipInput.ndjson(.bytes(compressed, name: "zst"), chunk: chunk) == expected, "read size \(chunk)")
        }
    }

    @Test func framesOneAfterAnotherAndLargeOutput() throws {
        let a = Array(#"{"data":{"type":"a","id":"1"}}"#.utf8) + [0x0A]
        let b = Array(#"{"data":"#.utf8) + [UInt8](repeating: 0x20, count: 3 << 20) + Array(#"{"type":"b","id":"2"}}"#.utf8)
        let both = try Self.zstd(a) + Self.zstd(b, level: 19)
        let expected = try GzipInput.ndjson(.bytes(a + b, name: "plain"), chunk: 1 << 20)
        for chunk in [1, 7, 1 << 20] {
            #expect(try GzipInput.ndjson(.bytes(both, name: "zst"), chunk: chunk) == expected)
        }
    }

    @Test func badAndTruncatedDataAreErrors() throws {
        let plain = Array(try Data(contentsOf: corpusURL("documents/spec-compound.json")))
        let compressed = try Self.zstd(plain)
        func failure(_ bytes: [UInt8]) -> String? { GzipInput.inputError(bytes, name: "doc.json.zst") }
        let truncated = failure(Array(compressed.prefix(compressed.count / 2)))
        #expect(truncated?.contains("ends inside a frame") == true, "\(truncated ?? "accepted")")
        var corrupt = compressed
        for i in 12..<compressed.count - 8 { corrupt[i] ^= 0x5A }
        let bad = failure(corrupt)
        #expect(bad?.contains("invalid zstd data") == true, "\(bad ?? "accepted")")
        let trailing = failure(compressed + Array("junk".utf8))
        #expect(trailing?.contains("invalid zstd data") == true, "\(trailing ?? "accepted")")
        // Shorter than a magic: read as the plain bytes they are.
        #expect(throws: JSONAPIError.self) { try GzipInput.ndjson(.bytes([0x28, 0xB5], name: "x"), chunk: 1) }
    }
}
