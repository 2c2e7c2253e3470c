/// What to do when the same resource (type and id) appears more than once, in one document
/// or across documents.
public enum DuplicatePolicy: String, Sendable, Hashable, CaseIterable {
    /// Merge member by member; the later occurrence's members win. The default.
    case last
    /// Merge member by member; the earlier occurrence's members win.
    case first
    /// Stop with an error naming both places.
    case error
}

/// Interns finished resources into a ``GraphStorage``.
///
/// Per resource: one symbol lookup for the type, one key lookup for the id, and per linkage
/// target one of each; everything else is appending rows and value spans (the value store
/// is the builder's, kept whole).
final class GraphSink: DocumentSink {
    let storage = GraphStorage()
    let policy: DuplicatePolicy
    /// A graph worker's sink (``GraphPieceSink``): every resource gets a row of its own, in
    /// order; duplicates, and the resource limit, are the merging sink's to find.
    let collectsOnly: Bool
    let keepsValues = true
    /// Keys told ahead by the builder (see ``KeyHints``); set once `self` exists.
    private(set) var keyHints: KeyHints?
    let maxResources: Int?
    /// The most symbols (type and relationship names) the graph takes: ``GraphStorage/maxSymbols``,
    /// which its records' 24 bits hold (lower in tests).
    var symbolLimit = GraphStorage.maxSymbols
    let validation: ValidationMode
    var onDiagnostic: ((Diagnostic) -> Void)?
    var sourceName: String?
    /// Warnings kept in the graph (all are counted and passed to `onDiagnostic`).
    static let keptWarnings = 1000
    /// The warnings worded before the rest go out textless (``DocumentOptions/warningTexts``).
    let warningTexts: Int

    private var documentPrimaryStart = 0
    /// `--numbers safe`: which resources and documents hold numbers to quote.
    @exclusivity(unchecked) var numberAlarm: NumberAlarm?
    /// Type and relationship names seen lately, to skip the interner.
    @exclusivity(unchecked) private var symbolCache = SymbolCache<ManyNames>()
    /// What ``append(_:store:documentBase:before:)`` learns of each graph it appends, kept from
    /// one graph to the next.
    @exclusivity(unchecked) var pieceMaps = PieceMaps()
    /// Each row's type, noted as the rows are appended (a collector, whose piece is only
    /// merged, notes none): the graph's ``GraphStorage/rowsByType`` is made from it.
    @exclusivity(unchecked) private var rowTypes = RowTypes()

    init(options: DocumentOptions, policy: DuplicatePolicy, collectsOnly: Bool = false) {
        self.policy = policy
        self.collectsOnly = collectsOnly
        self.maxResources = options.parse.limits.maxResources
        self.warningTexts = options.wordedWarnings
        self.validation = options.validation
        storage.namesMayRepeat = options.parse.duplicateMembers == .allowInValues
        keyHints = KeyHints(sink: self)
    }

    // MARK: - Resources

