import Foundation
import JSONAPIBenchmarking
import Testing
@testable import JSONAPIStream

/// Large reads are parsed where they lie, also after the last read's tail: the tail and the
/// first bytes of the read (a window of `min(4096, coalesceBytes)`) go to yajl together, and
/// the rest of the read from the first boundary among them is read in place. The output, the
/// warnings and the first error must not depend on where reads and windows fall.
struct InPlaceReadTests {
    static let generated: [UInt8] = {
        let writer = ByteWriter()
        try! DocumentGenerator(resources: 120, seed: 11).write(to: writer)
        return writer.bytes
    }()

    /// NDJSON of `input` read `size` bytes at a time (0: whole), with `coalesce`, under
    /// `document`; the error if any.
    static func normalize(
        _ input: [UInt8], size: Int, coalesce: Int = 64 * 1024, pipelined: Bool = false, document: DocumentOptions = DocumentOptions()
    ) -> (String, [Diagnostic], JSONAPIError?) {
        var options = document
        options.parse.coalesceBytes = coalesce
        if pipelined { options.parse.concurrency = .pipelined }
        let out = ByteWriter()
        let n = Normalizer(format: .ndjson, out: out, document: options)
        var warnings: [Diagnostic] = []
        n.onDiagnostic = { warnings.append($0) }
        do throws(JSONAPIError) {
            try n.beginInput(named: "test")
            try feedChunked(input, chunk: size) { (b) throws(JSONAPIError) in try n.feed(b) }
            try n.endInput()
            try n.finish()
            return (out.string, warnings, nil)
        } catch {
            return (out.string, warnings, error)
        }
    }

    static let sizes = [4095, 4096, 4097, 5000, 9000, 65_536, 65_537, 100_000]
    static let coalescing = [64 * 1024, 4096, 1000, 37]

    @Test func aLargeDocumentReadsTheSameAtEveryReadSize() {
        let input = Self.generated
        #expect(input.count > 150_000)
        let whole = Self.normalize(input, size: 0)
        #expect(whole.2 == nil)
        #expect(whole.0.split(separator: "\n").count > 300)
        for size in Self.sizes {
            for coalesce in Self.coalescing where coalesce <= size {
                let r = Self.normalize(input, size: size, coalesce: coalesce)
                #expect(r.0 == whole.0 && r.1 == whole.1 && r.2 == nil, "read size \(size), coalescing \(coalesce)")
            }
        }
        let piped = Self.normalize(input, size: 5000, coalesce: 1000, pipelined: true)
        #expect(piped.0 == whole.0 && piped.2 == nil)
    }

    /// A bad byte, a control character, a grammar error or a cut-off input placed near read
    /// and window edges: the same error (rule, position, pointer) and the same output before
    /// it, whatever the read size.
    @Test func errorsNearReadEdgesAreTheSame() {
        let base = Self.generated
        var positions: [Int] = []
        for size in [5000, 9000] {
            for k in 1...3 {
                for d in -2...2 { positions.append(size * k + d) }
                positions.append(size * k + 37)
                positions.append(size * k + 1000)
            }
        }
        let faults: [(String, (inout [UInt8], Int) -> Void)] = [
            ("invalid UTF-8", { b, p in b[p] = 0xFF }),
            ("control character", { b, p in b[p] = 0x01 }),
            ("grammar", { b, p in b[p] = UInt8(ascii: "}") }),
            ("cut off", { b, p in b.removeSubrange(p...) }),
        ]
        for (name, fault) in faults {
            for p in positions {
                var input = base
                fault(&input, p)
                let whole = Self.normalize(input, size: 0)
                #expect(whole.2 != nil || name == "grammar", "\(name) at \(p) was accepted")
                for size in [4096, 5000, 9000] {
                    for coalesce in [64 * 1024, 1000, 37] where coalesce <= size {
                        let r = Self.normalize(input, size: size, coalesce: coalesce)
                        #expect(r.2 == whole.2, "\(name) at \(p), read size \(size), coalescing \(coalesce): \(String(describing: r.2)) vs \(String(describing: whole.2))")
                        #expect(r.0 == whole.0 && r.1 == whole.1, "\(name) at \(p), read size \(size), coalescing \(coalesce): output differs")
                    }
                }
            }
        }
    }

    /// A string longer than the window, from the last read's tail into the next read: it is
    /// gathered (there is no boundary in the window), and what follows is read the same.
    @Test func aStringLongerThanTheWindowAcrossReads() {
        let long = String(repeating: "abcdefgh", count: 1500)  // 12,000 bytes
        let text = #"{"data":[{"type":"a","id":"1","attributes":{"s":"\#(long)","n":1}},{"type":"a","id":"2","attributes":{"t":"é\n"}}]}"#
        let input = Array(text.utf8)
        let whole = Self.normalize(input, size: 0)
        #expect(whole.2 == nil && whole.0.contains(long))
        for size in [4096, 4500, 5000, 8191, 9000] {
            for coalesce in [64 * 1024, 4096, 100, 37] where coalesce <= size {
                let r = Self.normalize(input, size: size, coalesce: coalesce)
                #expect(r.0 == whole.0 && r.2 == nil, "read size \(size), coalescing \(coalesce)")
            }
        }
    }
}
