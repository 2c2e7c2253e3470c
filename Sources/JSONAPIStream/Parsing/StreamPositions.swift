/// Where a ``JSONStreamParser`` is in its input: the line feeds the pre-scan found, and the
/// piece inside `yajl_parse` with the token yajl is reporting. The parser writes it; the
/// receiver (through ``SourcePositions``), the tape recorder and the parser's diagnostics
/// read it.
final class StreamPositions: SourcePositions {
    /// The handle whose consumed count locates the token being reported.
    private let yajl: YajlParser

    /// Line feeds not yet summarised in `lines`, ascending. The pre-scan appends to them
    /// (``lendNewlines(to:)``).
    @exclusivity(unchecked) private(set) var newlines: [Int] = []
    @exclusivity(unchecked) private var lines = LineIndex()

    // The piece inside `yajl_parse` (`start` is nil outside it).
    @exclusivity(unchecked) private var feedingBase = 0
    @exclusivity(unchecked) private var feedingStart: UnsafeRawPointer? = nil
    @exclusivity(unchecked) private var feedingCount = 0
    /// While yajl completes the input: the absolute offset of its last token, the only one
    /// yajl can still report.
    private var completingTokenStart: Int? = nil
    /// Where positions fall when no piece is being parsed: the end of what arrived (the
    /// parser's count of bytes received is this one).
    @exclusivity(unchecked) var received = 0

    init(yajl: YajlParser) {
        self.yajl = yajl
        super.init()
        newlines.reserveCapacity(1024)
    }

    // MARK: - Written by the parser

    /// Swaps the kept line feeds with `scannerNewlines`: the parser lends them to the
    /// pre-scan (which appends those it finds) and takes them back, without copying.
    @inline(__always)
    func lendNewlines(to scannerNewlines: inout [Int]) { swap(&newlines, &scannerNewlines) }

    /// Line feeds before `end` are no longer needed one by one: they are summarised.
    func dropLines(before end: Int) { lines.absorb(&newlines, before: end) }

    /// Lines carry on from bytes read elsewhere (``SegmentStart``).
    func startLines(line: Int, lineStart: Int) { lines.start(line: line, lineStart: lineStart) }

    /// Lines restart (after a skipped byte order mark, whose bytes still count in offsets).
    func resetLines() {
        lines.reset()
        newlines.removeAll(keepingCapacity: true)
    }

    /// The piece about to be handed to `yajl_parse`, whose first byte is at absolute `base`.
    @inline(__always)
    func beginFeeding(_ piece: UnsafeRawBufferPointer, base: Int) {
        feedingBase = base
        feedingStart = UnsafeRawPointer(piece.baseAddress!)
        feedingCount = piece.count
    }

    @inline(__always)
    func endFeeding() { feedingStart = nil }

    /// yajl completes the input (`yajl_complete_parse`): its last token starts at `start`
    /// (`nil` when done).
    func setCompleting(lastTokenAt start: Int?) { completingTokenStart = start }

    var isCompleting: Bool { completingTokenStart != nil }

    // MARK: - SourcePositions

    /// Line and column of absolute `offset`, which must not be before the bytes last handed
    /// to yajl.
    override func location(of offset: Int) -> SourcePosition {
        lines.location(of: offset, newlines: newlines)
    }

    override func currentTokenLocation() -> SourcePosition {
        if let completingTokenStart { return location(of: completingTokenStart) }
        guard let start = feedingStart else { return location(of: received) }
        let buffer = UnsafeRawBufferPointer(start: start, count: feedingCount)
        return location(of: feedingBase + LexicalScanner.tokenStart(endingAt: yajl.bytesConsumed, in: buffer))
    }

    /// `nil` outside `yajl_parse`.
    override func currentStringToken() -> (UnsafeRawBufferPointer, Int)? {
        guard let start = feedingStart, completingTokenStart == nil else { return nil }
        let buffer = UnsafeRawBufferPointer(start: start, count: feedingCount)
        let end = min(yajl.bytesConsumed, feedingCount)
        let first = LexicalScanner.tokenStart(endingAt: end, in: buffer)
        var e = end
        while e > first && buffer[e - 1] != 0x22 { e -= 1 }
        return (UnsafeRawBufferPointer(rebasing: buffer[first..<e]), feedingBase + first)
    }
}
