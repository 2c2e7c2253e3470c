internal import CPlatform

/// The exact, diagnosing lexer: a byte-level state machine over JSON text that finds the
/// first lexical fault and says what it is and where.
///
/// The fast path does not run it. The pre-scan (``StructuralScanner``) draws token
/// boundaries and collects line feeds, and yajl lexes; this scanner reads again the bytes
/// where one of them stopped at a fault, or where the input ended badly, to say what is
/// wrong (`JSONStreamParser+Diagnosis.swift`), and it checks escaped strings
/// (``checkEscapedString(_:base:limits:)``: yajl checks escapes, not the surrogates `\u`
/// escapes encode). It checks what yajl 2.1.0 lacks (the J rules of `docs/rules.md`):
/// - `J01` only space, tab, line feed and carriage return between tokens;
/// - `J02` strict UTF-8 inside strings (no overlong forms, no encoded surrogates, nothing
///   above U+10FFFF);
/// - `J03` `\u` escapes pair surrogates;
/// - `J04`/`J06` number grammar and token length limits;
/// - `J09` the input ending inside a token.
///
/// It keeps its state between calls: a token may span any number of reads, and each byte is
/// looked at once, so time is linear in the input whatever the read size.
struct LexicalScanner {
    private(set) var mode: Mode = .between
    /// Absolute offset of the first byte of the token being scanned (valid unless `between`).
    private(set) var tokenStart = 0
    private var escapeStart = 0
    /// Where the high surrogate escape waiting for its low half starts.
    private var highSurrogateStart = 0
    private var hexRemaining: UInt8 = 0
    private var hexValue: UInt32 = 0
    private var lowSurrogateExpected = false
    private var utf8Remaining: UInt8 = 0
    /// Absolute offset of the lead byte of the UTF-8 sequence being scanned.
    private var utf8Start = 0
    private var utf8Low: UInt8 = 0
    private var utf8High: UInt8 = 0
    private var numberState: NumberState = .sign
    /// The literal being scanned, as little-endian bytes (`true`, `false`, `null`), and its length.
    private var literalWord: UInt64 = 0
    private var literalLength: UInt8 = 0
    private var literalIndex: UInt8 = 0
    /// The byte classes (``ByteClass``), cached so the hot loop does not touch a global.
    private let classes: UnsafePointer<UInt8> = byteClassTable

    let maxStringBytes: Int
    let maxNumberLength: Int

    /// Cheap to make (no allocation): the parsers make one for each escaped string they check.
    init(limits: Limits) {
        self.maxStringBytes = limits.maxStringBytes
        self.maxNumberLength = limits.maxNumberLength
    }

    /// What is wrong when the input ends in the current state.
    func endOfInputFailure(at offset: Int) -> Failure? {
        switch mode {
        case .between:
            return nil
        case .number:
            if numberState.canEnd {
                if offset - tokenStart > maxNumberLength { return numberTooLong() }
                return nil
            }
            return Failure(rule: .J00, message: "the input ends inside a number", offset: tokenStart, tokenStart: tokenStart)
        case .literal:
            return Failure(rule: .J09, message: "the input ends inside a literal", offset: offset, tokenStart: tokenStart)
        default:
            return Failure(rule: .J09, message: "the input ends inside a string", offset: offset, tokenStart: tokenStart)
        }
    }

    private func numberTooLong() -> Failure {
        Failure(rule: .J06, message: "number longer than \(maxNumberLength) characters", offset: tokenStart, tokenStart: tokenStart)
    }

    // MARK: - Scanning

