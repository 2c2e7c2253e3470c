#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads inputs of many documents on several workers, each with its own yajl handle, builder
/// and sinks, and hands their output over in input order.
///
/// ```
/// caller:   feed ─> splitter ─> batches of whole documents ─┬─> worker 1 ─> output ┐
///                                                          └─> worker 2 ─> output ┴─> in order ─> deliver
/// ```
///
/// - The caller's thread splits the input where top-level values end (`jsonapi_split_scan`:
///   quotes, escapes, brackets and line feeds, 32 bytes at a time), into batches of at least
///   ``batchBytes``. Each batch knows where it starts (``SegmentStart``: offset, line,
///   documents before it), so a worker reports the positions, document numbers and
///   diagnostics one parser reading the whole input would.
/// - A document longer than ``continuationBytes`` is handed over in pieces, all to the same
///   worker, which reads it as one parser would (any read size gives the same result).
/// - Outputs, warnings and the first error are delivered in input order: what comes after
///   the first error is dropped, as a sequential read would never have reached it. Memory is
///   bounded by the window of batches in flight (``BatchDelivery/window``).
/// - Whether to use workers is decided on the first ``decisionBytes`` of input: when they
///   hold no document boundary (one large document) or the whole input is smaller, the
///   caller's own stream reads everything (on one thread, or two for a large document).
final class ParallelReader {
    /// What one worker produced for one batch, delivered in input order.
    struct Output: ~Copyable {
        var bytes: ByteArena
        var records: Int
        var numbersQuoted: Int
        /// A graph worker's piece, when its segment ended with the batch.
        var piece: GraphPiece?
        /// A writer's primary linkage of a range of elements, once the range ended.
        var primary: PrimaryLinkage?
        /// A table worker's rows (``TableSink/takePiece()``).
        var tables: TablePiece? = nil
        /// A worker's resources and documents for the user's sinks (``DraftTape``).
        var drafts: DraftTape? = nil
        /// Whether the batch starts an input.
        var startsInput = false
    }

    /// Bytes after which a batch ends at the next document boundary.
    var batchBytes: Int
    /// The most room a batch of a long document takes at once (``continuationBytes``, when
    /// it is no more than this and over twice the batch size: tuned readers only).
    static let roomAtOnce = 16 << 20
    /// Bytes after which a batch with no document boundary is handed over anyway (the rest of
    /// its document follows on the same worker, and the next batch ends at its end): the
    /// batch size and an eighth.
    var continuationBytes: Int
    /// Bytes read before deciding whether workers are used.
    var decisionBytes: Int
    /// The caller's own stream: used when the input is not read by workers, and for the
    /// bytes of large documents outside the ranges workers read.
    let sequential: DocumentStream
    /// The batches handed over and not yet delivered.
    private let delivery: BatchDelivery
    /// Warnings, delivered in input order.
    var onDiagnostic: ((Diagnostic) -> Void)? {
        get { delivery.onDiagnostic }
        set { delivery.onDiagnostic = newValue }
    }

    private enum Mode {
        /// Gathering the first bytes (``held``).
        case undecided
        case sequential
        case parallel
        /// Large documents: ranges of their elements on workers, the rest on the caller's
        /// stream (``ElementBatcher``).
        case elements(ElementBatcher)
    }
    private var mode = Mode.undecided
    /// The size after which a batch (or a range of elements) that starts at `offset` of the
    /// input ends at the next place to cut: the batch size, or, in the last bytes of an input
    /// whose size is known, the bytes left shared out among the workers (at least an eighth
    /// of the batch size). The workers then run out of work at about the same time, and the
    /// caller's thread, which takes in every worker's output in order, has small pieces left
    /// at the end, rather than waiting for the worker that took the last full batch while
    /// the others idle (with 2 workers and a 256 KiB batch size, the last 512 KiB go in about
    /// five batches rather than two). Only the batches depend on it, never what is read.
    /// (Shared out twice among the workers, the last 1 MiB went in about a dozen, which left
    /// a core idle about 0.1 ms less at 15.7 MB and cost a graph 0.09 instructions a byte
    /// more, a piece's own work: 55.04 in two counts against 54.95 and 54.96 for the same code
    /// otherwise, past the target of 55.)
    func cutTarget(at offset: Int) -> Int {
        let workers = delivery.workerCount
        guard let size = inputSize, workers > 1 else { return batchBytes }
        let left = max(0, size - offset)
        return min(batchBytes, max(batchBytes / 8, left / workers))
    }

