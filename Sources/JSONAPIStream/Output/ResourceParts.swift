/// One resource as writers see it: borrowed byte views of its parts, from a builder's
/// draft (streaming) or a graph's records. Reused between resources, so filling it
/// allocates nothing once warm. Views are valid only until the next fill.
package final class ResourceParts {
    package struct Identifier {
        package var type: UnsafeRawBufferPointer
        package var id: UnsafeRawBufferPointer?
        package var lid: UnsafeRawBufferPointer?
        package var meta: UnsafeRawBufferPointer?
        package var extras: Range<Int>
    }

    package struct Relationship {
        package var name: UnsafeRawBufferPointer
        package var kind: LinkageKind
        package var targets: Range<Int>
        package var links: UnsafeRawBufferPointer?
        package var meta: UnsafeRawBufferPointer?
        package var extras: Range<Int>
    }

    @exclusivity(unchecked) package var type = UnsafeRawBufferPointer(start: nil, count: 0)
    @exclusivity(unchecked) package var id: UnsafeRawBufferPointer?
    @exclusivity(unchecked) package var lid: UnsafeRawBufferPointer?
    @exclusivity(unchecked) package var isPrimary = false
    @exclusivity(unchecked) package var attributes: UnsafeRawBufferPointer?
    @exclusivity(unchecked) package var links: UnsafeRawBufferPointer?
    @exclusivity(unchecked) package var meta: UnsafeRawBufferPointer?
    // The lists are stacks, not arrays: emptying an array for the next resource costs a
    // `replaceSubrange` call (about 100 instructions each), appending a uniqueness check.
    @exclusivity(unchecked) private var relationshipList = UnsafeStack<Relationship>(capacity: 16)
    @exclusivity(unchecked) private var identifierList = UnsafeStack<Identifier>(capacity: 64)
    @exclusivity(unchecked) private var extraList = UnsafeStack<UnsafeRawBufferPointer>(capacity: 16)
    /// The builder's draft tables the parts were filled from, while `readsDraft`: writers
    /// read them in place (``draftAccess``) until a caller asks for the lists
    /// (``relationships``, ``identifiers``, ``extras``, ``listAccess``, ``keepFields(_:)``).
    @exclusivity(unchecked) private var draft = DraftAccess()
    /// Whether the relationships, identifiers and unknown members are still only in the
    /// draft's tables (the lists are not made).
    @exclusivity(unchecked) private(set) var readsDraft = false
    /// The resource's relationships, valid until the next fill.
    package var relationships: UnsafeBufferPointer<Relationship> {
        makeLists()
        return relationshipList.elements
    }
    /// The linkage of all relationships (each relationship's `targets` index it), valid until
    /// the next fill.
    package var identifiers: UnsafeBufferPointer<Identifier> {
        makeLists()
        return identifierList.elements
    }
    /// `"name":value` texts of unknown members (of the resource, relationships, identifiers),
    /// valid until the next fill.
    package var extras: UnsafeBufferPointer<UnsafeRawBufferPointer> {
        makeLists()
        return extraList.elements
    }

    /// The draft's tables, read in place (while ``readsDraft``).
    var draftAccess: DraftAccess { draft }

    /// The lists (made from the draft first, when the parts were filled from one).
    var listAccess: ListAccess {
        makeLists()
        return ListAccess(relationships: relationshipList.elements, identifiers: identifierList.elements, extras: extraList.elements)
    }

    @exclusivity(unchecked) package var resourceExtras: Range<Int> = 0..<0
    /// Where the resource is, for diagnostics.
    @exclusivity(unchecked) package var position = SourcePosition.start
    /// Where the parts are in their document, for diagnostics.
    @exclusivity(unchecked) var place = ResourcePlace.document
    var pointer: String { place.pointer }

    /// The kept members of `attributes` when fields are selected (what `attributes` points
    /// into then).
    private var keptAttributes = ByteArena(capacity: 256)

    /// Keeps only the attributes and relationships named in `names` (``OutputOptions/keepFields``).
    func keepFields(_ names: [[UInt8]]) {
        makeLists()
        func kept(_ name: UnsafeRawBufferPointer) -> Bool {
            names.contains { $0.withUnsafeBytes { memoryEqual($0, name) } }
        }
        relationshipList.removeAll { !kept($0.name) }
        guard let a = attributes, a.first == UInt8(ascii: "{") else { return }
        keptAttributes.removeAll()
        keptAttributes.append(UInt8(ascii: "{"))
        var first = true
        StoredJSON.forEachMember(a, 0..<a.count) { name, value in
            // Names are stored minimally escaped: one with an escape is decoded first.
            let inner = UnsafeRawBufferPointer(rebasing: a[name.lowerBound + 1..<name.upperBound - 1])
            let keep =
                inner.contains(UInt8(ascii: "\\"))
                ? Array(StoredJSON.decodeString(a, name).utf8).withUnsafeBytes { kept($0) }
                : kept(inner)
            if keep {
                if !first { keptAttributes.append(UInt8(ascii: ",")) }
                first = false
                keptAttributes.append(UnsafeRawBufferPointer(rebasing: a[name]))
                keptAttributes.append(UInt8(ascii: ":"))
                keptAttributes.append(UnsafeRawBufferPointer(rebasing: a[value]))
            }
            return true
        }
        keptAttributes.append(UInt8(ascii: "}"))
        attributes = keptAttributes.bytes(in: 0..<keptAttributes.count)
    }

    /// Fills from a draft the builder is handing to a sink, over the arenas it lends. Its
    /// relationships, identifiers and unknown members stay in the draft's tables until a
    /// caller asks for them as lists (the writers read them in place).
    func fill(_ r: ResourceDraft, in a: borrowing DraftArenas) {
        let d = DraftAccess(
            scratch: a.scratch.bytes(in: 0..<a.scratch.count), store: a.store.bytes(in: 0..<a.store.count),
            relationships: a.relationshipDrafts.elements, identifiers: a.identifierDrafts.elements, members: a.memberSpans.elements,
            picked: r.relationships)
        type = d.text(r.type) ?? DraftAccess.none
        id = d.text(r.id)
        lid = d.text(r.lid)
        isPrimary = r.isPrimary
        begin(attributes: d.value(r.attributes), links: d.value(r.links), meta: d.value(r.meta), position: r.position)
        resourceExtras = Int(r.extras.lowerBound)..<Int(r.extras.upperBound)
        draft = d
        readsDraft = true
    }

    /// Makes the lists from the draft the parts were filled from, if they are not made yet:
    /// the relationships in order, each one's identifiers after the last one's.
    @inline(__always)
    private func makeLists() {
        if readsDraft { makeListsFromDraft() }
    }

    @inline(never)
    private func makeListsFromDraft() {
        readsDraft = false
        let d = draft
        for span in d.members { extraList.push(d.value(span)!) }
        for i in 0..<d.relationshipCount {
            var rel = d.relationship(i)
            let start = identifierList.count
            for k in rel.targets { identifierList.push(d.identifier(k)) }
            rel.targets = start..<identifierList.count
            relationshipList.push(rel)
        }
    }

    /// Takes a new resource's own members and empties the lists of the last one.
    @inline(__always)
    private func begin(
        attributes: UnsafeRawBufferPointer?, links: UnsafeRawBufferPointer?, meta: UnsafeRawBufferPointer?, position: SourcePosition
    ) {
        self.attributes = attributes
        self.links = links
        self.meta = meta
        self.position = position
        readsDraft = false
        relationshipList.removeAll()
        identifierList.removeAll()
        extraList.removeAll()
    }

    /// Fills from a graph row.
    func fill(row: Int, of g: GraphStorage) {
        let r = g.resources[row]
        let store = g.values.bytes(in: 0..<g.values.count)
        @inline(__always) func v(_ span: ValueSpan) -> UnsafeRawBufferPointer? {
            span.isNone ? nil : UnsafeRawBufferPointer(rebasing: store[span.range])
        }
        @inline(__always) func v(_ span: PackedSpan) -> UnsafeRawBufferPointer? { v(g.span(span)) }
        type = g.symbols.bytes(of: r.type)
        (id, lid) = g.identity(of: r)
        isPrimary = r.flags & GraphStorage.ResourceRecord.primary != 0
        begin(attributes: v(r.attributes), links: v(r.links), meta: v(r.meta), position: g.position(r.position))
        func addExtras(_ range: Range<Int>) -> Range<Int> {
            let s = extraList.count
            for k in range { extraList.push(v(g.members[k])!) }
            return s..<extraList.count
        }
        resourceExtras = addExtras(g.resourceExtras[row])
        for i in Int(r.relationshipStart)..<Int(r.relationshipStart + r.relationshipCount) {
            let rel = g.relationships[i]
            let start = identifierList.count
            for k in Int(rel.targetStart)..<Int(rel.targetStart + rel.targetCount) {
                let l = g.linkage[k]
                let (id, lid) = g.identity(of: l)
                identifierList.push(
                    Identifier(
                        type: g.symbols.bytes(of: g.keyType(l.key)), id: id, lid: lid, meta: v(l.meta),
                        extras: addExtras(g.linkageExtras[k])))
            }
            relationshipList.push(
                Relationship(
                    name: g.symbols.bytes(of: rel.name), kind: rel.kind, targets: start..<identifierList.count,
                    links: v(rel.links), meta: v(rel.meta), extras: addExtras(g.relationshipExtras[i])))
        }
    }
}

