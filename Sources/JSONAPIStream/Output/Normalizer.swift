/// Turns JSON:API documents into flat JSON, NDJSON or edge lines (`jsonapi normalize`).
///
/// NDJSON and edges stream: each resource is written as soon as its object closes and then
/// forgotten. Flat JSON needs every resource grouped by type, so it builds a ``Graph`` first.
///
/// Inputs of many documents are read by several workers (``ParseOptions/workers``): for
/// flat JSON each worker builds pieces of the graph, merged in input order; NDJSON and edges
/// are written by the workers (not with a ``DuplicatePolicy`` other than `last` or
/// ``Limits/maxResources``, which need every document in one place). Either way, the same
/// bytes in the same order, the same warnings, the same first error; ``recordsTopLevel``
/// keeps one reader.
///
/// ```swift
/// let out = ByteWriter(fd: 1)
/// let normalizer = Normalizer(format: .ndjson, out: out)
/// try normalizer.read(.file("articles.json"))
/// try normalizer.finish()
/// ```
public final class Normalizer {
    /// What it writes: flat JSON, NDJSON or edge lines.
    public let format: OutputFormat
    /// How it writes: key format, hashes, numbers, selection.
    public let output: OutputOptions
    /// How documents are read.
    public let document: DocumentOptions
    /// What a resource seen twice does.
    public let duplicates: DuplicatePolicy
    private let out: ByteWriter
    private let stream: DocumentStream
    private let streaming: StreamingSink?
    private let graphSink: GraphSink?
    private var diagnosticHandler: ((Diagnostic) -> Void)?
    /// What reads: ``stream``, or workers when the input turns out to be many documents
    /// (``ParseOptions/workers``).
    private let reader: ParallelReader
    /// Flat JSON read by workers: their graph pieces, merged in input order.
    private let merger: GraphPieceMerger?

    /// A normalizer writing `format` to `out`.
    public convenience init(
        format: OutputFormat, out: ByteWriter, output: OutputOptions = OutputOptions(),
        document: DocumentOptions = .default, duplicates: DuplicatePolicy = .last
    ) {
        self.init(format: format, out: out, output: output, document: document, duplicates: duplicates, cores: ParseOptions.usableCores)
    }

    /// A normalizer whose default workers are those of a machine of `cores`
    /// usable cores (``ParseOptions/largeDocumentWorkers(cores:)``; tests).
    init(format: OutputFormat, out: ByteWriter, output: OutputOptions, document: DocumentOptions, duplicates: DuplicatePolicy, cores: Int) {
        self.format = format
        self.output = output
        self.document = document
        self.duplicates = duplicates
        self.out = out
        out.quotesUnsafeNumbers = output.numbers == .safe
        if format == .json {
            let sink = GraphSink(options: document, policy: duplicates)
            graphSink = sink
            streaming = nil
            stream = DocumentStream(options: document, sink: sink)
        } else {
            let sink = StreamingSink(out: out, format: format, options: output, duplicates: duplicates, warningTexts: document.wordedWarnings)
            streaming = sink
            graphSink = nil
            stream = DocumentStream(options: document, sink: sink)
        }
        if output.numbers == .safe {
            let alarm = NumberAlarm()
            stream.reader.builder.numberAlarm = alarm
            streaming?.numberAlarm = alarm
            graphSink?.numberAlarm = alarm
        }
        // Workers write lines, or build pieces of the graph (merged in order, duplicates
        // among them).
        let merger = graphSink.map { [stream] in GraphPieceMerger(sink: $0, stream: stream) }
        self.merger = merger
        let one = document.forWorker
        // (On two cores, two workers for one large document of known size.)
        let workers =
            format == .json
            ? document.parse.largeDocumentWorkers(cores: cores) : document.lineWorkers(duplicates: duplicates, cores: cores)
        reader = ParallelReader(
            workers: workers.count, largeDocumentsFrom: workers.from,
            batchBytes: document.parse.workerBatchBytes, sequential: stream,
            makeWorker: {
                if format == .json {
                    return GraphPieceMerger.worker(options: document, policy: duplicates, safeNumbers: output.numbers == .safe)
                }
                let n = Normalizer(format: format, out: ByteWriter(), output: output, document: one, duplicates: duplicates)
                let sink = n.streaming!
                return ParallelWorker(
                    stream: n.stream, out: n.out, owner: n, observe: { n.onDiagnostic = $0 },
                    takePrimary: { () throws(JSONAPIError) in try sink.takePrimary() })
            },
            deliver: { [out, streaming] (o) throws(JSONAPIError) in
                if let piece = o.piece {
                    try merger?.merge(piece)
                } else {
                    try out.appendRecords(o.bytes, count: o.records, quoted: o.numbersQuoted)
                    // A range of a large document's elements: its primary linkage goes to the
                    // document's line, which the caller's stream writes.
                    if let primary = o.primary { try streaming?.continuePrimary(primary) }
                }
            })
        reader.follow(document)
    }

    /// Receives warnings as they are found.
    public var onDiagnostic: ((Diagnostic) -> Void)? {
        get { diagnosticHandler }
        set {
            diagnosticHandler = newValue
            stream.onDiagnostic = newValue
            reader.onDiagnostic = newValue
            streaming?.onDiagnostic = newValue
            graphSink?.onDiagnostic = newValue
        }
    }

