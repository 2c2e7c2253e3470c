internal import CPlatform

/// When yajl or the pre-scan refuses the input: which rule, where, and which token, with
/// the exact wording (yajl's own messages are read here and only here).
extension JSONStreamParser {
    // MARK: - Diagnosis

    /// The pre-scan found a suspect byte at `suspect` (or the input ends inside a token):
    /// reads the unfed bytes again with the ``LexicalScanner`` for the exact error, first
    /// handing yajl the whole tokens before it (an earlier grammar error wins). Always throws
    /// unless `yajlFailed` and the bytes are lexically fine.
    @inline(never)
    func diagnoseWindow(suspect: Int, atEnd: Bool = false) throws(JSONAPIError) {
        var scanner = LexicalScanner(limits: options.limits)
        let base = pendingBase
        let outcome: LexicalScanner.Failure? = pending.withBytes { all in
            do throws(LexicalScanner.Failure) {
                try scanner.scan(all, base: base)
                if atEnd { try scanner.finishAtEndOfInput(offset: base + all.count) }
                return nil
            } catch {
                return error
            }
        }
        guard let f = outcome else {
            // Cannot happen: the lexical scanner refuses everything the pre-scan suspects.
            throw failed(.syntax(diagnostic(.J02, "invalid byte", at: suspect)))
        }
        try feedTokensBeforeFailure(at: f.tokenStart)
        // yajl has had the tokens before the bad one: it is the next value (or a member name,
        // whose pointer is then its object's).
        throw failed(.syntax(diagnostic(f.rule, f.message, at: f.offset, request: f.offset < f.tokenStart ? .current : .nextValue)))
    }

    /// Hands yajl the whole tokens before a lexical failure whose token starts at absolute
    /// `end`, followed by one space that is not part of the input: the token just before the
    /// failure ended there, and the space lets yajl see that (a trailing number or literal is
    /// otherwise held, waiting for more). A grammar error, or a receiver's error, in those
    /// tokens comes first in the input and wins.
    func feedTokensBeforeFailure(at end: Int) throws(JSONAPIError) {
        let n = end - pendingBase
        guard n > 0 else { return }
        var piece = [UInt8](repeating: 0x20, count: n + 1)
        pending.withBytes { all in
            piece.withUnsafeMutableBytes { $0.copyMemory(from: UnsafeRawBufferPointer(rebasing: all[..<n])) }
        }
        let base = pendingBase
        var failure: JSONAPIError? = nil
        piece.withUnsafeBytes { b in
            let status = parse(b, base: base)
            if status != .ok {
                do throws(JSONAPIError) { try check(status, base: base, buffer: b) } catch { failure = error }
            }
        }
        if let failure { throw failure }
        pending.removeFirst(n)
        pendingBase = end
        pendingScanned -= n
        dropLines(before: end)
    }

    func check(_ status: YajlParser.Status, base: Int, buffer: UnsafeRawBufferPointer?) throws(JSONAPIError) {
        switch status {
        case .ok:
            return
        case .cancelled:
            throw failed(receiverError())
        case .outOfMemory:
            // yajl's allocator refused or failed (its handle is spent), or the value store,
            // the tape or a buffer grew past the budget during this call.
            let at = completing ? received : memoryRefusal != nil ? base : base + min(yajl.bytesConsumed, buffer?.count ?? 0)
            throw failed(.syntax(diagnostic(.J12, MemoryBudget.exhaustedMessage(needing: memoryRefusal), at: at, request: .nextValue)))
        case .error:
            if receiverFailure != nil { throw failed(receiverError()) }
            let message = yajl.errorMessage()
            let consumed = completing ? 0 : yajl.bytesConsumed
            guard let buffer, !message.contains("premature EOF") else {
                guard let receiver else {
                    throw failed(.syntax(diagnostic(.J09, "the input ends inside a value", at: received, request: .truncation)))
                }
                throw failed(.syntax(diagnostic(.J09, Self.truncationMessage(depth: receiver.depth), at: received, pointer: receiver.currentPointer())))
            }
            // A lexical problem yajl met (a bad escape, a control character, a bad number)
            // is named by the lexical scanner, if it comes before the token yajl stopped on.
            var scanner = LexicalScanner(limits: options.limits)
            var (start, token) = offendingToken(message: message, consumed: consumed, in: buffer)
            var grammar = message.contains("after key and value") || message.contains("after array element")
                || message.contains("invalid object key") || message.contains("separated by a colon")
                || message.contains("unallowed token")
            if message.contains("trailing garbage"), receiver != nil, let (s, _, t) = firstTokenAfterValue(in: buffer) {
                // Grammar unless the garbage itself (or something before it) is lexically bad.
                (start, token, grammar) = (s, t, true)
            }
            // A grammar error names a token that lexed fine; anything else yajl reports is a
            // lexical problem (including a lone `/`, which yajl takes for a comment), and
            // yajl's offset for those is loose: the lexical scanner finds the first one and
            // says exactly where.
            do {
                try scanner.scan(buffer, base: base)
            } catch {
                if error.tokenStart <= base + start || !grammar {
                    // yajl stopped at the bad token, or after taking its start for a value of its
                    // own (`0` of `012`): the pointer is that of the value it is, or would be.
                    let request: PointerRequest = error.offset < base + start ? .current : .nextValue
                    throw failed(.syntax(diagnostic(error.rule, error.message, at: error.offset, request: request)))
                }
            }
            let text: String
            if message.contains("trailing garbage") {
                text = "unexpected \(token) after the JSON value"
            } else if message.contains("allowed token") || message.contains("invalid token") {
                text = "unexpected \(token)"
            } else {
                var m = Substring(message)
                if let colon = m.firstIndex(of: ":") { m = m[m.index(after: colon)...].drop(while: { $0 == " " }) }
                text = "\(m) (at \(token))"
            }
            throw failed(.syntax(diagnostic(.J00, text, at: base + start)))
        }
    }

