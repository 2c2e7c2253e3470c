/// What each byte can start or be, for the lexers and the token reader: one table, read by
/// `LexicalScanner` and `LexicalScanner+Tokens.swift`.
enum ByteClass {
    static let invalid: UInt8 = 0
    static let space: UInt8 = 1
    static let newline: UInt8 = 2
    static let structural: UInt8 = 3
    static let quote: UInt8 = 4
    static let minus: UInt8 = 5
    static let digit: UInt8 = 6
    static let literal: UInt8 = 7
    static let word: UInt8 = 8
}

/// What a UTF-8 lead byte needs after it (RFC 3629's table; Unicode 15 §3.9, table 3-7): how
/// many continuation bytes, and the range of the first of them (the later ones are
/// `0x80...0xBF`). Nil for a byte that cannot lead a sequence. Read by both lexers.
struct UTF8Lead {
    var remaining: UInt8
    var low: UInt8
    var high: UInt8

    @inline(__always)
    init?(_ c: UInt8) {
        switch c {
        case 0xC2...0xDF: (remaining, low, high) = (1, 0x80, 0xBF)
        case 0xE0: (remaining, low, high) = (2, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (remaining, low, high) = (2, 0x80, 0xBF)
        case 0xED: (remaining, low, high) = (2, 0x80, 0x9F)
        case 0xF0: (remaining, low, high) = (3, 0x90, 0xBF)
        case 0xF1...0xF3: (remaining, low, high) = (3, 0x80, 0xBF)
        case 0xF4: (remaining, low, high) = (3, 0x80, 0x8F)
        default: return nil
        }
    }
}

/// ``byteClass`` as an immortal buffer, for hot loops that keep the pointer.
nonisolated(unsafe) let byteClassTable: UnsafePointer<UInt8> = {
    let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    for i in 0..<256 { p[i] = byteClass[i] }
    return UnsafePointer(p)
}()

let byteClass: [UInt8] = {
    var t = [UInt8](repeating: ByteClass.invalid, count: 256)
    for c in [0x20, 0x09, 0x0D] { t[c] = ByteClass.space }
    t[0x0A] = ByteClass.newline
    for c in "{}[],:".utf8 { t[Int(c)] = ByteClass.structural }
    t[0x22] = ByteClass.quote
    t[Int(UInt8(ascii: "-"))] = ByteClass.minus
    for c in UInt8(ascii: "0")...UInt8(ascii: "9") { t[Int(c)] = ByteClass.digit }
    for c in UInt8(ascii: "a")...UInt8(ascii: "z") { t[Int(c)] = ByteClass.word }
    for c in UInt8(ascii: "A")...UInt8(ascii: "Z") { t[Int(c)] = ByteClass.word }
    for c in "tfn".utf8 { t[Int(c)] = ByteClass.literal }
    return t
}()

@inline(__always)
func hexDigitValue(_ c: UInt8) -> UInt8 {
    switch c {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): c &- 0x30
    case UInt8(ascii: "a")...UInt8(ascii: "f"): c &- 0x57
    case UInt8(ascii: "A")...UInt8(ascii: "F"): c &- 0x37
    default: 16
    }
}

func hex2(_ c: UInt8) -> String {
    let digits = Array("0123456789ABCDEF".utf8)
    return String(decoding: [digits[Int(c >> 4)], digits[Int(c & 15)]], as: UTF8.self)
}

func hex4(_ v: UInt32) -> String {
    hex2(UInt8(truncatingIfNeeded: v >> 8)) + hex2(UInt8(truncatingIfNeeded: v))
}

/// A byte as a user reads it in a message: `'x'` for printable ASCII, `0xNN` otherwise.
func printable(_ c: UInt8) -> String {
    if c >= 0x20 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
    return "byte 0x\(hex2(c))"
}