    func resource(_ r: ResourceDraft, in a: inout DraftArenas) throws(JSONAPIError) {
        let s = storage
        let marks = Marks(relationships: s.relationships.count, linkage: s.linkage.count, members: s.members.count)
        let type = internSymbol(a.scratch.bytes(in: r.type.range))
        var key: UInt32
        var lidKey = GraphStorage.noKey
        if !r.id.isNone {
            key = s.keys.intern(a.scratch.bytes(in: r.id.range), tag: s.idTag(type))
            if !r.lid.isNone { lidKey = s.keys.intern(a.scratch.bytes(in: r.lid.range), tag: s.lidTag(type)) }
        } else {
            key = s.keys.intern(a.scratch.bytes(in: r.lid.range), tag: s.lidTag(type))
        }
        // Relationships, then their linkage.
        let relStart = UInt32(s.relationships.count)
        for i in r.relationships {
            appendRelationship(a.relationshipDrafts[Int(i)], in: a)
        }
        let relCount = UInt32(s.relationships.count) - relStart
        let extraStart = s.members.count
        for i in r.extras { s.members.appendToOwn(a.memberSpans[Int(i)]) }
        growKeyRows()

        var flags: UInt8 = r.isPrimary ? GraphStorage.ResourceRecord.primary : GraphStorage.ResourceRecord.included
        if !r.id.isNone { flags |= GraphStorage.ResourceRecord.hasID } else if r.lid.isNone { flags |= GraphStorage.ResourceRecord.anonymous }
        if r.hadRelationships { flags |= GraphStorage.ResourceRecord.hasRelationships }
        if r.inResults { flags |= GraphStorage.ResourceRecord.result }
        if let alarm = numberAlarm, alarm.inCurrentResource > 0 { flags |= GraphStorage.ResourceRecord.unsafeNumbers }
        let record = GraphStorage.ResourceRecord(
            type: type, key: key, lidKey: lidKey,
            attributes: s.pack(r.attributes), links: s.pack(r.links), meta: s.pack(r.meta), position: s.pack(r.position),
            relationshipStart: relStart, relationshipCount: relCount, arrayIndex: r.arrayIndex, flags: flags)

        let row = try admit(
            record, document: UInt32(r.documentIndex), extras: extraStart..<s.members.count, isPrimary: r.isPrimary, place: r.place,
            storeMark: r.storeMark, marks: marks, store: &a.store)
        if r.isPrimary { s.primaryRows.append(row) }
    }

    /// Takes a resource's record in (its rows, values and unknown members, `extras`, already
    /// appended after `marks` and `storeMark`): a new row, or merged into the row of the
    /// resource it repeats. Returns its row.
    @inline(__always)
    func admit(
        _ record: GraphStorage.ResourceRecord, document: UInt32, extras: Range<Int>, isPrimary: Bool, place: ResourcePlace, storeMark: Int,
        marks: Marks, store: inout ByteArena
    ) throws(JSONAPIError) -> Int32 {
        let s = storage
        // Records keep a symbol in 24 bits (``GraphStorage/maxSymbols``); this record's type or
        // a relationship name may be past them (the record holds it cut short: it goes no
        // further than here).
        if s.symbols.count > symbolLimit { try tooManySymbols(record, place: place) }
        if collectsOnly {
            assert(spans(of: record, marks: marks, lieIn: storeMark..<store.count), "a resource's values lie in its region")
            s.valueRegions.appendToOwn(GraphStorage.ValueRegion(start: storeMark, end: store.count))
            s.resourceExtras[s.resources.count] = extras
            s.noteRow(Int32(s.resources.count), document: document)
            s.resources.appendToOwn(record)
            return Int32(s.resources.count - 1)
        }
        // Resources without id or lid are never the same resource: each keeps its own row
        // (the index finds the first).
        let existing = record.flags & GraphStorage.ResourceRecord.anonymous == 0 ? s.keyRow[Int(record.key)] : -1
        if existing >= 0 {
            try merge(
                record, document: document, extras: extras, into: Int(existing), isPrimary: isPrimary, place: place, storeMark: storeMark,
                marks: marks, store: &store)
            return existing
        }
        let row = Int32(s.resources.count)
        if let maxResources, s.resources.count >= maxResources {
            throw JSONAPIError.syntax(
                Diagnostic(
                    severity: .error, rule: .J12, message: "more than \(maxResources) resources (the graph's resource limit)",
                    location: storage.position(record.position), pointer: place.pointer, source: sourceName))
        }
        s.resourceExtras[s.resources.count] = extras
        s.noteRow(row, document: document)
        s.resources.appendToOwn(record)
        rowTypes.add(record.type)
        // (The sink's own table: no graph over it exists yet.)
        if s.keyRow[Int(record.key)] < 0 { s.keyRow.setOwn(Int(record.key), row) }
        if record.lidKey != GraphStorage.noKey && s.keyRow[Int(record.lidKey)] < 0 { s.keyRow.setOwn(Int(record.lidKey), row) }
        return row
    }

