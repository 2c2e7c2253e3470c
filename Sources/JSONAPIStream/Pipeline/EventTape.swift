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
final class TapePool: @unchecked Sendable {
    private var lock = pthread_mutex_t()
    private var changed = pthread_cond_t()
    private var free: [TapeBlock]
    /// Room for every block from the start: the queue is never reallocated, so a read's
    /// allocations do not depend on how far the building thread lags.
    private var full: FIFO<TapeBlock>
    /// Set by the consumer when it stops early: the producer gives up waiting.
    private(set) var consumerStopped = false

    /// Every block, for their whole life (the recorder and the lists only borrow them).
    private let all: [TapeBlock]

    init(blocks: Int) {
        all = (0..<blocks).map { _ in TapeBlock() }
        free = all
        full = FIFO(capacity: blocks)
        pthread_mutex_init(&lock, nil)
        pthread_cond_init(&changed, nil)
    }

    deinit {
        pthread_cond_destroy(&changed)
        pthread_mutex_destroy(&lock)
    }

    /// An empty block (waits for one); `nil` when the consumer stopped.
    func takeEmpty() -> TapeBlock? {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        while free.isEmpty && !consumerStopped { pthread_cond_wait(&changed, &lock) }
        if consumerStopped { return nil }
        let b = free.removeLast()
        b.reset()
        return b
    }

    func pushFull(_ b: TapeBlock) {
        pthread_mutex_lock(&lock)
        full.append(b)
        pthread_cond_broadcast(&changed)
        pthread_mutex_unlock(&lock)
    }

    /// The next full block, in order (waits for one).
    func takeFull() -> TapeBlock {
        pthread_mutex_lock(&lock)
        defer { pthread_mutex_unlock(&lock) }
        while full.isEmpty { pthread_cond_wait(&changed, &lock) }
        return full.take()!
    }

    func giveBack(_ b: TapeBlock) {
        pthread_mutex_lock(&lock)
        free.append(b)
        pthread_cond_broadcast(&changed)
        pthread_mutex_unlock(&lock)
    }

    func stopConsumer() {
        pthread_mutex_lock(&lock)
        consumerStopped = true
        pthread_cond_broadcast(&changed)
        pthread_mutex_unlock(&lock)
    }
}
