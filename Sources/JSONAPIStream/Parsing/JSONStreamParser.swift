internal import CPlatform

/// Feeds chunks of any size through the ``StructuralScanner`` into yajl, at token boundaries.
///
/// ```
/// feed(chunk) ──> pending bytes ──pre-scan new bytes──> boundary ──whole tokens──> yajl_parse
///                  (open string or trailing number held back, never rescanned)
/// ```
///
/// - Every byte is pre-scanned once (`J01`, `J02`, line feeds); yajl only ever sees whole
///   tokens, so it never re-lexes a token split across reads (`J07`); small reads are gathered
///   until ``ParseOptions/coalesceBytes`` of whole tokens wait.
/// - When the pre-scan or yajl finds a problem, ``LexicalScanner`` reads the bytes handed to
///   yajl again to name it exactly (message, rule, absolute position, `J08`); a grammar error
///   points at the first byte of the token yajl stopped on.
/// - ``finish()`` always calls `yajl_complete_parse` (`J09`); after any error the parser is
///   spent and keeps throwing that error.
final class JSONStreamParser: SourcePositions {
    let options: ParseOptions
    /// Sequential mode: events go to this receiver.
    let receiver: JSONEventReceiver?
    /// Pipeline mode: events go to this recorder's tape; pointers of failures found here
    /// are completed by the building side (``pointerRequest``).
    let recorder: TapeRecorder?
    /// How the pointer of the last failure is to be completed (pipeline mode).
    private(set) var pointerRequest = PointerRequest.given
    @exclusivity(unchecked) private var prescan = StructuralScanner()
    private let yajl: YajlParser

    /// Bytes received and not yet handed to yajl: an incomplete trailing token, or a run of
    /// small reads being gathered. Its first byte is at absolute offset `pendingBase`.
    @exclusivity(unchecked) private var pending = ByteArena(capacity: 64 * 1024)
    @exclusivity(unchecked) private var pendingBase = 0
    /// How many bytes of `pending` have been pre-scanned.
    @exclusivity(unchecked) private var pendingScanned = 0
    /// Total bytes received (absolute offset of the next byte to arrive).
    @exclusivity(unchecked) private(set) var received = 0

    /// The first bytes, held until the byte order mark question is settled.
    private var prologue: [UInt8] = []
    private var prologueSettled = false

    // Line feeds before the bytes last handed to yajl are summarised by these two.
    @exclusivity(unchecked) private var baseLine = 1
    @exclusivity(unchecked) private var baseLineStart = 0

    /// The buffer currently inside `yajl_parse`, for positions asked during callbacks.
    @exclusivity(unchecked) private var feedingBase = 0
    @exclusivity(unchecked) private var feedingStart: UnsafeRawPointer? = nil
    @exclusivity(unchecked) private var feedingCount = 0
    @exclusivity(unchecked) private var completing = false
    /// Nesting depth when the buffer inside `yajl_parse` was handed over, and whether any
    /// token had been handed over before it (sequential mode; for trailing garbage).
    private var feedDepth = 0
    private var valueStartedBeforeFeed = false
    /// The last byte handed to yajl that is not white space (`nil` before the first).
    private var lastSignificantByteFed: UInt8? = nil
    /// While completing: the absolute offset of the input's last token.
    private var completingTokenStart = 0

    private var error: JSONAPIError?
    private var isFinished = false
    private let deadline: ContinuousClock.Instant?

    /// Warnings that are not errors (a stripped byte order mark).
    private(set) var notices: [Diagnostic] = []
    /// The input's name for diagnostics (a path, `-` for standard input).
    var sourceName: String?

    init(receiver: JSONEventReceiver, options: ParseOptions) {
        self.options = options
        self.receiver = receiver
        self.recorder = nil
        self.yajl = YajlParser(receiver: receiver, multipleValues: options.multipleDocuments)
        if let limit = options.limits.timeLimit { deadline = .now + limit } else { deadline = nil }
        receiver.parser = self
        MemoryBudget.prepare()
    }

    init(recorder: TapeRecorder, options: ParseOptions) {
        self.options = options
        self.receiver = nil
        self.recorder = recorder
        let yajl = YajlParser(recorder: recorder, multipleValues: options.multipleDocuments)
        self.yajl = yajl
        if let limit = options.limits.timeLimit { deadline = .now + limit } else { deadline = nil }
        recorder.parser = self
        recorder.attach(yajl: yajl.opaqueHandle)
        MemoryBudget.prepare()
    }

