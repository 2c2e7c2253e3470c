#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The canonical form hashed by `--hash`: minified JSON with the members of every object
/// sorted by the bytes of their (minimally escaped) names, a name before the longer names it
/// begins, arrays in order, numbers and strings exactly as stored.
///
/// Writes canonical forms; keeps its working stacks from one value to the next, so a run of
/// many lines allocates nothing per line once they have grown.
struct Canonical: ~Copyable {
    // The nested types are internal, not private: Swift 6.3 emits a broken module in debug
    // builds for private types nested in this noncopyable struct.

    /// A value: its text, its member name (quoted; objects' members only), and for a
    /// container that must be rebuilt, its children in `kept`.
    struct Item: BitwiseCopyable {
        /// The member name with its quotes, `name..<nameEnd`.
        var name: Int
        var nameEnd: Int
        /// The name's first eight bytes (without the quote), big-endian, zero-padded: most
        /// comparisons are decided by it (minimally escaped names hold no zero byte).
        var key: UInt64
        var start: Int
        var end: Int
        var first = 0
        var count = 0
        /// 0: canonical as it is (a scalar, or a container whose objects all have their
        /// members in order: written as its text); 1: an object, 2: an array to rebuild.
        var kind: UInt8
    }

    struct Open: BitwiseCopyable {
        var item: Int
        var firstChild: Int
    }

    struct Writing: BitwiseCopyable {
        var item: Item
        var next: Int
    }

    /// The values of the containers still open, each container's after its own item.
    private var pending = UnsafeStack<Item>(capacity: 256)
    /// The children of the containers to rebuild (sorted, for objects).
    private var kept = UnsafeStack<Item>(capacity: 256)
    private var open = UnsafeStack<Open>(capacity: 32)
    private var writing = UnsafeStack<Writing>(capacity: 32)

    init() {}

