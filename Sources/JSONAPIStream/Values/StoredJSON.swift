/// Reading the value store: minified JSON text that the builder wrote and checked, so no
/// validation is needed and every walk is a plain byte scan; the one reader of the store, for
/// the writers, the lazy values and the typed decoder alike. Every function assumes a value
/// starts at the offset it is given. Strings are skipped eight bytes at a time (a word compare
/// for `"` and `\`); the same scan says whether the string has an escape, so that a string
/// without one becomes a `String` by a single copy.
package enum StoredJSON {
    /// The offset just past the value starting at `i`.
    ///
    /// - Complexity: O(length of the value).
    @inline(__always)
    package static func skipValue(_ b: UnsafeRawBufferPointer, at i: Int) -> Int {
        var escaped = false
        return skipValue(b, at: i, escaped: &escaped)
    }

    /// The offset just past the value starting at `i`; sets `escaped` when the value is a
    /// string with a backslash (so that decoding it can be a single copy when it has none).
    ///
    /// - Complexity: O(length of the value).
    @inline(__always)
    static func skipValue(_ b: UnsafeRawBufferPointer, at i: Int, escaped: inout Bool) -> Int {
        switch b[i] {
        case UInt8(ascii: "\""): return skipString(b, at: i, escaped: &escaped)
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

    /// The offset just past the object or array starting at `i`.
    @inline(never)
    static func skipContainer(_ b: UnsafeRawBufferPointer, at i: Int) -> Int {
        var depth = 0
        var j = i
        let n = b.count
        var ignored = false
        while j < n {
            let d = b[j]
            if d == UInt8(ascii: "\"") { j = skipString(b, at: j, escaped: &ignored); continue }
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

    /// The offset just past the string whose opening quote is at `i`.
    @inline(__always)
    package static func skipString(_ b: UnsafeRawBufferPointer, at i: Int) -> Int {
        var escaped = false
        return skipString(b, at: i, escaped: &escaped)
    }

    /// The offset just past the string whose opening quote is at `i`; sets `escaped` when the
    /// string holds a backslash.
    @inline(__always)
    static func skipString(_ b: UnsafeRawBufferPointer, at i: Int, escaped: inout Bool) -> Int {
        guard let p = b.baseAddress else { return b.count }
        var j = i &+ 1
        let n = b.count
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while true {
            // Eight bytes at a time up to the first quote or backslash: the lowest flagged
            // byte of a zero-byte test is exact (a false flag can only follow a true one).
            while j &+ 8 <= n {
                let w = (p + j).loadUnaligned(as: UInt64.self)
                let q = w ^ (ones &* 0x22)
                let s = w ^ (ones &* 0x5C)
                let m = ((q &- ones) & ~q | (s &- ones) & ~s) & highs
                if m != 0 { j &+= m.trailingZeroBitCount &>> 3; break }
                j &+= 8
            }
            while j < n {
                let c = p.load(fromByteOffset: j, as: UInt8.self)
                if c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") { break }
                j &+= 1
            }
            guard j < n else { return n }
            if p.load(fromByteOffset: j, as: UInt8.self) == UInt8(ascii: "\"") { return j &+ 1 }
            escaped = true
            j &+= 2
        }
    }

    /// The string with quotes at `start..<end` decoded; `escaped` says whether it holds a
    /// backslash (from the scan that found its end).
    @inline(__always)
    static func string(_ b: UnsafeRawBufferPointer, _ start: Int, _ end: Int, escaped: Bool) -> String {
        if !escaped { return String(decoding: UnsafeRawBufferPointer(rebasing: b[(start &+ 1)..<(end &- 1)]), as: UTF8.self) }
        return decodeString(b, start..<end)
    }

    /// A short, readable description of the stored value at `start..<end` for error messages.
    static func describe(_ b: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> String {
        let kind: String
        switch b[start] {
        case UInt8(ascii: "\""): kind = "string"
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

    /// Whether the objects at `a` and `b` have the same member names in the same order (the
    /// names compared as stored, quotes and escapes included, as a merge by name compares them).
    static func sameNames(_ b: UnsafeRawBufferPointer, _ a: Range<Int>, _ other: Range<Int>) -> Bool {
        var i = a.lowerBound + 1
        var j = other.lowerBound + 1
        let end = a.upperBound - 1
        let otherEnd = other.upperBound - 1
        while i < end && j < otherEnd {
            let nameEnd = skipString(b, at: i)
            let otherNameEnd = skipString(b, at: j)
            guard nameEnd - i == otherNameEnd - j, memoryEqual(UnsafeRawBufferPointer(rebasing: b[i..<nameEnd]), UnsafeRawBufferPointer(rebasing: b[j..<otherNameEnd]))
            else { return false }
            // Past the ':', the value and the ','.
            i = skipValue(b, at: nameEnd + 1) + 1
            j = skipValue(b, at: otherNameEnd + 1) + 1
        }
        return i >= end && j >= otherEnd
    }

    /// The members of the object at `span`: for each, the quoted name's range and the
    /// value's range (offsets into `b`).
    static func members(_ b: UnsafeRawBufferPointer, _ span: Range<Int>) -> [(name: Range<Int>, value: Range<Int>)] {
        var out: [(name: Range<Int>, value: Range<Int>)] = []
        forEachMember(b, span) { name, value in
            out.append((name, value)); return true
        }
        return out
    }

    /// Calls `body` for each member of the object at `span` until it returns false.
    @inline(__always)
    package static func forEachMember(_ b: UnsafeRawBufferPointer, _ span: Range<Int>, _ body: (Range<Int>, Range<Int>) -> Bool) {
        guard span.count >= 2, b[span.lowerBound] == UInt8(ascii: "{") else { return }
        var i = span.lowerBound + 1
        let end = span.upperBound - 1
        while i < end {
            let nameEnd = skipString(b, at: i)
            let valueStart = nameEnd + 1  // past ':'
            let valueEnd = skipValue(b, at: valueStart)
            if !body(i..<nameEnd, valueStart..<valueEnd) { return }
            i = valueEnd + 1  // past ','
        }
    }

    /// The elements of the array at `span`.
    static func elements(_ b: UnsafeRawBufferPointer, _ span: Range<Int>) -> [Range<Int>] {
        guard span.count >= 2, b[span.lowerBound] == UInt8(ascii: "[") else { return [] }
        var out: [Range<Int>] = []
        var i = span.lowerBound + 1
        let end = span.upperBound - 1
        while i < end {
            let e = skipValue(b, at: i)
            out.append(i..<e)
            i = e + 1
        }
        return out
    }

    /// Whether the quoted name at `name` (with its quotes) equals `raw` (unescaped bytes).
    /// Stored names are minimally escaped, so equal names have equal stored forms.
    static func nameEquals(_ b: UnsafeRawBufferPointer, _ name: Range<Int>, _ raw: UnsafeRawBufferPointer) -> Bool {
        let inner = UnsafeRawBufferPointer(rebasing: b[(name.lowerBound + 1)..<(name.upperBound - 1)])
        if inner.count == raw.count && memoryEqual(inner, raw) { return true }
        // `raw` may hold characters that are stored escaped.
        guard !JSONEscaping.isPlain(raw) else { return false }
        var escaped = ByteArena(capacity: raw.count + 16)
        JSONEscaping.appendQuoted(raw, to: &escaped)
        return escaped.withBytes { memoryEqual($0, UnsafeRawBufferPointer(rebasing: b[name])) }
    }

    /// Decodes the string with quotes at `span` into its UTF-8 bytes.
    package static func decodeString(_ b: UnsafeRawBufferPointer, _ span: Range<Int>) -> String {
        let inner = UnsafeRawBufferPointer(rebasing: b[(span.lowerBound + 1)..<(span.upperBound - 1)])
        if !inner.contains(UInt8(ascii: "\\")) { return String(decoding: inner, as: UTF8.self) }
        var out = ByteArena(capacity: inner.count)
        appendUnescaped(inner, to: &out)
        return out.string(0..<out.count)
    }

    /// Appends the characters of a stored string's inside (between its quotes). The store
    /// escapes only `"`, `\` and control characters (`\u00XX` or a short form).
    package static func appendUnescaped(_ inner: UnsafeRawBufferPointer, to a: inout ByteArena) {
        var start = 0
        var i = 0
        let n = inner.count
        while i < n {
            guard inner[i] == UInt8(ascii: "\\") else { i += 1; continue }
            if start < i { a.append(UnsafeRawBufferPointer(rebasing: inner[start..<i])) }
            let e = inner[i + 1]
            switch e {
            case UInt8(ascii: "b"): a.append(0x08)
            case UInt8(ascii: "f"): a.append(0x0C)
            case UInt8(ascii: "n"): a.append(0x0A)
            case UInt8(ascii: "r"): a.append(0x0D)
            case UInt8(ascii: "t"): a.append(0x09)
            case UInt8(ascii: "u"):
                var v: UInt8 = 0
                for k in 4..<6 { v = v << 4 | hexDigitValue(inner[i + k]) }
                a.append(v)
                i += 6
                start = i
                continue
            default: a.append(e)
            }
            i += 2
            start = i
        }
        if start < n { a.append(UnsafeRawBufferPointer(rebasing: inner[start..<n])) }
    }

    /// Decodes the value at `span` into a ``JSONValue``.
    package static func decode(_ b: UnsafeRawBufferPointer, _ span: Range<Int>) -> JSONValue {
        let c = b[span.lowerBound]
        switch c {
        case UInt8(ascii: "\""): return .string(decodeString(b, span))
        case UInt8(ascii: "{"):
            var o = JSONObject()
            forEachMember(b, span) { name, value in
                o.append(decodeString(b, name), decode(b, value))
                return true
            }
            return .object(o)
        case UInt8(ascii: "["):
            return .array(elements(b, span).map { decode(b, $0) })
        case UInt8(ascii: "t"): return .bool(true)
        case UInt8(ascii: "f"): return .bool(false)
        case UInt8(ascii: "n"): return .null
        default:
            return .number(JSONNumber(uncheckedText: String(decoding: UnsafeRawBufferPointer(rebasing: b[span]), as: UTF8.self)))
        }
    }
}