/// How writers read a resource's relationships, identifiers and unknown members: from the
/// parts' lists (``ListAccess``) or in place from a builder's draft (``DraftAccess``). The
/// writers are generic over it, so each way is compiled on its own and neither pays for the
/// other. A relationship's `targets` and `extras` index the same access's identifiers and
/// unknown members.
protocol PartsAccess {
    var relationshipCount: Int { get }
    /// The resource's relationship `i`, in order.
    func relationship(_ i: Int) -> ResourceParts.Relationship
    func identifier(_ k: Int) -> ResourceParts.Identifier
    func extra(_ k: Int) -> UnsafeRawBufferPointer
}

/// The parts' lists (``ResourceParts/listAccess``), valid until the next fill.
struct ListAccess: PartsAccess {
    let relationships: UnsafeBufferPointer<ResourceParts.Relationship>
    let identifiers: UnsafeBufferPointer<ResourceParts.Identifier>
    let extras: UnsafeBufferPointer<UnsafeRawBufferPointer>

    var relationshipCount: Int { relationships.count }
    @inline(__always) func relationship(_ i: Int) -> ResourceParts.Relationship { relationships[i] }
    @inline(__always) func identifier(_ k: Int) -> ResourceParts.Identifier { identifiers[k] }
    @inline(__always) func extra(_ k: Int) -> UnsafeRawBufferPointer { extras[k] }
}

