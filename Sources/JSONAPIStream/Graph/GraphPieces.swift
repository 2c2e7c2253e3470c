/// What a graph worker read of one segment (documents in a row of one input): its resources
/// each in a row of its own and in order (duplicates are not merged yet), its documents, and
/// the warnings found on the way, each with the number of the piece's resources read before it.
struct GraphPiece {
    var graph: Graph
    /// The input the segment belongs to.
    var name: String?
    var diagnostics: [Diagnostic]
    var stamps: [Int]
    /// Whether it is a range of elements of one large document, whose own values the
    /// caller's stream holds.
    var isElements = false
    /// What the compound rules need of its resources, when it is a range of elements read
    /// under those rules (``CompoundFacts``).
    var facts: CompoundFacts? = nil
}

/// One graph from the pieces workers read: each piece appended in input order by the merging
/// sink, which finds duplicates and the resource limit as one reader does; the piece's
/// warnings are delivered between its resources where one reader finds them, so that the
/// warnings, their order and the first error are those of one reader.
final class GraphPieceMerger {
    let sink: GraphSink
    /// The caller's stream, which builds into `sink` what workers do not read.
    private let stream: DocumentStream
    /// The value store the pieces' values are copied into (it grows with the first piece: a
    /// reader that stays on one stream never uses it). A range of elements of a large
    /// document goes to the caller's stream's store instead, which holds the rest of that
    /// document (its top level, a single primary resource), so that every span of the graph
    /// points into one store.
    private var values = ByteArena(capacity: 16)
    /// The next of the piece's warnings to deliver, while a piece is merged. A property rather
    /// than a local: a local captured by the merge's closures was checked for exclusive access
    /// at run time on every resource (one thread merges; no access overlaps).
    @exclusivity(unchecked) private var next = 0

    init(sink: GraphSink, stream: DocumentStream) {
        self.sink = sink
        self.stream = stream
    }

    /// A worker's pipeline for `options` (one thread, no resource limit: the merge applies it);
    /// `safeNumbers`: it notes which resources hold numbers to quote (`--numbers safe`).
    static func worker(options: DocumentOptions, policy: DuplicatePolicy, safeNumbers: Bool = false) -> ParallelWorker {
        var one = options.forWorker
        one.parse.limits.maxResources = nil
        let alarm = safeNumbers ? NumberAlarm() : nil
        let sink = GraphPieceSink(options: one, policy: policy, numberAlarm: alarm)
        let stream = DocumentStream(options: one, sink: sink)
        stream.reader.builder.numberAlarm = alarm
        return ParallelWorker(
            stream: stream, out: nil, owner: sink, observe: { stream.onDiagnostic = $0 },
            takePiece: { sink.takePiece(values: stream.reader.takeValueStore(sizedAlike: true)) })
    }

    /// Appends a piece: the warnings found before each resource, then the resource (merged
    /// when it repeats one), then the warnings after the last.
    func merge(_ piece: GraphPiece) throws(JSONAPIError) {
        let sink = self.sink
        sink.sourceName = piece.name
        next = 0
        // (Between two batches of its own, the caller's stream is between two tokens: its
        // store is not being written.)
        if piece.isElements { swap(&values, &stream.reader.builder.arenas.store) }
        defer { if piece.isElements { swap(&values, &stream.reader.builder.arenas.store) } }
        // A range's compound facts are taken in among its warnings, each before its resource
        // is merged: the order one reader checks them in.
        let checked = stream.validator.flatMap { validator in piece.facts.map { (validator, $0) } }
        func takeFacts(before resource: Int) throws(JSONAPIError) {
            guard let (validator, facts) = checked else { return }
            try validator.takeIn(facts, before: resource, warnings: piece.diagnostics, next: &next) { sink.record($0) }
        }
        // Most pieces have no warnings and no facts: nothing to do between their resources.
        let before: ((Int) throws(JSONAPIError) -> Void)? =
            !piece.stamps.isEmpty || checked != nil
            ? { (i) throws(JSONAPIError) in
                while self.next < piece.stamps.count && piece.stamps[self.next] <= i {
                    sink.record(piece.diagnostics[self.next])
                    self.next += 1
                }
                try takeFacts(before: i)
            } : nil
        try sink.append(piece.graph, store: &values, documentBase: 0, before: before)
        try takeFacts(before: .max)
        while next < piece.diagnostics.count {
            sink.record(piece.diagnostics[next])
            next += 1
        }
    }