    /// Whether every value of `record`, of its relationships, identifiers and unknown members
    /// (those after `marks`) lies in `region` of the store (assertions: the merge copies a
    /// piece's resource by its region, ``GraphStorage/valueRegions``).
    private func spans(of record: GraphStorage.ResourceRecord, marks: Marks, lieIn region: Range<Int>) -> Bool {
        let s = storage
        func inside(_ span: ValueSpan) -> Bool { span.isNone || (span.start >= region.lowerBound && span.start + span.count <= region.upperBound) }
        var all = [record.attributes, record.links, record.meta].map { s.span($0) }
        for k in marks.relationships..<s.relationships.count { all += [s.span(s.relationships[k].links), s.span(s.relationships[k].meta)] }
        for k in marks.linkage..<s.linkage.count { all.append(s.span(s.linkage[k].meta)) }
        for k in marks.members..<s.members.count { all.append(s.members[k]) }
        return all.allSatisfy(inside)
    }

    @inline(never)
    private func tooManySymbols(_ record: GraphStorage.ResourceRecord, place: ResourcePlace) throws(JSONAPIError) {
        throw JSONAPIError.syntax(
            Diagnostic(
                severity: .error, rule: .J12,
                message: "more than \(symbolLimit) distinct type and relationship names (the graph's limit)",
                location: storage.position(record.position), pointer: place.pointer, source: sourceName))
    }

    /// The symbol of a type or member name.
    @inline(__always)
    func internSymbol(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        if let t = symbolCache.lookUp(bytes) { return t }
        return internSymbolSlow(bytes)
    }

    /// Asks for the key table's slot of the key `(type, id)` ahead of its lookup (see
    /// ``KeyHints``): only for a table larger than the caches (below that the hashing would be
    /// all a hint does), and only under a type this sink has interned (and so caches).
    @inline(__always)
    func hintKey(type: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer) {
        guard storage.keys.outgrowsCache, let t = symbolCache.lookUp(type) else { return }
        storage.keys.prefetch(id, tag: storage.idTag(t))
    }

    @inline(never)
    private func internSymbolSlow(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        let t = storage.symbols.intern(bytes)
        symbolCache.remember(bytes, t)
        return t
    }

    private func appendRelationship(_ d: RelationshipDraft, in a: borrowing DraftArenas) {
        let s = storage
        let name = internSymbol(a.scratch.bytes(in: d.name.range))
        let targetStart = UInt32(s.linkage.count)
        for i in d.targets {
            let t = a.identifierDrafts[Int(i)]
            let type = internSymbol(a.scratch.bytes(in: t.type.range))
            var key: UInt32
            var lidKey = GraphStorage.noKey
            if !t.id.isNone {
                key = s.keys.intern(a.scratch.bytes(in: t.id.range), tag: s.idTag(type))
                if !t.lid.isNone { lidKey = s.keys.intern(a.scratch.bytes(in: t.lid.range), tag: s.lidTag(type)) }
            } else {
                key = s.keys.intern(a.scratch.bytes(in: t.lid.range), tag: s.lidTag(type))
            }
            if !t.extras.isEmpty {
                let extraStart = s.members.count
                for k in t.extras { s.members.appendToOwn(a.memberSpans[Int(k)]) }
                s.linkageExtras[s.linkage.count] = extraStart..<s.members.count
            }
            s.linkage.appendToOwn(GraphStorage.LinkageRecord(meta: s.pack(t.meta), key: key, lidKey: lidKey))
        }
        if !d.extras.isEmpty {
            let extraStart = s.members.count
            for k in d.extras { s.members.appendToOwn(a.memberSpans[Int(k)]) }
            s.relationshipExtras[s.relationships.count] = extraStart..<s.members.count
        }
        s.relationships.appendToOwn(
            GraphStorage.RelationshipRecord(
                links: s.pack(d.links), meta: s.pack(d.meta), name: name, targetStart: targetStart,
                targetCount: UInt32(s.linkage.count) - targetStart, kind: d.kind))
    }