/// A builder's draft tables, read in place (``ResourceParts/draftAccess``): views of the
/// arenas the builder lends for one sink call, valid until it returns (as the parts' views).
struct DraftAccess: PartsAccess {
    static var none: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }
    let scratch: UnsafeRawBufferPointer
    let store: UnsafeRawBufferPointer
    let relationships: UnsafeBufferPointer<RelationshipDraft>
    let identifiers: UnsafeBufferPointer<IdentifierDraft>
    let members: UnsafeBufferPointer<ValueSpan>
    /// The resource's relationships in `relationships`.
    let picked: Range<Int32>

    @inline(__always)
    func text(_ span: ScratchSpan) -> UnsafeRawBufferPointer? {
        span.isNone ? nil : UnsafeRawBufferPointer(rebasing: scratch[span.range])
    }

    @inline(__always)
    func value(_ span: ValueSpan) -> UnsafeRawBufferPointer? {
        span.isNone ? nil : UnsafeRawBufferPointer(rebasing: store[span.range])
    }

    var relationshipCount: Int { picked.count }

    /// The resource's relationship `i`; its targets index the draft's identifiers.
    @inline(__always)
    func relationship(_ i: Int) -> ResourceParts.Relationship {
        let d = relationships[Int(picked.lowerBound) &+ i]
        return ResourceParts.Relationship(
            name: text(d.name)!, kind: d.kind, targets: Int(d.targets.lowerBound)..<Int(d.targets.upperBound), links: value(d.links),
            meta: value(d.meta), extras: Int(d.extras.lowerBound)..<Int(d.extras.upperBound))
    }

    /// Identifier `k` of the draft's table. (One without type reaches only the user's
    /// sinks, with a warning or with validation off: its type is empty.)
    @inline(__always)
    func identifier(_ k: Int) -> ResourceParts.Identifier {
        let t = identifiers[k]
        return ResourceParts.Identifier(
            type: text(t.type) ?? Self.none, id: text(t.id), lid: text(t.lid), meta: value(t.meta),
            extras: Int(t.extras.lowerBound)..<Int(t.extras.upperBound))
    }

    @inline(__always)
    func extra(_ k: Int) -> UnsafeRawBufferPointer { value(members[k])! }
}

extension DraftAccess {
    /// No tables.
    init() {
        self.init(
            scratch: Self.none, store: Self.none, relationships: UnsafeBufferPointer(start: nil, count: 0),
            identifiers: UnsafeBufferPointer(start: nil, count: 0), members: UnsafeBufferPointer(start: nil, count: 0), picked: 0..<0)
    }
}
