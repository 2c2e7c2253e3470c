import Testing
@testable import JSONAPIStream
@testable import JSONAPIBenchmarking

/// The pre-scan skips runs of plain bytes 64 at a time (AVX2) or 32 (SSE2), takes eight at a time
/// elsewhere, and carries its state across reads. Whatever the path and the split, it must
/// find what a byte-by-byte reading finds: whether the input ends inside a string and where
/// that string starts, every line feed, and the first byte that cannot be right.
struct StructuralScannerTests {
    /// What reading one byte at a time finds (the rules the scanner documents).
    struct Reference: Equatable {
        var inString = false
        var stringStart = 0
        var newlines: [Int] = []
        var suspect: Int? = nil

        init(_ bytes: [UInt8]) {
            var escaped = false
            var i = 0
            func sequenceLength(_ c: UInt8) -> (Int, ClosedRange<UInt8>)? {
                switch c {
                case 0xC2...0xDF: return (1, 0x80...0xBF)
                case 0xE0: return (2, 0xA0...0xBF)
                case 0xE1...0xEC, 0xEE...0xEF: return (2, 0x80...0xBF)
                case 0xED: return (2, 0x80...0x9F)
                case 0xF0: return (3, 0x90...0xBF)
                case 0xF1...0xF3: return (3, 0x80...0xBF)
                case 0xF4: return (3, 0x80...0x8F)
                default: return nil
                }
            }
            // Checks the UTF-8 sequence led by bytes[i]; returns the index after it, or sets
            // the suspect. A sequence cut by the end of the input is not an error here.
            func utf8(at lead: Int) -> Int? {
                guard let (count, first) = sequenceLength(bytes[lead]) else { suspect = lead; return nil }
                var k = lead + 1
                for n in 0..<count {
                    guard k < bytes.count else { return k }
                    let range: ClosedRange<UInt8> = n == 0 ? first : 0x80...0xBF
                    guard range.contains(bytes[k]) else { suspect = k; return nil }
                    k += 1
                }
                return k
            }
            while i < bytes.count {
                let c = bytes[i]
                if escaped {
                    escaped = false
                    if c >= 0x80 {
                        guard let next = utf8(at: i) else { return }
                        i = next
                        continue
                    }
                    if c == 0x0A { newlines.append(i) }
                    i += 1
                    continue
                }
                if c >= 0x80 {
                    guard let next = utf8(at: i) else { return }
                    i = next
                    continue
                }
                switch c {
                case 0x22:
                    inString.toggle()
                    if inString { stringStart = i }
                case 0x5C:
                    if inString { escaped = true }
                case 0x0A:
                    newlines.append(i)
                case 0x0B, 0x0C:
                    suspect = i
                    return
                default: break
                }
                i += 1
            }
            if !inString { stringStart = 0 }
        }
    }

    /// Scans `bytes` in reads that end at `splits`; the same shape as ``Reference``.
    static func scan(_ bytes: [UInt8], splits: [Int]) -> Reference {
        var scanner = StructuralScanner()
        var result = Reference([])
        var start = 0
        for end in splits + [bytes.count] where end > start {
            let failure: StructuralScanner.Suspect? = bytes[start..<end].withUnsafeBytes { b in
                do throws(StructuralScanner.Suspect) {
                    try scanner.scan(b, base: start)
                    return nil
                } catch {
                    return error
                }
            }
            if let failure {
                result.suspect = failure.offset
                break
            }
            start = end
        }
        result.inString = scanner.inString
        result.stringStart = scanner.inString ? scanner.stringStart : 0
        result.newlines = scanner.newlines
        return result
    }