    /// The graph once `reader` has finished: over the pieces' merged values when workers read
    /// whole documents, else over the value store of the caller's stream (which built it
    /// alone, or held the ranges' values too).
    func graph(after reader: ParallelReader, shrink: Bool) -> Graph {
        var merged = ByteArena(capacity: 16)
        if reader.isParallel && !reader.readsElements { swap(&merged, &values) } else { merged = reader.sequential.reader.takeValueStore() }
        return sink.graph(values: merged, inputBytes: reader.bytesRead, shrink: shrink)
    }
}

/// A graph worker's sink: a ``GraphSink`` that collects (``GraphSink/collectsOnly``), replaced
/// by a fresh one at each piece. (The merging sink's storage stays a constant, which its hot
/// paths read without retaining it.)
final class GraphPieceSink: DocumentSink, InputLabelled {
    private let options: DocumentOptions
    private let policy: DuplicatePolicy
    private let numberAlarm: NumberAlarm?
    private var current: GraphSink
    let keepsValues = true
    /// Hints for the current collector's key table (moved to each new one, which the builder
    /// sees through this one object).
    let keyHints: KeyHints?
    var sourceName: String? {
        didSet { current.sourceName = sourceName }
    }

    init(options: DocumentOptions, policy: DuplicatePolicy, numberAlarm: NumberAlarm?) {
        self.options = options
        self.policy = policy
        self.numberAlarm = numberAlarm
        current = Self.collector(options, policy, numberAlarm)
        keyHints = KeyHints(sink: current)
    }

    private static func collector(_ options: DocumentOptions, _ policy: DuplicatePolicy, _ alarm: NumberAlarm?) -> GraphSink {
        let sink = GraphSink(options: options, policy: policy, collectsOnly: true)
        sink.numberAlarm = alarm
        return sink
    }

    // `current` is replaced by `takePiece` alone, between batches, never during these calls:
    // they call it unretained (a retain and a release per resource otherwise).
    func resource(_ resource: ResourceDraft, in arenas: inout DraftArenas) throws(JSONAPIError) {
        try Unmanaged.passUnretained(current).withUnsafeGuaranteedInstance { (c) throws(JSONAPIError) in try c.resource(resource, in: &arenas) }
    }

    func document(_ document: DocumentDraft, in arenas: borrowing DraftArenas) throws(JSONAPIError) {
        try Unmanaged.passUnretained(current).withUnsafeGuaranteedInstance { (c) throws(JSONAPIError) in try c.document(document, in: arenas) }
    }

    /// What was received since the last piece, as a graph of its own over `values` (the value
    /// store since then); the next resources go to a fresh collector.
    func takePiece(values: consuming ByteArena) -> Graph {
        let piece = current.graph(values: values, inputBytes: 0, shrink: false)
        current = Self.collector(options, policy, numberAlarm)
        // The merge reads the piece's keys, never looks one up: the next collector takes its
        // slot table, cleared (in this core's cache), rather than a fresh allocation.
        current.storage.keys.takeSlots(from: &piece.storage.keys)
        keyHints?.retarget(current)
        current.sourceName = sourceName
        // Pieces of one input are alike (batches of about the same size): the next collector
        // starts at this one's size, so its key table and rows do not double their way up
        // again (each doubling of the key table hashes every key once more).
        current.reserve(like: piece.storage)
        return piece
    }
}
