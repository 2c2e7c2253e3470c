/// A growable stack of trivial values in one allocation, for the parser's hot bookkeeping
/// (open containers, member names): no copy-on-write, no uniqueness checks.
///
/// Invariant: `base` holds `capacity` values, the first `count` initialized. `Element` is
/// `BitwiseCopyable`, so nothing needs deinitializing.
struct UnsafeStack<Element: BitwiseCopyable>: ~Copyable {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int = 64) {
        self.capacity = Swift.max(capacity, 4)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

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
        return base[count]
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
        count = n
    }

    mutating func removeAll() { count = 0 }

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
