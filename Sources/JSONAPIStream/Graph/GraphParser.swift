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
    private let sink: GraphSink
    private let stream: DocumentStream

    /// A parser that builds a graph as `options` say, merging a resource seen twice by `duplicates`.
    public init(options: DocumentOptions = .default, duplicates: DuplicatePolicy = .last) {
        let sink = GraphSink(options: options, policy: duplicates)
        self.sink = sink
        stream = DocumentStream(options: options, sink: sink)
        stream.onDiagnostic = { [sink] d in sink.record(d) }
    }

    /// Called with each warning as it is found (besides being kept in the graph).
    public var onWarning: ((Diagnostic) -> Void)? {
        get { sink.onDiagnostic }
        set { sink.onDiagnostic = newValue }
    }

    /// Starts a new input (its positions count from its own first byte), ending the
    /// current one. Not needed for a single input.
    public func beginInput(named name: String?) throws(JSONAPIError) { try stream.beginInput(named: name) }

    /// Ends the current input: a document left open is an error. Not needed before
    /// ``finish()`` or ``beginInput(named:)``, which end it too.
    public func endInput() throws(JSONAPIError) { try stream.endInput() }

    /// Whether each document's top-level `links` and `meta` are kept in ``lastDocument`` as
    /// it closes (off by default). Set it before the first ``feed(_:)``.
    public var recordsTopLevel: Bool {
        get { stream.recordsTopLevel }
        set { stream.recordsTopLevel = newValue }
    }

    /// The top-level `links` and `meta` of the last document read, with ``recordsTopLevel``;
    /// final once ``endInput()`` returns.
    public var lastDocument: DocumentTopLevel? { stream.lastDocument }

    /// Resources read so far.
    public var resourcesRead: Int { stream.resourcesRead }

    /// Bytes read so far.
    public var bytesRead: Int { stream.bytesRead }

    /// Parses the next piece of the current input.
    public func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) { try stream.feed(chunk) }

    /// Parses the next piece of the current input.
    public func feed(_ chunk: some Collection<UInt8>) throws(JSONAPIError) { try stream.feed(chunk) }

    /// Reads a whole input (a file, standard input, bytes) as a stream.
    public func read(_ source: InputSource, chunkSize: Int = 1 << 20) throws(JSONAPIError) {
        try stream.read(source, chunkSize: chunkSize)
    }

    /// Ends the input and returns the graph.
    ///
    /// - Throws: ``JSONAPIError`` when the input ends inside a document.
    public func finish() throws(JSONAPIError) -> Graph {
        try stream.finish()
        return sink.graph(values: stream.reader.takeValueStore(), inputBytes: stream.bytesRead, shrink: true)
    }
}
