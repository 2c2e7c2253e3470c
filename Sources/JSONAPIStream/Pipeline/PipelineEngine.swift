#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Runs parsing and building on two threads: the calling thread pre-scans and runs yajl,
/// which records events on a tape (``TapeRecorder``); a building thread replays the tape
/// into the ``DocumentBuilder`` and its sink (``TapeReplayer``).
///
/// ```
/// caller:   feed ─> pre-scan ─> yajl ─> tape blocks ──┐   (a pool of 8 blocks: memory
/// builder thread:                                    └─> replay ─> builder ─> sink   is bounded)
/// ```
///
/// The builder sees exactly the events it would see on one thread, in the same order, so the
/// results are identical. A failure found while parsing travels at the end of the tape, so
/// the builder handles every earlier event first (an earlier rule violation still wins), and
/// completes the failure's JSON pointer from its own state.
final class PipelineEngine: @unchecked Sendable {
    let options: DocumentOptions
    let builder: DocumentBuilder
    private let replayer: TapeReplayer
    private let pool = TapePool(blocks: 8)
    private let recorder: TapeRecorder
    private var stream: JSONStreamParser?
    /// Whether the last block handed over was queued without waking the building thread
    /// (during a read; the read's end wakes it). The caller's thread only.
    private var queuedQuietly = false

    // Set by the building thread, read by the caller after `waitUntilDrained`.
    private var consumerError: JSONAPIError?
    private let lock = Condition()
    private var pushed = 0
    private var processed = 0
    private var consumerDone = false
    private var publishedResources = 0

    /// Resources built so far, as last published by the building thread (for progress).
    var resourcesBuilt: Int {
        lock.lock()
        defer { lock.unlock() }
        return publishedResources
    }

    /// Tape bytes after which a block is handed over at the end of a read. (During a read the
    /// recorder hands blocks over at ``TapeBlock/handOverBytes``.) Lower than that, so that the
    /// building thread is not kept waiting by a series of small reads.
    private let blockThreshold = TapeBlock.handOverBytes / 2

    init(options: DocumentOptions, builder: DocumentBuilder) {
        self.options = options
        self.builder = builder
        self.replayer = TapeReplayer(receiver: builder)
        self.recorder = TapeRecorder(block: pool.takeEmpty()!, limits: options.parse.limits)
        defer { recorder.engine = self }
        NativeThread.start(name: "jsonapi-builder", stackSize: 1 << 20) { [unowned self] in self.consume() }
    }

    deinit {
        // `close()` is normally called; make sure the building thread ends.
        if !consumerDone { close() }
    }

    // MARK: - Caller side

