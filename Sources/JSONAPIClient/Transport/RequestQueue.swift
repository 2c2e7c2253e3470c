import Foundation

/// The client's queue of requests: at most ``JSONAPIClient/Configuration/maxRequestsInFlight``
/// exchanges at once, at most ``JSONAPIClient/Configuration/maxConnectionsPerHost`` to one
/// origin, none started while paused. Waiting requests start by the priority of the task that
/// made them (`Task.currentPriority`), first come first served within a priority. A waiting
/// request whose task is cancelled leaves the queue with `CancellationError`.
final class RequestQueue: @unchecked Sendable {
    private struct Waiter {
        var id: UInt64
        var origin: String
        var priority: UInt8
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let maxInFlight: Int
    private let maxPerOrigin: Int
    private let lock = NSLock()
    private var inFlight = 0
    private var perOrigin: [String: Int] = [:]
    private var waiting: [Waiter] = []
    private var nextID: UInt64 = 0
    private var paused = false

    init(maxInFlight: Int, maxPerOrigin: Int) {
        self.maxInFlight = max(maxInFlight, 1)
        self.maxPerOrigin = max(maxPerOrigin, 1)
    }

    var isPaused: Bool { lock.withLock { paused } }

    /// Requests in flight and waiting.
    var counts: (inFlight: Int, waiting: Int) { lock.withLock { (inFlight, waiting.count) } }

    /// Waits for a place for a request to `origin`; ``release(_:)`` gives it back.
    ///
    /// - Throws: `CancellationError` when the task is cancelled while it waits.
    func acquire(_ origin: String) async throws {
        let priority = Task.currentPriority.rawValue
        let id = lock.withLock { () -> UInt64 in
            nextID += 1
            return nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, any Error>) in
                lock.lock()
                if Task.isCancelled {
                    lock.unlock()
                    c.resume(throwing: CancellationError())
                } else if hasRoom(origin) {
                    // Requests left waiting wait for their own origin (every release starts
                    // whichever can start): this one passes no one who could go.
                    take(origin)
                    lock.unlock()
                    c.resume()
                } else {
                    waiting.append(Waiter(id: id, origin: origin, priority: priority, continuation: c))
                    lock.unlock()
                }
            }
        } onCancel: {
            let waiter = lock.withLock { () -> Waiter? in
                guard let i = waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return waiting.remove(at: i)
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    /// A request to `origin` has ended.
    func release(_ origin: String) {
        let started = lock.withLock { () -> [Waiter] in
            inFlight -= 1
            if let n = perOrigin[origin] { perOrigin[origin] = n > 1 ? n - 1 : nil }
            return startable()
        }
        for w in started { w.continuation.resume() }
    }

    func pause() { lock.withLock { paused = true } }

    func resume() {
        let started = lock.withLock { () -> [Waiter] in
            paused = false
            return startable()
        }
        for w in started { w.continuation.resume() }
    }

    // MARK: Under the lock

    private func hasRoom(_ origin: String) -> Bool {
        !paused && inFlight < maxInFlight && perOrigin[origin, default: 0] < maxPerOrigin
    }

    private func take(_ origin: String) {
        inFlight += 1
        perOrigin[origin, default: 0] += 1
    }

    /// Removes and returns the waiters that can start now, highest priority first.
    private func startable() -> [Waiter] {
        var started: [Waiter] = []
        while true {
            var best: Int?
            for (i, w) in waiting.enumerated() where hasRoom(w.origin) {
                if let b = best, waiting[b].priority >= w.priority { continue }
                best = i
            }
            guard let i = best else { return started }
            let w = waiting.remove(at: i)
            take(w.origin)
            started.append(w)
        }
    }
}
