extension Graph {
    /// This graph and `other` as one, as if one ``GraphParser`` had read this graph's
    /// documents and then `other`'s: `other`'s documents come after this graph's (with their
    /// primary data and top-level members), a resource in both is merged member by member
    /// under `policy` (with the same warnings), and identifiers that name a resource of the
    /// other graph now resolve to it. Neither graph changes (graphs are immutable).
    ///
    /// ```swift
    /// let page1 = try Graph(contentsOf: "page1.json")
    /// let page2 = try Graph(contentsOf: "page2.json")
    /// let both = try page1.merging(page2)        // the later page's members win
    /// ```
    ///
    /// Rows are re-interned and values copied once: the cost is a pass over both graphs,
    /// without parsing them again.
    ///
    /// - Throws: ``JSONAPIError`` under ``DuplicatePolicy/error`` when a resource is in both.
    public func merging(_ other: Graph, policy: DuplicatePolicy = .last) throws(JSONAPIError) -> Graph {
        var options = DocumentOptions.default
        options.parse.duplicateMembers = storage.namesMayRepeat || other.storage.namesMayRepeat ? .allowInValues : .reject
        let sink = GraphSink(options: options, policy: policy)
        var values = ByteArena(capacity: storage.values.count + other.storage.values.count + 16)
        try sink.append(self, store: &values)
        try sink.append(other, store: &values)
        return sink.graph(values: values, inputBytes: storage.inputBytes + other.storage.inputBytes, shrink: false)
    }
}