    deinit {
        receiver?.parser = nil
        recorder?.parser = nil
    }

    var hasFailed: Bool { error != nil }

    // MARK: - Feeding

    /// Parses the next piece of the input. Any size from one byte up gives the same result.
    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        if let error { throw error }
        guard !isFinished else { throw JSONAPIError.misuse("feed after finish") }
        guard chunk.count > 0 else { return }
        if let limit = options.limits.maxInputBytes, received + prologue.count + chunk.count > limit {
            // Read up to the limit (an earlier error wins), then stop at the first byte over it.
            let room = max(0, limit - received - prologue.count)
            if room > 0 { try feed(UnsafeRawBufferPointer(rebasing: chunk[..<room])) }
            throw failed(.syntax(diagnostic(.J12, "input larger than \(limit) bytes", at: limit, pointer: "")))
        }
        if !prologueSettled {
            try settlePrologue(with: chunk, atEnd: false)
            return
        }
        try process(chunk)
    }

    /// Ends the input: checks that no token or value is left open, then completes yajl.
    func finish() throws(JSONAPIError) {
        if let error { throw error }
        guard !isFinished else { throw JSONAPIError.misuse("finish called twice") }
        if !prologueSettled { try settlePrologue(with: UnsafeRawBufferPointer(start: nil, count: 0), atEnd: true) }
        isFinished = true
        if !prescan.isBetweenStrings {
            try diagnoseWindow(suspect: received, atEnd: true)
        }
        // Keep the last bytes: if yajl refuses the end, they say why.
        var tail = ByteArena(capacity: pending.count + 16)
        pending.withBytes { tail.append($0) }
        let tailBase = pendingBase
        try feedWholeTokens(upTo: received)
        // The only token yajl can report while completing is a number that ends the input.
        completingTokenStart = tail.withBytes { b in tailBase + tokenStart(endingAt: b.count, in: b) }
        completing = true
        recorder?.setCompleting(true, inputEnd: received)
        let status = yajl.complete()
        completing = false
        recorder?.setCompleting(false, inputEnd: 0)
        if status != .ok {
            if receiverFailure == nil {
                var scanner = LexicalScanner(limits: options.limits)
                do throws(LexicalScanner.Failure) {
                    try tail.withBytes { (b) throws(LexicalScanner.Failure) in try scanner.scan(b, base: tailBase) }
                    try scanner.finishAtEndOfInput(offset: received)
                } catch {
                    throw failed(.syntax(diagnostic(error.rule, error.message, at: error.offset)))
                }
            }
            try check(status, base: received, buffer: nil)
        }
        if let receiver, !receiver.onEndOfInput() {
            throw failed(receiverError())
        }
    }

    /// A failure the receiving side reported (sequential: the receiver's; pipeline: the
    /// recorder's escape check).
    private var receiverFailure: Any? {
        if let receiver { return receiver.failure ?? receiver.thrown.map { $0 as Any } }
        return recorder?.failure.map { $0 as Any }
    }

    /// Bytes a piece would have needed, when the budget refused it before yajl saw it.
    private var memoryRefusal: Int? = nil

    /// Input offset of the last memory check (``MemoryBudget``): one per MiB of input.
    private var memoryCheckedAt = 0

    @inline(never)
    private func checkMemory() throws(JSONAPIError) {
        memoryCheckedAt = received
        if jsonapi_memory_check() == 0 {
            try budgetExceeded()
        }
    }

    /// The budget is passed: the error names the first byte not yet handed to yajl.
    @inline(never)
    private func budgetExceeded() throws(JSONAPIError) {
        throw failed(.syntax(diagnostic(.J12, MemoryBudget.exhaustedMessage(), at: pendingBase, request: .nextValue)))
    }

    private func process(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        if received &- memoryCheckedAt >= 1 << 20, jsonapi_memory_active() != 0 { try checkMemory() }
        let coalesce = options.coalesceBytes
        if pending.isEmpty && chunk.count >= coalesce {
            // A large read and nothing waiting: pre-scan and parse in place, keep the tail.
            let base = received
            received += chunk.count
            pendingBase = base
            do {
                try prescan.scan(chunk, base: base)
            } catch {
                pending.append(chunk)
                pendingScanned = pending.count
                try diagnoseWindow(suspect: error.offset)
            }
            let tokens = prescan.boundary(end: base + chunk.count, buffer: chunk, bufferBase: base)
            let boundary = prescan.feedBoundary(tokens, buffer: chunk, bufferBase: base)
            try parseInPlace(chunk, base: base, upTo: boundary)
            pending.append(UnsafeRawBufferPointer(rebasing: chunk[(boundary - base)...]))
            pendingBase = boundary
            pendingScanned = pending.count
            // After the tail is kept: a failure here reads it again.
            try checkOpenToken(boundary: tokens)
            try checkDeadline()
            return
        }
        pending.append(chunk)
        received += chunk.count
        let scanFrom = pendingScanned
        do {
            try pending.withBytes { (all) throws(StructuralScanner.Suspect) in
                try prescan.scan(UnsafeRawBufferPointer(rebasing: all[scanFrom...]), base: pendingBase + scanFrom)
            }
        } catch {
            pendingScanned = pending.count
            try diagnoseWindow(suspect: error.offset)
        }
        pendingScanned = pending.count
        let base = pendingBase
        let tokens = pending.withBytes { all in prescan.boundary(end: received, buffer: all, bufferBase: base) }
        try checkOpenToken(boundary: tokens)
        let boundary = pending.withBytes { all in prescan.feedBoundary(tokens, buffer: all, bufferBase: base) }
        if boundary - pendingBase >= coalesce {
            try feedWholeTokens(upTo: boundary)
            try checkDeadline()
        }
    }

    /// A token still open at the end of what arrived may not grow past its limit (`J06`):
    /// its bytes are held here, so the limit bounds memory.
    @inline(__always)
    private func checkOpenToken(boundary: Int) throws(JSONAPIError) {
        let open = received - boundary
        if open > options.limits.maxNumberLength + 1 {
            if prescan.inString {
                if open - 1 > options.limits.maxStringBytes { try failOpenString() }
            } else {
                try diagnoseWindow(suspect: received)
            }
        }
    }

    @inline(never)
    private func failOpenString() throws(JSONAPIError) {
        try feedTokensBeforeFailure(at: prescan.stringStart)
        throw failed(.syntax(diagnostic(.J06, "string longer than \(options.limits.maxStringBytes) bytes", at: prescan.stringStart, request: .nextValue)))
    }

    /// Hands `pending` up to absolute offset `end` (a token boundary) to yajl.
    private func feedWholeTokens(upTo end: Int) throws(JSONAPIError) {
        let n = end - pendingBase
        guard n > 0 else { return }
        let base = pendingBase
        let status: YajlParser.Status = pending.withBytes { all in
            parse(UnsafeRawBufferPointer(rebasing: all[..<n]), base: base)
        }
        if status != .ok {
            try pending.withBytes { (all) throws(JSONAPIError) in
                let piece = UnsafeRawBufferPointer(rebasing: all[..<n])
                try check(status, base: base, buffer: piece)
            }
        }
        pending.removeFirst(n)
        pending.giveBack(ifAbove: Self.pendingKeep, to: Self.pendingKeep / 4)
        pendingBase = end
        pendingScanned -= n
        dropLines(before: end)
    }

    /// What `pending` keeps after holding a long token.
    private static let pendingKeep = 4 << 20

    private func parseInPlace(_ chunk: UnsafeRawBufferPointer, base: Int, upTo end: Int) throws(JSONAPIError) {
        let n = end - base
        guard n > 0 else { return }
        let piece = UnsafeRawBufferPointer(rebasing: chunk[..<n])
        let status = parse(piece, base: base)
        if status != .ok { try check(status, base: base, buffer: piece) }
        dropLines(before: end)
    }

    @inline(__always)
    private func parse(_ piece: UnsafeRawBufferPointer, base: Int) -> YajlParser.Status {
        if let receiver {
            receiver.sourceStart = UnsafeRawPointer(piece.baseAddress!)
            receiver.sourceEnd = UnsafeRawPointer(piece.baseAddress! + piece.count)
        } else if let recorder {
            recorder.beginFeeding(piece, base: base)
            // The line feeds of these bytes, for the positions the building side computes.
            let end = base + piece.count
            let nl = prescan.newlines
            var k = 0
            while k < nl.count && nl[k] < end { k += 1 }
            recorder.recordNewlines(nl[..<k])
        }
        feedingBase = base
        feedingStart = UnsafeRawPointer(piece.baseAddress!)
        feedingCount = piece.count
        if let receiver {
            feedDepth = receiver.depth
            valueStartedBeforeFeed = lastSignificantByteFed != nil
        }
        jsonapi_memory_set_progress(Int64(base))
        // A large piece (a long string, or a large read) is copied about twice more (the
        // tape or yajl's unescaped copy, then the value store): that much must fit first.
        if piece.count >= 4 << 20 && jsonapi_memory_reserve(2 * Int64(piece.count)) == 0 {
            memoryRefusal = 2 * piece.count
            return .outOfMemory
        }
        var status = yajl.parse(piece)
        // An allocation past the budget (ours, during this call) stops the parse here.
        if status == .ok && jsonapi_memory_overrun() != 0 { status = .outOfMemory }
        feedingStart = nil
        if status == .ok, let c = significantByte(before: piece.count, in: piece) { lastSignificantByteFed = c }
        return status
    }

    // MARK: - Diagnosis

    /// The pre-scan found a suspect byte at `suspect` (or the input ends inside a token):
    /// reads the unfed bytes again with the ``LexicalScanner`` for the exact error, first
    /// handing yajl the whole tokens before it (an earlier grammar error wins). Always throws
    /// unless `yajlFailed` and the bytes are lexically fine.
    @inline(never)
    private func diagnoseWindow(suspect: Int, atEnd: Bool = false) throws(JSONAPIError) {
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
    private func feedTokensBeforeFailure(at end: Int) throws(JSONAPIError) {
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

    private func check(_ status: YajlParser.Status, base: Int, buffer: UnsafeRawBufferPointer?) throws(JSONAPIError) {
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
    private func firstTokenAfterValue(in buffer: UnsafeRawBufferPointer) -> (Int, Int, String)? {
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

    private func receiverError() -> JSONAPIError {
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

    private func failed(_ e: JSONAPIError) -> JSONAPIError {
        error = e
        return e
    }

    private func checkDeadline() throws(JSONAPIError) {
        if let deadline, ContinuousClock.now > deadline {
            throw failed(.syntax(diagnostic(.J12, "parse took longer than the time limit", at: pendingBase)))
        }
    }

    // MARK: - Byte order mark (J10)

    private func settlePrologue(with chunk: UnsafeRawBufferPointer, atEnd: Bool) throws(JSONAPIError) {
        if prologue.isEmpty && chunk.count >= 3 {
            // The usual first read: settled from the read itself, without copying it.
            let isBOM = chunk[0] == 0xEF && chunk[1] == 0xBB && chunk[2] == 0xBF
            prologueSettled = true
            guard isBOM else { return try process(chunk) }
            try acceptByteOrderMark()
            return try process(UnsafeRawBufferPointer(rebasing: chunk[3...]))
        }
        prologue.append(contentsOf: chunk)
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        let n = min(prologue.count, 3)
        let couldBeBOM = Array(prologue[..<n]) == Array(bom[..<n])
        if couldBeBOM && prologue.count < 3 && !atEnd { return }
        prologueSettled = true
        var rest = prologue
        prologue = []
        if couldBeBOM && rest.count >= 3 {
            try acceptByteOrderMark()
            rest.removeFirst(3)
        }
        if !rest.isEmpty {
            try withContiguousBytes(of: rest) { (b) throws(JSONAPIError) in try process(b) }
        }
    }

    /// The input starts with a byte order mark: refused, or skipped (its three bytes still
    /// count in offsets).
    private func acceptByteOrderMark() throws(JSONAPIError) {
        switch options.byteOrderMark {
        case .reject:
            throw failed(.syntax(diagnostic(.J10, "the input starts with a UTF-8 byte order mark (JSON text MUST NOT; use the strip policy to accept it)", at: 0)))
        case .strip:
            notices.append(Diagnostic(severity: .warning, rule: .N02, message: "a UTF-8 byte order mark was skipped", location: .start, pointer: ""))
            received = 3
            pendingBase = 3
            baseLineStart = 0
        }
    }

    // MARK: - Positions

    private func dropLines(before end: Int) {
        // Line feeds before `end` are no longer needed one by one; summarise them.
        let nl = prescan.newlines
        guard let last = nl.last, nl.first! < end else { return }
        if last < end {
            baseLine += nl.count
            baseLineStart = last + 1
            prescan.newlines.removeAll(keepingCapacity: true)
            return
        }
        var k = 0
        while k < nl.count && nl[k] < end { k += 1 }
        baseLine += k
        baseLineStart = nl[k - 1] + 1
        prescan.newlines.removeFirst(k)
    }

    /// Line and column of absolute `offset`, which must not be before the bytes last handed
    /// to yajl.
    func location(of offset: Int) -> SourcePosition {
        let nl = prescan.newlines
        var lo = 0
        var hi = nl.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if nl[mid] < offset { lo = mid + 1 } else { hi = mid }
        }
        let lineStart = lo > 0 ? nl[lo - 1] + 1 : baseLineStart
        return SourcePosition(offset: offset, line: baseLine + lo, column: max(1, offset - lineStart + 1))
    }

    /// The location of the first byte of the token yajl is reporting (during a callback).
    func currentTokenLocation() -> SourcePosition {
        if completing { return location(of: completingTokenStart) }
        guard let start = feedingStart else { return location(of: received) }
        let buffer = UnsafeRawBufferPointer(start: start, count: feedingCount)
        return location(of: feedingBase + tokenStart(endingAt: yajl.bytesConsumed, in: buffer))
    }

    /// The source bytes of the string token yajl is reporting (during a callback), with its
    /// quotes, and their absolute offset. `nil` outside `yajl_parse`.
    func currentStringToken() -> (UnsafeRawBufferPointer, Int)? {
        guard let start = feedingStart, !completing else { return nil }
        let buffer = UnsafeRawBufferPointer(start: start, count: feedingCount)
        let end = min(yajl.bytesConsumed, feedingCount)
        let first = tokenStart(endingAt: end, in: buffer)
        var e = end
        while e > first && buffer[e - 1] != 0x22 { e -= 1 }
        return (UnsafeRawBufferPointer(rebasing: buffer[first..<e]), feedingBase + first)
    }

    /// The token yajl stopped on. yajl leaves its offset after that token, except after a
    /// member value (`after key and value, inside map`), where it steps back by the token's
    /// length (its content's, for a string), which lands on the token's first byte or inside
    /// it, or, for `""`, at its end.
    private func offendingToken(message: String, consumed: Int, in buffer: UnsafeRawBufferPointer) -> (Int, String) {
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
    private func significantByte(before offset: Int, in buffer: UnsafeRawBufferPointer) -> UInt8? {
        var i = offset
        while i > 0 {
            let c = buffer[i - 1]
            if c != 0x20 && c != 0x09 && c != 0x0A && c != 0x0D { return c }
            i -= 1
        }
        return lastSignificantByteFed
    }

    private func tokenContaining(_ target: Int, in buffer: UnsafeRawBufferPointer) -> (Int, String) {
        let (start, _, token) = tokenSpan(containing: target, in: buffer)
        return (start, token)
    }

    /// The token of `buffer` that holds byte `target` (or the first after it), found by reading
    /// the buffer's tokens from its start (a token boundary). yajl's offset after an error is
    /// sometimes the token's end and sometimes inside it, so only a forward reading is sure.
    private func tokenSpan(containing target: Int, in buffer: UnsafeRawBufferPointer) -> (Int, Int, String) {
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
    private static func token(from i: Int, in buffer: UnsafeRawBufferPointer) -> (start: Int, end: Int)? {
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
    private static func numberEnd(from start: Int, in buffer: UnsafeRawBufferPointer) -> Int {
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

    private func describeToken(_ span: (Int, Int), in buffer: UnsafeRawBufferPointer) -> (Int, Int, String) {
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
    private func tokenStart(endingAt end: Int, in buffer: UnsafeRawBufferPointer) -> Int {
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

    func diagnostic(_ rule: Rule, _ message: String, at offset: Int, pointer: String? = nil, request: PointerRequest = .current) -> Diagnostic {
        let p: String
        if let pointer {
            p = pointer
            pointerRequest = .given
        } else if let receiver {
            switch request {
            case .nextValue: p = receiver.nextValuePointer()
            case .container: p = receiver.containerPointer()
            default: p = receiver.currentPointer()
            }
            pointerRequest = .given
        } else {
            p = ""
            pointerRequest = request
        }
        return Diagnostic(severity: .error, rule: rule, message: message, location: location(of: offset), pointer: p, source: sourceName)
    }
}