    /// Called with the size of each range of elements cut once it ends, and whether it ended
    /// at the array's `]` or the input's end rather than at a comma (tests: which ranges the
    /// input was cut into); set before the first byte.
    var didCutRange: ((_ bytes: Int, _ atArrayEnd: Bool) -> Void)?
    /// Called when a batch cut ahead of the decision goes to the workers, with the input's bytes
    /// gathered by then (tests: a worker reads a large document's first range before the
    /// reader has decided; see ``speculate(on:in:)``); set before the first byte.
    var didHandOverAhead: ((_ gathered: Int) -> Void)?
    /// Called when what was cut ahead is dropped, a document having ended in the first bytes
    /// (tests); set before the first byte.
    var didDropAhead: (() -> Void)?
    /// Called with the size of each batch of whole documents closed at a document's end before
    /// the input's end (tests: which batches an input of many documents was cut into); set
    /// before the first byte.
    var didCutBatch: ((_ bytes: Int) -> Void)?
    /// The size of the input being read, when known in advance (``readWhole(_:name:chunkSize:)``,
    /// a regular file): its last batches and ranges are then cut smaller (``cutTarget(at:)``).
    /// A hint: the batches, never the result, depend on it.
    private var inputSize: Int?
    private var finished = false
    /// The input ``readWhole(_:name:chunkSize:)`` reads (empty otherwise): its bytes stay
    /// valid until the workers stop, so batches view them rather than copy them.
    private var stable = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The block the chunk being fed lies in, when ``read(_:chunkSize:progress:)`` reads
    /// into blocks: batches view it and keep it.
    private var block: ReadBlock?

    // The splitter's place in the current input.
    private var split = DocumentSplitter()
    private var inputOpen = false
    private var inputName: String?
    /// Documents in the inputs before the current one.
    private var documentsBefore = 0
    /// The batch being gathered.
    private var current: ParallelBatch?
    /// Whether the last batch left its segment open (the next one goes on with it).
    private var segmentOpen = false
    /// Batches gathered before the decision, and whether one of them ends a segment.
    private var held: [ParallelBatch] = []
    private var heldBytes = 0
    private var heldBoundary = false
    /// Whether one large document may be read by workers, a range of its elements each
    /// (``DocumentOptions/splitsElements``).
    private(set) var splitsElements = false
    /// Whether workers read one large document only: an input of many documents then stays
    /// on the caller's stream (``ParseOptions/largeDocumentsOnly``).
    private(set) var largeDocumentsOnly = false

    /// Takes from `document` what workers may do with a large document (every owner of a
    /// reader calls it once, before the first byte).
    func follow(_ document: DocumentOptions) {
        splitsElements = document.splitsElements
        largeDocumentsOnly = document.parse.largeDocumentsOnly
    }

    /// Bytes fed while the workers' side reads (undecided, or on workers).
    private var bytesFed = 0
    /// Workers for one large document of at least this size only, its size known as its reading
    /// begins (``ParseOptions/largeDocumentWorkers(cores:)``): decided at the first input (then
    /// nil), which otherwise goes to the caller's stream from its first byte, with every input
    /// after it.
    private var largeDocumentsFrom: Int?

    /// A large document cut by elements ahead of the decision (``speculate(on:in:)``).
    private var cuttingAhead: CuttingAhead?
    /// Whether the reader may still cut ahead: before its first byte, and until it stops.
    private var mayCutAhead = true

