internal import CPlatform

/// The fast pre-pass over every input byte: 64 bytes at a time with vector instructions
/// (`jsonapi_skip_plain` in CPlatform; with AVX2, valid UTF-8 and escapes in strings are
/// plain too), 32 at a time with SSE2 over ASCII, eight at a time elsewhere.
///
/// It finds what yajl cannot be trusted with or cannot tell us, and nothing else:
/// - bytes yajl wrongly accepts: form feed and vertical tab (`J01`) and ill-formed UTF-8
///   (`J02`; yajl's own string validation is off);
/// - whether the input so far ends inside a string (quote parity with escapes), and where
///   that string starts, so that only whole tokens are handed to yajl (`J07`);
/// - the offsets of line feeds, for line and column without keeping the input (`J08`).
///
/// Everything else (number and literal grammar, escapes, control characters, structure) is
/// yajl's job. When this pass or yajl reports a problem, ``LexicalScanner`` re-reads the
/// bytes concerned to say exactly what and where: the fast path never builds a message.
struct StructuralScanner {
    /// Whether the bytes scanned so far end inside a string.
    private(set) var inString = false
    /// Whether the last byte scanned was a backslash inside a string.
    private var escaped = false
    /// Absolute offset of the opening quote of the string being scanned (when `inString`).
    private(set) var stringStart = 0
    // A UTF-8 sequence in progress across reads.
    private var utf8Remaining: UInt8 = 0
    private var utf8Low: UInt8 = 0
    private var utf8High: UInt8 = 0
    /// Absolute offset of the lead byte of the UTF-8 sequence in progress.
    private var utf8Start = 0

    /// Absolute offsets of the line feeds scanned, appended in order. The stream parser lends
    /// its kept line feeds here for each scan (``StreamPositions/lendNewlines(to:)``).
    var newlines: [Int] = []

    /// Where this pass found a byte that cannot be right (the exact problem is found again by
    /// ``LexicalScanner``).
    struct Suspect: Error {
        var offset: Int
    }

    /// Scans `buffer`, whose first byte is at absolute offset `base`.
    ///
    /// - Complexity: O(`buffer.count`).
    mutating func scan(_ buffer: UnsafeRawBufferPointer, base: Int) throws(Suspect) {
        guard let p = buffer.baseAddress else { return }
        let n = buffer.count
        var i = 0
        var inString = self.inString
        defer { self.inString = inString }
        // Finish a UTF-8 sequence or an escape left open by the previous read.
        if utf8Remaining > 0 || escaped {
            while i < n && (utf8Remaining > 0 || escaped) {
                let c = p.load(fromByteOffset: i, as: UInt8.self)
                if escaped {
                    escaped = false
                    if c >= 0x80 { try startUTF8(c, at: base &+ i) } else if c == 0x0A { newlines.append(base &+ i) }
                } else {
                    guard c >= utf8Low && c <= utf8High else { throw Suspect(offset: base &+ i) }
                    utf8Low = 0x80
                    utf8High = 0xBF
                    utf8Remaining &-= 1
                }
                i &+= 1
            }
        }
        let ones: UInt64 = 0x0101_0101_0101_0101
        let lows: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        // Where the vector skip is tried next: after it stops at a block with a byte that
        // needs a closer look, that block goes word by word first.
        var vectorAt = i
        // Words of 8 bytes while there are, then the tail; a word with a byte that needs a
        // closer look, and the tail, go byte by byte.
        while i < n {
            var end = n
            if i &+ 8 <= n {
                if i >= vectorAt && n &- i >= 32 {
                    var inside: UInt8 = inString ? 1 : 0
                    var openQuote = -1
                    let skipped = jsonapi_skip_plain(p + i, n &- i, &inside, &openQuote)
                    inString = inside != 0
                    if openQuote >= 0 { stringStart = base &+ i &+ openQuote }
                    i &+= skipped
                    vectorAt = i &+ 32
                    if i &+ 8 > n { continue }
                }
                let w = (p + i).loadUnaligned(as: UInt64.self)
                // Any byte below 0x0E (line feed, tab, CR, form feed, vertical tab, NUL...), any
                // backslash or any non-ASCII byte takes the byte-by-byte path for this word.
                let low = (w &- ones &* 0x0E) & ~w & 0x8080_8080_8080_8080
                let bs = w ^ (ones &* 0x5C)
                let backslash = ~(((bs & lows) &+ lows) | bs | lows)
                if (low | backslash | (w & 0x8080_8080_8080_8080)) == 0 {
                    // Quotes, exactly (no false positives): flip the parity once per quote.
                    let qs = w ^ (ones &* 0x22)
                    let quotes = ~(((qs & lows) &+ lows) | qs | lows)
                    if quotes != 0 {
                        if quotes.nonzeroBitCount & 1 == 1 { inString.toggle() }
                        // Ending inside a string: the word's last quote opened it.
                        if inString { stringStart = base &+ i &+ ((63 &- quotes.leadingZeroBitCount) &>> 3) }
                    }
                    i &+= 8
                    continue
                }
                end = i &+ 8
            }
            // Byte by byte to `end` (a UTF-8 sequence or an escape may take it past).
            while i < end {
                let c = p.load(fromByteOffset: i, as: UInt8.self)
                i &+= 1
                if c >= 0x80 {
                    try startUTF8(c, at: base &+ i &- 1)
                    try continueUTF8(p, &i, n, base: base)
                } else if c == 0x22 {
                    inString.toggle()
                    if inString { stringStart = base &+ i &- 1 }
                } else if c == 0x5C {
                    guard inString else { continue }
                    if i == n {
                        escaped = true
                        break
                    }
                    let next = p.load(fromByteOffset: i, as: UInt8.self)
                    i &+= 1
                    if next >= 0x80 {
                        // An escaped non-ASCII byte (an error yajl reports): its sequence is
                        // still checked whole, so that a quote after it is never taken for its
                        // continuation (or it for a quote).
                        try startUTF8(next, at: base &+ i &- 1)
                        try continueUTF8(p, &i, n, base: base)
                    } else if next == 0x0A {
                        newlines.append(base &+ i &- 1)
                    }
                } else if c == 0x0A {
                    newlines.append(base &+ i &- 1)
                } else if c == 0x0B || c == 0x0C {
                    throw Suspect(offset: base &+ i &- 1)
                }
            }
        }
    }

