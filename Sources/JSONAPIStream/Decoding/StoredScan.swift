/// Fast walks over the value store for decoding. The store holds minified JSON that the
/// builder wrote and checked, so nothing here validates: every function assumes a value
/// starts at the offset it is given.
///
/// Strings are skipped eight bytes at a time (a word compare for `"` and `\`); the same scan
/// says whether the string has an escape, so a string without one becomes a `String` by a
/// single copy later.
enum StoredScan {
    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// Bytes of `w` equal to `byte`, as the high bit of each byte (exact for the lowest one).
    @inline(__always)
    private static func matches(_ w: UInt64, _ byte: UInt8) -> UInt64 {
        let x = w ^ (ones &* UInt64(byte))
        return (x &- ones) & ~x & highs
    }

    /// The offset just past the string whose opening quote is at `i`; sets `escaped` when the
    /// string holds a backslash.
    @inline(__always)
    static func skipString(_ b: UnsafeRawBufferPointer, at i: Int, escaped: inout Bool) -> Int {
        var j = i &+ 1
        let n = b.count
        while true {
            while j &+ 8 <= n {
                let w = b.loadUnaligned(fromByteOffset: j, as: UInt64.self)
                let m = matches(w, 0x22) | matches(w, 0x5C)
                if m != 0 {
                    j &+= m.trailingZeroBitCount >> 3
                    break
                }
                j &+= 8
            }
            while j < n {
                let c = b[j]
                if c == 0x22 || c == 0x5C { break }
                j &+= 1
            }
            guard j < n else { return n }
            if b[j] == 0x22 { return j &+ 1 }
            escaped = true
            j &+= 2
        }
    }

    /// The offset just past the value starting at `i`; sets `escaped` when the value is a
    /// string with a backslash.
    ///
    /// - Complexity: O(length of the value).
    @inline(__always)
    static func skipValue(_ b: UnsafeRawBufferPointer, at i: Int, escaped: inout Bool) -> Int {
        switch b[i] {
        case 0x22: return skipString(b, at: i, escaped: &escaped)
        case UInt8(ascii: "{"), UInt8(ascii: "["): return skipContainer(b, at: i)
        default:
            // A number or a literal: up to the next delimiter.
            var j = i &+ 1
            let n = b.count
            while j < n {
                let d = b[j]
                if d == UInt8(ascii: ",") || d == UInt8(ascii: "}") || d == UInt8(ascii: "]") { break }
                j &+= 1
            }
            return j
        }
    }

    @inline(never)
    static func skipContainer(_ b: UnsafeRawBufferPointer, at i: Int) -> Int {
        var depth = 0
        var j = i
        let n = b.count
        var ignored = false
        while j < n {
            let d = b[j]
            if d == 0x22 { j = skipString(b, at: j, escaped: &ignored); continue }
            if d == UInt8(ascii: "{") || d == UInt8(ascii: "[") {
                depth &+= 1
            } else if d == UInt8(ascii: "}") || d == UInt8(ascii: "]") {
                depth &-= 1
                if depth == 0 { return j &+ 1 }
            }
            j &+= 1
        }
        return n
    }

    /// The string with quotes at `start..<end` decoded; `escaped` says whether it holds a
    /// backslash (from the scan that found its end).
    @inline(__always)
    static func string(_ b: UnsafeRawBufferPointer, _ start: Int, _ end: Int, escaped: Bool) -> String {
        if !escaped { return String(decoding: UnsafeRawBufferPointer(rebasing: b[(start &+ 1)..<(end &- 1)]), as: UTF8.self) }
        return StoredJSON.decodeString(b, start..<end)
    }

    /// A short, readable description of the stored value at `start..<end` for error messages.
    static func describe(_ b: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> String {
        let kind: String
        switch b[start] {
        case 0x22: kind = "string"
        case UInt8(ascii: "{"): kind = "object"
        case UInt8(ascii: "["): kind = "array"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): kind = "bool"
        case UInt8(ascii: "n"): return "null"
        default: kind = "number"
        }
        let limit = 48
        var text = String(decoding: UnsafeRawBufferPointer(rebasing: b[start..<min(end, start + limit)]), as: UTF8.self)
        if end - start > limit { text += "…" }
        return "\(kind) \(text)"
    }
}
