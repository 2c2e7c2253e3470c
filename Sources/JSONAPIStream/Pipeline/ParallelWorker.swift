#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
internal import CPlatform

/// The workers' threads, their queues of batches, and the batches they finished.
/// Its own object (the threads hold it, not the reader), so that a reader dropped without
/// ``ParallelReader/finish()`` still stops them.
///
/// A batch that is a whole segment (a run of documents, a range of elements) goes to the
/// shared queue, which any worker that is not in the middle of a segment takes from: a worker
/// slowed down (it shares its core with the reading thread, or its ranges are heavier) then
/// reads fewer, and the others do not wait for it. The batches of a longer segment go to one
/// worker's own queue, as its parser holds the segment's state between them.
///
/// The last worker has no thread: it is the caller's (the reading thread's), the helper. A
/// batch given to it is read at once, on the caller's thread (``readOnCaller(_:)``); and while
/// the caller waits for a batch it must deliver next, it reads batches of the shared queue
/// that the threads have not taken (``take(_:waiting:)``). So `n` workers are `n` threads in
/// all, the reading thread among them, rather than `n` and the reading thread beside them: on
/// a machine of `n` cores each thread has a core, the reading thread does not take a worker's
/// core from it each time it splits or delivers, and no core idles while it waits.
final class WorkerPool: @unchecked Sendable {
    private let lock = Condition()
    private let workers: [ParallelWorker]
    /// The caller's worker (number `workers.count`).
    private let helper: ParallelWorker
    // Under `lock`:
    private var queues: [FIFO<ParallelBatch>]
    private var shared = FIFO<ParallelBatch>()
    private var done: [Int: ParallelBatch] = [:]
    private var stopping = false
    private var running: Int
    /// Threads waiting for a batch to read.
    private var idle = 0
    /// Segments each worker began so far (the helper's last).
    private var segments: [Int]
    /// Whether the helper is in the middle of a segment (it then reads only that segment's
    /// batches, as they are given to it), the id of the last batch it read, and whether one
    /// of its batches ended in an error. Only the caller's thread touches them.
    private var helperInSegment = false
    private var helperLast = -1
    private var helperFailed = false
    /// Called before a worker reads a batch, with the worker's number and the batch's id
    /// (tests: a worker held up). The helper's number is the threads' count.
    private let willRead: (@Sendable (_ worker: Int, _ batch: Int) -> Void)?

    /// `workers`: one per thread, and the helper last (at least one, the helper).
    init(_ workers: [ParallelWorker], willRead: (@Sendable (_ worker: Int, _ batch: Int) -> Void)? = nil) {
        precondition(!workers.isEmpty, "the caller's worker at least")
        self.workers = Array(workers.dropLast())
        helper = workers.last!
        self.willRead = willRead
        let threads = workers.count - 1
        queues = Array(repeating: FIFO(), count: threads)
        segments = Array(repeating: 0, count: workers.count)
        running = threads
        for (w, worker) in self.workers.enumerated() {
            NativeThread.start(name: "jsonapi-work-\(w + 1)", stackSize: 1 << 20) { [self] in self.work(w, worker) }
        }
    }

    /// The number of the caller's worker (the helper).
    var helperNumber: Int { workers.count }

    /// Hands `batch` to worker `w`, or (nil) to whichever takes it first: `batch` must then be
    /// a whole segment. `w` is not the helper (``readOnCaller(_:)``).
    func push(_ batch: ParallelBatch, to w: Int?) {
        lock.lock()
        if let w { queues[w].append(batch) } else { shared.append(batch) }
        if idle > 0 { lock.broadcast() }
        lock.unlock()
    }

    /// Reads `batch` on the caller's thread, with the helper, and puts it among the done: a
    /// batch given to the helper, or one it took from the shared queue (``take(_:waiting:)``).
    func readOnCaller(_ batch: ParallelBatch) {
        let w = workers.count
        willRead?(w, batch.id)
        let start = ThreadProcessorTime.now
        helper.read(batch)
        jsonapi_helper_add_seconds(ThreadProcessorTime.now - start)
        helperInSegment = !batch.endsSegment
        helperLast = batch.id
        helperFailed = helperFailed || batch.error != nil
        lock.withLock {
            if batch.segment != nil { segments[w] += 1 }
            done[batch.id] = batch
        }
    }

    /// Segments each worker began so far (the helper's last).
    var segmentsByWorker: [Int] { lock.withLock { segments } }

