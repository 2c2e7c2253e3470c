import Testing

@testable import JSONAPIBenchmarking
@testable import JSONAPIStream

/// The queue between the pipeline's threads and in front of the workers: items in order, its
/// storage as large as the most items ever waiting at once, and an item let go once taken,
/// even when the queue never empties.
struct FIFOTests {
    final class Item {
        let n: Int
        init(_ n: Int) { self.n = n }
    }

    /// Random appends and takes (seeded), with growth while the ring is wrapped: the same
    /// items in the same order as an array taken from the front, and the same first item.
    @Test func itemsComeOutInOrder() {
        var rng = SplitMix64(seed: 7)
        var queue = FIFO<Int>()
        var model: [Int] = []
        var next = 0
        for _ in 0..<20_000 {
            if rng.next() % 5 < 3 {
                queue.append(next)
                model.append(next)
                next += 1
            } else {
                let taken = queue.take()
                #expect(taken == (model.isEmpty ? nil : model.removeFirst()))
            }
            #expect(queue.count == model.count)
            #expect(queue.isEmpty == model.isEmpty)
            #expect(queue.first == model.first)
        }
        while let x = queue.take() { #expect(x == model.removeFirst()) }
        #expect(model.isEmpty)
    }

    /// A queue that never empties (two in, one out, then one in, one out, for 100,000
    /// rounds) keeps a storage of the most items waiting at once, and lets each item go as it
    /// is taken. (Reset only when empty, the storage would hold every item ever appended.)
    @Test func aQueueThatNeverEmptiesStaysSmallAndLetsGo() {
        var queue = FIFO<Item>()
        queue.append(Item(-1))
        queue.append(Item(-2))
        weak var lastTaken: Item?
        for n in 0..<100_000 {
            queue.append(Item(n))
            let taken = queue.take()
            lastTaken = taken
            #expect(taken != nil)
            if n % 10_000 == 0 {
                // Taken and dropped here: nothing else holds it.
                _ = consume taken
                #expect(lastTaken == nil, "a taken item is still held at round \(n)")
            }
        }
        #expect(queue.count == 2)
        #expect(queue.capacity <= 4, "\(queue.capacity)")
    }

    /// A queue made with room for a bounded producer's items never grows.
    @Test func roomGivenUpFrontIsEnough() {
        var queue = FIFO<Int>(capacity: 8)
        for round in 0..<1_000 {
            // At most 1 left over and 7 more: 8 waiting at most, the ring wrapped anywhere.
            for i in 0..<(round % 7 + 1) { queue.append(i) }
            #expect(queue.count <= 8)
            while queue.count > round % 2 { _ = queue.take() }
            #expect(queue.capacity == 8)
        }
    }
}
