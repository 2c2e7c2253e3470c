import JSONAPIStream

/// Writing the text of `COPY … FROM STDIN` and of PostgreSQL array literals.
extension ByteArena {
    mutating func tab() { append(UInt8(ascii: "\t")) }

    mutating func appendDigits(_ n: Int64) {
        var s = String(n)
        s.withUTF8 { append(UnsafeRawBufferPointer($0)) }
    }

    /// A COPY text field: backslash, tab, newline and carriage return escaped; nil as `\N`.
    mutating func copyText(_ b: UnsafeRawBufferPointer?) {
        guard let b else { return append("\\N") }
        var start = 0
        for (k, c) in b.enumerated() {
            let escaped: UInt8
            switch c {
            case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
            case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
            case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
            case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
            default: continue
            }
            if k > start { append(UnsafeRawBufferPointer(rebasing: b[start..<k])) }
            append(UInt8(ascii: "\\"), escaped)
            start = k + 1
        }
        if b.count > start { append(UnsafeRawBufferPointer(rebasing: b[start...])) }
    }

    /// A COPY text field and the tab after it.
    mutating func textField(_ b: UnsafeRawBufferPointer?) {
        copyText(b)
        tab()
    }

    /// A COPY integer field and the tab after it.
    mutating func digitsField(_ n: Int64) {
        appendDigits(n)
        tab()
    }

    mutating func copyText(_ s: String) {
        var s = s
        s.withUTF8 { copyText(UnsafeRawBufferPointer($0)) }
    }

    /// A double-quoted element of a PostgreSQL array literal (backslash and quote escaped).
    mutating func arrayElement(_ b: UnsafeRawBufferPointer) {
        append(UInt8(ascii: "\""))
        for c in b {
            if c == UInt8(ascii: "\\") || c == UInt8(ascii: "\"") { append(UInt8(ascii: "\\")) }
            append(c)
        }
        append(UInt8(ascii: "\""))
    }
}
