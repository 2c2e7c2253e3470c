import Foundation

/// The client's queue of requests: at most ``JSONAPIClient/Configuration/maxRequestsInFlight``
/// exchanges at once, at most ``JSONAPIClient/Configuration/maxConnectionsPerHost`` to one
/// origin, none started while paused. Waiting requests start by the priority of the task that
/// made them (`Task.currentPriority`), first come first served within a priority. A waiting
/// request whose task is cancelled leaves the queue with `CancellationError`.
///
/// Waiting requests are queued per origin and priority, oldest first: starting one looks at
/// the head of each such queue, never at every waiting request, so a queue of many thousands
/// (`resources(type:ids:lookup: .oneByOne())`) costs the same per request as a short one. A
/// cancelled waiter leaves its id behind, skipped when it reaches the head.
final class RequestQueue: @unchecked Sendable {
    /// Ids of the waiters of one origin and priority, oldest first.
    private struct FIFO {
        private var ids: [UInt64] = []
        private var head = 0
        var first: UInt64? { head < ids.count ? ids[head] : nil }
        mutating func append(_ id: UInt64) { ids.append(id) }
        mutating func removeFirst() {
            head += 1
            if head == ids.count {
                ids.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 64 && head * 2 >= ids.count {
                ids.removeFirst(head)
                head = 0
            }
        }
    }

    private let maxInFlight: Int
    private let maxPerOrigin: Int
    private let lock = NSLock()
    private var inFlight = 0
    private var perOrigin: [String: Int] = [:]
    /// The waiting requests, by id.
    private var waiters: [UInt64: CheckedContinuation<Void, any Error>] = [:]
    /// Their ids by origin, then priority.
    private var queues: [String: [UInt8: FIFO]] = [:]
    private var nextID: UInt64 = 0
    private var paused = false

    init(maxInFlight: Int, maxPerOrigin: Int) {
        self.maxInFlight = max(maxInFlight, 1)
        self.maxPerOrigin = max(maxPerOrigin, 1)
    }

    var isPaused: Bool { lock.withLock { paused } }

    /// Requests in flight and waiting.
    var counts: (inFlight: Int, waiting: Int) { lock.withLock { (inFlight, waiters.count) } }

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
                    waiters[id] = c
                    queues[origin, default: [:]][priority, default: FIFO()].append(id)
                    lock.unlock()
                }
            }
        } onCancel: {
            // Out of `waiters` now; its id is skipped when it reaches the head of its queue.
            let waiter = lock.withLock { waiters.removeValue(forKey: id) }
            waiter?.resume(throwing: CancellationError())
        }
    }

    /// A request to `origin` has ended.
    func release(_ origin: String) {
        let started = lock.withLock { () -> [CheckedContinuation<Void, any Error>] in
            inFlight -= 1
            if let n = perOrigin[origin] { perOrigin[origin] = n > 1 ? n - 1 : nil }
            return startable()
        }
        for c in started { c.resume() }
    }

    func pause() { lock.withLock { paused = true } }

    func resume() {
        let started = lock.withLock { () -> [CheckedContinuation<Void, any Error>] in
            paused = false
            return startable()
        }
        for c in started { c.resume() }
    }

    // MARK: Under the lock

    private func hasRoom(_ origin: String) -> Bool {
        !paused && inFlight < maxInFlight && perOrigin[origin, default: 0] < maxPerOrigin
    }

    private func take(_ origin: String) {
        inFlight += 1
        perOrigin[origin, default: 0] += 1
    }

    /// The id at the head of the queue of `origin` and `priority`, cancelled ones dropped on
    /// the way; the queue goes when it is empty.
    private func head(_ origin: String, _ priority: UInt8) -> UInt64? {
        while let id = queues[origin]?[priority]?.first {
            if waiters[id] != nil { return id }
            queues[origin]![priority]!.removeFirst()
        }
        queues[origin]?[priority] = nil
        if queues[origin]?.isEmpty == true { queues[origin] = nil }
        return nil
    }

    /// Removes and returns the waiters that can start now, highest priority first, the oldest
    /// first within a priority.
    private func startable() -> [CheckedContinuation<Void, any Error>] {
        var started: [CheckedContinuation<Void, any Error>] = []
        while !paused && inFlight < maxInFlight {
            var best: (origin: String, priority: UInt8, id: UInt64)?
            // Keys copied out first: no view of `queues` may be alive while `head` mutates
            // it (its arrays would be copied whole).
            for origin in Array(queues.keys) where perOrigin[origin, default: 0] < maxPerOrigin {
                for priority in queues[origin].map({ Array($0.keys) }) ?? [] {
                    guard let id = head(origin, priority) else { continue }
                    if let b = best, b.priority > priority || (b.priority == priority && b.id < id) { continue }
                    best = (origin, priority, id)
                }
            }
            guard let b = best, let c = waiters.removeValue(forKey: b.id) else { break }
            queues[b.origin]![b.priority]!.removeFirst()
            _ = head(b.origin, b.priority)  // drops an emptied queue
            take(b.origin)
            started.append(c)
        }
        return started
    }
}