    func begin(sourceName: String?) {
        let s = JSONStreamParser(outlet: recorder, options: options.parse)
        s.sourceName = sourceName
        stream = s
        recorder.block.beginsInput = .some(sourceName)
    }

    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        guard let s = stream else { return }
        do {
            try s.feed(chunk)
        } catch {
            try fail(error, s)
        }
        if recorder.recordedBytes >= blockThreshold {
            try handOver()
        } else if queuedQuietly {
            // Blocks queued during this read without waking the building thread.
            pool.wakeConsumer()
            queuedQuietly = false
        }
    }

    /// Ends the current input and waits until the building side has handled all of it.
    func end() throws(JSONAPIError) {
        guard let s = stream else { return }
        stream = nil
        do {
            try s.finish()
        } catch {
            try fail(error, s)
        }
        recorder.block.endOfInput = true
        try handOver()
        waitUntilDrained()
        if let consumerError { throw consumerError }
        for n in s.notices {
            var n = n
            n.source = s.sourceName
            builder.onDiagnostic?(n)
        }
    }

    /// Stops the building thread (after the last input). Safe to call twice.
    func close() {
        lock.lock()
        let done = consumerDone
        lock.unlock()
        guard !done else { return }
        let b = recorder.block
        recorder.discardEvents()
        b.terminates = true
        push(b)
        lock.lock()
        while !consumerDone { lock.wait() }
        lock.unlock()
    }

    /// A failure while parsing: it travels after every event recorded before it; what the
    /// caller gets is whatever the building side reports first.
    private func fail(_ error: JSONAPIError, _ s: JSONStreamParser) throws(JSONAPIError) {
        let b = recorder.block
        b.failure = error
        b.pointerRequest = s.pointerRequest
        push(b)
        waitUntilDrained()
        throw consumerError ?? error
    }

    /// From inside a yajl callback: hands the full block over and continues in an empty one
    /// (waiting for one when all are in use). False when the building side stopped.
    func handOverDuringParse() -> Bool {
        // More blocks follow at once: a waiting building thread is woken by the next (or
        // when the pool runs out), not by this one.
        push(recorder.block, now: false)
        guard let next = pool.takeEmpty() else { return false }
        recorder.block = next
        return true
    }

    private func handOver() throws(JSONAPIError) {
        push(recorder.block)
        guard let next = pool.takeEmpty() else {
            waitUntilDrained()
            throw consumerError ?? JSONAPIError.misuse("the building thread stopped")
        }
        recorder.block = next
    }

    private func push(_ b: TapeBlock, now: Bool = true) {
        queuedQuietly = !now
        if b === recorder.block {
            // The recorded events move into the block; the block's old (empty) arena is
            // reused for the next events.
            recorder.moveEvents(into: b)
        }
        lock.lock()
        pushed += 1
        lock.unlock()
        pool.pushFull(b, now: now)
    }

    private func waitUntilDrained() {
        lock.lock()
        while processed < pushed && !consumerDone { lock.wait() }
        lock.unlock()
    }

    // MARK: - Building side

    private func consume() {
        var stopped = false
        while true {
            let b = pool.takeFull()
            let terminates = b.terminates
            if !stopped {
                if let name = b.beginsInput { replayer.beginInput(named: name) }
                if !replayer.replay(b) {
                    record(builderError())
                    stopped = true
                } else if let failure = b.failure {
                    record(complete(failure, b.pointerRequest))
                    stopped = true
                } else if b.endOfInput && !builder.onEndOfInput() {
                    record(builderError())
                    stopped = true
                }
                if stopped { pool.stopConsumer() }
            }
            pool.giveBack(b)
            lock.lock()
            publishedResources = builder.resourcesBuilt
            processed += 1
            if terminates { consumerDone = true }
            lock.broadcast()
            lock.unlock()
            if terminates { return }
        }
    }

    private func record(_ e: JSONAPIError) {
        lock.lock()
        if consumerError == nil { consumerError = e }
        lock.unlock()
    }

    /// The builder's own failure, as the sequential stream parser reports it.
    private func builderError() -> JSONAPIError {
        if let thrown = builder.thrown { return thrown }
        guard var d = builder.failure else { return .syntax(Diagnostic(severity: .error, rule: .J00, message: "parse cancelled", location: .start, pointer: "")) }
        if d.source == nil { d.source = replayer.positions.sourceName }
        return d.rule.isJSONRule ? .syntax(d) : .document(d)
    }

    /// A parsing failure, with the pointer (and for truncation the message) only the
    /// building side knows.
    private func complete(_ error: JSONAPIError, _ request: PointerRequest) -> JSONAPIError {
        func patch(_ d: Diagnostic) -> Diagnostic {
            var d = d
            switch request {
            case .given: break
            case .current: d.pointer = builder.currentPointer()
            case .nextValue: d.pointer = builder.nextValuePointer()
            case .container: d.pointer = builder.containerPointer()
            case .truncation:
                d.pointer = builder.currentPointer()
                d.message = JSONStreamParser.truncationMessage(depth: builder.depth)
            }
            return d
        }
        switch error {
        case .syntax(let d): return .syntax(patch(d))
        case .document(let d): return .document(patch(d))
        default: return error
        }
    }
}
