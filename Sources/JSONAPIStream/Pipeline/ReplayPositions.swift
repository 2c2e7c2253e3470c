/// Positions on the building side of the pipeline, kept by the ``TapeReplayer`` as it replays
/// and read by the receiver: the line feeds the recorder sent, and the event being replayed.
final class ReplayPositions: SourcePositions {
    // Line feeds of the bytes the current events come from; older ones are summarised.
    @exclusivity(unchecked) private var newlines: [Int] = []
    @exclusivity(unchecked) private var lines = LineIndex()

    // The event being replayed, for `currentTokenLocation`.
    @exclusivity(unchecked) var currentKind = TapeKind.null
    @exclusivity(unchecked) var currentEnd = 0
    @exclusivity(unchecked) var currentLength = 0
    @exclusivity(unchecked) var currentStart = 0

    override init() {
        super.init()
        newlines.reserveCapacity(1024)
    }

    func beginInput(named name: String?) {
        sourceName = name
        newlines.removeAll(keepingCapacity: true)
        lines.reset()
    }

    /// `count` line feed offsets (64-bit) from the tape at `p`.
    func acceptNewlines(_ p: UnsafeRawPointer, count: Int) {
        // Every earlier event is done: earlier line feeds are only counted from now on.
        lines.absorb(&newlines)
        for k in 0..<count { newlines.append(Int(p.loadUnaligned(fromByteOffset: k * 8, as: Int64.self))) }
    }

    // MARK: - SourcePositions

    override func location(of offset: Int) -> SourcePosition { lines.location(of: offset, newlines: newlines) }

    override func currentTokenLocation() -> SourcePosition {
        let start: Int
        switch currentKind {
        case .startObject, .endObject, .startArray, .endArray: start = currentEnd - 1
        case .key, .string: start = currentEnd - currentLength - 2
        case .escapedKey, .escapedString: start = currentStart
        case .number: start = currentEnd - currentLength
        case .trueValue, .null: start = currentEnd - 4
        case .falseValue: start = currentEnd - 5
        case .newlines: start = currentEnd
        }
        return location(of: max(0, start))
    }
}
