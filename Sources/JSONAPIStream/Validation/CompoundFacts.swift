/// What the compound-document rules (R22, R23) need of a range of elements a worker read: each
/// resource's key and place, and the keys its linkage points to, in input order. The worker's
/// ``Validator`` gathers them instead of checking (one document's keys must all be in one
/// place); the caller's validator takes them in, in input order, and checks as if it had read
/// the resources itself (``Validator/takeIn(_:before:warnings:next:emit:)``).
///
/// Keys are numbered in a table of its own (each distinct key is interned again on the
/// caller's side once per batch, not once per use). Each row notes where it falls among the
/// worker's warnings and resources, and how much output its writer had written before it, so
/// that a violation found on the caller's side comes in the same order, and cuts the output
/// at the same resource, as on one reader.
///
/// One thread at a time: the worker's while it reads, then (handed over with its batch) the
/// caller's.
final class CompoundFacts: @unchecked Sendable {
    struct Row {
        var key: UInt32
        /// The `(type, lid)` key of a resource with both id and lid, else `UInt32.max`.
        var lidKey: UInt32
        var included: Bool
        /// Primary data made of resource identifiers alone (an endpoint's linkage).
        var asIdentifier: Bool
        var position: SourcePosition
        var place: ResourcePlace
        /// Where its linkage ends in ``CompoundFacts/edges`` (it starts where the row before's ends).
        var edgesEnd: Int
        /// The worker's warnings before it (since the facts began).
        var diagnosticsBefore: Int
        /// Resources the worker's stream read before it (since the facts began).
        var resourcesBefore: Int
        /// The writer's output before it: bytes, whole records and quoted numbers (since the
        /// facts began); zero without a writer.
        var outputMark: Int
        var records: Int
        var numbersQuoted: Int
    }

    // (One thread at a time, and no access overlaps another: no run-time exclusivity checks.)
    @exclusivity(unchecked) var keys = ResourceKeys()
    @exclusivity(unchecked) private(set) var rows: [Row] = []
    /// Target keys of the rows' linkage, row after row.
    @exclusivity(unchecked) private(set) var edges: [UInt32] = []
    /// Counted by the worker as they come, for the next row's stamps.
    @exclusivity(unchecked) var diagnosticsSeen = 0
    @exclusivity(unchecked) var resourcesSeen = 0
    /// The caller's side (``Validator/takeIn(_:before:warnings:next:emit:)``): rows taken in so
    /// far, and the caller's numbers for the keys and types of ``keys`` (all of them, from the
    /// first rows taken in: `keysTaken`).
    @exclusivity(unchecked) var taken = 0
    @exclusivity(unchecked) var callerKeys = KeyTranslation()
    @exclusivity(unchecked) var keysTaken = false
    /// The worker's writer, whose marks the rows note (nil: none).
    let out: ByteWriter?
    private let recordsBase: Int
    private let quotedBase: Int

    /// `sizedLike`: the facts of the batch before, whose size and a quarter more these start
    /// with (``pieceRoom(after:)``: a range's batches are alike; a table that doubled its way
    /// up from empty rehashed and zeroed itself at every step, 388 times over a 16 MB
    /// document).
    init(out: ByteWriter?, sizedLike previous: CompoundFacts? = nil) {
        self.out = out
        recordsBase = out?.recordsCompleted ?? 0
        quotedBase = out?.numbersQuoted ?? 0
        if let previous {
            keys.reserveCapacity(pieceRoom(after: previous.keys.count))
            rows.reserveCapacity(pieceRoom(after: previous.rows.count))
            edges.reserveCapacity(pieceRoom(after: previous.edges.count))
        }
    }

    func appendEdge(_ key: UInt32) { edges.append(key) }

    /// A row for a resource whose linkage was appended just before.
    func appendRow(key: UInt32, lidKey: UInt32, included: Bool, asIdentifier: Bool, position: SourcePosition, place: ResourcePlace) {
        var mark = 0
        var records = 0
        var quoted = 0
        if let out {
            // A row comes between two records, whose numbers to quote are settled as each ends:
            // the mark is a place in the output as it is handed over.
            assert(out.numbersSettled, "a compound fact within a record")
            mark = out.mark
            records = out.recordsCompleted - recordsBase
            quoted = out.numbersQuoted - quotedBase
        }
        rows.append(
            Row(
                key: key, lidKey: lidKey, included: included, asIdentifier: asIdentifier, position: position, place: place,
                edgesEnd: edges.count, diagnosticsBefore: diagnosticsSeen, resourcesBefore: resourcesSeen, outputMark: mark, records: records, numbersQuoted: quoted))
    }

    /// The linkage of row `i`.
    func edges(of i: Int) -> ArraySlice<UInt32> {
        let start = i == 0 ? 0 : rows[i - 1].edgesEnd
        return edges[start..<rows[i].edgesEnd]
    }
}
