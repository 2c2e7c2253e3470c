/// Merges a resource that appeared again into the row of its first occurrence, member by
/// member, without keeping copies it no longer needs.
///
/// The new occurrence was written last: its values are the end of the value store (from
/// `valueMark`, where the builder started the resource) and its relationship, linkage and
/// member rows the ends of those tables (from `marks`). The merge
/// - keeps the old occurrence's values and rows where they are;
/// - writes a merged value, or a winning new one, over the value it replaces when it is no
///   longer (and a merged list of rows over the old list when it is no longer);
/// - collects everything else that survives of the new occurrence, or that grew, in `tail`
///   buffers whose positions are those it will have once appended at the marks;
/// - and in ``finish(in:)`` cuts the store and the tables back to the marks and appends the
///   tails.
/// Merging the same resource again and again therefore takes no memory, and what a merge
/// replaces is reused when the replacement fits. The value store is the one the builder lends
/// its sink (``DraftArenas/store``), passed to each step.
struct DuplicateMerger: ~Copyable {
    let storage: GraphStorage
    let newWins: Bool
    let valueMark: Int
    let marks: GraphSink.Marks

    private var valueTail = ByteArena(capacity: 256)
    private var relationshipTail: [GraphStorage.RelationshipRecord] = []
    private var linkageTail: [GraphStorage.LinkageRecord] = []
    private var memberTail: [ValueSpan] = []
    /// The unknown members of rows in the tails: the table's index, the row, its members.
    private var tailExtras: [(ReferenceWritableKeyPath<GraphStorage, ExtrasIndex>, Int, Range<Int>)] = []

    /// Whether a repeat with the same names in the same order is taken whole
    /// (``mergeObjects(_:_:in:)``, ``mergeRelationships(old:new:in:)``). Tests bind it to
    /// false to compare with the merge name by name, which must give the same graph, byte for
    /// byte. (Read once per merge, on the thread that merges: the caller's.)
    @TaskLocal static var takesRepeatsWhole = true
    /// Whether objects and relationships with the same names in the same order are taken
    /// whole: unless names may repeat in one object (a merge by name keeps one of each).
    private let sameNamesTakeWhole: Bool

    init(storage: GraphStorage, newWins: Bool, valueMark: Int, marks: GraphSink.Marks) {
        self.storage = storage
        self.newWins = newWins
        self.valueMark = valueMark
        self.marks = marks
        sameNamesTakeWhole = Self.takesRepeatsWhole && !storage.namesMayRepeat
    }

    // MARK: - Values

    private func isNew(_ span: ValueSpan) -> Bool { !span.isNone && span.start >= valueMark }

    /// Places `bytes` as the value that replaces `old`: over it when it fits (and it is an
    /// old value), otherwise in the tail.
    private mutating func place(_ bytes: UnsafeRawBufferPointer, over old: ValueSpan, in store: inout ByteArena) -> ValueSpan {
        if fits(bytes.count, over: old) {
            store.overwrite(at: old.start, with: bytes)
            return ValueSpan(start: old.start, count: bytes.count)
        }
        let start = valueMark + valueTail.count
        valueTail.append(bytes)
        return ValueSpan(start: start, count: bytes.count)
    }

    /// Keeps `span`: an old value stays where it is; a new one moves over `old` or to the tail.
    private mutating func keep(_ span: ValueSpan, over old: ValueSpan = .none, in store: inout ByteArena) -> ValueSpan {
        guard isNew(span) else { return span }
        if fits(span.count, over: old) {
            // The old value is below the mark, the new one above it: no overlap.
            store.copyWithin(span.range, to: old.start)
            return ValueSpan(start: old.start, count: span.count)
        }
        let start = valueMark + valueTail.count
        store.withBytes { valueTail.append(UnsafeRawBufferPointer(rebasing: $0[span.range])) }
        return ValueSpan(start: start, count: span.count)
    }

    /// ``keep(_:over:in:)`` for a span of the records.
    private mutating func keep(_ span: PackedSpan, over old: PackedSpan, in store: inout ByteArena) -> PackedSpan {
        storage.pack(keep(storage.span(span), over: storage.span(old), in: &store))
    }

