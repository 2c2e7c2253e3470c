#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import CPlatform

/// The record of JSON events that yajl reported, passed from the parsing thread to the
/// building thread. Self-contained: strings, names and numbers are copied into the block,
/// so the input buffers can be reused as soon as yajl is done with them.
///
/// ```
/// event   := kind:UInt8 end:Int64 [length:UInt32 bytes] [start:Int64]
///            (length and bytes for names, strings and numbers; start for escaped ones)
/// newline := kind:UInt8 count:UInt32 offset:Int64 × count
/// ```
/// `end` is the absolute offset just past the token; the replayer derives the token's
/// first byte from it (and from `start` when escapes make the source longer).
/// The C recorder (`CPlatform/recorder.c`) writes these numbers as cplatform.h names them
/// (``numbersInC``); a test checks that the two agree.
enum TapeKind: UInt8, CaseIterable {
    case startObject, endObject, startArray, endArray
    case key, escapedKey, string, escapedString, number
    case trueValue, falseValue, null
    /// Line feeds of the bytes the next events come from.
    case newlines
}

extension TapeKind {
    /// cplatform.h's `JSONAPI_TAPE_…` numbers, in the order of ``allCases``.
    static var numbersInC: [Int] {
        [
            JSONAPI_TAPE_START_OBJECT, JSONAPI_TAPE_END_OBJECT, JSONAPI_TAPE_START_ARRAY, JSONAPI_TAPE_END_ARRAY,
            JSONAPI_TAPE_KEY, JSONAPI_TAPE_ESCAPED_KEY, JSONAPI_TAPE_STRING, JSONAPI_TAPE_ESCAPED_STRING,
            JSONAPI_TAPE_NUMBER, JSONAPI_TAPE_TRUE, JSONAPI_TAPE_FALSE, JSONAPI_TAPE_NULL, JSONAPI_TAPE_NEWLINES,
        ].map { Int($0) }
    }
}

/// A block of tape, reused through a ``TapePool``.
final class TapeBlock: @unchecked Sendable {
    /// Bytes of events after which a block is handed over. Small enough that the blocks in
    /// flight stay in the cores' caches (the parsing core writes them, the building core reads
    /// them), large enough that handing over (a lock and a wake-up) is rare.
    static let handOverBytes = 128 * 1024
    /// What each block's arena holds without growing: the event that crosses
    /// ``handOverBytes`` (up to 64 KiB, unless a string is longer) fits.
    static let capacity = handOverBytes + 64 * 1024

    @exclusivity(unchecked) var bytes = ByteArena(capacity: TapeBlock.capacity)

    /// When the producer stopped after this block: its failure (the consumer surfaces it
    /// after every earlier event), or normal end of an input.
    var failure: JSONAPIError?
    var pointerRequest = PointerRequest.current
    var endOfInput = false
    /// A new input begins with this block (positions restart, the name changes).
    var beginsInput: String??
    /// The last block: the building thread ends after it.
    var terminates = false

    func reset() {
        terminates = false
        bytes.removeAll()
        // A block that grew for one long string goes back to its usual size.
        bytes.giveBack(ifAbove: 4 * TapeBlock.capacity, to: TapeBlock.capacity)
        failure = nil
        pointerRequest = .current
        endOfInput = false
        beginsInput = nil
    }
}

/// How the pointer of a failure found while parsing is completed when the building side
/// reaches it (only that side knows the path).
enum PointerRequest: Sendable {
    /// The value being reported.
    case current
    /// The value that comes next (a token still arriving).
    case nextValue
    /// The innermost open container (a lexical error: the token never became a value).
    case container
    /// The input ended inside containers: the message names how many.
    case truncation
    /// Already known.
    case given
}