    /// A reader with `workers` workers made by `makeWorker`, batches of
    /// `batchBytes` (``ParseOptions/workerBatchBytes``), `sequential` for inputs that are not
    /// many documents; `deliver` receives the outputs in input order; `largeDocumentsFrom`:
    /// ``largeDocumentsFrom``.
    init(
        workers: Int, largeDocumentsFrom: Int? = nil, batchBytes: Int, sequential: DocumentStream, makeWorker: @escaping () -> ParallelWorker,
        deliver: @escaping (consuming Output) throws(JSONAPIError) -> Void
    ) {
        // One worker: the caller's stream reads everything.
        if workers < 2 { mode = .sequential }
        self.largeDocumentsFrom = workers < 2 ? nil : largeDocumentsFrom
        self.sequential = sequential
        self.batchBytes = max(1, batchBytes)
        // A document longer than a batch goes in pieces of about a batch (the room a batch
        // takes): a dump of 1.3 MB documents in whole-document batches (up to 8 batch sizes)
        // kept 4 of them and their output in flight, 38 to 40 MiB at the peak on 2 workers
        // against 29 to 31 in pieces. Pieces cost 0.4 % more instructions there, and 1 to 6 %
        // by the clock: glibc gives the top of a worker's heap, where the caller frees its
        // outputs, back to the system more often, and the worker faults it in again.
        let (piece, o1) = self.batchBytes.addingReportingOverflow(self.batchBytes / 8)
        continuationBytes = o1 ? .max : piece
        let (limit, overflow) = self.batchBytes.multipliedReportingOverflow(by: 8)
        decisionBytes = overflow ? .max : limit
        delivery = BatchDelivery(workers: workers, sequential: sequential, makeWorker: makeWorker, deliver: deliver)
    }

    deinit { delivery.stop() }

    /// Whether workers read the input (decided after the first bytes).
    var isParallel: Bool {
        switch mode {
        case .parallel, .elements: true
        case .undecided, .sequential: false
        }
    }

    /// Whether workers read ranges of the elements of large documents.
    var readsElements: Bool { if case .elements = mode { true } else { false } }

    /// The most batches, and the most input bytes, in flight at once (tests).
    var mostInFlight: (batches: Int, bytes: Int) { (delivery.mostInFlight, delivery.mostInFlightBytes) }
    /// Segments each worker began (tests).
    var segmentsByWorker: [Int] { delivery.segmentsByWorker }
    /// Called on a worker's thread before it reads a batch (tests; set before the first byte).
    var willRead: (@Sendable (_ worker: Int, _ batch: Int) -> Void)? {
        get { delivery.willRead }
        set { delivery.willRead = newValue }
    }
    /// The window's bounds (tests).
    var windowBounds: (batches: Int, bytes: Int) { (delivery.window, delivery.byteWindow) }
    /// The most room a batch of whole documents took (tests).
    private(set) var largestBatchRoom = 0

    /// Resources read so far (delivered ones, when workers read).
    var resourcesRead: Int {
        switch mode {
        case .parallel: delivery.resourcesDelivered
        case .elements: delivery.resourcesDelivered + sequential.resourcesRead
        case .undecided, .sequential: sequential.resourcesRead
        }
    }

    /// Bytes read so far.
    var bytesRead: Int {
        if case .sequential = mode { return sequential.bytesRead }
        return bytesFed
    }

    /// Reads everything on the caller's stream (what needs every document in one place).
    /// Called before the first byte.
    func useOneReader() {
        precondition(bytesFed == 0 && held.isEmpty, "before the first byte")
        mode = .sequential
    }

    /// Whether each document's top level is kept (``DocumentStream/recordsTopLevel``): it is
    /// kept in one place, so the caller's stream then reads everything.
    var recordsTopLevel: Bool {
        get { sequential.recordsTopLevel }
        set {
            sequential.recordsTopLevel = newValue
            if newValue { useOneReader() }
        }
    }