    /// Batch `id` once read: `nil` when it is not read yet and `waiting` is false. While it
    /// waits, the caller reads batches of the shared queue the threads have not taken (the
    /// oldest first; as many as there are more than threads waiting to take them, so that a
    /// thread that is about to take one is not left without), unless the helper is in the
    /// middle of a segment, or it met an error and the oldest is older than the last batch it
    /// read: a parser that met an error gives it again for whatever it reads next (harmless
    /// after it: what follows the first error is never delivered; wrong before it). Without
    /// an error the helper reads an older batch as well as a newer one. (Held to input order
    /// always, a helper that had read the next segment's first batch in its turn could not
    /// take the older whole ones the thread had left: over a dump of 52 KB pages, where a
    /// batch often ends past its continuation size and goes on in a second one, the caller
    /// waited 1 to 4 ms at a time for the thread, 5 ms of every 32 ms run of NDJSON.)
    func take(_ id: Int, waiting: Bool) -> ParallelBatch? {
        lock.lock()
        defer { lock.unlock() }
        while waiting && done[id] == nil {
            if !helperInSegment && !stopping && shared.count > idle, let first = shared.first, first.id > helperLast || !helperFailed,
                let batch = shared.take()
            {
                lock.unlock()
                readOnCaller(batch)
                lock.lock()
                continue
            }
            lock.wait()
        }
        return done.removeValue(forKey: id)
    }

    /// The batch worker `w` reads next, under the lock: in a segment (`inSegment`), the next of
    /// its own queue; otherwise the older of its own queue's first and the shared queue's
    /// first. Taking the older keeps the oldest batch in flight always read by someone (the
    /// reader's thread waits for it while the window is full): a worker never begins a newer
    /// segment of its own, and then waits in it for a batch the window holds back, while an
    /// older whole segment waits in the shared queue.
    private func next(for w: Int, inSegment: Bool) -> ParallelBatch? {
        guard !inSegment, let s = shared.first else { return queues[w].take() }
        if let own = queues[w].first, own.id < s.id { return queues[w].take() }
        return shared.take()
    }

    private func work(_ w: Int, _ worker: ParallelWorker) {
        var inSegment = false
        while true {
            lock.lock()
            var batch: ParallelBatch?
            while !stopping {
                batch = next(for: w, inSegment: inSegment)
                if batch != nil { break }
                idle += 1
                lock.wait()
                idle -= 1
            }
            guard let batch, !stopping else {
                running -= 1
                lock.broadcast()
                lock.unlock()
                return
            }
            if batch.segment != nil { segments[w] += 1 }
            lock.unlock()
            willRead?(w, batch.id)
            worker.read(batch)
            inSegment = !batch.endsSegment
            lock.lock()
            done[batch.id] = batch
            lock.broadcast()
            lock.unlock()
        }
    }

    /// Stops the threads and waits for them (a batch being read is finished first). Safe to
    /// call twice. Called on the caller's thread (the helper reads nothing meanwhile).
    func stop() {
        lock.lock()
        stopping = true
        lock.broadcast()
        while running > 0 { lock.wait() }
        queues = queues.map { _ in FIFO() }
        shared = FIFO()
        done = [:]
        lock.unlock()
        for w in workers { w.stream.abandon() }
        helper.stream.abandon()
    }
}

/// The room a worker's next piece (its value store, key table, record tables, compound
/// facts) starts with when its last held `n`: a quarter more, so that a piece a little larger
/// than the last does not grow each of them again (a doubling copies, a key table's rehashes).
@inline(__always)
func pieceRoom(after n: Int) -> Int { n + n / 4 }

/// A batch's input bytes: views of the input itself where it stays valid (``ChunkPlace``:
/// the whole input in memory, ``ParallelReader/readWhole(_:name:chunkSize:)``, or the blocks a
/// file is read into, which the views keep), otherwise a copy. A view costs nothing to make; a
/// worker reads the input where it is. Bytes that follow on from the last view in the same
/// place extend it; others (the next block) start a view of their own, and the worker feeds
/// the views one after the other (a stream reads any cut the same).
struct BatchBytes: ~Copyable {
    /// A view, and the block it lies in (kept as long as the view is; none for the whole
    /// input in memory).
    struct View {
        var bytes: UnsafeRawBufferPointer
        var keeper: ReadBlock?
        var place: ChunkPlace { keeper.map { .block($0) } ?? .stable }
    }

    private var copy: ByteArena
    /// Invariant: empty, or the only bytes (`copy` is then empty), in input order; a view
    /// without a keeper lies in input whoever made the batch keeps valid and unchanged until
    /// the batch is read (see ``ParallelReader/readWhole(_:name:chunkSize:)``). Most batches
    /// have one view, or none.
    private var views: [View] = []
    private var viewBytes = 0
    /// The room a copy takes at once, when there comes to be one.
    private var room: Int

    /// Bytes to come, copied into `room` bytes at once when they must be copied; `now`: the
    /// room is taken now (bytes that will be copied).
    init(room: Int = 16, now: Bool = false) {
        copy = ByteArena(capacity: now ? room : 16)
        self.room = room
    }

    /// A copy made elsewhere.
    init(copy: consuming ByteArena) {
        self.copy = copy
        room = 16
    }

