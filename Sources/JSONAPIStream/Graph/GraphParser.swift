/// Builds a ``Graph`` from bytes that arrive in pieces: chunks of any size, from any number
/// of inputs, give the same graph.
///
/// ```swift
/// let parser = GraphParser()
/// for try await chunk in body { try parser.feed(chunk) }
/// let graph = try parser.finish()
/// ```
///
/// Several documents in one input (concatenated, or one per line) and several inputs
/// (``beginInput(named:)``) merge into one graph; the same resource twice is merged as
/// ``DuplicatePolicy`` says, with a warning naming both places.
public final class GraphParser {
    let sink: GraphSink
    private let stream: DocumentStream
    /// What reads: ``stream``, or workers when the input turns out to be many documents
    /// (``ParseOptions/workers``), whose pieces `merger` appends in input order.
    private let reader: ParallelReader
    private let merger: GraphPieceMerger

    /// A parser that builds a graph as `options` say, merging a resource seen twice by `duplicates`.
    public convenience init(options: DocumentOptions = .default, duplicates: DuplicatePolicy = .last) {
        self.init(options: options, duplicates: duplicates, cores: ParseOptions.usableCores)
    }

    /// A parser whose default workers are those of a machine of `cores` usable cores
    /// (``ParseOptions/largeDocumentWorkers(cores:)``; tests).
    init(options: DocumentOptions, duplicates: DuplicatePolicy, cores: Int) {
        let sink = GraphSink(options: options, policy: duplicates)
        self.sink = sink
        stream = DocumentStream(options: options, sink: sink)
        stream.onDiagnostic = { [sink] d in sink.record(d) }
        let merger = GraphPieceMerger(sink: sink, stream: stream)
        self.merger = merger
        let workers = options.parse.largeDocumentWorkers(cores: cores)
        reader = ParallelReader(
            workers: workers.count, largeDocumentsFrom: workers.from, batchBytes: options.parse.workerBatchBytes, sequential: stream,
            makeWorker: { GraphPieceMerger.worker(options: options, policy: duplicates) },
            deliver: { (o) throws(JSONAPIError) in if let piece = o.piece { try merger.merge(piece) } })
        reader.onDiagnostic = { [sink] d in sink.record(d) }
        reader.follow(options)
    }

    /// Called with each warning as it is found (besides being kept in the graph).
    public var onWarning: ((Diagnostic) -> Void)? {
        get { sink.onDiagnostic }
        set { sink.onDiagnostic = newValue }
    }

    /// Starts a new input (its positions count from its own first byte), ending the
    /// current one. Not needed for a single input.
    public func beginInput(named name: String?) throws(JSONAPIError) { try reader.beginInput(named: name) }

    /// Ends the current input: a document left open is an error. Not needed before
    /// ``finish()`` or ``beginInput(named:)``, which end it too.
    public func endInput() throws(JSONAPIError) { try reader.endInput() }

    /// Whether each document's top-level `links` and `meta` are kept in ``lastDocument`` as
    /// it closes (off by default). Set it before the first ``feed(_:)``.
    public var recordsTopLevel: Bool {
        get { reader.recordsTopLevel }
        set { reader.recordsTopLevel = newValue }
    }

    /// The top-level `links` and `meta` of the last document read, with ``recordsTopLevel``;
    /// final once ``endInput()`` returns.
    public var lastDocument: DocumentTopLevel? { stream.lastDocument }

    /// Resources read so far.
    public var resourcesRead: Int { reader.resourcesRead }

    /// Bytes read so far.
    public var bytesRead: Int { reader.bytesRead }

    /// Whether workers read the input (many documents, ``ParseOptions/workers`` above 1);
    /// known after the first few megabytes, or at the end.
    public var isReadByWorkers: Bool { reader.isParallel }

    /// Parses the next piece of the current input.
    public func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) { try reader.feed(chunk) }

    /// Parses the next piece of the current input.
    public func feed(_ chunk: some Collection<UInt8>) throws(JSONAPIError) {
        try withContiguousBytes(of: chunk) { (b) throws(JSONAPIError) in try reader.feed(b) }
    }

    /// Reads a whole input (a file, standard input, bytes) as a stream.
    ///
    /// `progress`, when given, is called after each chunk with the bytes read so far. A file
    /// or standard input that is not compressed is read into blocks that workers read where
    /// they are, rather than copies of them.
    public func read(_ source: InputSource, chunkSize: Int = 1 << 20, progress: ((Int) -> Void)? = nil) throws(JSONAPIError) {
        try reader.read(source, chunkSize: chunkSize, progress: progress)
    }

    /// Reads `bytes`, a whole input in memory, and returns the graph (as ``finish()``):
    /// workers read the bytes where they are, not copies
    /// (``ParallelReader/readWhole(_:name:chunkSize:)``). The workers have stopped when it
    /// returns or throws.
    package func finish(reading bytes: UnsafeRawBufferPointer, named name: String? = nil, chunkSize: Int = 1 << 20) throws(JSONAPIError) -> Graph {
        defer { reader.abandon() }
        try reader.readWhole(bytes, name: name, chunkSize: chunkSize)
        return try finish()
    }

    /// Sets the sizes the workers' reader works with (tests: small inputs through workers).
    func tuneWorkers(batchBytes: Int, continuationBytes: Int, decisionBytes: Int) {
        reader.tune(batchBytes: batchBytes, continuationBytes: continuationBytes, decisionBytes: decisionBytes)
    }

    /// Ends the input and returns the graph.
    ///
    /// - Throws: ``JSONAPIError`` when the input ends inside a document.
    public func finish() throws(JSONAPIError) -> Graph {
        try reader.finish()
        return merger.graph(after: reader, shrink: true)
    }
}