extension GraphSink {
    /// Appends every resource and document of a finished graph as if they were read again:
    /// names and keys re-interned, values copied into `store` (the value store being built),
    /// and a resource already here merged under the policy, as ``resource(_:in:)`` does.
    ///
    /// A worker's piece (``GraphPieceSink/takePiece(values:)``) numbers its documents as the whole input does
    /// (`documentBase` 0; by default they come after this graph's), and `before`, when given, is
    /// called with each resource's index in the piece before it is taken in (the caller
    /// delivers the warnings found before that resource, in the order one reader finds them).
    func append(
        _ g: Graph, store: inout ByteArena, documentBase: UInt32? = nil, before: ((Int) throws(JSONAPIError) -> Void)? = nil
    ) throws(JSONAPIError) {
        let o = g.storage
        let s = storage
        let documentBase = documentBase ?? UInt32(s.documents.count)
        let wasEmpty = s.resources.isEmpty && s.documents.isEmpty
        // The sink's maps, taken for this graph and given back after it (allocated once).
        var maps = PieceMaps()
        swap(&maps, &pieceMaps)
        defer { swap(&maps, &pieceMaps) }
        maps.reset(rows: o.resources.count, symbols: o.symbols.count)
        // Its symbols, then its keys, each in its own order: the order its reader met them in,
        // which one reader meets them in too (so they are numbered as one reader numbers them).
        // Then every use below is an array lookup.
        for t in 0..<o.symbols.count { maps.keys.types[t] = internSymbol(o.symbols.bytes(of: UInt32(t))) }
        maps.keys.translateAll(from: o.keys, into: &storage.keys)
        // `o`'s records are read in place (``RecordTable/unsafeRecords``): `o` is a finished
        // graph's storage, which nothing changes while it is appended, and `g` (which the
        // caller holds for the call) holds it. The
        // translations below are read the same way, unchecked: every key and type a record of
        // `o` holds is below the count of `o`'s key and symbol tables, which they cover.
        let resources = o.resources.unsafeRecords
        let relationships = o.relationships.unsafeRecords
        let linkage = o.linkage.unsafeRecords
        let documentStarts = o.documentStarts.unsafeRecords
        // A worker's piece says where each resource's values lie (``GraphStorage/valueRegions``):
        // they are copied at once and the spans moved by as much, rather than copied value by
        // value. Another graph's values (and a piece without resources: no regions) are
        // copied one by one.
        let regions = !resources.isEmpty && o.valueRegions.count == resources.count ? o.valueRegions.unsafeRecords : nil
        // Room for all of them at once when a piece's values are copied whole; and from the
        // first piece on a mapping (``LargeAllocation/threshold``), which grows in place where
        // a smaller store was copied at each doubling up to it.
        if regions != nil { store.reserveCapacity(Swift.max(store.count + o.values.count, LargeAllocation.threshold)) }
        // Most graphs have no unknown members in their records. A record's entry is set only
        // when it has some: a new record's index has none yet (a duplicate's records taken
        // back take their entries with them, ``DuplicateMerger``).
        let resourceExtras = o.resourceExtras.count != 0
        let relationshipExtras = o.relationshipExtras.count != 0
        let linkageExtras = o.linkageExtras.count != 0
        // Room for all of them at once (a duplicate's are taken back): each append below finds it.
        s.relationships.reserveMore(relationships.count)
        s.linkage.reserveMore(linkage.count)
        s.resources.reserveMore(resources.count)
        // The document of `o`'s row `i`: its rows are in document order, so the starts are
        // walked along with them rather than searched for each (``GraphStorage/document(ofRow:)``).
        var start = 0
        try maps.rows.withUnsafeMutableBufferPointer { (rows) throws(JSONAPIError) in
            try maps.keys.withTranslations { (keys, types) throws(JSONAPIError) in
                for i in 0..<resources.count {
                    if let before { try before(i) }
                    let r = resources[i]
                    while start + 1 < documentStarts.count && Int(documentStarts[start + 1].row) <= i { start += 1 }
                    let marks = Marks(relationships: s.relationships.count, linkage: s.linkage.count, members: s.members.count)
                    let storeMark = store.count
                    // How far the resource's values moved, when they were copied at once.
                    var moved: Int? = nil
                    if let regions {
                        let region = regions[i]
                        store.append(o.values.bytes(in: region.start..<region.end))
                        moved = storeMark - region.start
                    }
                    let relStart = UInt32(s.relationships.count)
                    for k in Int(r.relationshipStart)..<Int(r.relationshipStart + r.relationshipCount) {
                        let rel = relationships[k]
                        let targetStart = UInt32(s.linkage.count)
                        for t in Int(rel.targetStart)..<Int(rel.targetStart + rel.targetCount) {
                            let l = linkage[t]
                            if linkageExtras { s.linkageExtras[s.linkage.count] = appendMembers(of: o, o.linkageExtras[t], movedBy: moved, store: &store) }
                            assert(linkageExtras || s.linkageExtras[s.linkage.count].isEmpty, "a new record's index has unknown members")
                            s.linkage.appendToOwn(
                                GraphStorage.LinkageRecord(
                                    meta: carry(l.meta, of: o, movedBy: moved, into: &store), key: keys[Int(l.key)],
                                    lidKey: l.lidKey == GraphStorage.noKey ? GraphStorage.noKey : keys[Int(l.lidKey)]))
                        }
                        if relationshipExtras {
                            s.relationshipExtras[s.relationships.count] = appendMembers(of: o, o.relationshipExtras[k], movedBy: moved, store: &store)
                        }
                        assert(relationshipExtras || s.relationshipExtras[s.relationships.count].isEmpty, "a new record's index has unknown members")
                        s.relationships.appendToOwn(
                            GraphStorage.RelationshipRecord(
                                of: rel, name: types[Int(rel.name)], links: carry(rel.links, of: o, movedBy: moved, into: &store),
                                meta: carry(rel.meta, of: o, movedBy: moved, into: &store), targetStart: targetStart))
                    }
                    let extras = resourceExtras ? appendMembers(of: o, o.resourceExtras[i], movedBy: moved, store: &store) : 0..<0
                    let record = GraphStorage.ResourceRecord(
                        type: types[Int(r.type)], key: keys[Int(r.key)],
                        lidKey: r.lidKey == GraphStorage.noKey ? GraphStorage.noKey : keys[Int(r.lidKey)],
                        attributes: carry(r.attributes, of: o, movedBy: moved, into: &store),
                        links: carry(r.links, of: o, movedBy: moved, into: &store), meta: carry(r.meta, of: o, movedBy: moved, into: &store),
                        // A position held in the record is the same here; a long one is an index of `o`'s.
                        position: r.position.isLong ? s.pack(o.position(r.position)) : r.position,
                        relationshipStart: relStart, relationshipCount: UInt32(s.relationships.count) - relStart,
                        arrayIndex: r.arrayIndex, flags: r.flags)
                    growKeyRows()
                    rows[i] = try admit(
                        record, document: documentStarts[start].document + documentBase, extras: extras,
                        isPrimary: r.flags & GraphStorage.ResourceRecord.primary != 0, place: r.place, storeMark: storeMark, marks: marks,
                        store: &store)
                }
            }
        }
        let primaryBase = s.primaryRows.count
        for row in o.primaryRows { s.primaryRows.append(maps.rows[Int(row)]) }
        for d in o.documents {
            s.documents.append(
                GraphStorage.DocumentRecord(
                    shape: d.shape, primaryStart: d.primaryStart + primaryBase, primaryCount: d.primaryCount,
                    meta: copy(d.meta, of: o, into: &store), links: copy(d.links, of: o, into: &store),
                    jsonapi: copy(d.jsonapi, of: o, into: &store), errors: copy(d.errors, of: o, into: &store),
                    extras: d.extras.map { copy($0, of: o, into: &store) }, position: d.position, source: d.source,
                    atomicOperations: d.atomicOperations, atomicResults: d.atomicResults))
        }
        for w in o.warnings where s.warnings.count < Self.keptWarnings { s.warnings.append(w) }
        s.warningCount += o.warningCount
        s.duplicateCount += o.duplicateCount
        // nil: not counted (either graph's top level may hold such numbers).
        s.topLevelUnsafeNumbers =
            wasEmpty ? o.topLevelUnsafeNumbers : s.topLevelUnsafeNumbers.flatMap { a in o.topLevelUnsafeNumbers.map { a || $0 } }
    }

