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
final class JSONStreamParser {
    let options: ParseOptions
    /// Where yajl's events go: straight to a receiver, or to a tape (``EventOutlet``).
    let outlet: any EventOutlet
    /// How the pointer of the last failure is to be completed, when the outlet could not
    /// say (the building side completes it).
    private(set) var pointerRequest = PointerRequest.given
    private var prescan = StructuralScanner()
    let yajl: YajlParser
    /// Line feeds and the token yajl is reporting, for the outlet and for diagnostics.
    let positions: StreamPositions

    /// Bytes received and not yet handed to yajl: an incomplete trailing token, or a run of
    /// small reads being gathered. Its first byte is at absolute offset `pendingBase`.
    var pending = ByteArena(capacity: 64 * 1024)
    var pendingBase = 0
    /// How many bytes of `pending` have been pre-scanned.
    var pendingScanned = 0
    /// Total bytes received (absolute offset of the next byte to arrive), kept where
    /// positions outside `yajl_parse` fall.
    private(set) var received: Int {
        get { positions.received }
        set { positions.received = newValue }
    }

    /// The first bytes, held until the byte order mark question is settled.
    private var byteOrderMark = ByteOrderMarkCheck()

    /// Nesting depth when the buffer inside `yajl_parse` was handed over, and whether any
    /// token had been handed over before it (when the outlet follows the depth; for
    /// trailing garbage).
    var feedDepth = 0
    var valueStartedBeforeFeed = false
    /// The last byte handed to yajl that is not white space (`nil` before the first).
    var lastSignificantByteFed: UInt8? = nil

    var error: JSONAPIError?
    private var isFinished = false
    let deadline: ContinuousClock.Instant?

    /// Warnings that are not errors (a stripped byte order mark).
    private(set) var notices: [Diagnostic] = []
    /// The input's name for diagnostics (a path, `-` for standard input).
    var sourceName: String? {
        get { positions.sourceName }
        set { positions.sourceName = newValue }
    }

    /// A parser of one input whose events go to `outlet`.
    init(outlet: any EventOutlet, options: ParseOptions) {
        self.options = options
        self.outlet = outlet
        yajl = outlet.makeYajl(multipleValues: options.multipleDocuments)
        positions = StreamPositions(yajl: yajl)
        outlet.attach(positions)
        if let limit = options.limits.timeLimit { deadline = .now + limit } else { deadline = nil }
        MemoryBudget.prepare()
    }

    deinit { outlet.detach(positions) }

    var hasFailed: Bool { error != nil }

    /// Reads a segment of an input whose earlier bytes another parser reads (``SegmentStart``):
    /// offsets, lines and what preceded it carry on, so that positions and diagnostics are
    /// those of one parser reading the whole input. Called before the first ``feed(_:)``.
    func start(at segment: SegmentStart) {
        precondition(received == 0 && pending.isEmpty, "a segment starts before any byte")
        received = segment.offset
        pendingBase = segment.offset
        memoryCheckedAt = segment.offset
        positions.startLines(line: segment.line, lineStart: segment.lineStart)
        if !segment.startsInput {
            byteOrderMark.settleWithoutMark()
            lastSignificantByteFed = segment.precededBy
        }
    }

    /// Goes on at absolute `offset` (line `line`, which starts at `lineStart`): the bytes
    /// from the last one fed up to `offset` are read elsewhere (a range of elements, on a
    /// worker). The last byte fed ended a token (the `[` of the array, or a `]` before it),
    /// so everything received is handed to yajl first.
    func skip(to offset: Int, line: Int, lineStart: Int) throws(JSONAPIError) {
        if let error { throw error }
        precondition(byteOrderMark.isSettled && offset >= received, "a skip goes forward, after the first bytes")
        try feedWholeTokens(upTo: received)
        received = offset
        pendingBase = offset
        pendingScanned = 0
        memoryCheckedAt = offset
        dropLines(before: offset)
        positions.startLines(line: line, lineStart: lineStart)
    }