    /// Whether a value of `count` bytes can be written over `old` (an old value, no shorter).
    private func fits(_ count: Int, over old: ValueSpan) -> Bool {
        !old.isNone && old.start < valueMark && count <= old.count
    }

    /// Two stored objects merged: a name in both keeps its first position and takes the
    /// winner's value; new names are appended. Values that are not objects (kept in lenient
    /// mode) are replaced whole, and so are objects with the same names in the same order (a
    /// resource written again by the same server, some values changed): merged name by name
    /// they would be the winner's bytes again (a stored object is minified JSON), unless a
    /// name may repeat in one (a merge by name keeps one of each).
    mutating func mergeObjects(_ old: ValueSpan, _ new: ValueSpan, in store: inout ByteArena) -> ValueSpan {
        if new.isNone { return old }
        if old.isNone { return keep(new, in: &store) }
        let wholeIfSame = sameNamesTakeWhole
        let (isObjects, sameNames) = store.withBytes { all in
            let isObjects = all[old.start] == UInt8(ascii: "{") && all[new.start] == UInt8(ascii: "{")
            return (isObjects, isObjects && wholeIfSame && StoredJSON.sameNames(all, old.range, new.range))
        }
        guard isObjects && !sameNames else { return newWins ? keep(new, over: old, in: &store) : old }
        let (oldMembers, newMembers) = store.withBytes { all in (StoredJSON.members(all, old.range), StoredJSON.members(all, new.range)) }
        // Built aside first: writing over the old value must not change what is read.
        var object = ByteArena(capacity: old.count + new.count + 2)
        store.withBytes { all in
            var out = oldMembers
            var index = NameIndex(out.count)
            for (i, m) in out.enumerated() { index.insert(UnsafeRawBufferPointer(rebasing: all[m.name]), i) }
            for m in newMembers {
                let name = UnsafeRawBufferPointer(rebasing: all[m.name])
                if let i = index.find(name) {
                    if newWins { out[i].value = m.value }
                } else {
                    index.insert(name, out.count)
                    out.append(m)
                }
            }
            object.append(UInt8(ascii: "{"))
            for (i, m) in out.enumerated() {
                if i > 0 { object.append(UInt8(ascii: ",")) }
                object.append(UnsafeRawBufferPointer(rebasing: all[m.name]))
                object.append(UInt8(ascii: ":"))
                object.append(UnsafeRawBufferPointer(rebasing: all[m.value]))
            }
            object.append(UInt8(ascii: "}"))
        }
        return object.withBytes { place($0, over: old, in: &store) }
    }

    // MARK: - Rows

    /// The merged relationships of a resource (by name: the winner's object whole).
    mutating func mergeRelationships(old: GraphStorage.ResourceRecord, new: GraphStorage.ResourceRecord, in store: inout ByteArena) -> (UInt32, UInt32) {
        let s = storage
        let oldRange = Int(old.relationshipStart)..<Int(old.relationshipStart + old.relationshipCount)
        let newRange = Int(new.relationshipStart)..<Int(new.relationshipStart + new.relationshipCount)
        // The same names in the same order (a resource written again by the same server, a
        // target or a value changed): under `first` the old relationships stay as they are, and
        // under `last` each new one is kept over the old one of its name, in its place. That is
        // what the merge by name below does (the old rows are below the mark, so its rows go
        // over them), without its lists and dictionary.
        if sameNamesTakeWhole && oldRange.count == newRange.count && oldRange.upperBound <= marks.relationships
            && zip(oldRange, newRange).allSatisfy({ s.relationships[$0].name == s.relationships[$1].name })
        {
            guard newWins else { return (old.relationshipStart, old.relationshipCount) }
            for (i, k) in zip(oldRange, newRange) {
                let (r, extras) = keepRelationship(k, over: i, in: &store)
                s.relationships[i] = r
                s.relationshipExtras[i] = extras
            }
            return (old.relationshipStart, old.relationshipCount)
        }
        var out = Array(s.relationships[oldRange])
        var extras = oldRange.map { s.relationshipExtras[$0] }
        var index: [UInt32: Int] = [:]
        for (i, r) in out.enumerated() where index[r.name] == nil { index[r.name] = i }
        for k in newRange {
            let rel = s.relationships[k]
            if let i = index[rel.name] {
                if newWins { (out[i], extras[i]) = keepRelationship(k, over: oldRange.lowerBound + i, in: &store) }
            } else {
                index[rel.name] = out.count
                let (r, e) = keepRelationship(k, over: nil, in: &store)
                out.append(r)
                extras.append(e)
            }
        }
        return Self.placeRows(
            out, extras: extras, over: oldRange, in: \.relationships, \.relationshipExtras, of: s, tail: &relationshipTail, tailExtras: &tailExtras,
            mark: marks.relationships)
    }

