/// A growable stack in one allocation, for the parser's hot bookkeeping (open containers,
/// member names, the drafts of the resource being read): no copy-on-write, no uniqueness
/// checks.
///
/// Invariant: `base` holds `capacity` values, the first `count` initialized. Whatever
/// removes elements deinitializes them, which costs nothing for the trivial types the
/// parser keeps here.
struct UnsafeStack<Element>: ~Copyable {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 64) {
        self.capacity = Swift.max(capacity, 4)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }

    var isEmpty: Bool { count == 0 }

    @inline(__always)
    mutating func push(_ e: Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: e)
        count &+= 1
    }

    @inline(__always)
    @discardableResult
    mutating func pop() -> Element {
        precondition(count > 0)
        count &-= 1
        return (base + count).move()
    }

    /// The last element, or nil when the stack is empty.
    @inline(__always)
    var last: Element? { count > 0 ? base[count &- 1] : nil }

    /// Removes and returns the last element, or nil when the stack is empty.
    @inline(__always)
    mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        count &-= 1
        return (base + count).move()
    }

    /// The last element; the stack must not be empty.
    @inline(__always)
    var top: Element {
        get { base[count &- 1] }
        nonmutating set { base[count &- 1] = newValue }
    }

    /// A pointer to the last element; the stack must not be empty.
    @inline(__always)
    var topPointer: UnsafeMutablePointer<Element> { base + (count &- 1) }

    @inline(__always)
    subscript(i: Int) -> Element {
        get {
            precondition(i >= 0 && i < count)
            return base[i]
        }
        nonmutating set {
            precondition(i >= 0 && i < count)
            base[i] = newValue
        }
    }

    @inline(__always)
    mutating func truncate(to n: Int) {
        precondition(n >= 0 && n <= count)
        (base + n).deinitialize(count: count &- n)
        count = n
    }

    mutating func removeAll() {
        base.deinitialize(count: count)
        count = 0
    }

    /// Removes the elements `shouldRemove` picks, keeping the order of the rest.
    mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        var kept = 0
        for i in 0..<count {
            let e = (base + i).move()
            if shouldRemove(e) { continue }
            (base + kept).initialize(to: e)
            kept &+= 1
        }
        count = kept
    }

    /// The elements, valid until the stack next changes.
    @inline(__always)
    var elements: UnsafeBufferPointer<Element> { UnsafeBufferPointer(start: base, count: count) }

    mutating func append<C: Collection>(contentsOf c: C) where C.Element == Element {
        for e in c { push(e) }
    }

    @inline(never)
    private mutating func grow() {
        let c = capacity * 2
        let p = UnsafeMutablePointer<Element>.allocate(capacity: c)
        p.moveInitialize(from: base, count: count)
        base.deallocate()
        base = p
        capacity = c
    }
}

extension Array {
    /// Empties the array and keeps its storage. Unlike `removeAll(keepingCapacity: true)`,
    /// an array that is already empty costs nothing (no uniqueness check, no new buffer):
    /// the hot paths clear per-resource lists that are usually empty.
    @inline(__always)
    mutating func clearKeepingCapacity() {
        if !isEmpty { removeAll(keepingCapacity: true) }
    }
}
