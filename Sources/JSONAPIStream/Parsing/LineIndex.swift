/// Turns byte offsets into line and column: the line feeds still needed one by one (their
/// offsets, ascending, kept by the caller) and, summarised, the lines before them.
///
/// The stream parser (with the pre-scan's line feeds) and the tape replayer (with the line
/// feeds the recorder sends) both count lines this way.
struct LineIndex {
    /// The line the first kept line feed ends (1 when none was summarised).
    private(set) var baseLine = 1
    /// Where that line starts.
    private(set) var baseLineStart = 0

    mutating func reset() {
        baseLine = 1
        baseLineStart = 0
    }

    /// Lines carry on from bytes read elsewhere: the next line feed ends `line`, which
    /// starts at `lineStart` (a worker's segment of an input).
    mutating func start(line: Int, lineStart: Int) {
        baseLine = line
        baseLineStart = lineStart
    }

    /// Summarises the line feeds of `newlines` before `end` (all of them by default), which
    /// are removed from it.
    mutating func absorb(_ newlines: inout [Int], before end: Int = .max) {
        guard let last = newlines.last, newlines[0] < end else { return }
        if last < end {
            baseLine += newlines.count
            baseLineStart = last + 1
            newlines.removeAll(keepingCapacity: true)
            return
        }
        var k = 0
        while k < newlines.count && newlines[k] < end { k += 1 }
        baseLine += k
        baseLineStart = newlines[k - 1] + 1
        newlines.removeFirst(k)
    }

    /// Line and column of `offset`, which must not be before the last summarised line feed.
    func location(of offset: Int, newlines: [Int]) -> SourcePosition {
        var lo = 0
        var hi = newlines.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if newlines[mid] < offset { lo = mid + 1 } else { hi = mid }
        }
        let lineStart = lo > 0 ? newlines[lo - 1] + 1 : baseLineStart
        return SourcePosition(offset: offset, line: baseLine + lo, column: max(1, offset - lineStart + 1))
    }
}
