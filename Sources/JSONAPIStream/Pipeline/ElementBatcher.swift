/// Cuts inputs of large documents into batches for a ``ParallelReader``: ranges of whole
/// elements of each document's `data` and `included` arrays for the workers
/// (``ElementRange``), and the document's other bytes for the caller's stream, all in input
/// order.
///
/// ```
/// {"meta":{…},"data":[ {…},{…},{…} , {…},{…} ],"included":[ … ]}
/// └── caller ────────┘ └─ range 1 ─┘   └ range 2┘ └ caller ───┘ …
///                        (worker)        (worker)   (skips to here)
/// ```
///
/// A range ends at the first comma between elements after ``batchBytes`` (a comma belongs to
/// neither range; in the last bytes of an input of known size, after less:
/// ``ParallelReader/cutTarget(at:)``), or at the array's `]`; a range longer than ``continuationBytes`` without
/// such a comma (one huge element) is handed over in pieces to the same worker, and ends at
/// the next comma. An empty array stays with the caller's bytes. The caller's stream, when
/// it reaches the batch after a range, skips to its first byte
/// (``DocumentReader/skip(to:line:lineStart:)``), so its positions are the input's.
final class ElementBatcher {
    private let batchBytes: Int
    private let continuationBytes: Int
    private var split = ElementSplitter()
    private var name: String?
    /// Documents in the inputs before the current one.
    private var documentsBefore = 0

    /// The caller's bytes being gathered; whether they begin the input; where the caller's
    /// stream goes on (after a range) before reading them.
    private var callerBytes = ByteArena(capacity: 64 * 1024)
    private var callerBegins = false
    private var resume: (offset: Int, line: Int, lineStart: Int)?

    /// The range being gathered, where it starts, and whether a piece of it was handed over.
    private var inRange = false
    private var rangeBytes = BatchBytes()
    private var rangeStart = SegmentStart()
    private var rangeHanded = false
    /// The bytes after which the range being gathered ends at the next comma (the reader's
    /// ``ParallelReader/cutTarget(at:)`` where it starts).
    private var rangeTarget = 0
    /// The bytes of the range being gathered handed over so far (in pieces).
    private var rangeHandedBytes = 0

    init(batchBytes: Int, continuationBytes: Int) {
        self.batchBytes = batchBytes
        self.continuationBytes = continuationBytes
    }

    func beginInput(named name: String?) {
        self.name = name
        split = ElementSplitter()
        callerBegins = true
    }

    /// Cuts `chunk` (the next bytes of the input), handing batches to `reader` as they close;
    /// `place`: where the chunk lies (ranges view it where it may be kept, see
    /// ``BatchBytes``).
    func feed(_ chunk: UnsafeRawBufferPointer, in place: ChunkPlace, to reader: ParallelReader) throws(JSONAPIError) {
        var rest = chunk
        while !rest.isEmpty {
            guard inRange else {
                switch split.scan(rest, cutFrom: 0) {
                case .open(let cut):
                    // The `[` is the caller's; kept until the range is known not to be empty.
                    callerBytes.append(UnsafeRawBufferPointer(rebasing: rest[..<cut]))
                    rest = UnsafeRawBufferPointer(rebasing: rest[cut...])
                    startRange(copying: place.isTransient, for: reader)
                case nil:
                    callerBytes.append(rest)
                    rest = UnsafeRawBufferPointer(rebasing: rest[rest.count...])
                    if callerBytes.count >= batchBytes { try handCallerBytes(to: reader) }
                case .next, .close:
                    preconditionFailure("commas and closing brackets are cut inside an array")
                }
                continue
            }
            // A range that goes on after a piece (its elements passed `continuationBytes`)
            // ends at the first comma: it has passed the batch size.
            let cutFrom = rangeHanded ? 0 : max(0, rangeTarget - rangeBytes.count - 1)
            // A range is handed over in pieces of at most `continuationBytes`, whatever the
            // read size: the same input gives the same batches.
            let piece = UnsafeRawBufferPointer(rebasing: rest[..<min(rest.count, max(1, continuationBytes - rangeBytes.count))])
            switch split.scan(piece, cutFrom: cutFrom) {
            case .next(let cut):
                // The comma belongs to neither range.
                rangeBytes.append(UnsafeRawBufferPointer(rebasing: rest[..<(cut - 1)]), in: place)
                rest = UnsafeRawBufferPointer(rebasing: rest[cut...])
                try handRange(to: reader, ends: true, closes: true, atComma: true)
                startRange(copying: place.isTransient, for: reader)
            case .close(let cut):
                rangeBytes.append(UnsafeRawBufferPointer(rebasing: rest[..<cut]), in: place)
                rest = UnsafeRawBufferPointer(rebasing: rest[(cut + 1)...])
                try closeArray(to: reader)
            case nil:
                rangeBytes.append(piece, in: place)
                rest = UnsafeRawBufferPointer(rebasing: rest[piece.count...])
                if rangeBytes.count >= continuationBytes { try handRange(to: reader, ends: false, closes: false, copying: place.isTransient) }
            case .open:
                preconditionFailure("no array opens inside one being split")
            }
        }
    }

