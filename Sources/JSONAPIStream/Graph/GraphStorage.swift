/// The tables of a ``Graph``. Built once by a ``GraphSink``, then never changed, so it is
/// shared freely between threads.
///
/// A worked example: the document
///
/// ```json
/// {"data": {"type": "articles", "id": "1", "attributes": {"title": "Hi"},
///           "relationships": {"author": {"data": {"type": "people", "id": "9"}}}},
///  "included": [{"type": "people", "id": "9", "attributes": {"name": "Dan"}}]}
/// ```
///
/// becomes
///
/// ```
/// symbols    0 "articles"   1 "author"   2 "people"
/// keys       0 (articles, "1") -> row 0     1 (people, "9") -> row 1
/// resources  row 0: type 0, key 0, primary,  attributes @0  {"title":"Hi"}
///                   relationships 0..<1
///            row 1: type 2, key 1, included, attributes @14 {"name":"Dan"}
/// relationships  0: name 1, to-one, linkage 0..<1
/// linkage        0: key 1                    (resolves through keyRow[1] = row 1)
/// values     {"title":"Hi"}{"name":"Dan"}
/// documents  0: data single, primary rows [0]
/// ```
///
/// Linkage points at keys, not rows: a target that is not included keeps its key (and so
/// its identifier) with `keyRow[key] == -1`. Cycles are just keys pointing at each other.
final class GraphStorage: @unchecked Sendable {
    struct ResourceRecord {
        var type: UInt32
        /// The id key, or the lid key when the resource has no id.
        var key: UInt32
        /// The lid key, or `.max`.
        var lidKey: UInt32
        var flags: UInt8
        var document: UInt32
        var attributes: ValueSpan
        var links: ValueSpan
        var meta: ValueSpan
        var relationshipStart: UInt32
        var relationshipCount: UInt32
        var extraStart: UInt32
        var extraCount: UInt32
        var position: SourcePosition
        /// Index in the `data` or `included` array of its first occurrence (-1: single).
        var arrayIndex: Int32

        /// `/data`, `/data/3` or `/included/7`: where its first occurrence was.
        var pointer: String { place.pointer }

        var place: ResourcePlace {
            if flags & Self.result != 0 && flags & Self.primary == 0 { return .result(index: arrayIndex) }
            return .resource(primary: !(flags & Self.included != 0 && flags & Self.primary == 0), index: arrayIndex)
        }

        static let hasID: UInt8 = 1
        static let primary: UInt8 = 2
        static let included: UInt8 = 4
        /// The resource object had a `relationships` member (possibly empty).
        static let hasRelationships: UInt8 = 8
        /// The resource object had neither `id` nor `lid` (a create payload's primary data):
        /// it is indexed under the empty `lid` but reports no identity of its own.
        static let anonymous: UInt8 = 16
        /// A number a double would change is in its values (counted under `--numbers safe`
        /// only, ``NumberAlarm``).
        static let unsafeNumbers: UInt8 = 32
        /// The data of a result in `atomic:results` (Atomic Operations); with `included`.
        static let result: UInt8 = 64
    }

    struct RelationshipRecord {
        var name: UInt32
        var kind: LinkageKind
        var targetStart: UInt32
        var targetCount: UInt32
        var links: ValueSpan
        var meta: ValueSpan
        var extraStart: UInt32
        var extraCount: UInt32
    }

    struct LinkageRecord {
        /// The id key, or the lid key when the identifier has no id.
        var key: UInt32
        /// The lid key when the identifier has both, or `.max`.
        var lidKey: UInt32
        var meta: ValueSpan
        var extraStart: UInt32
        var extraCount: UInt32
    }

    struct DocumentRecord {
        var shape: PrimaryDataShape
        var primaryStart: Int
        var primaryCount: Int
        var meta: ValueSpan
        var links: ValueSpan
        var jsonapi: ValueSpan
        var errors: ValueSpan
        var extras: [ValueSpan]
        var position: SourcePosition
        /// The input it came from.
        var source: String?
        /// Which of `extras` is `atomic:operations` under the Atomic Operations extension (-1:
        /// none, or the document did not apply it).
        var atomicOperations: Int32 = -1
        /// Which of `extras` is `atomic:results`, rebuilt with each result's resource as its
        /// identifier (-1: none).
        var atomicResults: Int32 = -1
    }

