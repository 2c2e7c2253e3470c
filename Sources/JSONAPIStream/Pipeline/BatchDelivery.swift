/// The batches a ``ParallelReader`` handed over and has not delivered yet: read by its
/// workers (a ``WorkerPool``), or kept for its caller's stream (the bytes of a large document
/// outside the ranges workers read), and delivered in input order on the caller's thread. At
/// most ``window`` are in flight, and past two per worker at most ``byteWindow`` bytes of
/// input, so memory is bounded whatever the documents' size. The first error stops the
/// workers and is kept: the reader throws it from then on.
final class BatchDelivery {
    /// Batches handed over and not yet delivered, at most (set as the workers start).
    private(set) var window: Int
    /// Input bytes in flight, at most, once two batches per worker are (set as the workers
    /// start). Batches are at most a batch size since a long document goes in pieces of one
    /// (``ParallelReader/continuationBytes``), so this binds only a reader tuned to larger
    /// pieces, or a caller's batch that took a large read whole. Bounded by count alone,
    /// whole-document batches of a dump of 1.3 MB documents kept 8 of them and their output
    /// in flight (54 MiB peak on 2 workers, against 25 MiB on one reader).
    private(set) var byteWindow = Int.max
    /// Input bytes of the batches in flight.
    private var inFlightBytes = 0
    /// The most batches, and input bytes, in flight at once so far.
    private(set) var mostInFlight = 0
    private(set) var mostInFlightBytes = 0
    /// Segments (runs of documents, ranges of elements) each worker began so far.
    var segmentsByWorker: [Int] { pool?.segmentsByWorker ?? Array(repeating: 0, count: workerCount) }
    let workerCount: Int
    private let sequential: DocumentStream
    private let makeWorker: () -> ParallelWorker
    private let deliver: (consuming ParallelReader.Output) throws(JSONAPIError) -> Void
    /// Warnings, delivered in input order.
    var onDiagnostic: ((Diagnostic) -> Void)?
    /// Called on a worker's thread before it reads a batch (tests; set before the workers
    /// start): ``WorkerPool``.
    var willRead: (@Sendable (_ worker: Int, _ batch: Int) -> Void)?

    /// The workers' threads and queues (started at the decision).
    private var pool: WorkerPool?
    /// The id the next batch handed over gets; the next to deliver; how many are in flight.
    private var nextID = 0
    private var nextToDeliver = 0
    private var inFlight = 0
    /// Worker choice for a batch that starts a segment: the next in turn.
    private var turn = 0
    /// The worker reading the segment the next batch continues, if it continues one.
    private var continuingWorker: Int?
    /// Batches read on the caller's stream, by id, until their turn.
    private var callerBatches: [Int: ParallelBatch] = [:]
    /// Warnings of the parser held until their input ends (a skipped byte order mark is
    /// reported when the input ends, as one parser reports it).
    private var inputNotices: [Diagnostic] = []
    private(set) var resourcesDelivered = 0
    /// The first error delivered.
    private(set) var failure: JSONAPIError?

    init(
        workers: Int, sequential: DocumentStream, makeWorker: @escaping () -> ParallelWorker,
        deliver: @escaping (consuming ParallelReader.Output) throws(JSONAPIError) -> Void
    ) {
        workerCount = workers
        window = 4 * workers
        self.sequential = sequential
        self.makeWorker = makeWorker
        self.deliver = deliver
    }

    /// Starts the workers, with `perWorker` batches in flight for each: 4 for whole documents
    /// (small ones keep a worker busy only briefly), 2 for ranges of one large document,
    /// whose batches are all full (`batchBytes`, ``ParseOptions/workerBatchBytes``) and whose
    /// graph pieces are about that large again.
    func startWorkers(perWorker: Int = 4, batchBytes: Int) {
        window = perWorker * workerCount
        // Room for the usual batch (the batch size and part of a document) in every place of
        // the window, so that only batches of larger documents are held back.
        let (perBatch, o1) = batchBytes.addingReportingOverflow(batchBytes / 2)
        let (bytes, o2) = perBatch.multipliedReportingOverflow(by: window)
        byteWindow = o1 || o2 ? .max : bytes
        // `workerCount` workers: a thread each, but the last, the caller's (``WorkerPool``).
        pool = WorkerPool((0..<workerCount).map { _ in makeWorker() }, willRead: willRead)
    }

    /// Stops the workers (safe to call twice, or before they started).
    func stop() { pool?.stop() }

    /// Whether `batch` can be handed over now without waiting for a delivery.
    func hasRoom(for batch: ParallelBatch) -> Bool { !isFull(before: batch) }

    /// Drops every batch handed over (none delivered yet) and the workers that read them, as
    /// if none had been: the read goes on as from its start, with workers started anew if it
    /// uses them (a worker's parser that met an error in a dropped batch would give that
    /// error again for its next one).
    func retract() {
        precondition(nextToDeliver == 0 && failure == nil, "nothing delivered")
        pool?.stop()
        pool = nil
        nextID = 0
        inFlight = 0
        inFlightBytes = 0
        turn = 0
        continuingWorker = nil
        callerBatches = [:]
    }