    /// Room for as many keys and rows as `other` holds and a quarter more (a worker's next
    /// piece, sized like its last: ``pieceRoom(after:)``; a collector, which keeps no key rows).
    func reserve(like other: GraphStorage) {
        assert(collectsOnly, "only a worker's collector is sized like its last piece")
        let s = storage
        s.keys.reserveCapacity(pieceRoom(after: other.keys.count))
        s.resources.reserveCapacity(pieceRoom(after: other.resources.count))
        s.valueRegions.reserveCapacity(pieceRoom(after: other.resources.count))
        s.relationships.reserveCapacity(pieceRoom(after: other.relationships.count))
        s.linkage.reserveCapacity(pieceRoom(after: other.linkage.count))
    }

    /// Gives every key a place in ``GraphStorage/keyRow`` (-1 until a resource takes it). A
    /// collecting sink's graph (a worker's piece) is only merged, which never asks it the row
    /// of a key: it keeps none.
    @inline(__always)
    func growKeyRows() {
        if collectsOnly { return }
        let n = storage.keys.count
        if storage.keyRow.count < n {
            // Usually one key or two since the last resource: appended one at a time, not
            // through `append(contentsOf:)`'s generic path (about 140 instructions a call),
            // to the sink's own table (no graph over it exists yet).
            repeat { storage.keyRow.appendToOwn(-1) } while storage.keyRow.count < n
            if storage.keys.outgrowsCache { keyHints?.want() }
        }
    }

    // MARK: - Duplicates

    /// Where the tables ended before a resource's rows were appended: a duplicate's own rows
    /// are those after these marks (its values are those after `ResourceDraft.storeMark`).
    struct Marks {
        var relationships: Int
        var linkage: Int
        var members: Int
    }

    private func merge(
        _ new: GraphStorage.ResourceRecord, document: UInt32, extras newExtras: Range<Int>, into row: Int, isPrimary: Bool, place: ResourcePlace,
        storeMark: Int, marks: Marks, store: inout ByteArena
    ) throws(JSONAPIError) {
        let s = storage
        s.duplicateCount += 1
        let old = s.resources[row]
        // A primary-data item with only type, id and meta is a resource identifier (a
        // relationship endpoint's response), not a second resource object.
        // So is a result's data that is only an identifier (atomic:results as normalize
        // writes it).
        let isResult = place.isResult
        let newIsIdentifier = (isPrimary || isResult) && new.attributes.isNone && new.relationshipCount == 0 && new.links.isNone
        let oldIsIdentifier =
            old.flags & GraphStorage.ResourceRecord.included == 0
            && old.attributes.isNone && old.relationshipCount == 0 && old.links.isNone
        // A repeat within one document breaks R22; across documents it is a merge (N01).
        let rule: Rule = s.document(ofRow: row) == document ? .R22 : .N01
        // Results of several operations that name one resource (added, then updated) are
        // that resource, merged without a word.
        let bothResults = isResult && old.flags & GraphStorage.ResourceRecord.result != 0
        if policy == .error && !bothResults {
            throw JSONAPIError.document(
                Diagnostic(
                    severity: .error, rule: rule,
                    message: "\(describe(row: row)) appears again (first at \(self.place(of: old, row: row))); duplicates are refused",
                    location: s.position(new.position), pointer: place.pointer, source: sourceName))
        }
        if !newIsIdentifier && !oldIsIdentifier && !bothResults {
            let winner = policy == .last ? "the later members win" : "the earlier members win"
            warn(
                rule,
                Diagnostic(
                    severity: .warning, rule: rule,
                    message: "\(describe(row: row)) appears again (first at \(self.place(of: old, row: row))); merged, \(winner)",
                    location: s.position(new.position), pointer: place.pointer, source: sourceName))
        }
        var m = DuplicateMerger(storage: s, newWins: policy == .last, valueMark: storeMark, marks: marks)
        var merged = old
        merged.flags |= new.flags
        merged.attributes = s.pack(m.mergeObjects(s.span(old.attributes), s.span(new.attributes), in: &store))
        merged.links = s.pack(m.mergeObjects(s.span(old.links), s.span(new.links), in: &store))
        merged.meta = s.pack(m.mergeObjects(s.span(old.meta), s.span(new.meta), in: &store))
        if new.relationshipCount > 0 {
            (merged.relationshipStart, merged.relationshipCount) = m.mergeRelationships(old: old, new: new, in: &store)
        }
        if !newExtras.isEmpty {
            s.resourceExtras[row] = m.mergeMembers(old: s.resourceExtras[row], new: newExtras, in: &store)
        }
        m.finish(in: &store)
        if new.lidKey != GraphStorage.noKey && old.lidKey == GraphStorage.noKey {
            merged.lidKey = new.lidKey
            if s.keyRow[Int(new.lidKey)] < 0 { s.keyRow[Int(new.lidKey)] = Int32(row) }
        }
        s.resources[row] = merged
    }