    /// Minified JSON of every attribute, meta, links and unknown-member value.
    @exclusivity(unchecked) var values = ByteArena(capacity: 16)
    /// Type names and member names (tag 0).
    @exclusivity(unchecked) var symbols = ByteInterner()
    /// Resource keys: tag `type << 1` for ids, `type << 1 | 1` for lids.
    @exclusivity(unchecked) var keys = ByteInterner()
    /// Row of each key, or -1 when no resource object has that key.
    @exclusivity(unchecked) var keyRow: [Int32] = []
    @exclusivity(unchecked) var resources: [ResourceRecord] = []
    @exclusivity(unchecked) var relationships: [RelationshipRecord] = []
    @exclusivity(unchecked) var linkage: [LinkageRecord] = []
    /// `"name":value` spans of unknown members.
    @exclusivity(unchecked) var members: [ValueSpan] = []
    /// Rows of primary data, document after document, as they appeared.
    @exclusivity(unchecked) var primaryRows: [Int32] = []
    var documents: [DocumentRecord] = []
    /// Rows in first-seen order per type symbol.
    @exclusivity(unchecked) var rowsByType: [[Int32]] = []
    var warnings: [Diagnostic] = []
    var warningCount = 0
    var inputBytes = 0
    /// Resources that appeared again and were merged.
    var duplicateCount = 0
    /// Whether a stored object may hold the same member name twice (only when the parse kept
    /// them, ``DuplicateMemberPolicy/allowInValues``). When false, a member lookup stops at
    /// the first match instead of reading the whole object for a later one.
    var namesMayRepeat = true
    /// Under `--numbers safe`: whether a document's top-level members hold a number a double
    /// would change (`nil`: not counted, so any may).
    var topLevelUnsafeNumbers: Bool? = nil

    init() {}

    static let noKey = UInt32.max

    @inline(__always)
    func idTag(_ type: UInt32) -> UInt32 { ResourceKeys.idTag(type) }
    @inline(__always)
    func lidTag(_ type: UInt32) -> UInt32 { ResourceKeys.lidTag(type) }

    /// The type symbol a key belongs to.
    @inline(__always)
    func keyType(_ key: UInt32) -> UInt32 { keys.tag(of: key) >> 1 }
    @inline(__always)
    func keyIsLid(_ key: UInt32) -> Bool { keys.tag(of: key) & 1 == 1 }

    func row(type: String, id: String) -> Int? {
        guard let t = symbols.find(type), let k = keys.find(id, tag: idTag(t)) else { return nil }
        let r = keyRow[Int(k)]
        return r >= 0 ? Int(r) : nil
    }

    func row(type: String, lid: String) -> Int? {
        guard let t = symbols.find(type), let k = keys.find(lid, tag: lidTag(t)) else { return nil }
        let r = keyRow[Int(k)]
        return r >= 0 ? Int(r) : nil
    }

    /// The value at `span` as a borrowed view; valid while the storage lives.
    @inline(__always)
    func bytes(_ span: ValueSpan) -> UnsafeRawBufferPointer { values.bytes(in: span.range) }

    /// Approximate memory held by the tables, in bytes.
    var memoryFootprint: Int {
        values.capacity + symbols.memoryFootprint + keys.memoryFootprint + keyRow.capacity * 4
            + resources.capacity * MemoryLayout<ResourceRecord>.stride
            + relationships.capacity * MemoryLayout<RelationshipRecord>.stride
            + linkage.capacity * MemoryLayout<LinkageRecord>.stride
            + members.capacity * MemoryLayout<ValueSpan>.stride
            + primaryRows.capacity * 4 + rowsByType.reduce(0) { $0 + $1.capacity * 4 }
    }

    #if DEBUG
    /// Checks the tables' invariants (debug builds and tests).
    func checkInvariants() {
        precondition(keyRow.count == keys.count)
        for (row, r) in resources.enumerated() {
            // Resources without id or lid share the empty lid's key; it maps to the first.
            if r.flags & ResourceRecord.anonymous == 0 {
                precondition(keyRow[Int(r.key)] == Int32(row), "key of row \(row) does not map back")
            }
            if r.lidKey != Self.noKey { precondition(keyRow[Int(r.lidKey)] == Int32(row)) }
            precondition(Int(r.relationshipStart + r.relationshipCount) <= relationships.count)
            precondition(Int(r.extraStart + r.extraCount) <= members.count)
            precondition(Int(r.type) < symbols.count && keyType(r.key) == r.type)
            for span in [r.attributes, r.links, r.meta] where !span.isNone {
                precondition(span.start + span.count <= values.count)
            }
        }
        for rel in relationships {
            precondition(Int(rel.targetStart + rel.targetCount) <= linkage.count)
            precondition(rel.kind == .toMany || rel.targetCount <= 1)
        }
        for l in linkage { precondition(Int(l.key) < keys.count) }
        for row in primaryRows { precondition(resources[Int(row)].flags & ResourceRecord.primary != 0) }
        for (t, rows) in rowsByType.enumerated() {
            for row in rows { precondition(resources[Int(row)].type == UInt32(t)) }
        }
    }
    #endif
}
