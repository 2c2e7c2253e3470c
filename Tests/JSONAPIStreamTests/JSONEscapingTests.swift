import Testing

@testable import JSONAPIStream

/// `JSONEscaping.appendQuoted` (its plain case is found eight bytes at a time) against a
/// byte-at-a-time escaping of the output contract's rules, on text of every kind: JSON text,
/// quotes and backslashes next to each other, every control character, UTF-8 of two to four
/// bytes, and bytes that are not UTF-8 at all, at every length and offset around eight-byte
/// words.
struct JSONEscapingTests {
    /// The output contract's escaping, one byte at a time.
    static func reference(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        let hex = Array("0123456789abcdef".utf8)
        for c in bytes {
            switch c {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x08: out += [0x5C, UInt8(ascii: "b")]
            case 0x0C: out += [0x5C, UInt8(ascii: "f")]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0..<0x20: out += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 15)]]
            default: out.append(c)
            }
        }
        return out
    }

    static func escaped(_ bytes: [UInt8]) -> [UInt8] {
        var a = ByteArena(capacity: 16)
        bytes.withUnsafeBytes { JSONEscaping.appendQuoted($0, to: &a) }
        return a.array(1..<a.count - 1)
    }

    @Test func everyKindOfTextEscapesAsByteByByte() {
        let pieces: [[UInt8]] = [
            Array(#"{"self":"https://example.com/a?b=1","meta":{"n":[1,2]}}"#.utf8), Array("é😀中".utf8), [0x22, 0x5C, 0x22],
            Array(0..<0x20), [0x7F, 0x80, 0xA2, 0xBC, 0xDC, 0xFF], Array("plain ascii text without anything".utf8),
        ]
        var seeded = XorShift(seed: 17)
        var checked = 0
        for _ in 0..<3000 {
            var text: [UInt8] = []
            for _ in 0..<Int(seeded.next() % 5) {
                let piece = pieces[Int(seeded.next() % UInt64(pieces.count))]
                let start = Int(seeded.next() % UInt64(piece.count))
                text += piece[start...]
            }
            // Every offset of the text in its eight-byte words.
            for skip in 0..<min(text.count + 1, 9) {
                let t = Array(text[skip...])
                #expect(Self.escaped(t) == Self.reference(t), "\(t)")
                checked += 1
            }
        }
        for c in UInt8.min...UInt8.max {
            for length in [1, 7, 8, 9, 17] {
                let t = [UInt8](repeating: c, count: length)
                #expect(Self.escaped(t) == Self.reference(t), "\(c) × \(length)")
            }
        }
        #expect(checked > 10_000)
    }

    /// The writers' one-check helpers: `appendMember` (a name and colon, then the quoted
    /// value) and `appendName` (a member name with its colon, after a comma or not) give the
    /// same bytes as writing the pieces one by one, plain or escaped, at every length to 24.
    @Test func memberAndNameHelpersWriteWhatThePiecesWould() {
        var seeded = XorShift(seed: 5)
        let alphabet: [UInt8] = Array("ab1-_".utf8) + [0x22, 0x5C, 0x0A, 0x01, 0xC3, 0xA9]
        for length in 0...24 {
            for _ in 0..<40 {
                let t = (0..<length).map { _ in alphabet[Int(seeded.next() % UInt64(alphabet.count))] }
                let quoted = [0x22] + Self.reference(t) + [0x22]
                var member = ByteArena(capacity: 16)
                member.append(UInt8(ascii: "["))
                t.withUnsafeBytes { JSONEscaping.appendMember(#","id":"#, quoting: $0, to: &member) }
                #expect(member.array(0..<member.count) == Array("[,\"id\":".utf8) + quoted, "\(t)")
                for comma in [false, true] {
                    var name = ByteArena(capacity: 16)
                    t.withUnsafeBytes { JSONEscaping.appendName($0, comma: comma, to: &name) }
                    #expect(name.array(0..<name.count) == (comma ? [0x2C] : []) + quoted + [0x3A], "\(t) comma \(comma)")
                }
            }
        }
    }

    /// `isPlain` gathers short strings and the tails of long ones into overlapping words:
    /// every byte value at every position of every length up to three words, on ASCII
    /// filler (where the answer must be exact) and on UTF-8 filler (where it may only err
    /// towards escaping, never pass a byte that needs it).
    @Test func plainIsFoundAtEveryLengthAndPosition() {
        for filler in [UInt8(ascii: "a"), 0xC3] {
            for length in 1...24 {
                for position in 0..<length {
                    for c in UInt8.min...UInt8.max {
                        var t = [UInt8](repeating: filler, count: length)
                        t[position] = c
                        let needsEscaping = c < 0x20 || c == 0x22 || c == 0x5C
                        let plain = t.withUnsafeBytes { JSONEscaping.isPlain($0) }
                        if filler < 0x80 && c < 0x80 {
                            #expect(plain == !needsEscaping, "\(c) at \(position) of \(length)")
                        } else if needsEscaping {
                            #expect(!plain, "\(c) at \(position) of \(length)")
                        }
                    }
                }
            }
        }
        #expect([UInt8]().withUnsafeBytes { JSONEscaping.isPlain($0) })
        // A 10-byte slice whose readable neighbours need escaping: only its own bytes count.
        let framed = Array(#""abcdefghij""#.utf8)
        #expect(framed.withUnsafeBytes { JSONEscaping.isPlain(UnsafeRawBufferPointer(rebasing: $0[1..<11])) })
        #expect(framed.withUnsafeBytes { JSONEscaping.isPlain(UnsafeRawBufferPointer(rebasing: $0[1..<4])) })
    }
}