    var count: Int { viewBytes + copy.count }
    /// The room taken for a copy (none for views).
    var capacity: Int { copy.capacity }
    /// The views (tests): 0 for a copy.
    var viewCount: Int { views.count }

    /// Appends `bytes`, which lie in `place`: as a view when they may be kept there (extending
    /// the last when they follow on from it in the same block), else as a copy.
    mutating func append(_ bytes: UnsafeRawBufferPointer, in place: ChunkPlace) {
        guard bytes.baseAddress != nil, bytes.count > 0 else { return }
        if copy.isEmpty && !place.isTransient {
            let block = place.block
            viewBytes += bytes.count
            // The last view goes on when the bytes follow on from it in the same block (two
            // blocks may lie next to each other: a view keeps one only).
            if let last = views.last, let start = last.bytes.baseAddress, start + last.bytes.count == bytes.baseAddress, last.keeper === block {
                views[views.count - 1].bytes = UnsafeRawBufferPointer(start: start, count: last.bytes.count + bytes.count)
            } else {
                views.append(View(bytes: bytes, keeper: block))
            }
            return
        }
        if copy.isEmpty { copy.reserveCapacity(max(room, viewBytes + bytes.count)) }
        if !views.isEmpty {
            // Transient bytes after views: all of it becomes a copy.
            for v in views { copy.append(v.bytes) }
            views = []
            viewBytes = 0
        }
        copy.append(bytes)
    }

    /// Room for `n` bytes, when they are copied.
    mutating func reserveCapacity(_ n: Int) {
        if views.isEmpty && !copy.isEmpty { copy.reserveCapacity(n) } else { room = max(room, n) }
    }

    /// Calls `body` with the bytes in order, a view or the copy at a time, and where each
    /// lies (a copy's bytes are the batch's own: transient to whoever reads them again).
    func forEachPart<E: Error>(_ body: (UnsafeRawBufferPointer, ChunkPlace) throws(E) -> Void) throws(E) {
        if !views.isEmpty {
            for v in views { try body(v.bytes, v.place) }
        } else if !copy.isEmpty {
            try copy.withBytes { (b) throws(E) in try body(b, .transient) }
        }
    }

    /// Whether every byte is JSON white space (space, line feed, carriage return, tab), or
    /// there are none.
    var isJSONBlank: Bool {
        var blank = true
        forEachPart { b, _ in
            if blank { blank = b.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 } }
        }
        return blank
    }
}

/// A run of whole documents (or a piece of one) for one worker, and what reading it gave.
/// The reader's thread fills it, one worker reads it, then the reader's thread delivers it:
/// only one thread at a time touches it (handed over under the reader's lock).
final class ParallelBatch: @unchecked Sendable {
    /// Its place in input order, given when it is handed over (``BatchDelivery``).
    var id = -1
    var bytes: BatchBytes
    /// Its input bytes, counted in the window while it is in flight (``BatchDelivery``).
    var countedBytes = 0
    /// Where the segment it begins starts; `nil` when it goes on with the segment of the
    /// batch before it (on the same worker).
    let segment: SegmentStart?
    let name: String?
    /// Whether its segment ends with it (after a document, or at the end of the input).
    var endsSegment = false
    var endsInput = false
    /// Nothing to read: the white space that ends an input after its last document.
    var skipsReading = false
    /// A range of elements whose array closes where it ends (``ElementRange/suffix``).
    var closesElements = false
    /// Read on the caller's stream, in its turn (bytes of a large document outside the ranges
    /// of elements its workers read), after skipping to `resume` when set.
    var onCaller = false
    var beginsInputOnCaller = false
    var resume: (offset: Int, line: Int, lineStart: Int)?

    /// Whether the bytes are all JSON white space (or none).
    var isBlank: Bool {
        bytes.isJSONBlank
    }

    // What the worker read.
    var output = ByteArena(capacity: 16)
    /// A graph worker's piece: what its segment gave, once the segment has ended (or failed).
    var piece: GraphPiece?
    /// A writer's primary linkage of a range of elements, once the range has ended.
    var primary: PrimaryLinkage?
    /// A table worker's rows of the batch.
    var tables: TablePiece?
    /// A worker's resources and documents for the user's sinks, with its warnings among them.
    var drafts: DraftTape?
    var records = 0
    var numbersQuoted = 0
    var resources = 0
    var diagnostics: [Diagnostic] = []
    /// What the compound rules need of the resources of a range of elements, among
    /// ``diagnostics`` (writers and validation; a graph's go with its piece).
    var facts: CompoundFacts?
    /// The parser's warnings about the input as a whole (reported at its end).
    var notices: [Diagnostic] = []
    var error: JSONAPIError?

    init(segment: SegmentStart?, name: String?, bytes: consuming BatchBytes) {
        self.bytes = bytes
        self.segment = segment
        self.name = name
    }
}