    /// The first token after the (single) top-level value in `buffer`, found by reading its
    /// tokens from the nesting depth it was fed at: what yajl calls trailing garbage. yajl's
    /// own offset cannot say (it is after that token when it lexed, inside it or before it
    /// when it did not).
    func firstTokenAfterValue(in buffer: UnsafeRawBufferPointer) -> (Int, Int, String)? {
        var depth = feedDepth
        var done = feedDepth == 0 && valueStartedBeforeFeed
        var i = 0
        while let t = Self.token(from: i, in: buffer) {
            if done { return describeToken((t.start, t.end), in: buffer) }
            let c = buffer[t.start]
            if c == UInt8(ascii: "{") || c == UInt8(ascii: "[") {
                depth += 1
            } else if c == UInt8(ascii: "}") || c == UInt8(ascii: "]") {
                depth -= 1
                done = depth <= 0
            } else if c != UInt8(ascii: ":") && c != UInt8(ascii: ",") {
                done = depth == 0
            }
            i = t.end
        }
        return nil
    }

    static func truncationMessage(depth open: Int) -> String {
        open == 0 ? "the input ends before a value" : "the input ends inside \(open) open \(open == 1 ? "container" : "containers")"
    }

    func receiverError() -> JSONAPIError {
        if let recorder, let f = recorder.failure {
            // The building side has not had the bad string: it is the next value (or, for a
            // member name, in the innermost object), as the sequential receiver reports it.
            return .syntax(diagnostic(f.rule, f.message, at: f.offset, request: f.inKey ? .container : .nextValue))
        }
        guard let receiver else { return .syntax(diagnostic(.J00, "parse cancelled", at: received)) }
        if let thrown = receiver.thrown { return thrown }
        guard var d = receiver.failure else {
            return .syntax(diagnostic(.J00, "parse cancelled", at: received))
        }
        if d.source == nil { d.source = sourceName }
        return d.rule.isJSONRule ? .syntax(d) : .document(d)
    }

    func failed(_ e: JSONAPIError) -> JSONAPIError {
        error = e
        return e
    }

    func checkDeadline() throws(JSONAPIError) {
        if let deadline, ContinuousClock.now > deadline {
            throw failed(.syntax(diagnostic(.J12, "parse took longer than the time limit", at: pendingBase)))
        }
    }

    // MARK: - The offending token

    /// The token yajl stopped on. yajl leaves its offset after that token, except after a
    /// member value (`after key and value, inside map`), where it steps back by the token's
    /// length (its content's, for a string), which lands on the token's first byte or inside
    /// it, or, for `""`, at its end.
    func offendingToken(message: String, consumed: Int, in buffer: UnsafeRawBufferPointer) -> (Int, String) {
        guard message.contains("after key and value") else { return tokenContaining(consumed - 1, in: buffer) }
        if consumed <= 0 { return tokenContaining(0, in: buffer) }
        let (start, end, token) = tokenSpan(containing: consumed - 1, in: buffer)
        let isEmptyString = end - start == 2 && buffer[start] == 0x22
        // `""` that ends at the offset is the offending token, unless it is the member value
        // itself (right after the colon) and the offending token follows it (`"a":""1`).
        if end == consumed && (!isEmptyString || significantByte(before: start, in: buffer) == UInt8(ascii: ":"))
            && end < buffer.count
        {
            return tokenContaining(end, in: buffer)
        }
        return (start, token)
    }

    /// The last byte before `offset` in `buffer` that is not white space, or before the
    /// buffer, the last such byte handed to yajl earlier.
    func significantByte(before offset: Int, in buffer: UnsafeRawBufferPointer) -> UInt8? {
        var i = offset
        while i > 0 {
            let c = buffer[i - 1]
            if c != 0x20 && c != 0x09 && c != 0x0A && c != 0x0D { return c }
            i -= 1
        }
        return lastSignificantByteFed
    }

    func tokenContaining(_ target: Int, in buffer: UnsafeRawBufferPointer) -> (Int, String) {
        let (start, _, token) = tokenSpan(containing: target, in: buffer)
        return (start, token)
    }

    /// The token of `buffer` that holds byte `target` (or the first after it), found by reading
    /// the buffer's tokens from its start (a token boundary). yajl's offset after an error is
    /// sometimes the token's end and sometimes inside it, so only a forward reading is sure.
    func tokenSpan(containing target: Int, in buffer: UnsafeRawBufferPointer) -> (Int, Int, String) {
        var i = 0
        var last = (0, 0)
        while let token = Self.token(from: i, in: buffer) {
            last = token
            i = token.end
            if target < i { break }
        }
        return describeToken(last, in: buffer)
    }

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

    func describeToken(_ span: (Int, Int), in buffer: UnsafeRawBufferPointer) -> (Int, Int, String) {
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
    func tokenStart(endingAt end: Int, in buffer: UnsafeRawBufferPointer) -> Int {
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
}