    /// Relationship `k` of the new occurrence kept (over relationship `old`), with its
    /// unknown members.
    private mutating func keepRelationship(_ k: Int, over oldIndex: Int?, in store: inout ByteArena) -> (GraphStorage.RelationshipRecord, Range<Int>) {
        let s = storage
        let rel = s.relationships[k]
        let old = oldIndex.map { s.relationships[$0] }
        var r = rel
        r.links = keep(rel.links, over: old?.links ?? .none, in: &store)
        r.meta = keep(rel.meta, over: old?.meta ?? .none, in: &store)
        let oldTargets = old.map { Int($0.targetStart)..<Int($0.targetStart + $0.targetCount) } ?? 0..<0
        // (Their room at once: grown one target at a time, the two lists' growth was a sixth
        // of the merges of the synthetic crawl in docs/changes.md.)
        var targets: [GraphStorage.LinkageRecord] = []
        var targetExtras: [Range<Int>] = []
        targets.reserveCapacity(Int(rel.targetCount))
        targetExtras.reserveCapacity(Int(rel.targetCount))
        for (n, t) in (Int(rel.targetStart)..<Int(rel.targetStart + rel.targetCount)).enumerated() {
            var l = s.linkage[t]
            let previous = n < oldTargets.count ? oldTargets.lowerBound + n : nil
            l.meta = keep(l.meta, over: previous.map { s.linkage[$0].meta } ?? .none, in: &store)
            targetExtras.append(keepMembers(s.linkageExtras[t], over: previous.map { s.linkageExtras[$0] } ?? 0..<0, in: &store))
            targets.append(l)
        }
        (r.targetStart, r.targetCount) = Self.placeRows(
            targets, extras: targetExtras, over: oldTargets, in: \.linkage, \.linkageExtras, of: s, tail: &linkageTail, tailExtras: &tailExtras,
            mark: marks.linkage)
        let extras = keepMembers(s.relationshipExtras[k], over: oldIndex.map { s.relationshipExtras[$0] } ?? 0..<0, in: &store)
        return (r, extras)
    }

    /// Unknown members merged by name (`"name":value` spans); where they are now.
    mutating func mergeMembers(old: Range<Int>, new: Range<Int>, in store: inout ByteArena) -> Range<Int> {
        let s = storage
        var out = Array(s.members[old])
        var replaced: [ValueSpan?] = Array(repeating: nil, count: out.count)
        store.withBytes { all in
            func name(_ span: ValueSpan) -> UnsafeRawBufferPointer {
                let end = StoredJSON.skipString(all, at: span.start)
                return UnsafeRawBufferPointer(rebasing: all[span.start..<end])
            }
            var index = NameIndex(out.count)
            for (i, m) in out.enumerated() { index.insert(name(m), i) }
            for span in s.members[new] {
                if let i = index.find(name(span)) {
                    if newWins { replaced[i] = out[i]; out[i] = span }
                } else {
                    index.insert(name(span), out.count)
                    out.append(span)
                    replaced.append(nil)
                }
            }
        }
        for i in out.indices { out[i] = keep(out[i], over: replaced[i] ?? .none, in: &store) }
        return placeMembers(out, over: old)
    }

    /// The member spans in `range` kept (moved out of the new occurrence's rows and values);
    /// where they are now.
    private mutating func keepMembers(_ range: Range<Int>, over old: Range<Int>, in store: inout ByteArena) -> Range<Int> {
        guard !range.isEmpty else { return 0..<0 }
        if range.lowerBound < marks.members { return range }
        let s = storage
        var out: [ValueSpan] = []
        for (k, span) in s.members[range].enumerated() {
            out.append(keep(span, over: k < old.count ? s.members[old.lowerBound + k] : .none, in: &store))
        }
        return placeMembers(out, over: old)
    }

