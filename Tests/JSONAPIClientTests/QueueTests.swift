import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Testing
@testable import JSONAPIClient

/// The client's request queue (issue 20, item 3): overall and per-origin limits, pause and
/// resume, priorities, cancellation while waiting.
@Suite struct Queue {
    /// A transport whose replies wait until the test lets them go, counting how many
    /// requests it holds at once.
    final class Gate: @unchecked Sendable {
        private let lock = NSLock()
        private var held: [CheckedContinuation<Void, Never>] = []
        private var open = false
        private(set) var most = 0
        private var order: [String] = []
        var arrived: [String] { lock.withLock { order } }
        var holding: Int { lock.withLock { held.count } }

        func wait(_ name: String) async {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                lock.lock()
                order.append(name)
                if open {
                    lock.unlock()
                    c.resume()
                    return
                }
                held.append(c)
                most = max(most, held.count)
                lock.unlock()
            }
        }

        /// Lets the held replies go; with `keepOpen`, later ones pass at once.
        func release(keepOpen: Bool = true) {
            let all = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
                open = keepOpen
                defer { held.removeAll() }
                return held
            }
            for c in all { c.resume() }
        }

        /// Lets the first held reply go.
        func releaseOne() {
            let c = lock.withLock { held.isEmpty ? nil : held.removeFirst() }
            c?.resume()
        }

        var transport: InMemoryTransport {
            InMemoryTransport { request in
                await self.wait(request.url?.absoluteString ?? "")
                return Pipeline.ok
            }
        }
    }

    /// Waits until `condition` holds: up to 120,000 checks 5 ms apart (``Polling``), then
    /// fails the test.
    static func until(_ condition: () -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let held = try await Polling.until(polls: 120_000, every: .milliseconds(5)) { condition() }
        try #require(held, "the condition did not come to hold", sourceLocation: sourceLocation)
    }

    @Test func requestsInFlightStayWithinTheLimits() async throws {
        let gate = Gate()
        let client = Transports.client(gate.transport) {
            $0.maxRequestsInFlight = 3
            $0.maxConnectionsPerHost = 2
        }
        try await withThrowingTaskGroup(of: Void.self) { group in
            // Whatever fails, the held requests go (or the group would wait for them forever).
            defer { gate.release() }
            for i in 0..<4 { group.addTask { _ = try await client.graph(at: URL(string: "https://a.example.com/\(i)")!) } }
            for i in 0..<4 { group.addTask { _ = try await client.graph(at: URL(string: "https://b.example.com/\(i)")!) } }
            try await Self.until { gate.holding == 3 }
            try await Task.sleep(nanoseconds: 50_000_000)
            #expect(gate.holding == 3, "more than 3 requests in flight")
            let hosts = gate.arrived.map { URL(string: $0)!.host! }
            #expect(hosts.filter { $0 == "a.example.com" }.count <= 2 && hosts.filter { $0 == "b.example.com" }.count <= 2, "\(hosts)")
            #expect(client.queuedRequests.inFlight == 3 && client.queuedRequests.waiting == 5)
            gate.release()
            try await group.waitForAll()
        }
        #expect(gate.most == 3)
        #expect(client.queuedRequests.inFlight == 0 && client.queuedRequests.waiting == 0)
    }

    @Test func pausedRequestsWaitAndResumeInPriorityOrder() async throws {
        let gate = Gate()
        gate.release()
        let client = Transports.client(gate.transport) { $0.maxRequestsInFlight = 1 }
        client.pause()
        #expect(client.isPaused)
        let low = Task(priority: .low) { _ = try await client.graph(at: URL(string: "https://a.example.com/low")!) }
        try await Self.until { client.queuedRequests.waiting == 1 }
        let high = Task(priority: .high) { _ = try await client.graph(at: URL(string: "https://a.example.com/high")!) }
        try await Self.until { client.queuedRequests.waiting == 2 }
        try await Task.sleep(nanoseconds: 50_000_000)
        #expect(gate.arrived.isEmpty, "a request started while the client was paused")
        client.resume()
        try await low.value
        try await high.value
        #expect(gate.arrived == ["https://a.example.com/high", "https://a.example.com/low"])
    }

    @Test func aWaitingRequestCanBeCancelled() async throws {
        let gate = Gate()
        let client = Transports.client(gate.transport) { $0.maxRequestsInFlight = 1 }
        let first = Task { _ = try await client.graph(at: URL(string: "https://a.example.com/1")!) }
        defer { gate.release() }
        try await Self.until { gate.holding == 1 }
        let second = Task { _ = try await client.graph(at: URL(string: "https://a.example.com/2")!) }
        try await Self.until { client.queuedRequests.waiting == 1 }
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
        #expect(client.queuedRequests.waiting == 0)
        gate.release()
        try await first.value
        // The place the cancelled request waited for is not lost.
        _ = try await client.graph(at: URL(string: "https://a.example.com/3")!)
        #expect(gate.arrived == ["https://a.example.com/1", "https://a.example.com/3"])
    }

    /// Thousands of waiters (a `.oneByOne()` lookup of many ids) start in their order, across
    /// origins, the cancelled ones skipped, and the queue ends empty.
    @Test func manyWaitersStartInOrderAndCancelledOnesAreSkipped() async throws {
        let queue = RequestQueue(maxInFlight: 1, maxPerOrigin: 1)
        try await queue.acquire("a")  // the only place, held
        let started = ResponseLog.Values()
        var tasks: [Task<Bool, Never>] = []
        let n = 3000
        for i in 0..<n {
            let origin = i % 3 == 0 ? "b" : "a"
            tasks.append(
                Task {
                    do {
                        try await queue.acquire(origin)
                    } catch {
                        return error is CancellationError
                    }
                    started.add(i)
                    queue.release(origin)
                    return true
                })
            // One at a time, so that the queue's order is the loop's.
            try await Polling.until(polls: 10_000_000, every: nil) { queue.counts.waiting >= i + 1 }
        }
        #expect(queue.counts == (1, n))
        for i in stride(from: 1, to: n, by: 2) { tasks[i].cancel() }
        try await Polling.until(polls: 10_000_000, every: nil) { queue.counts.waiting <= n / 2 }
        #expect(queue.counts.waiting == n / 2)
        queue.release("a")
        for t in tasks { #expect(await t.value) }
        #expect(started.all == Array(stride(from: 0, to: n, by: 2)))
        #expect(queue.counts == (0, 0))
    }
}
