#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch

/// Decoding many resources on several cores.
///
/// The graph is immutable once built and every read of it is a pure function of its
/// storage, so resources can be decoded side by side: the rows are cut into runs of
/// ``chunk`` consecutive resources, and `DispatchQueue.concurrentPerform` hands the runs to
/// the calling thread and to the worker threads of the machine's cores. Each run has its own
/// ``ResourceDecoder`` (its own scratch table, alias caches and cycle state) and writes its
/// models straight into their places in the result, so the array comes out in row order,
/// equal to what one thread decodes.
///
/// Errors are those of one thread, too. A run stops at its first failure and records it;
/// runs after the earliest failure seen so far are skipped; when all runs are back, the
/// failure of the earliest run is thrown. That is the first resource in order that fails,
/// which is the error a sequential decode throws.
enum ParallelDecoding {
    /// Resources per run: large enough that a run's setup (a decoder, a lock) is noise, small
    /// enough that the cores share the tail of the work.
    static let chunk = 256

    /// The fewest resources worth waking other threads for.
    static let threshold = 1024

    static let processors = ProcessInfo.processInfo.activeProcessorCount

    /// Whether `count` resources are decoded on several threads.
    static func isWorthwhile(_ count: Int) -> Bool {
        processors > 1 && count >= threshold
    }

    /// `[T]` of `count` elements, element `i` made by `body(decoder, i)`; one decoder per run
    /// of ``chunk`` elements, the runs on all cores.
    ///
    /// `T: Sendable` because models made on worker threads are handed to the caller's.
    static func decode<T: Sendable>(
        count: Int, graph: Graph, options: DecodingOptions,
        _ body: @Sendable (ResourceDecoder, Int) throws -> T
    ) throws -> [T] {
        let runs = (count + chunk - 1) / chunk
        let state = RunState(runs: runs)
        return try [T](uninitializedCount: count) { buffer, initialized in
            // Invariant: run `r` initializes only `out[r * chunk ..< min(count, (r + 1) * chunk)]`
            // and reports how many of them, from the start, to `state`; no two runs
            // touch the same element, and nothing reads an element before all runs are back.
            let out = OutputBuffer(base: buffer.baseAddress!)
            DispatchQueue.concurrentPerform(iterations: runs) { r in
                if state.failedBefore(r) { return }
                let start = r * chunk
                let end = min(count, start + chunk)
                let d = ResourceDecoder(graph: graph, options: options, node: .primary, path: nil, row: -1)
                var i = start
                do {
                    try d.reusingKeyedContainers {
                        while i < end {
                            (out.base + i).initialize(to: try body(d, i))
                            i += 1
                        }
                    }
                    state.finish(r, done: end - start, failure: nil)
                } catch {
                    state.finish(r, done: i - start, failure: error)
                }
            }
            if let failure = state.firstFailure {
                for r in 0..<runs {
                    let n = state.initialized(r)
                    if n > 0 { (out.base + r * chunk).deinitialize(count: n) }
                }
                initialized = 0
                throw failure
            }
            initialized = count
        }
    }
}

/// The result's storage, lent to the runs; see the invariant in ``ParallelDecoding/decode(count:graph:options:_:)``.
private struct OutputBuffer<T>: @unchecked Sendable {
    let base: UnsafeMutablePointer<T>
}

/// What the runs report, under a lock: one run finishes per 256 resources, so the lock is
/// taken a few hundred times in a large decode.
private final class RunState: @unchecked Sendable {
    private let lock = Condition()
    /// Elements each run initialized, from its start.
    private var done: [Int]
    private var failedRun = Int.max
    private var failure: (any Error)?

    init(runs: Int) { done = [Int](repeating: 0, count: runs) }

    /// Whether an earlier run has failed (so run `r`'s models would be thrown away).
    func failedBefore(_ r: Int) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        return failedRun < r
    }

    func finish(_ r: Int, done n: Int, failure error: (any Error)?) {
        lock.lock()
        defer { lock.unlock() }
        done[r] = n
        if let error, r < failedRun {
            failedRun = r
            failure = error
        }
    }

    /// How many elements run `r` initialized, from its start.
    func initialized(_ r: Int) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return done[r]
    }

    /// The failure of the earliest run that failed; read once every run is back.
    var firstFailure: (any Error)? {
        lock.lock()
        defer { lock.unlock() }
        return failure
    }
}
