/// Receives what a ``DocumentStream`` reads: each resource as soon as its object closes, and
/// each document's top level when the document closes (after its resources).
///
/// Calls come from the thread that builds (the one that feeds, or the stream's second thread
/// for large inputs), one at a time. The views are valid only during the call: copy what you
/// keep. A sink that throws stops the read; the error is what `feed` or `endInput` throws.
public protocol StreamSink: AnyObject {
    func resource(_ resource: ResourceView) throws(JSONAPIError)
    func document(_ document: DocumentView) throws(JSONAPIError)
}

extension StreamSink {
    /// By default, nothing.
    public func document(_ document: DocumentView) throws(JSONAPIError) {}
}

/// The one way JSON:API documents are read as a stream: bytes in (chunks of any size, any
/// number of inputs, several documents per input), resources and documents out to sinks.
///
/// ``GraphParser`` (a graph), ``Normalizer`` (NDJSON, flat JSON, edges) and ``TableSplitter``
/// (tables) are built on it; your own ``StreamSink``s receive the same resources the same way.
///
/// ```swift
/// final class Titles: StreamSink {
///     var titles: [String] = []
///     func resource(_ r: ResourceView) throws(JSONAPIError) {
///         if r.type == "articles", case .string(let t)? = r.attribute("title") { titles.append(t) }
///     }
/// }
/// let titles = Titles()
/// let stream = DocumentStream(sinks: [titles])
/// try stream.read(.file("articles.json"))
/// try stream.finish()
/// ```
///
/// The input is checked as the options say (limits, rules, context); with
/// ``ValidationMode/strict`` a rule violation stops the read. Memory does not grow with the
/// input: each resource is handed over and forgotten.
public final class DocumentStream {
    /// How documents are read and checked.
    public let options: DocumentOptions
    let reader: DocumentReader
    /// The rules across resources, when the options need them (``Validator/ifNeeded(for:)``).
    let validator: Validator?
    /// Sinks that label their diagnostics with the input's name.
    private let labelled: [any InputLabelled]
    private var finished = false

    /// A stream into your own sinks.
    public convenience init(options: DocumentOptions = .default, sinks: [any StreamSink]) {
        self.init(options: options, sink: ViewSink(sinks), requiresKeys: false)
    }

    /// A stream into sinks that key every resource as `normalize` does: in a response, a
    /// resource without an id is an error (R10) rather than handed over (the database loader).
    package convenience init(options: DocumentOptions, keyedSinks sinks: [any StreamSink]) {
        self.init(options: options, sink: ViewSink(sinks), requiresKeys: true)
    }

    /// A stream into one of the library's sinks (graph, writers, tables), with the validator
    /// in front of it when the options need one.
    init(options: DocumentOptions, sink: any DocumentSink & InputLabelled, requiresKeys: Bool = true) {
        self.options = options
        let validator = Validator.ifNeeded(for: options)
        self.validator = validator
        labelled = [sink] + (validator.map { [$0] } ?? [])
        reader = DocumentReader(options: options, sink: validator.map { SinkGroup([$0, sink]) } ?? sink, requiresKeys: requiresKeys)
    }

    /// Receives warnings as they are found (errors are thrown).
    public var onDiagnostic: ((Diagnostic) -> Void)? {
        get { reader.onDiagnostic }
        set {
            reader.onDiagnostic = newValue
            validator?.onDiagnostic = newValue
        }
    }

    /// Bytes read so far.
    public var bytesRead: Int { reader.bytesRead }

    /// Resources read so far; safe to read from another thread while the stream is fed.
    public var resourcesRead: Int { reader.resourcesBuilt }

    /// Whether each document's top-level `links` and `meta` are kept in ``lastDocument`` as
    /// it closes (off by default). Set it before the first ``feed(_:)``.
    public var recordsTopLevel: Bool {
        get { reader.builder.recordsTopLevel }
        set { reader.builder.recordsTopLevel = newValue }
    }