/// One worker's pipeline: a stream of its own (read on the worker's thread) into sinks of its
/// own, which write to `out` (or produce nothing but diagnostics).
final class ParallelWorker: @unchecked Sendable {
    let stream: DocumentStream
    let out: ByteWriter?
    /// What the pipeline belongs to (kept alive with it).
    private let owner: AnyObject?
    private var batch: ParallelBatch?
    private var resourcesBefore = 0
    private var recordsBefore = 0
    private var quotedBefore = 0
    /// A graph worker's piece of what it read since the last one (nil for the writers).
    private let takePiece: (() -> Graph)?
    /// A graph worker's warnings since its last piece, each with the resources read before it.
    private var pending: [Diagnostic] = []
    private var stamps: [Int] = []
    private var pieceStart = 0
    /// A writer's primary linkage since its last range of elements (nil for other pipelines).
    private let takePrimary: (() throws(JSONAPIError) -> PrimaryLinkage)?
    /// Whether the segment being read is a range of elements.
    private var readingElements = false
    /// A table worker's rows since its last batch (nil for other pipelines).
    private let takeTables: (() -> TablePiece)?
    /// The recorder of a worker for the user's sinks (nil for other pipelines).
    private let drafts: DraftRecorder?

    /// `observe` installs the handler that receives the pipeline's warnings; `takePiece`, for
    /// a graph, hands over what was read since its last call, taken when a segment ends.
    init(
        stream: DocumentStream, out: ByteWriter?, owner: AnyObject?, observe: (@escaping (Diagnostic) -> Void) -> Void,
        takePiece: (() -> Graph)? = nil, takePrimary: (() throws(JSONAPIError) -> PrimaryLinkage)? = nil,
        takeTables: (() -> TablePiece)? = nil, drafts: DraftRecorder? = nil
    ) {
        self.stream = stream
        self.out = out
        self.owner = owner
        self.takePiece = takePiece
        self.takePrimary = takePrimary
        self.takeTables = takeTables
        self.drafts = drafts
        observe { [unowned self] d in
            guard let batch = self.batch else { return }
            if d.rule == .N02 {
                batch.notices.append(d)
                return
            }
            self.stream.validator?.facts?.diagnosticsSeen += 1
            if let drafts = self.drafts {
                // Replayed in its place among the resources and documents.
                drafts.tape.note(d)
            } else if self.takePiece != nil {
                // Delivered with the piece, among its resources' merges.
                self.pending.append(d)
                self.stamps.append(self.stream.resourcesRead - self.pieceStart)
            } else {
                batch.diagnostics.append(d)
            }
        }
    }

    /// Reads `batch` on the calling thread (the worker's), leaving what it gave in it.
    func read(_ batch: ParallelBatch) {
        self.batch = batch
        defer { self.batch = nil }
        if batch.skipsReading { return }
        do throws(JSONAPIError) {
            if let segment = batch.segment {
                readingElements = segment.elements != nil
                try stream.beginInput(named: batch.name, segment: segment)
                // A range's resources are checked against the rest of their document by the
                // caller's validator: this one gathers what it needs.
                if let validator = stream.validator, validator.options.compoundRules {
                    if !readingElements {
                        validator.facts = nil
                    } else if validator.facts == nil {
                        validator.facts = CompoundFacts(out: out)
                    }
                }
            }
            try batch.bytes.forEachPart { (b, _) throws(JSONAPIError) in try stream.feed(b) }
            if batch.endsSegment {
                if batch.closesElements { try stream.reader.closeElements() }
                try stream.endInput()
            }
            if readingElements && batch.endsSegment, let takePrimary { batch.primary = try takePrimary() }
        } catch {
            batch.error = error
        }
        batch.bytes = BatchBytes()
        if let takePiece, batch.endsSegment || batch.error != nil {
            batch.piece = GraphPiece(
                graph: takePiece(), name: batch.name, diagnostics: pending, stamps: stamps, isElements: readingElements,
                facts: stream.validator?.takeFacts())
            pending = []
            stamps = []
            pieceStart = stream.resourcesRead
        }
        if let takeTables { batch.tables = takeTables() }
        if let drafts { batch.drafts = drafts.take() }
        let resources = stream.resourcesRead
        batch.resources = resources - resourcesBefore
        resourcesBefore = resources
        if let out {
            out.take(into: &batch.output)
            batch.records = out.recordsCompleted - recordsBefore
            recordsBefore = out.recordsCompleted
            batch.numbersQuoted = out.numbersQuoted - quotedBefore
            quotedBefore = out.numbersQuoted
        }
        // Taken once the output is (its numbers settled), so that the next facts count from
        // the next batch's first byte and number.
        if takePiece == nil { batch.facts = stream.validator?.takeFacts() }
    }
}
