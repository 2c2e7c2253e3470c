/// Reads one input after another through one ``DocumentBuilder`` into its sink: each input
/// gets its own ``JSONStreamParser`` (positions restart per input); documents, resources and
/// the value store carry on, so several inputs merge.
final class DocumentReader {
    let options: DocumentOptions
    let builder: DocumentBuilder
    private(set) var bytesRead = 0

    /// Where the reader is in its inputs.
    private enum State {
        /// No input open.
        case idle
        /// An input begun and not read yet: the mode is chosen at its first read. `segment`:
        /// only part of the input is read here, from that place (a worker's).
        case begun(name: String?, segment: SegmentStart?)
        /// Reading an input on this thread.
        case reading(JSONStreamParser)
        /// Reading an input on two threads (``mode`` is pipelined).
        case readingPipelined
        /// A read failed: every later call throws its error.
        case spent(JSONAPIError)
    }

    /// One thread or two, chosen once, at the first read of the first input.
    private enum Mode {
        case undecided
        case sequential
        case pipelined(PipelineEngine)
    }

    private var state = State.idle
    private var mode = Mode.undecided

    init(options: DocumentOptions, sink: any DocumentSink, requiresKeys: Bool = true) {
        self.options = options
        self.builder = DocumentBuilder(options: options, sink: sink, requiresKeys: requiresKeys)
    }

    deinit { engine?.close() }

    private var engine: PipelineEngine? {
        if case .pipelined(let engine) = mode { return engine }
        return nil
    }

    /// Whether parsing and building run on two threads.
    var isPipelined: Bool { engine != nil }

    /// Resources built so far; safe to read from the calling thread while it feeds.
    var resourcesBuilt: Int { engine?.resourcesBuilt ?? builder.resourcesBuilt }

    /// Ends the building thread, if any (after the last input).
    func close() { engine?.close() }

    /// In automatic mode, the first read from which a second thread builds. 64 KiB is what a
    /// full pipe gives (standard input from another program, which used to stay on one thread
    /// at two thirds of the speed); smaller first reads are small documents.
    static let pipelinedFirstRead = 64 * 1024

    /// Whether every input is read on the calling thread (the caller's stream of a reader
    /// that skips the ranges its workers read). Set before the first read.
    var staysOnOneThread = false

    private func decide(firstRead: Int) {
        guard case .undecided = mode else { return }
        mode = .sequential
        if staysOnOneThread { return }
        // One JSON text (syntax checks, `JSONValue(parsing:)`): one thread, which knows the
        // nesting depth that placing trailing content needs.
        guard options.parse.multipleDocuments else { return }
        switch options.parse.concurrency {
        case .sequential: return
        case .automatic: if firstRead < Self.pipelinedFirstRead { return }
        case .pipelined: break
        }
        mode = .pipelined(PipelineEngine(options: options, builder: builder))
    }

    /// Starts reading the input begun as `name`, on one thread or two.
    private func start(named name: String?, segment: SegmentStart?, firstRead: Int) throws(JSONAPIError) {
        decide(firstRead: firstRead)
        if let engine {
            precondition(segment == nil, "a worker reads its segments on its own thread")
            engine.begin(sourceName: name)
            state = .readingPipelined
            return
        }
        let s = JSONStreamParser(outlet: builder, options: options.parse)
        s.sourceName = name
        state = .reading(s)
        guard let segment else { return }
        builder.documentCount = segment.documentIndex
        guard let range = segment.elements else { return s.start(at: segment) }
        // A range of elements: the parser reads its prefix first, which ends where the range
        // starts (see ElementRange).
        let prefix = range.prefix
        var start = segment
        start.offset -= prefix.utf8CodeUnitCount
        s.start(at: start)
        builder.beginElements(range)
        try s.feed(UnsafeRawBufferPointer(start: prefix.utf8Start, count: prefix.utf8CodeUnitCount))
    }

    /// Ends a range of elements whose array closes where it ends (``ElementRange/suffix``).
    func closeElements() throws(JSONAPIError) {
        let suffix = ElementRange.suffix
        try parse(UnsafeRawBufferPointer(start: suffix.utf8Start, count: suffix.utf8CodeUnitCount), counted: false)
    }

    /// Hands yajl every whole token received so far (``JSONStreamParser/flush()``).
    func flush() throws(JSONAPIError) {
        if case .reading(let s) = state { try s.flush() }
    }

    /// Goes on at `offset` of the current input (line `line`, which starts at `lineStart`):
    /// the bytes between the last one fed (which ended a token) and `offset` are read
    /// elsewhere, a range of elements on a worker.
    func skip(to offset: Int, line: Int, lineStart: Int) throws(JSONAPIError) {
        guard case .reading(let s) = state else { preconditionFailure("skip inside an input read on one thread") }
        try s.skip(to: offset, line: line, lineStart: lineStart)
    }

    /// Receives warnings as they are found.
    var onDiagnostic: ((Diagnostic) -> Void)? {
        get { builder.onDiagnostic }
        set { builder.onDiagnostic = newValue }
    }