    private mutating func placeMembers(_ rows: [ValueSpan], over old: Range<Int>) -> Range<Int> {
        let (start, count) = Self.place(rows, over: old, in: \.members, of: storage, tail: &memberTail, mark: marks.members)
        return Int(start)..<Int(start + count)
    }

    /// Rows of a table whose records may have unknown members (`extras`, one range per row),
    /// placed as ``place(_:over:in:of:tail:mark:)`` does. The members of rows written over old
    /// ones are noted at once; those of rows in the tail in ``finish(in:)``, once the new
    /// occurrence's rows (which hold their places until then) are gone.
    private static func placeRows<Row>(
        _ rows: [Row], extras: [Range<Int>], over old: Range<Int>, in table: ReferenceWritableKeyPath<GraphStorage, RecordTable<Row>>,
        _ index: ReferenceWritableKeyPath<GraphStorage, ExtrasIndex>, of storage: GraphStorage, tail: inout [Row],
        tailExtras: inout [(ReferenceWritableKeyPath<GraphStorage, ExtrasIndex>, Int, Range<Int>)], mark: Int
    ) -> (UInt32, UInt32) {
        let (start, count) = place(rows, over: old, in: table, of: storage, tail: &tail, mark: mark)
        for (k, range) in extras.enumerated() {
            let i = Int(start) + k
            if i < mark { storage[keyPath: index][i] = range } else if !range.isEmpty { tailExtras.append((index, i, range)) }
        }
        return (start, count)
    }

    /// Writes `rows` over the old rows when they fit (and are old), otherwise to the tail.
    private static func place<Row>(_ rows: [Row], over old: Range<Int>, in table: ReferenceWritableKeyPath<GraphStorage, RecordTable<Row>>, of storage: GraphStorage, tail: inout [Row], mark: Int) -> (
        UInt32, UInt32
    ) {
        if rows.count <= old.count && old.upperBound <= mark {
            storage[keyPath: table].replaceSubrange(old.lowerBound..<old.lowerBound + rows.count, with: rows)
            return (UInt32(old.lowerBound), UInt32(rows.count))
        }
        let start = mark + tail.count
        tail.append(contentsOf: rows)
        return (UInt32(start), UInt32(rows.count))
    }

    /// Cuts the store and the tables back to where the new occurrence began and appends what
    /// survived of it (and what grew), at the positions given out above.
    mutating func finish(in store: inout ByteArena) {
        store.truncate(to: valueMark)
        valueTail.withBytes { store.append($0) }
        let s = storage
        s.relationshipExtras.remove(marks.relationships..<s.relationships.count)
        s.relationships.removeSubrange(marks.relationships...)
        s.relationships.append(contentsOf: relationshipTail)
        s.linkageExtras.remove(marks.linkage..<s.linkage.count)
        s.linkage.removeSubrange(marks.linkage...)
        s.linkage.append(contentsOf: linkageTail)
        s.members.removeSubrange(marks.members...)
        s.members.append(contentsOf: memberTail)
        for (index, i, range) in tailExtras { s[keyPath: index][i] = range }
    }
}

/// Names to positions, for merging objects with many members in linear time (a short list
/// is searched directly).
private struct NameIndex {
    private var table: [[UInt8]: Int]? = nil
    private var small: [(UnsafeRawBufferPointer, Int)] = []

    init(_ expected: Int) {
        if expected > 16 { table = [:]; table!.reserveCapacity(expected * 2) }
    }

    mutating func insert(_ name: UnsafeRawBufferPointer, _ i: Int) {
        if table != nil {
            let key = Array(name)
            if table![key] == nil { table![key] = i }
            return
        }
        small.append((name, i))
        if small.count > 16 {
            var t: [[UInt8]: Int] = [:]
            for (n, k) in small where t[Array(n)] == nil { t[Array(n)] = k }
            table = t
            small = []
        }
    }

    func find(_ name: UnsafeRawBufferPointer) -> Int? {
        if let table { return table[Array(name)] }
        for (n, k) in small where memoryEqual(n, name) { return k }
        return nil
    }
}