    /// Ends the input: what is gathered is handed over, the last batch the caller's.
    func endInput(to reader: ParallelReader) throws(JSONAPIError) {
        if inRange {
            // The input ends inside the array: the range ends here, open, and its worker
            // reports what one parser would.
            try handRange(to: reader, ends: true, closes: false)
            inRange = false
            resume = (split.offset, split.line, split.lineStart)
        }
        try handCallerBytes(to: reader, endsInput: true)
        documentsBefore += split.documents
    }

    /// `copying`: the input's bytes are copied (not read in place), so the room is taken now.
    private func startRange(copying: Bool, for reader: ParallelReader) {
        inRange = true
        rangeHanded = false
        // Room for a whole range at once when it is copied (one grows to about `batchBytes`,
        // then to the end of the element it reached): growing by doubling copied each range
        // about once more.
        rangeTarget = reader.cutTarget(at: split.offset)
        rangeHandedBytes = 0
        rangeBytes = BatchBytes(room: max(4096, rangeTarget + rangeTarget / 8), now: copying)
        rangeStart = SegmentStart(
            offset: split.offset, line: split.line, lineStart: split.lineStart,
            documentIndex: documentsBefore + split.documents - 1, startsInput: false, precededBy: nil,
            elements: ElementRange(included: split.inIncluded, firstElement: split.element))
    }

    /// The array closed (its `]` scanned, not gathered yet).
    private func closeArray(to reader: ParallelReader) throws(JSONAPIError) {
        inRange = false
        let empty = !rangeHanded && rangeStart.elements!.firstElement == 0 && rangeBytes.isJSONBlank
        if empty {
            // `[ ]`: nothing for a worker; the caller's stream reads it.
            rangeBytes.forEachPart { b, _ in callerBytes.append(b) }
        } else {
            try handRange(to: reader, ends: true, closes: true)
            // The caller's stream goes on at the `]`.
            resume = (split.offset - 1, split.line, split.lineStart)
        }
        callerBytes.append(staticBytes("]"))
    }

    /// `copying`: the range goes on in bytes that are copied (its next piece takes its room now);
    /// `atComma`: it ends at a comma between elements (not at the array's end or the input's).
    private func handRange(to reader: ParallelReader, ends: Bool, closes: Bool, copying: Bool = false, atComma: Bool = false) throws(JSONAPIError) {
        // The caller's bytes before it come first.
        if !callerBytes.isEmpty || callerBegins || resume != nil { try handCallerBytes(to: reader) }
        var bytes = BatchBytes(room: ends ? 16 : 64 * 1024, now: copying && !ends)
        swap(&bytes, &rangeBytes)
        rangeHandedBytes += bytes.count
        if ends { reader.didCut(range: rangeHandedBytes, atArrayEnd: !atComma) }
        let batch = ParallelBatch(segment: rangeHanded ? nil : rangeStart, name: name, bytes: bytes)
        batch.endsSegment = ends
        batch.closesElements = closes
        rangeHanded = true
        try reader.handOver(batch)
    }

    private func handCallerBytes(to reader: ParallelReader, endsInput: Bool = false) throws(JSONAPIError) {
        var bytes = ByteArena(capacity: 64 * 1024)
        swap(&bytes, &callerBytes)
        let batch = ParallelBatch(segment: nil, name: name, bytes: BatchBytes(copy: bytes))
        batch.onCaller = true
        batch.beginsInputOnCaller = callerBegins
        batch.resume = resume
        batch.endsInput = endsInput
        callerBegins = false
        resume = nil
        try reader.handOver(batch)
    }
}
