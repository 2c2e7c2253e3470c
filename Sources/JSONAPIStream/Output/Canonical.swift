/// The canonical form hashed by `--hash`: minified JSON with the members of every object
/// sorted by the bytes of their (minimally escaped) names, arrays in order, numbers and
/// strings exactly as stored.
/// Writes canonical forms; keeps its working arrays from one value to the next, so a run of
/// many lines allocates nothing per line once they have grown.
struct Canonical {
    /// A value of the text: a scalar (its bytes as they are), or an object or array whose
    /// children are `children[first ..< first + count]`.
    private struct Node {
        var kind: UInt8  // 0 scalar, 1 object, 2 array
        var span: Range<Int>
        var first = 0
        var count = 0
    }
    /// A child: its member name (quoted, for objects; empty for arrays) and its node.
    private struct Child {
        var name: Range<Int>
        var node: Int
    }

    private var nodes: [Node] = []
    private var children: [Child] = []
    /// The children of the containers still open.
    private var pending: [Child] = []
    /// The containers still open, and where their children start in `pending`.
    private var open: [(node: Int, firstPending: Int)] = []
    /// The containers being written, and how many of their children are written.
    private var stack: [(node: Int, next: Int)] = []

    /// Writes the canonical form of the minified JSON value `b[span]` to `out`.
    ///
    /// Linear in the text whatever its depth, and without recursion: one pass builds a tree
    /// of the values (scalars and names stay where they are in `b`), sorting each object's
    /// members as it closes; a second pass writes the tree out.
    mutating func form(_ b: UnsafeRawBufferPointer, _ span: Range<Int>, into out: inout ByteArena) {
        nodes.removeAll(keepingCapacity: true)
        children.removeAll(keepingCapacity: true)
        pending.removeAll(keepingCapacity: true)
        open.removeAll(keepingCapacity: true)
        stack.removeAll(keepingCapacity: true)
        var name = 0..<0
        var root = -1


        var i = span.lowerBound
        let end = span.upperBound
        while i < end {
            let c = b[i]
            switch c {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                nodes.append(Node(kind: c == UInt8(ascii: "{") ? 1 : 2, span: i..<i))
                attach(nodes.count - 1, name, &root)
                open.append((nodes.count - 1, pending.count))
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard let top = open.popLast() else { i = end; break }
                if nodes[top.node].kind == 1 {
                    pending[top.firstPending...].sort { Self.precedes(b, $0.name, $1.name) }
                }
                nodes[top.node].first = children.count
                nodes[top.node].count = pending.count - top.firstPending
                children.append(contentsOf: pending[top.firstPending...])
                pending.removeSubrange(top.firstPending...)
                i += 1
            case UInt8(ascii: ","):
                i += 1
            case UInt8(ascii: "\""):
                let e = StoredJSON.skipString(b, at: i)
                if e < end && b[e] == UInt8(ascii: ":") {
                    name = i..<e
                    i = e + 1
                } else {
                    nodes.append(Node(kind: 0, span: i..<e))
                    attach(nodes.count - 1, name, &root)
                    i = e
                }
            default:
                let e = StoredJSON.skipValue(b, at: i)
                nodes.append(Node(kind: 0, span: i..<e))
                attach(nodes.count - 1, name, &root)
                i = max(e, i + 1)
            }
        }
        guard root >= 0 else { return }

        enter(root, b, &out)
        while let top = stack.last {
            let node = nodes[top.node]
            if top.next < node.count {
                stack[stack.count - 1].next += 1
                if top.next > 0 { out.append(UInt8(ascii: ",")) }
                let child = children[node.first + top.next]
                if node.kind == 1 {
                    out.append(UnsafeRawBufferPointer(rebasing: b[child.name]))
                    out.append(UInt8(ascii: ":"))
                }
                enter(child.node, b, &out)
            } else {
                out.append(node.kind == 1 ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                stack.removeLast()
            }
        }
    }

    private mutating func attach(_ node: Int, _ name: Range<Int>, _ root: inout Int) {
        if open.isEmpty { root = node } else { pending.append(Child(name: name, node: node)) }
    }

    /// Writes a scalar, or opens a container (and puts it on the stack).
    private mutating func enter(_ n: Int, _ b: UnsafeRawBufferPointer, _ out: inout ByteArena) {
        let node = nodes[n]
        switch node.kind {
        case 0: out.append(UnsafeRawBufferPointer(rebasing: b[node.span]))
        case 1:
            out.append(UInt8(ascii: "{"))
            stack.append((n, 0))
        default:
            out.append(UInt8(ascii: "["))
            stack.append((n, 0))
        }
    }

    private static func precedes(_ b: UnsafeRawBufferPointer, _ x: Range<Int>, _ y: Range<Int>) -> Bool {
        UnsafeRawBufferPointer(rebasing: b[x]).lexicographicallyPrecedes(UnsafeRawBufferPointer(rebasing: b[y]))
    }
}
