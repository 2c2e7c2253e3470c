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

    /// With workers (your own sinks, ``ParseOptions/workers`` at 2 or more): what reads the
    /// input, on workers or on a stream of its own; nil: this stream reads it.
    private var parallel: ParallelReader?
    /// Replays what the workers read into the sinks.
    private var replayer: DraftReplayer?

    /// A stream into your own sinks.
    ///
    /// With ``ParseOptions/workers`` set to 2 or more, inputs of many documents are parsed by
    /// that many workers, each with its own parser, and your sinks get the resources and
    /// documents on the thread that feeds, in input order, with the same views, warnings and
    /// first error as from one reader. They get them a batch at a time (about
    /// ``ParseOptions/workerBatchBytes`` of input), after the first 8 batch sizes of input or its
    /// end; one large document is read as without workers. Left `nil` (the default), this
    /// stream reads on one reader, whatever the cores, so that each resource is handed over
    /// as soon as its bytes arrive.
    public convenience init(options: DocumentOptions = .default, sinks: [any StreamSink]) {
        self.init(options: options, view: ViewSink(sinks), requiresKeys: false)
    }

    /// A stream into sinks that key every resource as `normalize` does: in a response, a
    /// resource without an id is an error (R10) rather than handed over (the database loader).
    package convenience init(options: DocumentOptions, keyedSinks sinks: [any StreamSink]) {
        self.init(options: options, view: ViewSink(sinks), requiresKeys: true)
    }

    private convenience init(options: DocumentOptions, view: ViewSink, requiresKeys: Bool) {
        self.init(options: options, sink: view, requiresKeys: requiresKeys)
        let workers = options.parse.workers == nil ? 1 : options.parse.effectiveWorkers
        guard workers >= 2 else { return }
        // The caller's own stream reads what workers do not (one large document, a small
        // input), into the same sinks.
        let inner = DocumentStream(options: options, sink: view, requiresKeys: requiresKeys)
        let one = options.forWorker
        let replayer = DraftReplayer(view)
        self.replayer = replayer
        parallel = ParallelReader(
            workers: workers, batchBytes: options.parse.workerBatchBytes, sequential: inner,
            makeWorker: {
                let recorder = DraftRecorder()
                let s = DocumentStream(options: one, sink: recorder, requiresKeys: requiresKeys)
                return ParallelWorker(stream: s, out: nil, owner: recorder, observe: { s.onDiagnostic = $0 }, drafts: recorder)
            },
            deliver: { (o) throws(JSONAPIError) in
                if o.startsInput { replayer.inputBegins?() }
                if let tape = o.drafts { try replayer.replay(tape) }
            })
    }

    /// Called as each input begins, in order with the sinks' calls (with workers, as the first
    /// batch of the input is handed over; the database loader numbers documents by input).
    package var onInputBegin: (() -> Void)? {
        didSet {
            parallel?.sequential.onInputBegin = onInputBegin
            replayer?.inputBegins = onInputBegin
        }
    }

    /// Whether workers read the input (known once the first bytes, up to 8 batch sizes, are read).
    var isReadByWorkers: Bool { parallel?.isParallel ?? false }

    /// Sets the sizes the workers' reader works with (tests: small inputs through workers).
    func tuneWorkers(batchBytes: Int, continuationBytes: Int, decisionBytes: Int) {
        parallel?.tune(batchBytes: batchBytes, continuationBytes: continuationBytes, decisionBytes: decisionBytes)
    }

    /// A stream into one of the library's sinks (graph, writers, tables), with the validator
    /// in front of it when the options need one.
    init(options: DocumentOptions, sink: any DocumentSink & InputLabelled, requiresKeys: Bool = true) {
        self.options = options
        let validator = Validator.ifNeeded(for: options)
        self.validator = validator
        labelled = [sink] + (validator.map { [$0] } ?? [])
        reader = DocumentReader(options: options, sink: validator.map { SinkGroup($0, sink) } ?? sink, requiresKeys: requiresKeys)
    }

    /// Receives warnings as they are found (errors are thrown).
    public var onDiagnostic: ((Diagnostic) -> Void)? {
        get { reader.onDiagnostic }
        set {
            reader.onDiagnostic = newValue
            validator?.onDiagnostic = newValue
            if let parallel {
                parallel.onDiagnostic = newValue
                parallel.sequential.onDiagnostic = newValue
                replayer?.emit = newValue
            }
        }
    }

    /// Bytes read so far.
    public var bytesRead: Int { parallel?.bytesRead ?? reader.bytesRead }

    /// Resources read so far (with workers, those handed to the sinks); safe to read from
    /// another thread while the stream is fed.
    public var resourcesRead: Int { parallel?.resourcesRead ?? reader.resourcesBuilt }

    /// Whether each document's top-level `links` and `meta` are kept in ``lastDocument`` as
    /// it closes (off by default). Set it before the first ``feed(_:)``.
    ///
    /// With workers, setting it on keeps the whole input on one reader (the top level is kept
    /// in one place).
    public var recordsTopLevel: Bool {
        get { reader.builder.recordsTopLevel }
        set {
            reader.builder.recordsTopLevel = newValue
            // (After the first byte the workers' side is decided and stays as it is.)
            if let parallel, parallel.bytesRead == 0 { parallel.recordsTopLevel = newValue }
        }
    }

    /// The top-level `links` and `meta` of the last document read, with ``recordsTopLevel``;
    /// final once ``endInput()`` returns.
    public var lastDocument: DocumentTopLevel? { parallel?.sequential.lastDocument ?? reader.builder.lastDocument }

    /// Starts a new input (its positions count from its own first byte), ending the current
    /// one. Not needed for a single input.
    public func beginInput(named name: String?) throws(JSONAPIError) {
        if let parallel { return try parallel.beginInput(named: name) }
        try beginInput(named: name, segment: nil)
    }

    /// Starts an input, or (`segment`, a worker of a ``ParallelReader``) a segment of one
    /// read from the place `segment` says, ending the current one.
    func beginInput(named name: String?, segment: SegmentStart?) throws(JSONAPIError) {
        guard !finished else { throw JSONAPIError.misuse("beginInput after finish") }
        if segment == nil { onInputBegin?() }
        for s in labelled { s.sourceName = name }
        try reader.begin(sourceName: name, segment: segment)
    }

    /// Reads the next piece of the current input.
    public func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        if let parallel { return try parallel.feed(chunk) }
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
        if let parallel { return try parallel.endInput() }
        guard !finished else { throw JSONAPIError.misuse("endInput after finish") }
        try reader.end()
    }

    /// Reads a whole input (a file, standard input, bytes) as a stream.
    public func read(_ source: InputSource, chunkSize: Int = 1 << 20) throws(JSONAPIError) {
        if let parallel { return try parallel.read(source, chunkSize: chunkSize) }
        guard !finished else { throw JSONAPIError.misuse("read after finish") }
        onInputBegin?()
        for s in labelled { s.sourceName = source.name }
        try reader.read(source, chunkSize: chunkSize)
    }

    /// Ends the last input and the stream (and its second thread, if it had one).
    public func finish() throws(JSONAPIError) {
        if let parallel { return try parallel.finish() }
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
        if let parallel { return parallel.abandon() }
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

/// Hands what workers read (``DraftTape``s) to a ``ViewSink`` on the caller's thread, with the
/// warnings among it.
final class DraftReplayer {
    private let view: ViewSink
    private var arenas = DraftArenas()
    var emit: ((Diagnostic) -> Void)?
    var inputBegins: (() -> Void)?

    init(_ view: ViewSink) { self.view = view }

    func replay(_ tape: DraftTape) throws(JSONAPIError) {
        try tape.replay(into: view, arenas: &arenas, emit: emit)
    }
}

/// A sink that keeps nothing (validation, where only the diagnostics are wanted).
final class NullSink: DocumentSink, InputLabelled {
    let keepsValues = false
    var sourceName: String?
    func resource(_ r: ResourceDraft, in a: inout DraftArenas) throws(JSONAPIError) {}
    func document(_ d: DocumentDraft, in a: borrowing DraftArenas) throws(JSONAPIError) {}
}
