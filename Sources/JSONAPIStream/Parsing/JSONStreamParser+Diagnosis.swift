internal import CPlatform

/// When yajl or the pre-scan refuses the input: which rule, where, and which token, with
/// the exact wording (yajl's messages are classified in ``YajlError``).
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
            let at = positions.isCompleting ? received : memoryRefusal != nil ? base : base + min(yajl.bytesConsumed, buffer?.count ?? 0)
            throw failed(.syntax(diagnostic(.J12, MemoryBudget.exhaustedMessage(needing: memoryRefusal), at: at, request: .nextValue)))
        case .error:
            if outlet.reportedFailure != nil { throw failed(receiverError()) }
            let yajlError = yajl.lastError()
            let consumed = positions.isCompleting ? 0 : yajl.bytesConsumed
            guard let buffer, yajlError.kind != .prematureEnd else {
                guard let depth = outlet.openDepth else {
                    throw failed(.syntax(diagnostic(.J09, "the input ends inside a value", at: received, request: .truncation)))
                }
                throw failed(.syntax(diagnostic(.J09, Self.truncationMessage(depth: depth), at: received)))
            }
            // A lexical problem yajl met (a bad escape, a control character, a bad number)
            // is named by the lexical scanner, if it comes before the token yajl stopped on.
            var scanner = LexicalScanner(limits: options.limits)
            var (start, token) = offendingToken(yajlError, consumed: consumed, in: buffer)
            var grammar = yajlError.isGrammar
            if yajlError.kind == .trailingGarbage, outlet.openDepth != nil, let (s, _, t) = firstTokenAfterValue(in: buffer) {
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
            switch yajlError.kind {
            case .trailingGarbage:
                text = "unexpected \(token) after the JSON value"
            case .unallowedToken, .invalidToken:
                text = "unexpected \(token)"
            default:
                var m = Substring(yajlError.message)
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
        while let t = LexicalScanner.token(from: i, in: buffer) {
            if done { return LexicalScanner.describeToken((t.start, t.end), in: buffer) }
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

    /// The failure the outlet reported, as the error to throw.
    func receiverError() -> JSONAPIError {
        switch outlet.reportedFailure {
        case .thrown(let error):
            return error
        case .diagnosed(var d):
            if d.source == nil { d.source = sourceName }
            return d.rule.isJSONRule ? .syntax(d) : .document(d)
        case .located(let rule, let message, let offset, let request):
            return .syntax(diagnostic(rule, message, at: offset, request: request))
        case nil:
            return .syntax(diagnostic(.J00, "parse cancelled", at: received))
        }
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
    func offendingToken(_ error: YajlError, consumed: Int, in buffer: UnsafeRawBufferPointer) -> (Int, String) {
        guard error.kind == .afterMemberValue else { return tokenContaining(consumed - 1, in: buffer) }
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
        while let token = LexicalScanner.token(from: i, in: buffer) {
            last = token
            i = token.end
            if target < i { break }
        }
        return LexicalScanner.describeToken(last, in: buffer)
    }

}