    /// The read sizes ``read(_:chunkSize:progress:)`` reads files into blocks at.
    private var blockReadSizes = ReadBlock.readSizes

    /// Sets the sizes it works with (tests: small inputs through workers, and files read into
    /// blocks at any read size).
    func tune(batchBytes: Int, continuationBytes: Int, decisionBytes: Int) {
        self.batchBytes = batchBytes
        self.continuationBytes = continuationBytes
        self.decisionBytes = decisionBytes
        blockReadSizes = 1...ReadBlock.readSizes.upperBound
    }

    /// Reads a whole input (a file, standard input, bytes) as a stream; `progress` is called
    /// after each chunk with the bytes read so far.
    ///
    /// A file or standard input is read into blocks (``ReadBlock``, at most
    /// ``ReadBlock/largest`` a read) that batches view rather than copy (a batch that
    /// straddles two has a view of each), unless it is compressed (the decompressed bytes are
    /// copied) or the read size is outside ``ReadBlock/readSizes``.
    func read(_ source: InputSource, chunkSize: Int, progress: ((Int) -> Void)? = nil) throws(JSONAPIError) {
        try beginInput(named: source.name, size: source.knownSize)
        do throws(JSONAPIError) {
            let blocks = blockReadSizes.contains(InputSource.readSize(chunkSize))
            let puller = InputPuller(source, chunkSize: chunkSize, blocks: blocks)
            var read = 0
            while try puller.step({ (chunk) throws(JSONAPIError) in
                block = puller.chunkBlock
                defer { block = nil }
                try feed(chunk)
                read += chunk.count
                progress?(read)
            }) {}
            try endInput()
        } catch {
            throw error.withSourceIfMissing(source.name)
        }
    }

    // MARK: - The caller's side

    /// Begins an input; `size`, when known, is a hint (``inputSize``).
    func beginInput(named name: String?, size: Int? = nil) throws(JSONAPIError) {
        try checkUsable()
        if inputOpen { try endInput() }
        if let from = largeDocumentsFrom {
            // The first input (nothing was fed before it): workers only if it may be one
            // large document of at least `from` bytes that they can read by ranges.
            largeDocumentsFrom = nil
            if let size, size >= from, splitsElements {
                largeDocumentsOnly = true
            } else {
                useOneReader()
            }
        }
        if case .sequential = mode { return try sequential.beginInput(named: name) }
        inputOpen = true
        inputName = name
        inputSize = size
        split = DocumentSplitter()
        if case .elements(let batcher) = mode { batcher.beginInput(named: name) }
    }

    /// Reads `bytes` as a whole input (named `name`), in chunks of `chunkSize`, without
    /// copying them into batches: workers read them where they are.
    ///
    /// The caller keeps `bytes` valid and unchanged until ``finish()`` or ``abandon()`` has
    /// returned (both stop the workers first), and calls one of them before it lets go of
    /// the bytes, also when this throws.
    func readWhole(_ bytes: UnsafeRawBufferPointer, name: String?, chunkSize: Int) throws(JSONAPIError) {
        try beginInput(named: name, size: bytes.count)
        stable = bytes
        // (Bytes of later inputs are copied: the promise covers these.)
        defer { stable = UnsafeRawBufferPointer(start: nil, count: 0) }
        do throws(JSONAPIError) {
            try forEachChunk(of: bytes, size: chunkSize) { (chunk) throws(JSONAPIError) in try feed(chunk) }
            try endInput()
        } catch {
            throw name.map { error.withSourceIfMissing($0) } ?? error
        }
    }

