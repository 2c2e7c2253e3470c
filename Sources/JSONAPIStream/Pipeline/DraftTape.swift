/// What a worker's stream finished for the user's sinks (a ``DocumentStream`` with workers):
/// each resource and document as its builder handed it over, its draft with the bytes its
/// spans point into, and the warnings among them, in order. The caller's thread replays the
/// tape into its own ``ViewSink`` (``replay(into:emit:)``), so the user's sinks get the same
/// calls, with the same views and warnings in the same order, as from one reader.
///
/// A resource's values are the builder's value store from its `storeMark` on, which the
/// builder reuses for the next resource: they are copied here with the resource's scratch
/// bytes (type, id, lid, relationship names) and its relationship, identifier and
/// unknown-member lists, the value spans made relative to the copy. About one copy of the
/// resource's values: no JSON is written or parsed again.
///
/// One thread at a time: the worker's while it records, then (handed over with its batch) the
/// caller's.
final class DraftTape: @unchecked Sendable {
    struct Entry {
        /// A resource (an index into ``resources``), else a document (into ``documents``).
        var isResource: Bool
        var index: Int32
        /// The value store's bytes, then the scratch bytes, in ``bytes``.
        var store: Range<Int>
        var scratch: Range<Int>
        /// Its lists, in the tape's lists.
        var relationships: Range<Int>
        var identifiers: Range<Int>
        var spans: Range<Int>
    }

    /// The input the batch is in (the sinks' views name it).
    var source: String?
    @exclusivity(unchecked) var bytes = ByteArena(capacity: 64 * 1024)
    @exclusivity(unchecked) private(set) var entries: [Entry] = []
    @exclusivity(unchecked) private var resources: [ResourceDraft] = []
    @exclusivity(unchecked) private var documents: [DocumentDraft] = []
    @exclusivity(unchecked) private var relationships: [RelationshipDraft] = []
    @exclusivity(unchecked) private var identifiers: [IdentifierDraft] = []
    @exclusivity(unchecked) private var spans: [ValueSpan] = []
    /// Warnings, each with the entries recorded before it.
    @exclusivity(unchecked) private var diagnostics: [Diagnostic] = []
    @exclusivity(unchecked) private var stamps: [Int] = []

    /// A span made relative to `base` (where the copied bytes started in the store).
    @inline(__always)
    private static func rebased(_ s: ValueSpan, _ base: Int) -> ValueSpan {
        s.isNone ? s : ValueSpan(start: s.start - base, count: s.count)
    }

    func record(_ r: ResourceDraft, in a: borrowing DraftArenas) {
        let base = r.storeMark
        let storeStart = bytes.count
        bytes.append(a.store.bytes(in: base..<a.store.count))
        let scratchStart = bytes.count
        bytes.append(a.scratch.bytes(in: 0..<a.scratch.count))
        var d = r
        d.attributes = Self.rebased(d.attributes, base)
        d.links = Self.rebased(d.links, base)
        d.meta = Self.rebased(d.meta, base)
        d.storeMark = 0
        let rels = relationships.count
        for var x in a.relationshipDrafts.elements {
            x.links = Self.rebased(x.links, base)
            x.meta = Self.rebased(x.meta, base)
            relationships.append(x)
        }
        let ids = identifiers.count
        for var x in a.identifierDrafts.elements {
            x.meta = Self.rebased(x.meta, base)
            identifiers.append(x)
        }
        let sp = spans.count
        for x in a.memberSpans.elements { spans.append(Self.rebased(x, base)) }
        entries.append(
            Entry(
                isResource: true, index: Int32(resources.count), store: storeStart..<scratchStart, scratch: scratchStart..<bytes.count,
                relationships: rels..<relationships.count, identifiers: ids..<identifiers.count, spans: sp..<spans.count))
        resources.append(d)
    }

    /// A document's top level: its values are the whole store (its resources' were given back).
    func record(_ d: DocumentDraft, in a: borrowing DraftArenas) {
        let storeStart = bytes.count
        bytes.append(a.store.bytes(in: 0..<a.store.count))
        entries.append(
            Entry(
                isResource: false, index: Int32(documents.count), store: storeStart..<bytes.count, scratch: bytes.count..<bytes.count,
                relationships: 0..<0, identifiers: 0..<0, spans: 0..<0))
        documents.append(d)
    }

    func note(_ d: Diagnostic) {
        diagnostics.append(d)
        stamps.append(entries.count)
    }

    /// Hands every entry to `sink` in order, with `arenas` (the caller's, reused) holding its
    /// bytes, and each warning to `emit` in its place among them. Stops at the first error a
    /// sink throws.
    func replay(into sink: ViewSink, arenas: inout DraftArenas, emit: ((Diagnostic) -> Void)?) throws(JSONAPIError) {
        sink.sourceName = source
        var next = 0
        for (i, e) in entries.enumerated() {
            while next < diagnostics.count && stamps[next] <= i {
                emit?(diagnostics[next])
                next += 1
            }
            arenas.store.removeAll()
            arenas.store.append(from: bytes, e.store)
            if e.isResource {
                arenas.scratch.removeAll()
                arenas.scratch.append(from: bytes, e.scratch)
                arenas.relationshipDrafts.removeAll()
                arenas.relationshipDrafts.append(contentsOf: relationships[e.relationships])
                arenas.identifierDrafts.removeAll()
                arenas.identifierDrafts.append(contentsOf: identifiers[e.identifiers])
                arenas.memberSpans.removeAll()
                arenas.memberSpans.append(contentsOf: spans[e.spans])
                try sink.resource(resources[Int(e.index)], in: &arenas)
            } else {
                try sink.document(documents[Int(e.index)], in: arenas)
            }
        }
        while next < diagnostics.count {
            emit?(diagnostics[next])
            next += 1
        }
    }
}

/// A worker's sink for the user's sinks: records what its builder finishes on a
/// ``DraftTape``, handed over after each batch (``take()``).
final class DraftRecorder: DocumentSink, InputLabelled {
    let keepsValues = false
    var sourceName: String?
    private(set) var tape = DraftTape()

    func resource(_ r: ResourceDraft, in a: inout DraftArenas) throws(JSONAPIError) { tape.record(r, in: a) }
    func document(_ d: DocumentDraft, in a: borrowing DraftArenas) throws(JSONAPIError) { tape.record(d, in: a) }

    /// What was recorded since the last call (a batch is in one input, which it names).
    func take() -> DraftTape {
        let t = tape
        t.source = sourceName
        tape = DraftTape()
        return t
    }
}
