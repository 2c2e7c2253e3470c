import Foundation
import Testing

@testable import JSONAPIStream

/// The tape's blocks between the parsing and the building thread (``TapePool``): a side that
/// waits is woken by a batch of blocks, not by each; nothing is left waiting when the other
/// side would wait too, or at the end of a read; every block comes out once, in order.
struct TapePoolTests {
    /// What the consumer thread took, in order: each block and the bytes it held.
    final class Taken: @unchecked Sendable {
        private let lock = NSLock()
        private var blocks: [(id: ObjectIdentifier, bytes: Int)] = []
        func append(_ b: TapeBlock) { lock.withLock { blocks.append((ObjectIdentifier(b), b.bytes.count)) } }
        var ids: [ObjectIdentifier] { lock.withLock { blocks.map(\.id) } }
        var byteCounts: [Int] { lock.withLock { blocks.map(\.bytes) } }
    }

    /// Waits (briefly polling) until the consumer thread waits for a full block (or, woken,
    /// has not run since).
    static func untilConsumerWaits(_ pool: TapePool) -> Bool {
        for _ in 0..<20_000 {
            if pool.consumerIsWaiting { return true }
            usleep(100)
        }
        return false
    }

    @Test func aWaitingConsumerIsWokenByABatchOfBlocksNotByEach() throws {
        let pool = TapePool(blocks: 8)
        let taken = Taken()
        let consumer = Thread {
            for _ in 0..<(TapePool.wakeBatch + 1) {
                let b = pool.takeFull()
                taken.append(b)
                pool.giveBack(b)
            }
        }
        consumer.start()
        try #require(Self.untilConsumerWaits(pool))
        // Blocks pushed while parsing (`now: false`) do not wake it until a batch is queued.
        var pushed: [ObjectIdentifier] = []
        for _ in 0..<(TapePool.wakeBatch - 1) {
            let b = try #require(pool.takeEmpty())
            pushed.append(ObjectIdentifier(b))
            pool.pushFull(b, now: false)
        }
        #expect(pool.wakesSoFar == 0)
        #expect(pool.consumerIsWaiting)
        let last = try #require(pool.takeEmpty())
        pushed.append(ObjectIdentifier(last))
        pool.pushFull(last, now: false)
        #expect(pool.wakesSoFar == 1)
        // It takes the batch without waiting again, then waits; a block handed over at the
        // end of a read (`now`) wakes it at once.
        for _ in 0..<20_000 where taken.ids.count < TapePool.wakeBatch { usleep(100) }
        #expect(taken.ids == pushed)
        try #require(Self.untilConsumerWaits(pool))
        let one = try #require(pool.takeEmpty())
        pool.pushFull(one, now: false)
        #expect(pool.wakesSoFar == 1)
        pool.wakeConsumer()
        #expect(pool.wakesSoFar == 2)
        for _ in 0..<1000 where taken.ids.count < TapePool.wakeBatch + 1 { usleep(1000) }
        #expect(taken.ids == pushed + [ObjectIdentifier(one)])
    }

    /// A producer and a consumer at changing speeds, most blocks pushed without waking: every
    /// block comes out in order, and neither side is left waiting on the other (the test
    /// would hang). Far fewer wakes than blocks.
    @Test(.timeLimit(.minutes(1))) func blocksComeOutInOrderWhateverTheSpeeds() {
        let pool = TapePool(blocks: 8)
        let count = 4000
        let seen = Taken()
        let done = DispatchSemaphore(value: 0)
        let consumer = Thread {
            for k in 0..<count {
                let b = pool.takeFull()
                seen.append(b)
                if (k / 500) % 2 == 1 { usleep(20) }
                pool.giveBack(b)
            }
            done.signal()
        }
        consumer.start()
        for k in 0..<count {
            guard let b = pool.takeEmpty() else { Issue.record("the pool stopped"); return }
            // The block's number, as bytes recorded.
            for _ in 0..<(k % 7) { b.bytes.append(0) }
            if (k / 500) % 2 == 0 { usleep(20) }
            pool.pushFull(b, now: k % 100 == 99)
        }
        done.wait()
        #expect(seen.byteCounts == (0..<count).map { $0 % 7 })
        #expect(pool.wakesSoFar < count / 2, "wakes: \(pool.wakesSoFar) for \(count) blocks")
    }
}
