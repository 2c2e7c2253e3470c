internal import CPlatform

/// Token boundaries as yajl's lexer draws them, for diagnostics and positions: the first
/// token at a boundary, the end of a number, the start of the token that ends somewhere, and
/// a token's description in messages. They read bytes that yajl (or the pre-scan) has
/// already found whole or at fault, so they are plain forward or backward walks.
extension LexicalScanner {
    /// The first token of `buffer` at or after `i` (which must be a token boundary): its
    /// start and end; `nil` when only white space is left.
    static func token(from i: Int, in buffer: UnsafeRawBufferPointer) -> (start: Int, end: Int)? {
        var i = i
        let n = buffer.count
        while i < n {
            let c = buffer[i]
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { i += 1; continue }
            let start = i
            if c == 0x22 {
                i += 1
                while i < n && buffer[i] != 0x22 { i += buffer[i] == 0x5C ? 2 : 1 }
                i = min(i + 1, n)
            } else if byteClass[Int(c)] == ByteClass.structural {
                i += 1
            } else if c == UInt8(ascii: "-") || c &- 0x30 < 10 {
                i = numberEnd(from: i, in: buffer)
            } else {
                // yajl reads `true`, `false` and `null` exactly, whatever follows (`falsenull`
                // is `false` then `null`); other letters are one bad word.
                for literal in ["true", "false", "null"] where buffer[start...].starts(with: literal.utf8) {
                    return (start, start + literal.utf8.count)
                }
                while i < n && (buffer[i] | 0x20) &- 0x61 < 26 { i += 1 }
                if i == start { i += 1 }
            }
            return (start, i)
        }
        return nil
    }

    /// Where the number token starting at `i` ends, as yajl's lexer reads one: `-`, then `0`
    /// or digits, then `.` and digits, then `e`, a sign and digits; it stops at the first
    /// byte that cannot continue (so `012` is `0` then `12`, and `1true` is `1` then `true`).
    static func numberEnd(from start: Int, in buffer: UnsafeRawBufferPointer) -> Int {
        let n = buffer.count
        var i = start
        func digits() { while i < n && buffer[i] &- 0x30 < 10 { i += 1 } }
        if i < n && buffer[i] == UInt8(ascii: "-") { i += 1 }
        if i < n && buffer[i] == UInt8(ascii: "0") { i += 1 } else { digits() }
        if i < n && buffer[i] == UInt8(ascii: ".") { i += 1; digits() }
        if i < n && buffer[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < n && (buffer[i] == UInt8(ascii: "+") || buffer[i] == UInt8(ascii: "-")) { i += 1 }
            digits()
        }
        return max(i, start + 1)
    }

    static func describeToken(_ span: (Int, Int), in buffer: UnsafeRawBufferPointer) -> (Int, Int, String) {
        let (s, e) = span
        guard e > s else { return (0, 0, "end of input") }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: buffer[s..<min(e, s + 40)]), as: UTF8.self) + (e - s > 40 ? "…" : "")
        let c = buffer[s]
        if c == 0x22 { return (s, e, "string " + text) }
        if byteClass[Int(c)] == ByteClass.structural { return (s, e, "'\(text)'") }
        if byteClass[Int(c)] == ByteClass.literal || byteClass[Int(c)] == ByteClass.word { return (s, e, "'\(text)'") }
        return (s, e, "number \(text)")
    }

    /// The start of the token that ends at `end` in `buffer` (yajl's consumed count during a
    /// callback). The buffer starts at a token boundary and holds whole tokens, so a
    /// backwards walk is unambiguous.
    static func tokenStart(endingAt end: Int, in buffer: UnsafeRawBufferPointer) -> Int {
        var e = min(end, buffer.count)
        while e > 0 {
            let c = buffer[e - 1]
            guard c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D else { break }
            e -= 1
        }
        guard e > 0 else { return 0 }
        let last = buffer[e - 1]
        if last == 0x22 {
            // Invariant: e >= 1 and buffer[..<e] is readable.
            return max(0, jsonapi_string_token_start(buffer.baseAddress.unsafelyUnwrapped, e))
        }
        if byteClass[Int(last)] == ByteClass.structural { return e - 1 }
        var s = e - 1
        while s > 0 {
            let d = buffer[s - 1]
            guard (d | 0x20) &- 0x61 < 26 || d &- 0x30 < 10 || d == 0x2D || d == 0x2B || d == 0x2E else { break }
            s -= 1
        }
        return s
    }

    // MARK: - Escaped strings

    /// What is wrong with a string token (quotes included, first byte at absolute offset
    /// `base`) that yajl reported unescaped, if anything. yajl has accepted its escapes and the
    /// pre-scan its bytes; what they let through hides only in `\u` escapes (an unpaired
    /// surrogate, `J03`), and the length limit is on the raw text. So a token with neither
    /// (escaped slashes and quotes: `https:\/\/…`, as PHP writes every link) is not read again.
    static func checkEscapedString(_ token: UnsafeRawBufferPointer, base: Int, limits: Limits) -> Failure? {
        if token.count &- 2 <= limits.maxStringBytes && !hasUnicodeEscape(token) {
            assert(fullCheck(token, base: base, limits: limits) == nil, "an escaped string with no \\u escape failed the full check")
            return nil
        }
        return fullCheck(token, base: base, limits: limits)
    }

    /// What the scanner finds wrong with `token`, read whole.
    static func fullCheck(_ token: UnsafeRawBufferPointer, base: Int, limits: Limits) -> Failure? {
        var scanner = LexicalScanner(limits: limits)
        do throws(Failure) {
            try scanner.scan(token, base: base)
            return nil
        } catch {
            return error
        }
    }

    /// Whether a string token holds a `\u` escape (the same test the C recorder makes).
    static func hasUnicodeEscape(_ token: UnsafeRawBufferPointer) -> Bool {
        guard let p = token.baseAddress else { return false }
        return jsonapi_has_unicode_escape(p, token.count) != 0
    }
}
