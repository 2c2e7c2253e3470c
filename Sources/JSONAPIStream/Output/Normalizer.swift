/// Turns JSON:API documents into flat JSON, NDJSON or edge lines (`jsonapi normalize`).
///
/// NDJSON and edges stream: each resource is written as soon as its object closes and then
/// forgotten. Flat JSON needs every resource grouped by type, so it builds a ``Graph`` first.
///
/// ```swift
/// let out = ByteWriter(fd: 1)
/// let normalizer = Normalizer(format: .ndjson, out: out)
/// try normalizer.read(.file("articles.json"))
/// try normalizer.finish()
/// ```
public final class Normalizer {
    public let format: OutputFormat
    public let output: OutputOptions
    public let document: DocumentOptions
    public let duplicates: DuplicatePolicy
    private let out: ByteWriter
    private let reader: DocumentReader
    private let streaming: StreamingSink?
    private let graphSink: GraphSink?
    private let validator: Validator?
    private var graphParser: GraphParser?
    private var diagnosticHandler: ((Diagnostic) -> Void)?

    public init(
        format: OutputFormat, out: ByteWriter, output: OutputOptions = OutputOptions(),
        document: DocumentOptions = .default, duplicates: DuplicatePolicy = .last
    ) {
        self.format = format
        self.output = output
        self.document = document
        self.duplicates = duplicates
        self.out = out
        out.quotesUnsafeNumbers = output.numbers == .safe
        validator = Validator.ifNeeded(for: document)
        if format == .json {
            let sink = GraphSink(options: document, policy: duplicates)
            graphSink = sink
            streaming = nil
            reader = DocumentReader(options: document, sink: validator.map { SinkGroup([$0, sink]) } ?? sink)
        } else {
            let sink = StreamingSink(out: out, format: format, options: output, duplicates: duplicates)
            streaming = sink
            graphSink = nil
            reader = DocumentReader(options: document, sink: validator.map { SinkGroup([$0, sink]) } ?? sink)
        }
        if output.numbers == .safe {
            let alarm = NumberAlarm()
            reader.builder.numberAlarm = alarm
            streaming?.numberAlarm = alarm
            graphSink?.numberAlarm = alarm
        }
    }

    /// Receives warnings as they are found.
    public var onDiagnostic: ((Diagnostic) -> Void)? {
        get { diagnosticHandler }
        set {
            diagnosticHandler = newValue
            reader.onDiagnostic = newValue
            streaming?.onDiagnostic = newValue
            graphSink?.onDiagnostic = newValue
            validator?.onDiagnostic = newValue
        }
    }

    /// Lines (NDJSON, edges) or resources (json, once written) written so far.
    public var recordsWritten: Int { out.recordsCompleted }

    /// Numbers written as strings under ``NumberPolicy/safe``.
    public var numbersQuoted: Int { out.numbersQuoted }

    /// Resources read so far.
    public var resourcesRead: Int { reader.resourcesBuilt }

    /// Bytes read so far.
    public var bytesRead: Int { reader.bytesRead }

    /// Whether each document's top-level `links` and `meta` are kept in ``lastDocument`` as
    /// it closes (off by default). Set it before the first ``feed(_:)``.
    public var recordsTopLevel: Bool {
        get { reader.builder.recordsTopLevel }
        set { reader.builder.recordsTopLevel = newValue }
    }

    /// The top-level `links` and `meta` of the last document read, with ``recordsTopLevel``;
    /// final once ``endInput()`` returns.
    public var lastDocument: DocumentTopLevel? { reader.builder.lastDocument }

    /// Reads one input as a stream.
    public func read(_ source: InputSource, chunkSize: Int = 1 << 20) throws(JSONAPIError) {
        streaming?.sourceName = source.name
        graphSink?.sourceName = source.name
        validator?.sourceName = source.name
        try reader.read(source, chunkSize: chunkSize)
    }

    /// Starts an input fed with ``feed(_:)``.
    public func beginInput(named name: String) throws(JSONAPIError) {
        streaming?.sourceName = name
        graphSink?.sourceName = name
        validator?.sourceName = name
        try reader.begin(sourceName: name)
    }

    public func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) { try reader.feed(chunk) }

    public func endInput() throws(JSONAPIError) { try reader.end() }

    /// Writes what is left (the flat object for `json`) and flushes.
    public func finish() throws(JSONAPIError) {
        try reader.end()
        reader.close()
        if let graphSink {
            let s = graphSink.storage
            swap(&s.values, &reader.builder.store)
            if s.keyRow.count < s.keys.count {
                s.keyRow.append(contentsOf: repeatElement(-1, count: s.keys.count - s.keyRow.count))
            }
            s.inputBytes = reader.bytesRead
            try FlatJSONWriter(graph: Graph(storage: s), out: out, options: output).write()
        }
        try out.flush()
    }
}