    /// Writes the canonical form of the minified JSON value `b[span]` to `out`.
    ///
    /// Linear in the text whatever its depth, and without recursion: one pass collects the
    /// values (scalars and names stay where they are in `b`); a container that is canonical
    /// already (the common case) is kept as one span of text, and only the others keep
    /// their children, an object's sorted as it closes; a second pass writes them out.
    mutating func form(_ b: UnsafeRawBufferPointer, _ span: Range<Int>, into out: inout ByteArena) {
        pending.removeAll()
        kept.removeAll()
        open.removeAll()
        writing.removeAll()
        var name = 0
        var nameEnd = 0
        var key: UInt64 = 0
        var i = span.lowerBound
        let end = span.upperBound
        while i < end {
            let c = b[i]
            switch c {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                pending.push(Item(name: name, nameEnd: nameEnd, key: key, start: i, end: i, kind: c == UInt8(ascii: "{") ? 1 : 2))
                open.push(Open(item: pending.count &- 1, firstChild: pending.count))
                i &+= 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !open.isEmpty else { i = end; break }
                close(open.pop(), at: i, b)
                i &+= 1
            case UInt8(ascii: ","):
                i &+= 1
            case UInt8(ascii: "\""):
                let e = StoredJSON.skipString(b, at: i)
                if e < end && b[e] == UInt8(ascii: ":") {
                    name = i
                    nameEnd = e
                    key = Self.key(b, i &+ 1, e &- i &- 2)
                    i = e &+ 1
                } else {
                    pending.push(Item(name: name, nameEnd: nameEnd, key: key, start: i, end: e, kind: 0))
                    i = e
                }
            default:
                var e = i &+ 1
                while e < end {
                    let d = b[e]
                    if d == UInt8(ascii: ",") || d == UInt8(ascii: "}") || d == UInt8(ascii: "]") { break }
                    e &+= 1
                }
                pending.push(Item(name: name, nameEnd: nameEnd, key: key, start: i, end: e, kind: 0))
                i = e
            }
        }
        guard !pending.isEmpty else { return }
        write(pending[0], b, &out)
        while !writing.isEmpty {
            let top = writing.top
            if top.next < top.item.count {
                writing.topPointer.pointee.next &+= 1
                if top.next > 0 { out.append(UInt8(ascii: ",")) }
                let child = kept[top.item.first &+ top.next]
                if top.item.kind == 1 {
                    out.append(UnsafeRawBufferPointer(rebasing: b[child.name..<child.nameEnd]))
                    out.append(UInt8(ascii: ":"))
                }
                write(child, b, &out)
            } else {
                out.append(top.item.kind == 1 ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                writing.pop()
            }
        }
    }

    /// Closes the container `o` at `i`: kept as its text when it is canonical already,
    /// otherwise its children move to `kept` (an object's sorted by name).
    private mutating func close(_ o: Open, at i: Int, _ b: UnsafeRawBufferPointer) {
        var item = pending[o.item]
        item.end = i &+ 1
        let isObject = item.kind == 1
        var asIs = true
        var k = o.firstChild
        while k < pending.count {
            let child = pending[k]
            if child.kind != 0 || (isObject && k > o.firstChild && Self.precedes(b, child, pending[k &- 1])) {
                asIs = false
                break
            }
            k &+= 1
        }
        if asIs {
            item.kind = 0
        } else {
            var children = UnsafeMutableBufferPointer(start: pending.base + o.firstChild, count: pending.count &- o.firstChild)
            if isObject { children.stableSort { Self.precedes(b, $0, $1) } }
            item.first = kept.count
            item.count = children.count
            for child in children { kept.push(child) }
        }
        pending.truncate(to: o.firstChild)
        pending[o.item] = item
    }

    /// Writes a value kept as text, or opens a container to rebuild.
    private mutating func write(_ item: Item, _ b: UnsafeRawBufferPointer, _ out: inout ByteArena) {
        switch item.kind {
        case 0: out.append(UnsafeRawBufferPointer(rebasing: b[item.start..<item.end]))
        case 1:
            out.append(UInt8(ascii: "{"))
            writing.push(Writing(item: item, next: 0))
        default:
            out.append(UInt8(ascii: "["))
            writing.push(Writing(item: item, next: 0))
        }
    }

    /// The first eight bytes of the `length` bytes at `start`, as ``Item/key`` says.
    @inline(__always)
    private static func key(_ b: UnsafeRawBufferPointer, _ start: Int, _ length: Int) -> UInt64 {
        guard let p = b.baseAddress else { return 0 }
        var w: UInt64 = 0
        if start &+ 8 <= b.count {
            // In bounds: eight bytes from `start` lie inside `b`; those past the name are masked.
            w = UInt64(littleEndian: (p + start).loadUnaligned(as: UInt64.self))
            if length < 8 { w &= (1 &<< (UInt64(truncatingIfNeeded: length) &* 8)) &- 1 }
        } else {
            var k = 0
            while k < Swift.min(length, 8) {
                w |= UInt64(p.load(fromByteOffset: start &+ k, as: UInt8.self)) &<< (UInt64(truncatingIfNeeded: k) &* 8)
                k &+= 1
            }
        }
        return w.byteSwapped
    }

    /// Whether `x`'s name sorts before `y`'s: bytewise, without the quotes, a name before the
    /// longer names it begins.
    @inline(__always)
    private static func precedes(_ b: UnsafeRawBufferPointer, _ x: Item, _ y: Item) -> Bool {
        if x.key != y.key { return x.key < y.key }
        let xn = x.nameEnd &- x.name &- 2
        let yn = y.nameEnd &- y.name &- 2
        let shorter = Swift.min(xn, yn)
        if shorter > 8 {
            let r = memcmp(b.baseAddress! + (x.name &+ 9), b.baseAddress! + (y.name &+ 9), shorter &- 8)
            if r != 0 { return r < 0 }
        }
        return xn < yn
    }
}

extension UnsafeMutableBufferPointer {
    /// Sorts stably (equal elements keep their order, as members with the same name must):
    /// by insertion up to 16 elements (the few members of most objects, often in order
    /// already), by the standard library's stable sort above, so that large inputs stay
    /// O(n log n).
    @inline(__always)
    mutating func stableSort(by precedes: (Element, Element) -> Bool) {
        guard count > 16 else {
            var k = 1
            while k < count {
                let x = self[k]
                var j = k
                while j > 0 && precedes(x, self[j &- 1]) {
                    self[j] = self[j &- 1]
                    j &-= 1
                }
                self[j] = x
                k &+= 1
            }
            return
        }
        sort(by: precedes)
    }
}