    /// `FILE:LINE:COLUMN` of a resource's first occurrence, `r` at `row` (`LINE:COLUMN` in the
    /// same input).
    private func place(of r: GraphStorage.ResourceRecord, row: Int) -> String {
        let doc = Int(storage.document(ofRow: row))
        let source = doc < storage.documents.count ? storage.documents[doc].source : sourceName
        let position = storage.position(r.position)
        if let source, source != sourceName { return "\(source):\(position)" }
        return position.description
    }

    private func describe(row: Int) -> String {
        let r = storage.resources[row]
        let idKind = r.flags & GraphStorage.ResourceRecord.hasID != 0 ? "id" : "lid"
        return "resource (type \(quoted(storage.symbols.string(of: r.type))), \(idKind) \(quoted(storage.keys.string(of: r.key))))"
    }

    /// Counts a warning, and keeps it (the first ``keptWarnings``) and hands it to the handler.
    /// `d` is made only when one of those will use it: a dump of crawled pages repeats its
    /// included resources on every page, a warning each, whose text costs more than the merge
    /// of a small resource; past the kept ones, without a handler, only the count is used.
    ///
    /// Past the first ``warningTexts`` warnings this sink counts (its own, and those recorded
    /// from readers: all in input order) the handler gets ``Diagnostic/textless(_:)``.
    private func warn(_ rule: Rule, _ d: @autoclosure () -> Diagnostic) {
        storage.warningCount += 1
        let keeps = storage.warnings.count < Self.keptWarnings
        guard keeps || onDiagnostic != nil else { return }
        if !keeps && storage.warningCount > warningTexts {
            onDiagnostic?(.textless(rule))
            return
        }
        let d = d()
        // A textless warning comes after the first `warningTexts` of the input: never kept.
        assert(!(keeps && d.isTextless), "a textless warning among the ones a graph keeps")
        if keeps { storage.warnings.append(d) }
        onDiagnostic?(d)
    }

    /// The graph of everything received, over `values` (the value store the reader hands
    /// over once the input has ended).
    func graph(values: consuming ByteArena, inputBytes: Int, shrink: Bool) -> Graph {
        let s = storage
        s.values = values
        if shrink { s.values.shrinkToFit() }
        s.inputBytes = inputBytes
        // A piece is only merged: it needs no key rows and no rows by type.
        if !collectsOnly {
            if s.keyRow.count < s.keys.count {
                s.keyRow.append(contentsOf: repeatElement(-1, count: s.keys.count - s.keyRow.count))
            }
            rowTypes.indexRowsByType(of: s)
        }
        return Graph(storage: s)
    }

    // MARK: - Documents

