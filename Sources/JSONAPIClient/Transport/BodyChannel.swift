import Foundation

/// The hand-off of a response body from a transport's producer (libcurl's write callback,
/// URLSession's delegate) to the consumer's ``TransportBody/next()``, shared by the built-in
/// transports: bytes go straight to a waiting consumer, or into a buffer of at most
/// `readAhead` bytes; past that the producer is told to pause, and `resumeProducer` is called
/// once the consumer has taken the buffer. The end of the body, a failure and a cancellation
/// reach a waiting consumer at once; buffered bytes are dropped on a failure or cancellation
/// (``TransportBody/cancel()``: later reads throw).
///
/// Thread-safe: every member is guarded by `lock`, and no continuation or callback is called
/// while it is held (a producer may call back into its transport from `resumeProducer`).
final class BodyChannel: @unchecked Sendable {
    typealias Waiter = CheckedContinuation<Result<[UInt8]?, TransportError>, Never>

    /// What became of bytes offered by the producer.
    enum Offer: Equatable {
        /// Taken (handed over, or buffered).
        case taken
        /// Taken, and the buffer is now full: pause until `resumeProducer` is called.
        case takenFull
        /// Not taken, the buffer being full: offer them again after `resumeProducer` (libcurl
        /// delivers refused bytes again once the transfer is unpaused).
        case refused
        /// Not wanted: the body was cancelled or has ended.
        case stopped
    }

    private let lock = NSLock()
    private let readAhead: Int
    private let resumeProducer: @Sendable () -> Void
    private var waiter: Waiter?
    private var buffer: [UInt8] = []
    private var ending: Result<[UInt8]?, TransportError>?
    private var paused = false

    /// A channel holding at most `readAhead` bytes (`Int.max`: a producer that cannot pause).
    init(readAhead: Int, resumeProducer: @escaping @Sendable () -> Void) {
        self.readAhead = max(readAhead, 1)
        self.resumeProducer = resumeProducer
    }

    /// The error the body was stopped with (``stop(_:)``), or failed with.
    var stopped: TransportError? {
        lock.withLock {
            if case .failure(let error) = ending { return error }
            return nil
        }
    }

    // MARK: The producer

    /// Offers bytes of the body. A producer that can refuse bytes (`canRefuse`) has them
    /// refused once the buffer is full; one that cannot has them taken, and is told to pause.
    func offer(_ bytes: UnsafeRawBufferPointer, canRefuse: Bool) -> Offer {
        lock.lock()
        if ending != nil {
            lock.unlock()
            return .stopped
        }
        if let c = waiter {
            waiter = nil
            lock.unlock()
            c.resume(returning: .success(Array(bytes)))
            return .taken
        }
        if canRefuse && buffer.count >= readAhead {
            paused = true
            lock.unlock()
            return .refused
        }
        buffer.append(contentsOf: bytes)
        if !canRefuse && buffer.count >= readAhead && !paused {
            paused = true
            lock.unlock()
            return .takenFull
        }
        lock.unlock()
        return .taken
    }

    /// The body has ended: after its last byte (`nil`), or with a failure. A body already
    /// stopped keeps its own ending (a cancelled body stays cancelled).
    func finish(_ failure: TransportError?) {
        lock.lock()
        guard ending == nil else { return lock.unlock() }
        if let failure {
            ending = .failure(failure)
            buffer = []
        } else {
            ending = .success(nil)
        }
        let w = buffer.isEmpty ? waiter : nil
        if w != nil { waiter = nil }
        let outcome = ending!
        lock.unlock()
        w?.resume(returning: outcome)
    }

    // MARK: The consumer

    /// The next bytes, `nil` at the end of the body; cancelling the calling task cancels the
    /// body.
    func next() async throws(TransportError) -> [UInt8]? {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (c: Waiter) in
                lock.lock()
                if !buffer.isEmpty {
                    let chunk = buffer
                    buffer = []
                    let wake = paused
                    paused = false
                    lock.unlock()
                    if wake { resumeProducer() }
                    c.resume(returning: .success(chunk))
                } else if let ending {
                    lock.unlock()
                    c.resume(returning: ending)
                } else {
                    waiter = c
                    lock.unlock()
                }
            }
        } onCancel: {
            _ = stop(TransportError(.cancelled, "cancelled"))
        }
        return try result.get()
    }

    /// Stops the body with `error` (a cancellation, a deadline): buffered bytes are dropped
    /// and a waiting consumer gets `error`. Returns whether this stopped it (it had neither
    /// ended nor been stopped).
    @discardableResult
    func stop(_ error: TransportError) -> Bool {
        lock.lock()
        guard ending == nil else {
            lock.unlock()
            return false
        }
        ending = .failure(error)
        buffer = []
        let w = waiter
        waiter = nil
        lock.unlock()
        w?.resume(returning: .failure(error))
        return true
    }
}