    /// Lines (NDJSON, edges) or resources (json, once written) written so far.
    public var recordsWritten: Int { out.recordsCompleted }

    /// Numbers written as strings under ``NumberPolicy/safe``.
    public var numbersQuoted: Int { out.numbersQuoted }

    /// Resources read so far.
    public var resourcesRead: Int { reader.resourcesRead }

    /// Bytes read so far.
    public var bytesRead: Int { reader.bytesRead }

    /// Whether workers read the input (known once the first bytes, up to 4 MiB, are read).
    public var isReadByWorkers: Bool { reader.isParallel }

    /// Whether workers read ranges of the elements of large documents (tests).
    var readsElementRanges: Bool { reader.readsElements }
    /// Called with the size of each range of elements the workers are given, and whether the
    /// array's end (or the input's) ended it (tests); set before the first byte.
    var didCutRange: ((_ bytes: Int, _ atArrayEnd: Bool) -> Void)? {
        get { reader.didCutRange }
        set { reader.didCutRange = newValue }
    }
    /// Called when a range cut ahead of the decision goes to the workers, with the input's
    /// bytes gathered by then; and when what was cut ahead is dropped (tests; set before the
    /// first byte).
    var didHandOverAhead: ((_ gathered: Int) -> Void)? {
        get { reader.didHandOverAhead }
        set { reader.didHandOverAhead = newValue }
    }
    var didDropAhead: (() -> Void)? {
        get { reader.didDropAhead }
        set { reader.didDropAhead = newValue }
    }
    /// Called with the size of each batch of whole documents closed at a document's end
    /// (tests); set before the first byte.
    var didCutBatch: ((_ bytes: Int) -> Void)? {
        get { reader.didCutBatch }
        set { reader.didCutBatch = newValue }
    }

    /// The most batches, and the most input bytes, that were in flight at once (tests).
    var mostInFlight: (batches: Int, bytes: Int) { reader.mostInFlight }
    /// Segments (runs of documents, ranges of elements) each worker began (tests).
    var segmentsByWorker: [Int] { reader.segmentsByWorker }
    /// Called on a worker's thread before it reads a batch (tests; set before the first byte).
    var willRead: (@Sendable (_ worker: Int, _ batch: Int) -> Void)? {
        get { reader.willRead }
        set { reader.willRead = newValue }
    }
    /// The bounds of what may be in flight (tests).
    var windowBounds: (batches: Int, bytes: Int) { reader.windowBounds }
    /// The most room a batch of whole documents took (tests).
    var largestBatchRoom: Int { reader.largestBatchRoom }

    /// Sets the sizes the workers' reader works with (tests: small inputs through workers).
    func tuneWorkers(batchBytes: Int, continuationBytes: Int, decisionBytes: Int) {
        reader.tune(batchBytes: batchBytes, continuationBytes: continuationBytes, decisionBytes: decisionBytes)
    }

    /// Whether each document's top-level `links` and `meta` are kept in ``lastDocument`` as
    /// it closes (off by default). Set it before the first ``feed(_:)``.
    public var recordsTopLevel: Bool {
        get { reader.recordsTopLevel }
        set { reader.recordsTopLevel = newValue }
    }

    /// The top-level `links` and `meta` of the last document read, with ``recordsTopLevel``;
    /// final once ``endInput()`` returns.
    public var lastDocument: DocumentTopLevel? { stream.lastDocument }

    /// Reads one input as a stream.
    ///
    /// `progress`, when given, is called after each chunk with the bytes read so far. A file
    /// or standard input that is not compressed is read into blocks that workers read where
    /// they are, rather than copies of them.
    public func read(_ source: InputSource, chunkSize: Int = 1 << 20, progress: ((Int) -> Void)? = nil) throws(JSONAPIError) {
        try reader.read(source, chunkSize: chunkSize, progress: progress)
    }

    /// Reads `bytes`, a whole input in memory, and finishes (as ``finish()``): workers read
    /// the bytes where they are, not copies (``ParallelReader/readWhole(_:name:chunkSize:)``).
    /// The workers have stopped when it returns or throws.
    package func finish(reading bytes: UnsafeRawBufferPointer, named name: String?, chunkSize: Int = 1 << 20) throws(JSONAPIError) {
        defer { reader.abandon() }
        try reader.readWhole(bytes, name: name, chunkSize: chunkSize)
        try finish()
    }

    /// Starts an input fed with ``feed(_:)``.
    public func beginInput(named name: String?) throws(JSONAPIError) { try reader.beginInput(named: name) }

    /// Reads the next piece of the current input.
    public func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) { try reader.feed(chunk) }

    /// Ends the current input: a document left open is an error.
    public func endInput() throws(JSONAPIError) { try reader.endInput() }

    /// Threads the flat object is written on, instead of one per core (tests: several on
    /// any machine).
    var flatJSONThreads: Int?

    /// Writes what is left (the flat object for `json`) and flushes.
    public func finish() throws(JSONAPIError) {
        try reader.finish()
        if let merger {
            let graph = merger.graph(after: reader, shrink: false)
            // The flat object's entries on every core (the same bytes), as the type tables are
            // rewritten side by side; on one thread with `sequential`.
            try FlatJSONWriter(graph: graph, out: out, options: output, threads: flatJSONThreads ?? document.parse.threadsAfterReading).write()
        }
        try out.flush()
    }
}
