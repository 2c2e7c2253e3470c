/// Byte-level facts about JSON text, shared by the lexical scanner and the string escaper:
/// well-formed UTF-8 sequences, and the bytes a JSON string cannot hold as they are.
enum JSONBytes {
    /// Whether a well-formed UTF-8 sequence starts at `p` (with `available` bytes readable).
    static func isWellFormedSequence(_ p: UnsafePointer<UInt8>, available: Int) -> Bool {
        let c = p[0]
        var need = 0
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch c {
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: need = 2
        case 0xED: need = 2; high = 0x9F
        case 0xF0: need = 3; low = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4: need = 3; high = 0x8F
        default: return false
        }
        guard available > need else { return false }
        for k in 1...need {
            let d = p[k]
            if d < low || d > high { return false }
            low = 0x80
            high = 0xBF
        }
        return true
    }

    /// A mask with bit 7 of each byte of `w` set where that byte is a quote, a backslash, a
    /// control character or a non-ASCII byte. Exact for the lowest such byte, which is all
    /// the caller uses.
    @inline(__always)
    static func specialBytes(in w: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let q = w ^ (ones &* 0x22)
        let b = w ^ (ones &* 0x5C)
        let quote = (q &- ones) & ~q
        let backslash = (b &- ones) & ~b
        let control = (w &- ones &* 0x20) & ~w
        return (quote | backslash | control | w) & high
    }
}