/// A fixed set of blocks handed back and forth: the producer takes empty blocks and
/// queues full ones; the consumer takes full ones and returns them empty. A full pool
/// blocks the producer, which bounds memory.
///
/// Each side that waits is woken once ``wakeBatch`` blocks wait for it (or when the other
/// side would wait too, or a block must not wait: ``pushFull(_:now:)``), not at every block:
/// when both sides run about as fast, each kept waking the other, a system call (`futex`)
/// and an interrupt of the other processor per block: 148 context switches per validation of
/// a 16 MB document on one reader, 28 with batches of 4; 4 to 8 % faster.
final class TapePool: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var hasFull = pthread_cond_t()
    private var hasFree = pthread_cond_t()
    private var free: [TapeBlock]
    /// Room for every block from the start: the queue is never reallocated, so a read's
    /// allocations do not depend on how far the building thread lags.
    private var full: FIFO<TapeBlock>
    /// Whether each side waits (under `lock`).
    private var consumerWaits = false
    private var producerWaits = false
    /// Set by the consumer when it stops early: the producer gives up waiting.
    private(set) var consumerStopped = false
    /// Blocks that wake the side waiting for them.
    static let wakeBatch = 4
    /// The times a waiting side was woken (under `lock`; ``wakesSoFar`` reads it).
    private var wakes = 0

    /// Every block, for their whole life (the recorder and the lists only borrow them).
    private let all: [TapeBlock]

    init(blocks: Int) {
        // Invariant: with more than `wakeBatch` blocks, a side that waits is woken (see
        // `pushFull` and `giveBack`) before the other waits too.
        precondition(blocks > Self.wakeBatch)
        all = (0..<blocks).map { _ in TapeBlock() }
        free = all
        full = FIFO(capacity: blocks)
        pthread_mutex_init(&lock, nil)
        pthread_cond_init(&hasFull, nil)
        pthread_cond_init(&hasFree, nil)
    }

    deinit {
        pthread_cond_destroy(&hasFull)
        pthread_cond_destroy(&hasFree)
        pthread_mutex_destroy(&lock)
    }

    /// An empty block (waits for one); `nil` when the consumer stopped.
    func takeEmpty() -> TapeBlock? {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        while free.isEmpty && !consumerStopped {
            producerWaits = true
            pthread_cond_wait(&hasFree, &lock)
        }
        producerWaits = false
        if consumerStopped { return nil }
        let b = free.removeLast()
        b.reset()
        return b
    }

    /// Queues a full block. A waiting consumer is woken when `now` (a block handed over
    /// between reads or at an input's end, which the caller may not follow with another for
    /// a while), when ``wakeBatch`` blocks are queued, or when no empty block is left (the
    /// producer is about to wait).
    func pushFull(_ b: TapeBlock, now: Bool = true) {
        pthread_mutex_lock(&lock)
        full.append(b)
        if consumerWaits && (now || full.count >= Self.wakeBatch || free.isEmpty) { wakeConsumerLocked() }
        pthread_mutex_unlock(&lock)
    }

    /// Wakes a waiting consumer when full blocks are queued (at the end of a read: what was
    /// queued without waking it is not left waiting on the next read).
    func wakeConsumer() {
        pthread_mutex_lock(&lock)
        if consumerWaits && !full.isEmpty { wakeConsumerLocked() }
        pthread_mutex_unlock(&lock)
    }

    /// The next full block, in order (waits for one).
    func takeFull() -> TapeBlock {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        while full.isEmpty {
            consumerWaits = true
            pthread_cond_wait(&hasFull, &lock)
        }
        consumerWaits = false
        return full.take()!
    }

    /// Returns an emptied block. A waiting producer is woken when ``wakeBatch`` blocks are
    /// free, or when no full block is left (the consumer is about to wait).
    func giveBack(_ b: TapeBlock) {
        pthread_mutex_lock(&lock)
        free.append(b)
        if producerWaits && (free.count >= Self.wakeBatch || full.isEmpty) { wakeProducerLocked() }
        pthread_mutex_unlock(&lock)
    }

    /// Wakes the waiting consumer, or producer (under `lock`). The conditions are passed to
    /// C straight from their storage, as everywhere here, never through a Swift `inout`.
    private func wakeConsumerLocked() {
        wakes += 1
        pthread_cond_signal(&hasFull)
    }

    private func wakeProducerLocked() {
        wakes += 1
        pthread_cond_signal(&hasFree)
    }

    /// Whether the consumer waits for a full block now (tests).
    var consumerIsWaiting: Bool {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return consumerWaits
    }

    /// ``wakes``, read under the lock (tests).
    var wakesSoFar: Int {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        return wakes
    }

    func stopConsumer() {
        pthread_mutex_lock(&lock)
        consumerStopped = true
        pthread_cond_broadcast(&hasFree)
        pthread_mutex_unlock(&lock)
    }
}