    /// Random text: long plain runs (the vector path), quotes, escapes, escaped slashes, line
    /// feeds, tabs, valid and broken UTF-8, and now and then a form feed.
    static func randomInput(_ rng: inout SplitMix64) -> [UInt8] {
        var out: [UInt8] = []
        let pieces = Int(rng.next() % 40) + 1
        for _ in 0..<pieces {
            switch rng.next() % 16 {
            case 0...5:
                let n = Int(rng.next() % 90)
                for _ in 0..<n {
                    let b = UInt8(0x20 + rng.next() % 0x5E)
                    out.append(b == 0x5C ? 0x61 : b)
                }
            case 6, 7: out.append(0x22)
            case 8: out += [0x5C, [0x22, 0x5C, 0x6E, 0x0A, 0xC3][Int(rng.next() % 5)]]
            case 9: out.append(0x0A)
            case 10: out.append(0x09)
            case 11: out += Array("é中😀".utf8)
            case 12:
                // A long run, or links escaped as PHP writes them (backslashes in plain runs).
                out += rng.next() % 2 == 0 ? Array(repeating: 0x61, count: 64) : Array(#"https:\/\/api.example.com\/articles\/1\/relationships\/author"#.utf8)
            case 13: if rng.next() % 4 == 0 { out.append([0xC0, 0xED, 0xF5, 0x80][Int(rng.next() % 4)]) }
            case 14: if rng.next() % 8 == 0 { out.append(0x0C) }
            default: out += Array(#"{"type":"articles","id":"1"}"#.utf8)
            }
        }
        // Quotes and backslashes inside the plain runs, so the vector path flips parity too,
        // and meets backslashes before quotes, before backslashes and at a block's end.
        for _ in 0..<Int(rng.next() % 6) where !out.isEmpty { out[Int(rng.next() % UInt64(out.count))] = 0x22 }
        for _ in 0..<Int(rng.next() % 6) where !out.isEmpty { out[Int(rng.next() % UInt64(out.count))] = 0x5C }
        return out
    }

    @Test func agreesWithAByteByByteReadingAtEverySplit() {
        var rng = SplitMix64(seed: 0x5CA9)
        for _ in 0..<3000 {
            let bytes = Self.randomInput(&rng)
            let expected = Reference(bytes)
            var splits: [Int] = []
            if !bytes.isEmpty {
                for _ in 0..<Int(rng.next() % 4) { splits.append(Int(rng.next() % UInt64(bytes.count + 1))) }
            }
            splits.sort()
            let got = Self.scan(bytes, splits: splits)
            // After a suspect, only the suspect counts.
            if let s = expected.suspect {
                #expect(got.suspect == s, "input \(bytes), splits \(splits)")
            } else {
                #expect(got == expected, "input \(bytes), splits \(splits)")
            }
        }
    }

    @Test func longPlainRunsWithQuotesKeepParityAndStart() {
        // 32-byte blocks with no special byte: one quote opens a string in the second block.
        var bytes = Array(repeating: UInt8(ascii: "a"), count: 96)
        bytes[40] = 0x22
        let r = Self.scan(bytes, splits: [])
        #expect(r.inString && r.stringStart == 40 && r.suspect == nil)
        bytes[70] = 0x22
        let closed = Self.scan(bytes, splits: [])
        #expect(!closed.inString && closed.suspect == nil)
        // A form feed after a long plain run is still found, at its offset.
        bytes[90] = 0x0C
        #expect(Self.scan(bytes, splits: [33]).suspect == 90)
        // The same across 64-byte blocks: a quote in the third block opens a string, one in
        // the fourth closes it, and a form feed far into a plain run is found.
        var long = Array(repeating: UInt8(ascii: "a"), count: 320)
        long[150] = 0x22
        let open = Self.scan(long, splits: [])
        #expect(open.inString && open.stringStart == 150 && open == Reference(long))
        long[200] = 0x22
        #expect(!Self.scan(long, splits: [1]).inString)
        long[300] = 0x0C
        #expect(Self.scan(long, splits: []).suspect == 300)
    }

    @Test func backslashesInPlainBlocks() {
        // Escaped slashes: the quotes around them still count.
        let link = Array(#"{"self":"https:\/\/api.example.com\/articles\/1\/relationships\/author"}"#.utf8)
        #expect(Self.scan(link, splits: []) == Reference(link))
        #expect(!Self.scan(link, splits: []).inString)
        // An escaped quote, and a backslash ending a block before a quote, keep a string open.
        // Positions around the 32-byte blocks (SSE2) and the 64-byte ones (AVX2).
        for at in [10, 30, 31, 32, 33, 62, 63, 64, 95, 126, 127, 128, 160] {
            var bytes = Array(repeating: UInt8(ascii: "a"), count: 192)
            bytes[0] = 0x22
            bytes[at] = 0x5C
            bytes[at + 1] = 0x22
            let r = Self.scan(bytes, splits: [])
            #expect(r == Reference(bytes), "backslash at \(at)")
            #expect(r.inString && r.stringStart == 0, "backslash at \(at)")
            // Two backslashes escape each other: the quote after them closes the string.
            bytes[at - 1] = 0x5C
            let closed = Self.scan(bytes, splits: [])
            #expect(closed == Reference(bytes) && !closed.inString, "two backslashes at \(at - 1)")
        }
    }
}