    /// Hands yajl every whole token received so far (small reads are otherwise gathered):
    /// the caller's stream of a reader that interleaves its output with its workers' does
    /// this at the end of each of its batches, so that what those bytes hold is written in
    /// its turn.
    func flush() throws(JSONAPIError) {
        if let error { throw error }
        guard byteOrderMark.isSettled, !pending.isEmpty else { return }
        let base = pendingBase
        let end = received
        let boundary = pending.withBytes { all in
            prescan.feedBoundary(prescan.boundary(end: end, buffer: all, bufferBase: base), buffer: all, bufferBase: base)
        }
        try feedWholeTokens(upTo: boundary)
    }

    // MARK: - Feeding

    /// Parses the next piece of the input. Any size from one byte up gives the same result.
    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        if let error { throw error }
        guard !isFinished else { throw JSONAPIError.misuse("feed after finish") }
        guard chunk.count > 0 else { return }
        if let limit = options.limits.maxInputBytes, received + byteOrderMark.heldCount + chunk.count > limit {
            // Read up to the limit (an earlier error wins), then stop at the first byte over it.
            let room = max(0, limit - received - byteOrderMark.heldCount)
            if room > 0 { try feed(UnsafeRawBufferPointer(rebasing: chunk[..<room])) }
            // The whole tokens before the limit are read, whatever the read size: what they
            // hold is written, and an error among them wins.
            try flush()
            throw failed(.syntax(diagnostic(.J12, "input larger than \(limit) bytes", at: limit, pointer: "")))
        }
        if !byteOrderMark.isSettled {
            try settleByteOrderMark(with: chunk, atEnd: false)
            return
        }
        try process(chunk)
    }

    /// Ends the input: checks that no token or value is left open, then completes yajl.
    func finish() throws(JSONAPIError) {
        if let error { throw error }
        guard !isFinished else { throw JSONAPIError.misuse("finish called twice") }
        if !byteOrderMark.isSettled { try settleByteOrderMark(with: UnsafeRawBufferPointer(start: nil, count: 0), atEnd: true) }
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
        positions.setCompleting(lastTokenAt: tail.withBytes { b in tailBase + LexicalScanner.tokenStart(endingAt: b.count, in: b) })
        outlet.setCompleting(true, inputEnd: received)
        let status = yajl.complete()
        positions.setCompleting(lastTokenAt: nil)
        outlet.setCompleting(false, inputEnd: 0)
        if status != .ok {
            if outlet.reportedFailure == nil {
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
        if !outlet.endOfInput() {
            throw failed(receiverError())
        }
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
        if chunk.count >= options.coalesceBytes {
            // A large read: pre-scanned and parsed in place, its tail kept.
            if pending.isEmpty { return try processInPlace(chunk, scanned: 0) }
            if pendingScanned == pending.count { return try processAfterTail(chunk) }
        }
        try gather(chunk)
    }

    /// Parses `buffer`, which starts at `received - scanned` (its first `scanned` bytes were
    /// received and pre-scanned already, and nothing else waits), where it lies; keeps its
    /// tail.
    private func processInPlace(_ buffer: UnsafeRawBufferPointer, scanned: Int) throws(JSONAPIError) {
        let base = received - scanned
        received = base + buffer.count
        pendingBase = base
        positions.lendNewlines(to: &prescan.newlines)
        do {
            defer { positions.lendNewlines(to: &prescan.newlines) }
            try prescan.scan(UnsafeRawBufferPointer(rebasing: buffer[scanned...]), base: base + scanned)
        } catch {
            pending.append(buffer)
            pendingScanned = pending.count
            try diagnoseWindow(suspect: error.offset)
        }
        let tokens = prescan.boundary(end: base + buffer.count, buffer: buffer, bufferBase: base)
        let boundary = prescan.feedBoundary(tokens, buffer: buffer, bufferBase: base)
        try parseInPlace(buffer, base: base, upTo: boundary)
        pending.append(UnsafeRawBufferPointer(rebasing: buffer[(boundary - base)...]))
        pendingBase = boundary
        pendingScanned = pending.count
        // After the tail is kept: a failure here reads it again.
        try checkOpenToken(boundary: tokens)
        try checkDeadline()
    }

    /// How much of a large read is copied after the last read's tail, to find where the rest
    /// can be parsed in place (less when ``ParseOptions/coalesceBytes`` is smaller).
    static let stitchBytes = 4096

    /// A large read after the last one's tail (a token held back, or the byte before one:
    /// see ``StructuralScanner/feedBoundary(_:buffer:bufferBase:)``). The tail and the read's
    /// first bytes go to yajl together, copied; from the first boundary among those bytes the
    /// read is parsed where it lies, so a read is not copied whole into `pending`. A token
    /// longer than that window is gathered as before.
    private func processAfterTail(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        let chunkBase = received
        let w = min(chunk.count, Self.stitchBytes, options.coalesceBytes)
        try gather(UnsafeRawBufferPointer(rebasing: chunk[..<w]), feedingAll: true)
        if w == chunk.count { return }
        let rest = UnsafeRawBufferPointer(rebasing: chunk[w...])
        guard pendingBase >= chunkBase else { return try gather(rest) }
        // What waits is this read's bytes from `pendingBase` to the window's end: read where
        // they lie, with the rest.
        let from = pendingBase - chunkBase
        pending.removeAll()
        pendingScanned = 0
        try processInPlace(UnsafeRawBufferPointer(rebasing: chunk[from...]), scanned: w - from)
    }

    /// Appends `chunk` to `pending`, pre-scans it, and hands yajl the whole tokens that wait
    /// once there are ``ParseOptions/coalesceBytes`` of them (or any, `feedingAll`).
    private func gather(_ chunk: UnsafeRawBufferPointer, feedingAll: Bool = false) throws(JSONAPIError) {
        pending.append(chunk)
        received += chunk.count
        let scanFrom = pendingScanned
        positions.lendNewlines(to: &prescan.newlines)
        do {
            defer { positions.lendNewlines(to: &prescan.newlines) }
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
        if boundary - pendingBase >= options.coalesceBytes || feedingAll && boundary > pendingBase {
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
        outlet.willParse(piece, base: base, newlines: positions.newlines)
        positions.beginFeeding(piece, base: base)
        if let depth = outlet.openDepth {
            feedDepth = depth
            valueStartedBeforeFeed = lastSignificantByteFed != nil
        }
        jsonapi_memory_set_progress(Int64(base))
        // A large piece (a long string, or a large read) is copied about twice more (the
        // tape or yajl's unescaped copy, then the value store): that much must fit first.
        if piece.count >= 4 << 20 && jsonapi_memory_reserve(2 * Int64(piece.count)) == 0 {
            memoryRefusal = 2 * piece.count
            positions.endFeeding()
            return .outOfMemory
        }
        var status = yajl.parse(piece)
        // An allocation past the budget (ours, during this call) stops the parse here.
        if status == .ok && jsonapi_memory_overrun() != 0 { status = .outOfMemory }
        positions.endFeeding()
        if status == .ok, let c = significantByte(before: piece.count, in: piece) { lastSignificantByteFed = c }
        return status
    }

    // MARK: - Byte order mark (J10)

    private func settleByteOrderMark(with chunk: UnsafeRawBufferPointer, atEnd: Bool) throws(JSONAPIError) {
        try byteOrderMark.take(chunk, atEnd: atEnd) { (hasMark, rest) throws(JSONAPIError) in
            if hasMark { try acceptByteOrderMark() }
            if !rest.isEmpty { try process(rest) }
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
            positions.resetLines()
        }
    }

    // MARK: - Positions

    func dropLines(before end: Int) { positions.dropLines(before: end) }

    /// Line and column of absolute `offset`, which must not be before the bytes last handed
    /// to yajl.
    func location(of offset: Int) -> SourcePosition { positions.location(of: offset) }

    func diagnostic(_ rule: Rule, _ message: String, at offset: Int, pointer: String? = nil, request: PointerRequest = .current) -> Diagnostic {
        let p: String
        if let pointer {
            p = pointer
            pointerRequest = .given
        } else if let known = outlet.pointer(for: request) {
            p = known
            pointerRequest = .given
        } else {
            p = ""
            pointerRequest = request
        }
        return Diagnostic(severity: .error, rule: rule, message: message, location: location(of: offset), pointer: p, source: sourceName)
    }
}
