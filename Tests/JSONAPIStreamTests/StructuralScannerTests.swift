import CPlatform
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

    /// Bytes of a UTF-8 sequence (or not one) set into a plain run so that they end at every
    /// place around the end of a 64-byte block (where a sequence runs from one block into the
    /// next) and inside a block, in a string and not: the scanner finds what a byte-by-byte
    /// reading finds. Every lead byte with every second byte, and leads of three and four
    /// bytes with the continuation bytes at the edges of their ranges and past them.
    @Test func everyShortSequenceAtBlockEdges() {
        var cases: [[UInt8]] = []
        for lead in UInt8(0x80)...0xFF {
            for second in UInt8(0)...0xFF where second != 0x0A && second != 0x22 && second != 0x5C { cases.append([lead, second]) }
        }
        let edges: [UInt8] = [0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0]
        for lead in UInt8(0xE0)...0xEF { for second in edges { for third in [UInt8(0x61), 0x80, 0xBF, 0xC0] { cases.append([lead, second, third]) } } }
        for lead in UInt8(0xF0)...0xF7 {
            for second in edges { for third in [UInt8(0x80), 0xBF, 0x61] { for fourth in [UInt8(0x80), 0xBF, 0x61, 0xC0] { cases.append([lead, second, third, fourth]) } } }
        }
        var checked = 0
        for (k, bytes) in cases.enumerated() {
            // Ending at byte 63 or 64 of the second block (a sequence open across its end), or
            // in the middle of one; inside a string every third case.
            for end in [127, 128, 129, 100] {
                var input = Array(repeating: UInt8(ascii: "a"), count: 256)
                if k % 3 == 0 { input[5] = 0x22 }
                input.replaceSubrange((end - bytes.count)..<end, with: bytes)
                let expected = Reference(input)
                let got = Self.scan(input, splits: [])
                if let s = expected.suspect {
                    #expect(got.suspect == s, "\(bytes) ending at \(end)")
                } else {
                    #expect(got == expected, "\(bytes) ending at \(end)")
                }
                checked += 1
            }
        }
        #expect(checked == 4 * cases.count && checked > 130_000)
    }

    /// Where the processor has AVX2, the skip takes valid UTF-8, escaped quotes and escaped
    /// backslashes in strings 64 bytes at a time, across blocks; it stops at a block with a
    /// line feed, with a broken sequence or with a backslash outside a string, and never ends
    /// inside a sequence or before an escaped byte.
    @Test func theWideSkipTakesTextAndEscapesWhole() {
        func skip(_ text: [UInt8], inString: Bool = false) -> (Int, Bool) {
            var inside: UInt8 = inString ? 1 : 0
            var openQuote = -1
            let n = text.withUnsafeBytes { jsonapi_skip_plain($0.baseAddress, $0.count, &inside, &openQuote) }
            return (n, inside != 0)
        }
        // A string of 4 blocks of text in several scripts, escapes in it, cut to 256 bytes.
        let phrase = Array(#"mixed ASCII and 中文, é and 😀: \"quoted\" and \\ and \n — "#.utf8)
        var text: [UInt8] = [0x22]
        while text.count < 300 { text += phrase }
        text = Array(text[..<256])
        // Cut where no sequence runs on: the text ends inside a string, between characters.
        var cut = 256
        while cut > 0 && (text[cut - 1] & 0xC0 == 0x80 || text[cut - 1] >= 0xC0 || text[cut - 1] == 0x5C) { cut -= 1 }
        let whole = Array(text[..<cut]) + Array(repeating: UInt8(ascii: "a"), count: 256 - cut)
        guard jsonapi_wide_blocks() != 0 else {
            // Without AVX2, such blocks are left to the scanner's byte-by-byte reading.
            #expect(skip(whole).0 == 0)
            return
        }
        #expect(skip(whole).0 == 256, "\(whole)")
        #expect(Self.scan(whole, splits: []) == Reference(whole))
        // A broken sequence in the third block: the skip stops before that block (sooner when
        // a character of the text runs from the second block into it).
        var broken = whole
        broken[150] = 0xC3
        broken[151] = 0x41
        #expect(skip(broken).0 <= 128)
        #expect(Self.scan(broken, splits: []).suspect == Reference(broken).suspect)
        /// `count` plain bytes with `bytes` set at their offsets.
        func plain(_ count: Int, _ bytes: [Int: UInt8]) -> [UInt8] {
            var run = Array(repeating: UInt8(ascii: "a"), count: count)
            for (offset, byte) in bytes { run[offset] = byte }
            return run
        }
        // A backslash outside strings (the first string closed, a quote after it escaped).
        let outside = plain(256, [10: 0x22, 20: 0x22, 200: 0x5C, 201: 0x22])
        #expect(skip(outside).0 == 192)
        #expect(Self.scan(outside, splits: []) == Reference(outside))
        // A sequence across the end of the second block, and a line feed in the third, which
        // stops the 64-byte skip after the second block, inside the sequence: it goes back to
        // the first block's end, and the 32-byte blocks (ASCII only) take one more.
        let across = plain(192, [126: 0xE4, 127: 0xB8, 128: 0xAD, 129: 0x0A])
        #expect(skip(across).0 == 96)
        #expect(Self.scan(across, splits: []) == Reference(across))
        // An escape across the end of a block, then a block that stops: back to the block
        // before (and the 32-byte blocks stop at the backslash ending theirs).
        let escape = plain(192, [0: 0x22, 127: 0x5C, 128: 0x22, 130: 0x0A])
        #expect(skip(escape) == (96, true))
        #expect(Self.scan(escape, splits: []) == Reference(escape))
    }
}