    /// Scans `buffer`, whose first byte is at absolute offset `base`.
    ///
    /// - Complexity: O(`buffer.count`).
    mutating func scan(_ buffer: UnsafeRawBufferPointer, base: Int) throws(Failure) {
        guard let start = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        let n = buffer.count
        var i = 0
        while i < n {
            switch mode {
            case .between:
                // Whitespace and structural characters, one byte each.
                while i < n {
                    let c = start[i]
                    let cls = classes[Int(c)]
                    if cls == ByteClass.space { i &+= 1; continue }
                    if cls == ByteClass.structural { i &+= 1; continue }
                    if cls == ByteClass.newline { i &+= 1; continue }
                    if cls == ByteClass.quote {
                        tokenStart = base &+ i
                        mode = .string
                        i &+= 1
                        break
                    }
                    if cls == ByteClass.minus || cls == ByteClass.digit {
                        tokenStart = base &+ i
                        mode = .number
                        numberState = c == UInt8(ascii: "-") ? .sign : (c == UInt8(ascii: "0") ? .zero : .integer)
                        i &+= 1
                        break
                    }
                    if cls == ByteClass.literal {
                        tokenStart = base &+ i
                        mode = .literal
                        if c == UInt8(ascii: "t") {
                            literalWord = 0x6575_7274; literalLength = 4
                        } else if c == UInt8(ascii: "f") {
                            literalWord = 0x65_736C_6166; literalLength = 5
                        } else {
                            literalWord = 0x6C6C_756E; literalLength = 4
                        }
                        literalIndex = 1
                        i &+= 1
                        break
                    }
                    if c >= 0x80 && !JSONBytes.isWellFormedSequence(start + i, available: n &- i) {
                        throw Failure(rule: .J02, message: "invalid UTF-8 (byte 0x\(hex2(c)))", offset: base &+ i, tokenStart: base &+ i)
                    }
                    throw unexpectedByte(c, at: base &+ i)
                }

            case .string:
                // Fast path: skip eight plain bytes at a time (no quote, backslash, control
                // character or non-ASCII byte).
                while i &+ 8 <= n {
                    let w = UnsafeRawPointer(start + i).loadUnaligned(as: UInt64.self)
                    let m = JSONBytes.specialBytes(in: w)
                    if m != 0 {
                        i &+= m.trailingZeroBitCount &>> 3
                        break
                    }
                    i &+= 8
                }
                while i < n {
                    let c = start[i]
                    if c >= 0x20 && c != 0x22 && c != 0x5C && c < 0x80 { i &+= 1; continue }
                    if c == 0x22 {
                        if base &+ i &- tokenStart &- 1 > maxStringBytes { throw stringTooLong() }
                        mode = .between
                        i &+= 1
                        break
                    }
                    if c == 0x5C {
                        escapeStart = base &+ i
                        mode = .escape
                        i &+= 1
                        break
                    }
                    if c < 0x20 {
                        throw Failure(
                            rule: .J00,
                            message: "control character U+\(hex4(UInt32(c))) in a string must be escaped",
                            offset: base &+ i, tokenStart: tokenStart)
                    }
                    guard let lead = UTF8Lead(c) else { throw invalidUTF8(c, at: base &+ i, lead: true) }
                    (utf8Remaining, utf8Low, utf8High) = (lead.remaining, lead.low, lead.high)
                    utf8Start = base &+ i
                    mode = .utf8
                    i &+= 1
                    break
                }

            case .utf8:
                while i < n {
                    let c = start[i]
                    guard c >= utf8Low && c <= utf8High else { throw invalidUTF8(c, at: utf8Start, lead: false) }
                    utf8Low = 0x80
                    utf8High = 0xBF
                    utf8Remaining &-= 1
                    i &+= 1
                    if utf8Remaining == 0 { mode = .string; break }
                }

            case .escape:
                let c = start[i]
                switch c {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
                    UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                    mode = .string
                case UInt8(ascii: "u"):
                    mode = .unicodeHex
                    hexRemaining = 4
                    hexValue = 0
                default:
                    throw Failure(
                        rule: .J00, message: "invalid escape \\\(printable(c)) in a string",
                        offset: escapeStart, tokenStart: tokenStart)
                }
                i &+= 1

            case .unicodeHex:
                while i < n {
                    let c = start[i]
                    let d = hexDigitValue(c)
                    guard d < 16 else {
                        throw Failure(
                            rule: .J00, message: "\\u escape needs four hexadecimal digits, found \(printable(c))",
                            offset: escapeStart, tokenStart: tokenStart)
                    }
                    hexValue = hexValue &<< 4 | UInt32(d)
                    hexRemaining &-= 1
                    i &+= 1
                    if hexRemaining == 0 {
                        try finishUnicodeEscape()
                        break
                    }
                }

            case .lowSurrogateBackslash:
                guard start[i] == 0x5C else { throw unpairedHigh() }
                mode = .lowSurrogateU
                i &+= 1

            case .lowSurrogateU:
                guard start[i] == UInt8(ascii: "u") else { throw unpairedHigh() }
                escapeStart = base &+ i &- 1
                mode = .unicodeHex
                hexRemaining = 4
                hexValue = 0
                i &+= 1

            case .number:
                while i < n {
                    let c = start[i]
                    let isDigit = c &- 0x30 < 10
                    switch numberState {
                    case .sign:
                        guard isDigit else { throw badNumber("a digit after '-'", c, at: base &+ i) }
                        numberState = c == 0x30 ? .zero : .integer
                    case .zero:
                        if c == UInt8(ascii: ".") {
                            numberState = .dot
                        } else if c | 0x20 == UInt8(ascii: "e") {
                            numberState = .exponent
                        } else if isDigit {
                            // Reported at the number; yajl reads its `0` (or `-0`) as a whole
                            // number and stumbles on the next digit.
                            throw Failure(
                                rule: .J00, message: "a number must not have leading zeros",
                                offset: tokenStart, tokenStart: base &+ i)
                        } else {
                            try endNumber(at: base &+ i); break
                        }
                    case .integer:
                        if isDigit { break }
                        if c == UInt8(ascii: ".") { numberState = .dot } else if c | 0x20 == UInt8(ascii: "e") { numberState = .exponent } else { try endNumber(at: base &+ i) }
                    case .dot:
                        guard isDigit else { throw badNumber("a digit after '.'", c, at: base &+ i) }
                        numberState = .fraction
                    case .fraction:
                        if isDigit { break }
                        if c | 0x20 == UInt8(ascii: "e") { numberState = .exponent } else { try endNumber(at: base &+ i) }
                    case .exponent:
                        if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                            numberState = .exponentSign
                        } else if isDigit {
                            numberState = .exponentDigits
                        } else {
                            throw badNumber("a digit or sign in the exponent", c, at: base &+ i)
                        }
                    case .exponentSign:
                        guard isDigit else { throw badNumber("a digit in the exponent", c, at: base &+ i) }
                        numberState = .exponentDigits
                    case .exponentDigits:
                        if isDigit { break }
                        try endNumber(at: base &+ i)
                    }
                    if mode != .number { break }  // the byte ending the number is scanned as `between`
                    i &+= 1
                    // Too long once the byte that passes the limit is read, wherever the
                    // buffers end: a fault further on in a number past the limit is not seen,
                    // whether the number came whole or in pieces.
                    if base &+ i &- tokenStart > maxNumberLength { throw numberTooLong() }
                }

            case .literal:
                while i < n {
                    let c = start[i]
                    if literalIndex == literalLength {
                        // Finished: the next byte must not continue a word.
                        let cls = classes[Int(c)]
                        if cls == ByteClass.literal || cls == ByteClass.word || cls == ByteClass.digit {
                            // yajl reads the whole literal as a value (`false` of `falsee`)
                            // and stumbles on what follows.
                            throw Failure(
                                rule: .J00, message: "invalid literal (expected true, false or null)",
                                offset: tokenStart, tokenStart: base &+ i)
                        }
                        mode = .between
                        break
                    }
                    guard c == UInt8(truncatingIfNeeded: literalWord >> (UInt64(literalIndex) &* 8)) else {
                        throw Failure(
                            rule: .J00, message: "invalid literal (expected true, false or null)",
                            offset: tokenStart, tokenStart: tokenStart)
                    }
                    literalIndex &+= 1
                    i &+= 1
                }
            // A literal completed exactly at the end of the buffer stays open until the
            // next byte (or the end of the input) shows it is not a longer word.
            }
        }
        if mode == .string || mode == .escape || mode == .unicodeHex || mode == .utf8
            || mode == .lowSurrogateU || mode == .lowSurrogateBackslash
        {
            if base &+ n &- tokenStart &- 1 > maxStringBytes { throw stringTooLong() }
        }
    }

    /// At the end of the input: a literal spelled out in full is finished.
    mutating func finishAtEndOfInput(offset: Int) throws(Failure) {
        if mode == .literal {
            if literalIndex == literalLength { mode = .between; return }
            throw Failure(rule: .J09, message: "the input ends inside a literal", offset: offset, tokenStart: tokenStart)
        }
        if let failure = endOfInputFailure(at: offset) { throw failure }
        if mode == .number { mode = .between }
    }

    // MARK: - Pieces

    private mutating func endNumber(at offset: Int) throws(Failure) {
        if offset - tokenStart > maxNumberLength { throw numberTooLong() }
        mode = .between
    }

    private mutating func finishUnicodeEscape() throws(Failure) {
        let v = hexValue
        if lowSurrogateExpected {
            guard v >= 0xDC00 && v <= 0xDFFF else { throw unpairedHigh() }
            lowSurrogateExpected = false
            mode = .string
        } else if v >= 0xD800 && v <= 0xDBFF {
            lowSurrogateExpected = true
            highSurrogateStart = escapeStart
            mode = .lowSurrogateBackslash
        } else if v >= 0xDC00 && v <= 0xDFFF {
            throw Failure(
                rule: .J03, message: "unpaired surrogate: \\u\(hex4(v)) is a low surrogate without a high one",
                offset: escapeStart, tokenStart: tokenStart)
        } else {
            mode = .string
        }
    }

    private func unpairedHigh() -> Failure {
        Failure(
            rule: .J03, message: "unpaired surrogate: a high surrogate escape must be followed by \\u and a low surrogate",
            offset: highSurrogateStart, tokenStart: tokenStart)
    }

    private func stringTooLong() -> Failure {
        Failure(rule: .J06, message: "string longer than \(maxStringBytes) bytes", offset: tokenStart, tokenStart: tokenStart)
    }

    private func badNumber(_ expected: String, _ c: UInt8, at offset: Int) -> Failure {
        Failure(rule: .J00, message: "invalid number: expected \(expected), found \(printable(c))", offset: tokenStart, tokenStart: tokenStart)
    }

    private func invalidUTF8(_ c: UInt8, at offset: Int, lead: Bool) -> Failure {
        let what: String
        if lead {
            switch c {
            case 0x80...0xBF: what = "unexpected continuation byte"
            case 0xC0, 0xC1: what = "overlong encoding"
            default: what = "byte that never appears in UTF-8"
            }
        } else {
            what =
                utf8Remaining > 0 && c >= 0x80 && c <= 0xBF
                ? "overlong encoding, encoded surrogate or code point above U+10FFFF"
                : "truncated multi-byte sequence"
        }
        return Failure(rule: .J02, message: "invalid UTF-8: \(what) (byte 0x\(hex2(c)))", offset: offset, tokenStart: tokenStart)
    }

    private func unexpectedByte(_ c: UInt8, at offset: Int) -> Failure {
        if c < 0x20 || c >= 0x7F {
            let name: String =
                switch c {
                case 0x0C: "form feed"
                case 0x0B: "vertical tab"
                case 0x00: "NUL"
                default: "byte 0x\(hex2(c))"
                }
            return Failure(
                rule: .J01,
                message: "unexpected \(name) outside a string (JSON whitespace is space, tab, line feed and carriage return)",
                offset: offset, tokenStart: offset)
        }
        return Failure(rule: .J00, message: "unexpected character \(printable(c))", offset: offset, tokenStart: offset)
    }
}