    func document(_ d: DocumentDraft, in a: borrowing DraftArenas) throws(JSONAPIError) {
        let s = storage
        if let alarm = numberAlarm {
            s.topLevelUnsafeNumbers = (s.topLevelUnsafeNumbers ?? false) || alarm.outsideResources > 0
        }
        s.documents.append(
            GraphStorage.DocumentRecord(
                shape: d.primaryShape, primaryStart: documentPrimaryStart, primaryCount: s.primaryRows.count - documentPrimaryStart,
                meta: d.meta, links: d.links, jsonapi: d.jsonapi, errors: d.errors, extras: d.extras, position: d.position,
                source: sourceName, atomicOperations: d.atomicOperations, atomicResults: d.atomicResults))
        documentPrimaryStart = s.primaryRows.count
    }

    /// Called by the parser's owner when a warning comes from elsewhere (builder, parser).
    func record(_ d: Diagnostic) { warn(d.rule, d) }
}

/// Each row's type, a byte a row, noted as the rows are appended: the graph's rows by type
/// (``GraphStorage/rowsByType``) are made from it at the end, where reading each row's record
/// (56 bytes) for its type took 0.35 to 0.4 ms of every graph at 15.7 MB on 2 workers, with
/// the other core idle (the records, 1.5 MiB of them, no longer in the cache). Each type's
/// rows listed as they came instead (4 bytes a row from the first) held 1 MiB more at the
/// peak of a 128.5 MB graph, 30.8 to 31.1 MiB over its input.
struct RowTypes: ~Copyable {
    /// Invariant: one byte per row appended, its type symbol, or ``wide`` for a symbol of
    /// ``wide`` or more (its record says which).
    private var types = RecordTable<UInt8>()
    private static let wide: UInt8 = 255

    init() {}

    /// Notes the type of the next row.
    @inline(__always)
    mutating func add(_ type: UInt32) {
        types.appendToOwn(type < UInt32(Self.wide) ? UInt8(truncatingIfNeeded: type) : Self.wide)
    }

    /// Fills `s.rowsByType` (a counting sort by type: each array made at its final size), and
    /// lets go of the types noted. Types noted for other rows than `s`'s are not trusted: the
    /// rows' records are read instead.
    mutating func indexRowsByType(of s: GraphStorage) {
        let n = s.resources.count
        let symbols = s.symbols.count
        let trusted = types.count == n
        let noted = types.unsafeRecords
        let records = s.resources.unsafeRecords
        @inline(__always) func type(of row: Int) -> Int {
            if trusted, noted[row] != Self.wide { return Int(noted[row]) }
            return Int(records[row].type)
        }
        // Rows come in runs of one type (a document's `data`, then its `included` of each
        // type): each run is counted, and placed, with its type's count in a register. A count
        // kept in memory and added to at each row waits for the last row's add: at 15.7 MB
        // this took 0.16 % of a graph's processor time that way (about 0.11 ms a run), 0.05 %
        // by runs.
        // Where each type's rows start among all rows sorted by type.
        var starts = [Int](repeating: 0, count: symbols + 1)
        var row = 0
        while row < n {
            let t = type(of: row)
            let first = row
            row += 1
            while row < n && type(of: row) == t { row += 1 }
            starts[t &+ 1] &+= row - first
        }
        for t in 0..<symbols { starts[t + 1] &+= starts[t] }
        var next = starts
        let sorted = [Int32](unsafeUninitializedCapacity: n) { buffer, initialized in
            // Invariant: each row is written once, at its type's next place; the places of all
            // types together are 0..<n, so every element is initialized.
            var row = 0
            while row < n {
                let t = type(of: row)
                var k = next[t]
                repeat {
                    buffer[k] = Int32(truncatingIfNeeded: row)
                    k += 1
                    row += 1
                } while row < n && type(of: row) == t
                next[t] = k
            }
            initialized = n
        }
        types = RecordTable()
        s.rowsByType = (0..<symbols).map { t in Array(sorted[starts[t]..<starts[t + 1]]) }
    }
}
