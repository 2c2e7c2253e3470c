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
    let yajl: YajlParser

    /// Bytes received and not yet handed to yajl: an incomplete trailing token, or a run of
    /// small reads being gathered. Its first byte is at absolute offset `pendingBase`.
    @exclusivity(unchecked) var pending = ByteArena(capacity: 64 * 1024)
    @exclusivity(unchecked) var pendingBase = 0
    /// How many bytes of `pending` have been pre-scanned.
    @exclusivity(unchecked) var pendingScanned = 0
    /// Total bytes received (absolute offset of the next byte to arrive).
    @exclusivity(unchecked) private(set) var received = 0

    /// The first bytes, held until the byte order mark question is settled.
    private var prologue: [UInt8] = []
    private var prologueSettled = false

    // Line feeds before the bytes last handed to yajl are summarised by these two.
    /// Line numbers of the line feeds no longer in `prescan.newlines`.
    @exclusivity(unchecked) private var lines = LineIndex()

    /// The buffer currently inside `yajl_parse`, for positions asked during callbacks.
    @exclusivity(unchecked) private var feedingBase = 0
    @exclusivity(unchecked) private var feedingStart: UnsafeRawPointer? = nil
    @exclusivity(unchecked) private var feedingCount = 0
    @exclusivity(unchecked) var completing = false
    /// Nesting depth when the buffer inside `yajl_parse` was handed over, and whether any
    /// token had been handed over before it (sequential mode; for trailing garbage).
    var feedDepth = 0
    var valueStartedBeforeFeed = false
    /// The last byte handed to yajl that is not white space (`nil` before the first).
    var lastSignificantByteFed: UInt8? = nil
    /// While completing: the absolute offset of the input's last token.
    private var completingTokenStart = 0

    var error: JSONAPIError?
    private var isFinished = false
    let deadline: ContinuousClock.Instant?

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
    var receiverFailure: Any? {
        if let receiver { return receiver.failure ?? receiver.thrown.map { $0 as Any } }
        return recorder?.failure.map { $0 as Any }
    }

    /// Bytes a piece would have needed, when the budget refused it before yajl saw it.
    var memoryRefusal: Int? = nil

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
    func parse(_ piece: UnsafeRawBufferPointer, base: Int) -> YajlParser.Status {
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
            lines.reset()
        }
    }

    // MARK: - Positions

    func dropLines(before end: Int) {
        // Line feeds before `end` are no longer needed one by one; summarise them.
        lines.absorb(&prescan.newlines, before: end)
    }

    /// Line and column of absolute `offset`, which must not be before the bytes last handed
    /// to yajl.
    func location(of offset: Int) -> SourcePosition {
        lines.location(of: offset, newlines: prescan.newlines)
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