    /// Starts the next input (or, for a worker, the segment of an input that `segment` says),
    /// ending the current one first.
    func begin(sourceName: String?, segment: SegmentStart? = nil) throws(JSONAPIError) {
        if case .idle = state {} else { try end() }
        state = .begun(name: sourceName, segment: segment)
    }

    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) { try parse(chunk, counted: true) }

    /// Reads `chunk` in the current input; `counted`: it is the input's (else bytes of the
    /// reader's own, which ``bytesRead`` leaves out).
    private func parse(_ chunk: UnsafeRawBufferPointer, counted: Bool) throws(JSONAPIError) {
        if case .idle = state { try begin(sourceName: nil) }
        if case .begun(let name, let segment) = state { try start(named: name, segment: segment, firstRead: chunk.count) }
        if counted { bytesRead += chunk.count }
        do throws(JSONAPIError) {
            switch state {
            case .reading(let stream): try stream.feed(chunk)
            case .readingPipelined: try engine!.feed(chunk)
            case .spent(let error): throw error
            case .idle, .begun: preconditionFailure("an input is open")
            }
        } catch {
            state = .spent(error)
            throw error
        }
    }

    /// Ends the current input: anything left open is an error.
    func end() throws(JSONAPIError) {
        // Nothing was read: finish an empty input (an error) on this thread.
        if case .begun(let name, let segment) = state { try start(named: name, segment: segment, firstRead: 0) }
        do throws(JSONAPIError) {
            switch state {
            case .idle:
                return
            case .spent(let error):
                throw error
            case .readingPipelined:
                state = .idle
                try engine!.end()
            case .reading(let stream):
                state = .idle
                try stream.finish()
                for n in stream.notices {
                    var n = n
                    n.source = stream.sourceName
                    builder.onDiagnostic?(n)
                }
            case .begun:
                preconditionFailure("the input was started above")
            }
        } catch {
            state = .spent(error)
            throw error
        }
    }

    /// The value store, handed over once every input has ended (to the graph that refers to
    /// it); the builder keeps an empty one.
    ///
    /// `sizedAlike`: the next store starts with room for as many bytes as this one holds and
    /// a quarter more (``pieceRoom(after:)``: a worker's pieces are alike, and a store that
    /// doubled its way up copied its bytes about once more).
    func takeValueStore(sizedAlike: Bool = false) -> ByteArena {
        var values = ByteArena(capacity: sizedAlike ? max(16, pieceRoom(after: builder.arenas.store.count)) : 16)
        swap(&values, &builder.arenas.store)
        return values
    }

    /// Reads `source` whole, as one input.
    func read(_ source: InputSource, chunkSize: Int = 1 << 20) throws(JSONAPIError) {
        try begin(sourceName: source.name)
        do throws(JSONAPIError) {
            try source.read(chunkSize: chunkSize) { (chunk) throws(JSONAPIError) in try self.feed(chunk) }
        } catch {
            throw error.withSourceIfMissing(source.name)
        }
        try end()
    }
}

/// Where a segment of an input starts, when a worker reads it apart from the bytes before it
/// (``ParallelReader``): what a parser that had read those bytes would know, so that offsets,
/// lines, document numbers and diagnostics are the same as one parser reading the whole input.
struct SegmentStart: Sendable {
    /// Offset of its first byte in the input.
    var offset = 0
    /// Line of that byte, and the offset where that line starts.
    var line = 1
    var lineStart = 0
    /// Documents read before it (in this input and the inputs before).
    var documentIndex = 0
    /// Whether it starts the input (a byte order mark is looked for).
    var startsInput = true
    /// The last byte before it that is not white space (the bracket that closed the document
    /// before it), `nil` at the start of the input.
    var precededBy: UInt8? = nil
    /// When it is a range of elements of one document's array, not whole documents.
    var elements: ElementRange? = nil
}

/// A range of whole elements of a document's top-level `data` or `included` array, which a
/// worker reads apart from the rest of its document (``ParallelReader``, one large document).
///
/// The worker's parser first reads a prefix of its own that puts it where the caller's
/// parser is at the range's first byte: `{"data":[` before the first element, or
/// `{"data":[null,` after a comma (yajl then expects a value, as after the comma it stands
/// for; the builder skips that `null`). The prefix ends just before the range's first byte,
/// so offsets, lines and columns are the input's. When the array closes where the range ends
/// (at a comma or at its `]`), `]}` follows, at the offset of that byte: whatever the input
/// holds there, one parser would have read the same tokens up to it. The builder reports no
/// rule of the document (the caller's stream reads its top level) and hands no document to
/// the sink.
struct ElementRange: Sendable, Hashable {
    /// Whether the array is `included` (else `data`).
    var included: Bool
    /// Index of its first element in the array.
    var firstElement: Int

    /// The bytes the worker's parser reads before the range.
    var prefix: StaticString {
        switch (included, firstElement > 0) {
        case (false, false): #"{"data":["#
        case (false, true): #"{"data":[null,"#
        case (true, false): #"{"included":["#
        case (true, true): #"{"included":[null,"#
        }
    }

    /// The bytes it reads after a range whose array closes where it ends.
    static let suffix: StaticString = "]}"
}

extension JSONAPIError {
    /// The same error, naming `name` as its input unless it names one already.
    public func withSourceIfMissing(_ name: String) -> JSONAPIError {
        switch self {
        case .syntax(let d), .document(let d): d.source == nil ? withSource(name) : self
        default: self
        }
    }
}