    /// The top-level `links` and `meta` of the last document read, with ``recordsTopLevel``;
    /// final once ``endInput()`` returns.
    public var lastDocument: DocumentTopLevel? { reader.builder.lastDocument }

    /// Starts a new input (its positions count from its own first byte), ending the current
    /// one. Not needed for a single input.
    public func beginInput(named name: String?) throws(JSONAPIError) {
        try beginInput(named: name, segment: nil)
    }

    /// Starts an input, or (`segment`, a worker of a ``ParallelReader``) a segment of one
    /// read from the place `segment` says, ending the current one.
    func beginInput(named name: String?, segment: SegmentStart?) throws(JSONAPIError) {
        guard !finished else { throw JSONAPIError.misuse("beginInput after finish") }
        for s in labelled { s.sourceName = name }
        try reader.begin(sourceName: name, segment: segment)
    }

    /// Reads the next piece of the current input.
    public func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        guard !finished else { throw JSONAPIError.misuse("feed after finish") }
        try reader.feed(chunk)
    }

    /// Reads the next piece of the current input.
    public func feed(_ chunk: some Collection<UInt8>) throws(JSONAPIError) {
        try withContiguousBytes(of: chunk) { (b) throws(JSONAPIError) in try feed(b) }
    }

    /// Ends the current input: a document left open is an error. Not needed before
    /// ``finish()`` or ``beginInput(named:)``, which end it too.
    public func endInput() throws(JSONAPIError) {
        guard !finished else { throw JSONAPIError.misuse("endInput after finish") }
        try reader.end()
    }

    /// Reads a whole input (a file, standard input, bytes) as a stream.
    public func read(_ source: InputSource, chunkSize: Int = 1 << 20) throws(JSONAPIError) {
        guard !finished else { throw JSONAPIError.misuse("read after finish") }
        for s in labelled { s.sourceName = source.name }
        try reader.read(source, chunkSize: chunkSize)
    }

    /// Ends the last input and the stream (and its second thread, if it had one).
    public func finish() throws(JSONAPIError) {
        guard !finished else { throw JSONAPIError.misuse("finish called twice") }
        defer {
            reader.close()
            finished = true
        }
        try reader.end()
    }

    /// Ends the stream after a failure, without reading what is left (the second thread, if
    /// any, is stopped). Safe to call after ``finish()`` or a failed ``finish()``.
    public func abandon() {
        guard !finished else { return }
        reader.close()
        finished = true
    }
}

/// A sink that names the input its diagnostics come from.
protocol InputLabelled: AnyObject {
    var sourceName: String? { get set }
}

extension GraphSink: InputLabelled {}
extension StreamingSink: InputLabelled {}
extension TableSink: InputLabelled {}
extension Validator: InputLabelled {}

/// Hands each resource and document to the user's sinks as views.
final class ViewSink: DocumentSink, InputLabelled {
    let keepsValues = false
    private let sinks: [any StreamSink]
    private let resource = ResourceView()
    private let document = DocumentView()
    var sourceName: String?

    init(_ sinks: [any StreamSink]) { self.sinks = sinks }

    func resource(_ r: ResourceDraft, in a: inout DraftArenas) throws(JSONAPIError) {
        resource.fill(r, in: a, source: sourceName)
        for s in sinks { try s.resource(resource) }
    }

    func document(_ d: DocumentDraft, in a: borrowing DraftArenas) throws(JSONAPIError) {
        document.fill(d, in: a, source: sourceName)
        defer { document.clear() }
        for s in sinks { try s.document(document) }
    }
}

/// A sink that keeps nothing (validation, where only the diagnostics are wanted).
final class NullSink: DocumentSink, InputLabelled {
    let keepsValues = false
    var sourceName: String?
    func resource(_ r: ResourceDraft, in a: inout DraftArenas) throws(JSONAPIError) {}
    func document(_ d: DocumentDraft, in a: borrowing DraftArenas) throws(JSONAPIError) {}
}
