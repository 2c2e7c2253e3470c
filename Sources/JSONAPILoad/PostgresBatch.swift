import JSONAPIStream

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resources read and not yet written: their bytes copied into one arena, their parts as
/// ranges of it (the views they came from are gone by the time the batch is written).
final class PostgresBatch {
    struct Resource {
        enum State { case new, unchanged, changed }
        var table: LoadTable
        var type: Range<Int>
        var id: Range<Int>?
        var lid: Range<Int>?
        var hash: Range<Int>
        var primary: Bool
        var cells: Range<Int>
        var links: Range<Int>?
        var meta: Range<Int>?
        /// `_other`: the unknown members as one JSON object.
        var other: Range<Int>?
        var relationships: Range<Int>
        var state = State.new
        var key: Int64 = 0
    }

    /// An attribute: its column (-1: `_overflow`), its name as stored (a JSON string) and value.
    struct Cell {
        var column: Int
        var name: Range<Int>
        var value: Range<Int>
        var isNull: Bool
    }

    struct Relationship {
        var name: Range<Int>
        var shape: StaticString
        var links: Range<Int>?
        var meta: Range<Int>?
        var other: Range<Int>?
        var edges: Range<Int>
    }

    struct Edge {
        var type: Range<Int>
        var id: Range<Int>?
        var lid: Range<Int>?
        var meta: Range<Int>?
        var other: Range<Int>?
    }

    var bytes = ByteArena(capacity: 1 << 16)
    var resources: [Resource] = []
    var cells: [Cell] = []
    var relationships: [Relationship] = []
    var edges: [Edge] = []
    /// The type and id (or lid) of each resource in the batch: a resource read twice is
    /// written (the first time) before it is read again.
    var identities: Set<[UInt8]> = []

    func add(_ b: UnsafeRawBufferPointer) -> Range<Int> {
        let start = bytes.count
        bytes.append(b)
        return start..<bytes.count
    }

    func add(_ s: String) -> Range<Int> {
        var s = s
        return s.withUTF8 { add(UnsafeRawBufferPointer($0)) }
    }

    /// The bytes of a range (valid until the next ``add(_:)``).
    func view(_ r: Range<Int>) -> UnsafeRawBufferPointer { bytes.bytes(in: r) }

    func removeAll() {
        bytes.removeAll()
        bytes.giveBack(ifAbove: 16 << 20, to: 1 << 16)
        resources.removeAll(keepingCapacity: true)
        cells.removeAll(keepingCapacity: true)
        relationships.removeAll(keepingCapacity: true)
        edges.removeAll(keepingCapacity: true)
        identities.removeAll(keepingCapacity: true)
    }
}