    /// Hands `batch` to a worker: the one reading the segment it continues; any, when it is a
    /// whole segment (``WorkerPool``); else the next in turn, the caller's own worker among
    /// them (which reads it at once). Waits (delivering) while the window is full.
    func dispatch(_ batch: ParallelBatch) throws(JSONAPIError) {
        while isFull(before: batch) { try deliverReady(waiting: true, atMost: 1) }
        let w: Int?
        if let c = continuingWorker {
            w = c
        } else if batch.segment != nil && batch.endsSegment {
            w = nil
        } else {
            w = turn
            turn = (turn + 1) % workerCount
        }
        continuingWorker = batch.endsSegment ? nil : w
        take(batch)
        if let w, w == pool!.helperNumber {
            // The caller's own worker: read now, on this thread.
            pool!.readOnCaller(batch)
        } else {
            pool!.push(batch, to: w)
        }
    }

    /// Keeps `batch` for the caller's stream, which reads it in its turn. Waits (delivering)
    /// while the window is full.
    func keep(_ batch: ParallelBatch) throws(JSONAPIError) {
        while isFull(before: batch) { try deliverReady(waiting: true, atMost: 1) }
        take(batch)
        callerBatches[batch.id] = batch
    }

    /// Whether `batch` must wait for a delivery: the window is full by count, or by bytes
    /// once every worker has a batch to read and one to go on with.
    private func isFull(before batch: ParallelBatch) -> Bool {
        if inFlight >= window { return true }
        return inFlight >= 2 * workerCount && inFlightBytes + batch.bytes.count > byteWindow
    }

    /// Gives `batch` its place in input order (the order batches are handed over in).
    private func take(_ batch: ParallelBatch) {
        batch.id = nextID
        nextID += 1
        inFlight += 1
        batch.countedBytes = batch.bytes.count
        inFlightBytes += batch.countedBytes
        mostInFlight = max(mostInFlight, inFlight)
        mostInFlightBytes = max(mostInFlightBytes, inFlightBytes)
    }

    /// Delivers finished batches in order: all that are ready, or (`waiting`) all in flight,
    /// or `atMost` of them.
    func deliverReady(waiting: Bool, atMost: Int = .max) throws(JSONAPIError) {
        var delivered = 0
        while delivered < atMost && inFlight > 0 {
            if let batch = callerBatches.removeValue(forKey: nextToDeliver) {
                nextToDeliver += 1
                inFlight -= 1
                inFlightBytes -= batch.countedBytes
                delivered += 1
                try readOnCaller(batch)
                continue
            }
            guard let batch = pool!.take(nextToDeliver, waiting: waiting) else { return }
            nextToDeliver += 1
            inFlight -= 1
            inFlightBytes -= batch.countedBytes
            delivered += 1
            try deliverOne(batch)
        }
    }

    /// A large document's bytes outside the ranges of elements: the caller's stream reads
    /// them, in their turn.
    private func readOnCaller(_ batch: ParallelBatch) throws(JSONAPIError) {
        do throws(JSONAPIError) {
            if batch.beginsInputOnCaller { try sequential.beginInput(named: batch.name) }
            if let r = batch.resume { try sequential.reader.skip(to: r.offset, line: r.line, lineStart: r.lineStart) }
            try batch.bytes.forEachPart { (bytes, _) throws(JSONAPIError) in try sequential.feed(bytes) }
            // What these bytes hold is written now, before the next batch's output.
            if batch.endsInput { try sequential.endInput() } else { try sequential.reader.flush() }
        } catch {
            throw fail(error)
        }
    }

    private func deliverOne(_ batch: ParallelBatch) throws(JSONAPIError) {
        // A violation of the compound rules found in a range's facts stops the read there: its
        // output is cut where one reader stopped writing (before that resource).
        let violation = absorbFacts(of: batch)
        resourcesDelivered += batch.resources
        var output = ParallelReader.Output(
            bytes: ByteArena(capacity: 16), records: batch.records, numbersQuoted: batch.numbersQuoted, piece: batch.piece, primary: batch.primary,
            tables: batch.tables, drafts: batch.drafts, startsInput: batch.segment?.startsInput ?? false)
        batch.piece = nil
        batch.tables = nil
        batch.drafts = nil
        batch.primary = nil
        swap(&output.bytes, &batch.output)
        if let violation {
            let row = batch.facts!.rows[violation.row]
            output.bytes.truncate(to: row.outputMark)
            output.records = row.records
            output.numbersQuoted = row.numbersQuoted
            output.primary = nil
            output.tables?.cut(toResources: row.resourcesBefore)
        }
        do throws(JSONAPIError) {
            try deliver(output)
        } catch {
            throw fail(error)
        }
        if let violation { throw fail(violation.error) }
        inputNotices += batch.notices
        if let error = batch.error { throw fail(error) }
        if batch.endsInput {
            for n in inputNotices { onDiagnostic?(n) }
            inputNotices = []
        }
    }

    /// Delivers the batch's warnings, with its compound facts taken in among them by the
    /// caller's validator (``Validator/takeIn(_:before:warnings:next:emit:)``); the first
    /// violation that stops the read, with its row.
    private func absorbFacts(of batch: ParallelBatch) -> (row: Int, error: JSONAPIError)? {
        var next = 0
        if let facts = batch.facts, let validator = sequential.validator {
            do throws(JSONAPIError) {
                try validator.takeIn(facts, before: .max, warnings: batch.diagnostics, next: &next) { onDiagnostic?($0) }
            } catch {
                return (facts.taken, error)
            }
        }
        for d in batch.diagnostics[next...] { onDiagnostic?(d) }
        return nil
    }

    /// Keeps `error` as the reader's failure and stops the workers.
    private func fail(_ error: JSONAPIError) -> JSONAPIError {
        failure = error
        pool?.stop()
        return error
    }
}
