/// A first-in, first-out queue: appended at the back, taken from the front, in a ring that
/// grows only when every slot holds an item (no shifting of what is left). An item taken is
/// let go at once, and the storage is as large as the most items ever waiting at one time,
/// however long the queue runs without emptying. Not thread-safe: its owner guards it.
package struct FIFO<Element> {
    private var slots: [Element?] = []
    /// The slot of the oldest item.
    private var head = 0
    /// Items waiting to be taken.
    package private(set) var count = 0

    package init() {}

    /// A queue with room for `capacity` items before it grows (a bounded producer's queue is
    /// then never reallocated).
    package init(capacity: Int) { slots = Array(repeating: nil, count: Swift.max(0, capacity)) }

    package var isEmpty: Bool { count == 0 }

    /// Slots in the ring (for tests: what the queue holds on to).
    package var capacity: Int { slots.count }

    package mutating func append(_ item: Element) {
        if count == slots.count { grow() }
        var tail = head + count
        if tail >= slots.count { tail -= slots.count }
        slots[tail] = item
        count += 1
    }

    /// The oldest item, left in the queue; nil when none waits.
    package var first: Element? { count > 0 ? slots[head] : nil }

    /// The oldest item, or nil when none waits.
    package mutating func take() -> Element? {
        guard count > 0 else { return nil }
        let item = slots[head]
        slots[head] = nil
        head += 1
        if head == slots.count { head = 0 }
        count -= 1
        if count == 0 { head = 0 }
        return item
    }

    /// Twice the slots (at least 4), the items moved to the front in order.
    private mutating func grow() {
        var next = [Element?](repeating: nil, count: Swift.max(4, 2 * slots.count))
        for i in 0..<count {
            var j = head + i
            if j >= slots.count { j -= slots.count }
            next[i] = slots[j]
        }
        slots = next
        head = 0
    }
}