    /// Where `chunk` lies: in the input being read by ``readWhole(_:name:chunkSize:)``, in
    /// the block being read into (``read(_:chunkSize:progress:)``), or elsewhere.
    @inline(__always)
    private func place(of chunk: UnsafeRawBufferPointer) -> ChunkPlace {
        if stable.encloses(chunk) { return .stable }
        if let block, block.contains(chunk) { return .block(block) }
        return .transient
    }

    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        try checkUsable()
        if case .sequential = mode { return try sequential.feed(chunk) }
        if !inputOpen {
            try beginInput(named: nil)
            // (The first input may have gone to the caller's stream: ``largeDocumentsFrom``.)
            if case .sequential = mode { return try sequential.feed(chunk) }
        }
        guard chunk.count > 0 else { return }
        bytesFed += chunk.count
        let place = place(of: chunk)
        if case .elements(let batcher) = mode {
            try batcher.feed(chunk, in: place, to: self)
            return try deliverReady(waiting: false)
        }
        var rest = chunk
        while !rest.isEmpty {
            let batch = currentBatch(copying: place.isTransient)
            // A batch that goes on with a segment (its document passed `continuationBytes`)
            // ends at the first document end: the segment has passed the batch size. In the
            // last bytes of an input of known size, batches end sooner (``cutTarget(at:)``).
            let cutFrom = batch.segment.map { max(0, cutTarget(at: $0.offset) - batch.bytes.count - 1) } ?? 0
            // Batches never grow past `continuationBytes`, whatever the read size: the same
            // input gives the same batches.
            let piece = UnsafeRawBufferPointer(rebasing: rest[..<min(rest.count, max(1, continuationBytes - batch.bytes.count))])
            // A document over twice the batch size: room at once for the most a batch holds,
            // rather than doubling up to it (each doubling copied what was gathered: about 1.5
            // times a 1.3 MB document, on this thread). Below that, batches of small documents
            // that pass their first room a little go on doubling, on the heap; and so do the
            // batches of a batch size so large that their most would be a lot of room to hold.
            let cut = split.scan(piece, cutAfter: cutFrom)
            // (What is appended: up to the cut when a document ends in the piece.)
            let needed = batch.bytes.count + (cut ?? piece.count)
            if needed > batch.bytes.capacity && needed / 2 > batchBytes && continuationBytes <= Self.roomAtOnce {
                // (Its room is then at most 2.25 batch sizes, so `reserveCapacity` grows it to
                // exactly this, 8 batch sizes.)
                batch.bytes.reserveCapacity(continuationBytes)
            }
            if let cut {
                batch.bytes.append(UnsafeRawBufferPointer(rebasing: rest[..<cut]), in: place)
                try close(batch, endsSegment: true, endsInput: false)
                rest = UnsafeRawBufferPointer(rebasing: rest[cut...])
            } else {
                batch.bytes.append(piece, in: place)
                if case .undecided = mode, mayCutAhead { try speculate(on: piece, in: place) }
                rest = UnsafeRawBufferPointer(rebasing: rest[piece.count...])
                if batch.bytes.count >= continuationBytes {
                    try close(batch, endsSegment: false, endsInput: false)
                }
            }
            switch mode {
            case .sequential:
                // Decided while gathering: the rest goes to the caller's stream.
                if !rest.isEmpty { try sequential.feed(rest) }
                return
            case .elements(let batcher):
                // Decided while gathering: the rest is cut by elements.
                if !rest.isEmpty { try batcher.feed(rest, in: place, to: self) }
                return try deliverReady(waiting: false)
            case .undecided, .parallel:
                continue
            }
        }
        try deliverReady(waiting: false)
    }

    func endInput() throws(JSONAPIError) {
        try checkUsable()
        if case .sequential = mode { return try sequential.endInput() }
        guard inputOpen else { return }
        inputOpen = false
        if case .elements(let batcher) = mode {
            try batcher.endInput(to: self)
            return try deliverReady(waiting: false)
        }
        // The last batch of the input (possibly only white space after the last document,
        // or nothing: an empty input, whose error the worker reports).
        let batch = currentBatch(copying: stable.baseAddress == nil)
        documentsBefore += split.documents
        // White space after the input's last document: nothing to read (a parser would
        // call it an empty input), but the input ends in its turn.
        if let segment = batch.segment, !segment.startsInput, batch.isBlank { batch.skipsReading = true }
        try close(batch, endsSegment: true, endsInput: true)
        // (Decided on the caller's stream just now: the batch replayed there ended the input.)
        try deliverReady(waiting: false)
    }

    /// Ends the last input and delivers everything; the workers stop.
    func finish() throws(JSONAPIError) {
        try checkUsable()
        if inputOpen { try endInput() }
        finished = true
        switch mode {
        case .undecided:
            try decide(parallel: false)
            try sequential.finish()
        case .sequential:
            try sequential.finish()
        case .parallel:
            defer { delivery.stop() }
            try deliverReady(waiting: true)
            sequential.abandon()
        case .elements:
            defer { delivery.stop() }
            try deliverReady(waiting: true)
            try sequential.finish()
        }
    }

    /// Stops without reading what is left.
    func abandon() {
        finished = true
        delivery.stop()
        sequential.abandon()
    }

    private func checkUsable() throws(JSONAPIError) {
        if let failure = delivery.failure { throw failure }
        guard !finished else { throw JSONAPIError.misuse("read after finish") }
    }

    // MARK: - Batches

    /// The batch being gathered, or a new one; `copying`: the bytes it gathers are copied (not
    /// read in place), so it takes its room now.
    private func currentBatch(copying: Bool) -> ParallelBatch {
        if let current { return current }
        var segment: SegmentStart? = nil
        if !segmentOpen {
            segment = SegmentStart(
                offset: split.offset, line: split.line, lineStart: split.lineStart,
                documentIndex: documentsBefore + split.documents, startsInput: split.offset == 0, precededBy: split.lastCut)
        }
        // Room for a batch's usual size from the start (it closes after the first document
        // ending past `batchBytes`), so that it is not copied as it grows.
        let b = ParallelBatch(
            segment: segment, name: inputName, bytes: BatchBytes(room: min(batchBytes + batchBytes / 8, continuationBytes), now: copying))
        current = b
        return b
    }

    /// Hands `batch` over (or holds it, before the decision).
    private func close(_ batch: ParallelBatch, endsSegment: Bool, endsInput: Bool) throws(JSONAPIError) {
        current = nil
        largestBatchRoom = max(largestBatchRoom, batch.bytes.capacity)
        if endsSegment, !endsInput, batch.segment != nil, let didCutBatch { didCutBatch(batch.bytes.count) }
        batch.endsSegment = endsSegment
        batch.endsInput = endsInput
        segmentOpen = !endsSegment
        switch mode {
        case .undecided:
            held.append(batch)
            heldBytes += batch.bytes.count
            heldBoundary = heldBoundary || endsSegment
            // A document ends in the first bytes: the input is not one large document.
            if endsSegment { stopCuttingAhead() }
            // (Workers for one large document only: a document's end says that the input is
            // not one, and the rest goes to the caller's stream without holding more.)
            if heldBytes >= decisionBytes || (heldBoundary && largeDocumentsOnly) {
                // Workers pay off when the first bytes hold a document boundary: documents
                // smaller than that. Larger ones are read a range of elements per worker,
                // when the pipeline can.
                try decide(parallel: heldBoundary, large: !heldBoundary)
            }
        case .parallel:
            try delivery.dispatch(batch)
        case .sequential, .elements:
            preconditionFailure("no batch is gathered on the caller's stream or cut by elements")
        }
    }

    private func decide(parallel: Bool, large: Bool = false) throws(JSONAPIError) {
        let batches = held
        held = []
        heldBytes = 0
        if large && splitsElements, let ahead = cuttingAhead {
            // Cut ahead from the first byte: the batcher has read everything gathered, and
            // goes on with the rest.
            cuttingAhead = nil
            mayCutAhead = false
            mode = .elements(ahead.batcher)
            sequential.reader.staysOnOneThread = true
            for b in ahead.adopt(didCutRange: didCutRange) { try handOver(b) }
            return
        }
        stopCuttingAhead()
        if parallel && !largeDocumentsOnly {
            mode = .parallel
            delivery.startWorkers(batchBytes: batchBytes)
            for b in batches { try delivery.dispatch(b) }
            return
        }
        if large && splitsElements {
            // Everything gathered is cut again, by elements.
            let batcher = ElementBatcher(batchBytes: batchBytes, continuationBytes: continuationBytes)
            mode = .elements(batcher)
            sequential.reader.staysOnOneThread = true
            delivery.startWorkers(perWorker: 2, batchBytes: batchBytes)
            for b in batches {
                if let segment = b.segment, segment.startsInput { batcher.beginInput(named: b.name) }
                try b.bytes.forEachPart { (bytes, place) throws(JSONAPIError) in try batcher.feed(bytes, in: place, to: self) }
                if b.endsInput { try batcher.endInput(to: self) }
            }
            return
        }
        mode = .sequential
        // Everything gathered goes to the caller's stream, as it came.
        for b in batches {
            if let segment = b.segment, segment.startsInput { try sequential.beginInput(named: b.name) }
            try b.bytes.forEachPart { (bytes, _) throws(JSONAPIError) in try sequential.feed(bytes) }
            if b.endsInput { try sequential.endInput() }
        }
        // The open input (begun by its first batch) goes on in the caller's stream.
    }

    /// Hands a batch over in input order: to a worker, or kept for the caller's stream
    /// (cutting ahead: once the window has room for it, see ``CuttingAhead``).
    func handOver(_ batch: ParallelBatch) throws(JSONAPIError) {
        if let cuttingAhead { return cuttingAhead.keep(batch) }
        if batch.onCaller { try delivery.keep(batch) } else { try delivery.dispatch(batch) }
    }

    /// Tells ``didCutRange`` of a range cut (when the cut is known to stand).
    func didCut(range bytes: Int, atArrayEnd: Bool) {
        guard let didCutRange else { return }
        if let cuttingAhead { cuttingAhead.keepCut(bytes, atArrayEnd: atArrayEnd) } else { didCutRange(bytes, atArrayEnd) }
    }

    // MARK: - Cutting ahead

    /// Cuts `bytes` (just gathered, before the decision) by elements too, from the input's
    /// first piece on, when the input may be one large document read by workers and its size
    /// is known and at least ``decisionBytes`` (``CuttingAhead``).
    private func speculate(on bytes: UnsafeRawBufferPointer, in place: ChunkPlace) throws(JSONAPIError) {
        // A copy, or a second document begun: not one large document whose bytes stay.
        guard !place.isTransient, split.documents < 2 else { return stopCuttingAhead() }
        if cuttingAhead == nil {
            // (The first piece of the input: nothing gathered before it.)
            guard splitsElements, delivery.workerCount > 1, held.isEmpty, current?.bytes.count == bytes.count, documentsBefore == 0,
                let size = inputSize, size >= decisionBytes
            else { return stopCuttingAhead() }
            cuttingAhead = CuttingAhead(batchBytes: batchBytes, continuationBytes: continuationBytes, inputNamed: inputName, delivery: delivery)
        }
        try cuttingAhead?.feed(bytes, in: place, to: self) { didHandOverAhead?(heldBytes + (current?.bytes.count ?? 0)) }
    }

    /// Stops cutting ahead for good, dropping what was cut.
    private func stopCuttingAhead() {
        mayCutAhead = false
        guard let ahead = cuttingAhead else { return }
        cuttingAhead = nil
        ahead.drop()
        didDropAhead?()
    }

    /// Delivers finished batches in order (``BatchDelivery/deliverReady(waiting:atMost:)``).
    private func deliverReady(waiting: Bool) throws(JSONAPIError) {
        guard isParallel else { return }
        try delivery.deliverReady(waiting: waiting)
    }
}
