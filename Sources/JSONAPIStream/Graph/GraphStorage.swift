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
    // The records' fields are in an order that leaves no padding (Swift keeps declaration
    // order), and all are 4-byte aligned (``PackedSpan`` and ``PackedPosition`` keep their
    // 64-bit words as two halves): a graph holds one record per resource, relationship and
    // identifier, so their size is most of its tables (``memoryFootprint``). A resource's
    // flags share a word with its type, and a relationship's kind with its name (symbols are
    // below ``maxSymbols``); a resource's document is found from its row
    // (``document(ofRow:)``): 64 and 28 bytes, where 8-byte alignment, a byte of their own
    // and the document's number made them 72 and 32.

    /// Symbols a graph may have: their numbers share a word with a record's flags or kind.
    /// (More than 16 million distinct type and relationship names end the build with an
    /// error, ``GraphSink/admit(_:document:extras:isPrimary:place:storeMark:marks:store:)``.)
    static let maxSymbols = 1 << 24

    struct ResourceRecord {
        /// The type symbol (low 24 bits) and ``flags`` (high 8).
        private var typeAndFlags: UInt32
        /// The id key, or the lid key when the resource has no id.
        var key: UInt32
        /// The lid key, or `.max`.
        var lidKey: UInt32
        var attributes: PackedSpan
        var links: PackedSpan
        var meta: PackedSpan
        var position: PackedPosition
        var relationshipStart: UInt32
        var relationshipCount: UInt32
        /// Index in the `data` or `included` array of its first occurrence (-1: single).
        var arrayIndex: Int32

        init(
            type: UInt32, key: UInt32, lidKey: UInt32, attributes: PackedSpan, links: PackedSpan, meta: PackedSpan,
            position: PackedPosition, relationshipStart: UInt32, relationshipCount: UInt32, arrayIndex: Int32, flags: UInt8
        ) {
            typeAndFlags = type & 0xFF_FFFF | UInt32(flags) &<< 24
            self.key = key
            self.lidKey = lidKey
            self.attributes = attributes
            self.links = links
            self.meta = meta
            self.position = position
            self.relationshipStart = relationshipStart
            self.relationshipCount = relationshipCount
            self.arrayIndex = arrayIndex
        }

        /// The type's symbol.
        var type: UInt32 {
            @inline(__always) get { typeAndFlags & 0xFF_FFFF }
        }

        var flags: UInt8 {
            @inline(__always) get { UInt8(truncatingIfNeeded: typeAndFlags &>> 24) }
            @inline(__always) set { typeAndFlags = typeAndFlags & 0xFF_FFFF | UInt32(newValue) &<< 24 }
        }

        /// `/data`, `/data/3` or `/included/7`: where its first occurrence was.
        var pointer: String { place.pointer }

        var place: ResourcePlace {
            @inline(__always) get {
                if flags & Self.result != 0 && flags & Self.primary == 0 { return .result(index: arrayIndex) }
                return .resource(primary: !(flags & Self.included != 0 && flags & Self.primary == 0), index: arrayIndex)
            }
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
        var links: PackedSpan
        var meta: PackedSpan
        /// The name's symbol (low 24 bits) and ``kind`` (high 8).
        private var nameAndKind: UInt32
        var targetStart: UInt32
        var targetCount: UInt32

        init(links: PackedSpan, meta: PackedSpan, name: UInt32, targetStart: UInt32, targetCount: UInt32, kind: LinkageKind) {
            self.links = links
            self.meta = meta
            nameAndKind = name & 0xFF_FFFF | UInt32(kind.rawValue) &<< 24
            self.targetStart = targetStart
            self.targetCount = targetCount
        }

        /// `other`'s kind and target count, with this name, values and first target (the
        /// kind's bits as they are, not decoded and encoded again).
        @inline(__always)
        init(of other: RelationshipRecord, name: UInt32, links: PackedSpan, meta: PackedSpan, targetStart: UInt32) {
            self.links = links
            self.meta = meta
            nameAndKind = name & 0xFF_FFFF | other.nameAndKind & 0xFF00_0000
            self.targetStart = targetStart
            targetCount = other.targetCount
        }

        /// The name's symbol.
        var name: UInt32 {
            @inline(__always) get { nameAndKind & 0xFF_FFFF }
        }

        var kind: LinkageKind {
            // Always a kind's raw value: only the initializer writes it.
            @inline(__always) get { LinkageKind(rawValue: UInt8(truncatingIfNeeded: nameAndKind &>> 24)) ?? .absent }
        }
    }

    struct LinkageRecord {
        var meta: PackedSpan
        /// The id key, or the lid key when the identifier has no id.
        var key: UInt32
        /// The lid key when the identifier has both, or `.max`.
        var lidKey: UInt32
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
    /// The spans too long or too far into `values` for a ``PackedSpan`` of their own.
    @exclusivity(unchecked) var longSpans: [ValueSpan] = []
    /// The positions past line or column 2^32 - 2, which no ``PackedPosition`` holds.
    @exclusivity(unchecked) var longPositions: [SourcePosition] = []
    /// Type names and member names (tag 0).
    @exclusivity(unchecked) var symbols = ByteInterner()
    /// Resource keys: tag `type << 1` for ids, `type << 1 | 1` for lids.
    @exclusivity(unchecked) var keys = ByteInterner()
    /// Row of each key, or -1 when no resource object has that key.
    @exclusivity(unchecked) var keyRow = RecordTable<Int32>()
    @exclusivity(unchecked) var resources = RecordTable<ResourceRecord>()
    @exclusivity(unchecked) var relationships = RecordTable<RelationshipRecord>()
    @exclusivity(unchecked) var linkage = RecordTable<LinkageRecord>()
    /// `"name":value` spans of unknown members.
    @exclusivity(unchecked) var members = RecordTable<ValueSpan>()
    /// Where each resource's values lie in ``values``, row by row: kept by a worker's piece
    /// only (``GraphSink/collectsOnly``; empty otherwise), so that the merge copies a
    /// resource's values at once and moves its spans, rather than copying value by value.
    @exclusivity(unchecked) var valueRegions = RecordTable<ValueRegion>()

    /// The bytes of ``values`` a resource's values were written to: from where its builder
    /// began the resource (`ResourceDraft.storeMark`) to where the store ended when the
    /// resource was taken in. Every span of the resource, its relationships, identifiers and
    /// unknown members lies inside.
    struct ValueRegion {
        var start: Int
        var end: Int
    }

    /// The ranges of `members` of the resources, relationships and identifiers that have
    /// unknown members (few have any, so the records do not keep a range each).
    @exclusivity(unchecked) var resourceExtras = ExtrasIndex()
    @exclusivity(unchecked) var relationshipExtras = ExtrasIndex()
    @exclusivity(unchecked) var linkageExtras = ExtrasIndex()
    /// Rows of primary data, document after document, as they appeared.
    @exclusivity(unchecked) var primaryRows: [Int32] = []
    var documents: [DocumentRecord] = []
    /// Where each document's new rows begin: its number and its first row, for the documents
    /// that added rows, in order (rows are appended document after document; a resource that
    /// repeats an earlier one keeps its first row). A resource's document is the last entry
    /// at or before its row (``document(ofRow:)``): one entry per document instead of a field
    /// in every resource record.
    @exclusivity(unchecked) var documentStarts = RecordTable<DocumentStart>()

    struct DocumentStart {
        var document: UInt32
        var row: Int32
    }

    /// Notes that row `row`, the next one, is a resource of document `document`.
    @inline(__always)
    func noteRow(_ row: Int32, document: UInt32) {
        if let last = documentStarts.last, last.document == document { return }
        documentStarts.appendToOwn(DocumentStart(document: document, row: row))
    }

    /// The document (numbered as the input numbers it) of the resource at `row`.
    func document(ofRow row: Int) -> UInt32 {
        // The last start at or before `row`: binary search over the starts' rows.
        var low = 0
        var high = documentStarts.count
        while low < high {
            let mid = (low + high) / 2
            if Int(documentStarts[mid].row) <= row { low = mid + 1 } else { high = mid }
        }
        return low > 0 ? documentStarts[low - 1].document : 0
    }
    /// Rows in first-seen order per type symbol, one array per symbol (empty for a symbol no
    /// row has). Made when the graph is finished, from each row's type noted as the rows were
    /// appended (``RowTypes``): a worker's piece, which is only merged, never needs it and
    /// leaves it empty.
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

    /// A span as the records keep it.
    @inline(__always)
    func pack(_ span: ValueSpan) -> PackedSpan {
        if let p = PackedSpan(span) { return p }
        if span.isNone { return .none }
        longSpans.append(span)
        return PackedSpan(longIndex: longSpans.count - 1)
    }

    /// A span of the records.
    @inline(__always)
    func span(_ p: PackedSpan) -> ValueSpan {
        if let s = p.short { return s }
        return p.isNone ? .none : longSpans[p.longIndex]
    }

    /// A position as the records keep it.
    @inline(__always)
    func pack(_ position: SourcePosition) -> PackedPosition {
        if let p = PackedPosition(position) { return p }
        longPositions.append(position)
        return PackedPosition(longIndex: longPositions.count - 1)
    }

    /// A position of the records.
    @inline(__always)
    func position(_ p: PackedPosition) -> SourcePosition { p.position ?? longPositions[p.longIndex] }

    /// The value at `span` as a borrowed view; valid while the storage lives.
    @inline(__always)
    func bytes(_ span: ValueSpan) -> UnsafeRawBufferPointer { values.bytes(in: span.range) }

    /// Approximate memory held by the tables, in bytes.
    var memoryFootprint: Int {
        values.capacity + symbols.memoryFootprint + keys.memoryFootprint + keyRow.capacity * 4
            + resources.capacity * MemoryLayout<ResourceRecord>.stride
            + relationships.capacity * MemoryLayout<RelationshipRecord>.stride
            + linkage.capacity * MemoryLayout<LinkageRecord>.stride
            + members.capacity * MemoryLayout<ValueSpan>.stride + longSpans.capacity * MemoryLayout<ValueSpan>.stride
            + longPositions.capacity * MemoryLayout<SourcePosition>.stride
            + (resourceExtras.count + relationshipExtras.count + linkageExtras.count) * 24
            + primaryRows.capacity * 4 + rowsByType.reduce(0) { $0 + $1.capacity * 4 }
            + documentStarts.capacity * MemoryLayout<DocumentStart>.stride
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
            precondition(resourceExtras[row].upperBound <= members.count)
            precondition(Int(r.type) < symbols.count && keyType(r.key) == r.type)
            for span in [r.attributes, r.links, r.meta].map(span) where !span.isNone {
                precondition(span.start + span.count <= values.count)
            }
        }
        for i in relationships.indices { precondition(relationshipExtras[i].upperBound <= members.count) }
        for i in linkage.indices { precondition(linkageExtras[i].upperBound <= members.count) }
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

/// A ``ValueSpan`` in 8 bytes instead of 16, as the graph's records keep it: a start below
/// 2^39 and a count below 2^24 - 1 (16 MiB) in the word itself, anything else an index into
/// ``GraphStorage/longSpans`` (``GraphStorage/pack(_:)``, ``GraphStorage/span(_:)``).
struct PackedSpan: Hashable {
    /// `raw`'s low and high halves: two words of 32 bits rather than one of 64, so that the
    /// records that hold spans are 4-byte aligned (no padding after their last 32-bit field).
    private var low: UInt32
    private var high: UInt32

    /// `start << 24 | count`; with the top bit set, `1 << 63 | index` of a long span; all
    /// ones for none.
    private var raw: UInt64 {
        @inline(__always) get { UInt64(high) &<< 32 | UInt64(low) }
        @inline(__always) set {
            low = UInt32(truncatingIfNeeded: newValue)
            high = UInt32(truncatingIfNeeded: newValue &>> 32)
        }
    }

    static let none = PackedSpan(raw: .max)
    private static let countBits: UInt64 = 24
    private static let long: UInt64 = 1 << 63

    private init(raw: UInt64) {
        low = UInt32(truncatingIfNeeded: raw)
        high = UInt32(truncatingIfNeeded: raw &>> 32)
    }

    /// `span` packed, or nil when it is none or does not fit.
    @inline(__always)
    init?(_ span: ValueSpan) {
        guard span.count >= 0, span.count < (1 << Self.countBits) - 1, span.start >= 0, span.start < 1 << 39 else { return nil }
        self.init(raw: UInt64(span.start) << Self.countBits | UInt64(span.count))
    }

    init(longIndex: Int) { self.init(raw: Self.long | UInt64(longIndex)) }

    var isNone: Bool { raw == .max }

    /// The span when it is held in the word.
    @inline(__always)
    var short: ValueSpan? {
        raw & Self.long != 0 ? nil : ValueSpan(start: Int(raw >> Self.countBits), count: Int(raw & ((1 << Self.countBits) - 1)))
    }

    var longIndex: Int { Int(raw & ~Self.long) }
}

/// Which records have unknown members, and where they are in ``GraphStorage/members``: a
/// record's index to its range, for the few that have any.
struct ExtrasIndex {
    private var ranges: [UInt32: MemberRange] = [:]

    private struct MemberRange {
        var start: UInt32
        var count: UInt32
    }

    var count: Int { ranges.count }

    /// The members of record `i` (empty when it has none).
    @inline(__always)
    subscript(i: Int) -> Range<Int> {
        get {
            if ranges.isEmpty { return 0..<0 }
            guard let r = ranges[UInt32(i)] else { return 0..<0 }
            return Int(r.start)..<Int(r.start + r.count)
        }
        set {
            if newValue.isEmpty {
                if !ranges.isEmpty { ranges[UInt32(i)] = nil }
            } else {
                ranges[UInt32(i)] = MemberRange(start: UInt32(newValue.lowerBound), count: UInt32(newValue.count))
            }
        }
    }

    /// Forgets the members of the records in `range`.
    mutating func remove(_ range: Range<Int>) {
        guard !ranges.isEmpty else { return }
        for i in range { ranges[UInt32(i)] = nil }
    }
}

/// A ``SourcePosition`` in 16 bytes instead of 24, as resource records keep it: a line and a
/// column below 2^32 - 1 in the struct itself, any other an index into
/// ``GraphStorage/longPositions`` (``GraphStorage/pack(_:)``, ``GraphStorage/position(_:)``).
struct PackedPosition {
    /// The offset (for a long position, its index) as two halves, so that a record holding
    /// a position is 4-byte aligned.
    private var offsetLow: UInt32
    private var offsetHigh: UInt32
    /// `UInt32.max` for a long position.
    private var line: UInt32
    private var column: UInt32

    @inline(__always)
    init?(_ p: SourcePosition) {
        guard p.line >= 0, p.line < Int(UInt32.max), p.column >= 0, p.column < Int(UInt32.max) else { return nil }
        (offsetLow, offsetHigh) = Self.halves(p.offset)
        line = UInt32(p.line)
        column = UInt32(p.column)
    }

    init(longIndex: Int) {
        (offsetLow, offsetHigh) = Self.halves(longIndex)
        line = .max
        column = .max
    }

    @inline(__always)
    private static func halves(_ n: Int) -> (UInt32, UInt32) {
        let bits = UInt64(bitPattern: Int64(n))
        return (UInt32(truncatingIfNeeded: bits), UInt32(truncatingIfNeeded: bits &>> 32))
    }

    @inline(__always)
    private var offset: Int { Int(Int64(bitPattern: UInt64(offsetHigh) &<< 32 | UInt64(offsetLow))) }

    /// The position when it is held in the struct.
    @inline(__always)
    var position: SourcePosition? {
        isLong ? nil : SourcePosition(offset: offset, line: Int(line), column: Int(column))
    }

    var longIndex: Int { offset }

    /// Whether it is an index into ``GraphStorage/longPositions`` (a position of one graph
    /// only) rather than the position itself.
    var isLong: Bool {
        @inline(__always) get { line == .max }
    }
}