    /// Checks the continuation bytes of the UTF-8 sequence in progress that are in
    /// `p[i..<n]`, advancing `i`; a sequence that runs past `n` is finished by the next read.
    @inline(__always)
    private mutating func continueUTF8(_ p: UnsafeRawPointer, _ i: inout Int, _ n: Int, base: Int) throws(Suspect) {
        while utf8Remaining > 0 && i < n {
            let d = p.load(fromByteOffset: i, as: UInt8.self)
            guard d >= utf8Low && d <= utf8High else { throw Suspect(offset: base &+ i) }
            utf8Low = 0x80
            utf8High = 0xBF
            utf8Remaining &-= 1
            i &+= 1
        }
    }

    @inline(__always)
    private mutating func startUTF8(_ c: UInt8, at offset: Int) throws(Suspect) {
        utf8Start = offset
        guard let lead = UTF8Lead(c) else { throw Suspect(offset: offset) }
        (utf8Remaining, utf8Low, utf8High) = (lead.remaining, lead.low, lead.high)
    }

    /// Whether the input may end here: not inside a string or a UTF-8 sequence.
    var isBetweenStrings: Bool { !inString && utf8Remaining == 0 && !escaped }

    /// The absolute offset up to which the bytes scanned (ending at absolute `end`, the last
    /// `buffer.count` of them in `buffer`) are whole tokens that yajl can finish without
    /// seeing the next byte: before an open string, before a character whose bytes have not
    /// all arrived, and before a trailing number, literal or `/` that the next read might
    /// continue.
    ///
    /// A boundary never falls between a word token and a token glued to it without a
    /// delimiter (`0"a"`, `1.é`, `tru"`): the two go to yajl together, so yajl never holds a
    /// half-read token between two reads and the error it reports (and where) does not
    /// depend on how the input was split.
    func boundary(end: Int, buffer: UnsafeRawBufferPointer, bufferBase: Int) -> Int {
        var k: Int
        if inString || escaped {
            k = stringStart &- bufferBase
        } else if utf8Remaining > 0 {
            k = utf8Start &- bufferBase
        } else {
            k = end &- bufferBase
        }
        if k < 0 { k = 0 }
        return bufferBase &+ Self.startOfWord(endingAt: k, in: buffer)
    }

    /// The start of the run of word bytes (letters, digits, `-`, `+`, `.`, `/`: a number's,
    /// a literal's or a stray slash's) that ends at `k` in `buffer` (`k` when there is none).
    @inline(__always)
    private static func startOfWord(endingAt k: Int, in buffer: UnsafeRawBufferPointer) -> Int {
        var k = k
        while k > 0 {
            let c = buffer[k &- 1]
            let isWordByte = (c | 0x20) &- 0x61 < 26 || c &- 0x30 < 10 || c == 0x2D || c == 0x2B || c == 0x2E || c == 0x2F
            if !isWordByte { break }
            k &-= 1
        }
        return k
    }

    /// Where to end the bytes handed to yajl, given the token `boundary` found by
    /// ``boundary(end:buffer:bufferBase:)`` (absolute; `buffer` holds the bytes before it,
    /// its first at absolute `bufferBase`).
    ///
    /// yajl copies the first token of every buffer into a buffer of its own (having met the
    /// end of the previous one, it cannot know that the token does not continue one started
    /// there), and for a long string that copy grows by doubling: 2 to 3 times the string.
    /// So a buffer never starts with a string: a boundary after `:`, `,`, `[` or `{` (and
    /// white space) moves back before that byte, which yajl then copies instead, and before a
    /// number or literal glued to it (a buffer never ends inside a word token).
    func feedBoundary(_ boundary: Int, buffer: UnsafeRawBufferPointer, bufferBase: Int) -> Int {
        var k = boundary &- bufferBase
        while k > 0 {
            let c = buffer[k &- 1]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { k &-= 1 } else { break }
        }
        guard k > 0 else { return boundary }
        let c = buffer[k &- 1]
        guard c == 0x3A || c == 0x2C || c == 0x5B || c == 0x7B else { return boundary }
        k &-= 1
        return bufferBase &+ Self.startOfWord(endingAt: k, in: buffer)
    }
}
