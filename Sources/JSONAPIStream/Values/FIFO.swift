/// A first-in, first-out queue: appended at the back, taken from the front, its storage reused
/// once everything is taken (no shifting of what is left). Not thread-safe: its owner guards it.
package struct FIFO<Element> {
    private var items: [Element] = []
    private var head = 0

    package init() {}

    /// Items waiting to be taken.
    package var count: Int { items.count - head }

    package var isEmpty: Bool { head == items.count }

    package mutating func append(_ item: Element) { items.append(item) }

    /// The oldest item, or nil when none waits.
    package mutating func take() -> Element? {
        guard head < items.count else { return nil }
        let item = items[head]
        head += 1
        if head == items.count {
            items.removeAll(keepingCapacity: true)
            head = 0
        }
        return item
    }
}