    /// `o`'s value `span` copied to the end of `store`.
    private func copy(_ span: ValueSpan, of o: GraphStorage, into store: inout ByteArena) -> ValueSpan {
        guard !span.isNone else { return .none }
        let start = store.count
        store.append(o.values.bytes(in: span.range))
        return ValueSpan(start: start, count: span.count)
    }

    /// `o`'s value `span` of its records copied to the end of `store`, as this graph's records keep it.
    @inline(__always)
    private func copy(_ span: PackedSpan, of o: GraphStorage, into store: inout ByteArena) -> PackedSpan {
        // Most relationships and identifiers have no links or meta.
        if span.isNone { return .none }
        return storage.pack(copy(o.span(span), of: o, into: &store))
    }

    /// `o`'s value `span` of its records as this graph's records keep it: moved by `moved`
    /// bytes when its resource's values were copied at once, otherwise copied to the end of
    /// `store`.
    @inline(__always)
    private func carry(_ span: PackedSpan, of o: GraphStorage, movedBy moved: Int?, into store: inout ByteArena) -> PackedSpan {
        guard let moved else { return copy(span, of: o, into: &store) }
        // (Most spans are none: no relationship links or meta, no identifier meta.)
        if span.isNone { return .none }
        return storage.pack(Self.move(o.span(span), by: moved))
    }

    /// `span` moved by `moved` bytes.
    @inline(__always)
    private static func move(_ span: ValueSpan, by moved: Int) -> ValueSpan {
        span.isNone ? .none : ValueSpan(start: span.start + moved, count: span.count)
    }

    /// `o`'s unknown-member spans in `range`, appended to the member table (moved by `moved`
    /// bytes, or copied); where they are now.
    @inline(__always)
    private func appendMembers(of o: GraphStorage, _ range: Range<Int>, movedBy moved: Int?, store: inout ByteArena) -> Range<Int> {
        if range.isEmpty { return 0..<0 }
        let start = storage.members.count
        for m in o.members[range] {
            if let moved {
                storage.members.appendToOwn(Self.move(m, by: moved))
            } else {
                storage.members.appendToOwn(copy(m, of: o, into: &store))
            }
        }
        return start..<storage.members.count
    }
}

/// What ``GraphSink/append(_:store:documentBase:before:)`` learns of a graph it appends:
/// the row each of its resources took here, and its keys and symbols as numbered here (its
/// symbols are the translation's types: a key's type is one of them). Linkage names the same
/// few resources often, and every resource and relationship a type or name of a few, so each
/// is hashed and looked up once per graph rather than at every use. The sink keeps one and
/// resets it for each graph, so that a merge of many pieces allocates its tables once.
struct PieceMaps {
    var rows: [Int32] = []
    var keys = KeyTranslation()

    /// Empty maps for a graph of `rows` resources and `symbols` symbols (its keys are taken
    /// in whole: ``KeyTranslation/translateAll(from:into:)``).
    mutating func reset(rows: Int, symbols: Int) {
        self.rows.removeAll(keepingCapacity: true)
        self.rows.append(contentsOf: repeatElement(-1, count: rows))
        self.keys.reset(types: symbols)
    }
}
