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
    /// The resource's relationships, valid until the next fill.
    package var relationships: UnsafeBufferPointer<Relationship> { relationshipList.elements }
    /// The linkage of all relationships (each relationship's `targets` index it), valid until
    /// the next fill.
    package var identifiers: UnsafeBufferPointer<Identifier> { identifierList.elements }
    /// `"name":value` texts of unknown members (of the resource, relationships, identifiers),
    /// valid until the next fill.
    package var extras: UnsafeBufferPointer<UnsafeRawBufferPointer> { extraList.elements }
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

    /// Fills from a draft the builder is handing to a sink, over the arenas it lends.
    func fill(_ r: ResourceDraft, in a: borrowing DraftArenas) {
        let scratch = a.scratch.bytes(in: 0..<a.scratch.count)
        let store = a.store.bytes(in: 0..<a.store.count)
        @inline(__always) func s(_ span: ScratchSpan) -> UnsafeRawBufferPointer? {
            span.isNone ? nil : UnsafeRawBufferPointer(rebasing: scratch[span.range])
        }
        @inline(__always) func v(_ span: ValueSpan) -> UnsafeRawBufferPointer? {
            span.isNone ? nil : UnsafeRawBufferPointer(rebasing: store[span.range])
        }
        // (A resource or identifier without type reaches only the user's sinks, with a
        // warning or with validation off: its type is empty.)
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        type = s(r.type) ?? none
        id = s(r.id)
        lid = s(r.lid)
        isPrimary = r.isPrimary
        begin(attributes: v(r.attributes), links: v(r.links), meta: v(r.meta), position: r.position)
        for span in a.memberSpans.elements { extraList.push(v(span)!) }
        resourceExtras = Int(r.extras.lowerBound)..<Int(r.extras.upperBound)
        for i in r.relationships {
            let d = a.relationshipDrafts[Int(i)]
            let start = identifierList.count
            for k in d.targets {
                let t = a.identifierDrafts[Int(k)]
                identifierList.push(
                    Identifier(
                        type: s(t.type) ?? none, id: s(t.id), lid: s(t.lid), meta: v(t.meta),
                        extras: Int(t.extras.lowerBound)..<Int(t.extras.upperBound)))
            }
            relationshipList.push(
                Relationship(
                    name: s(d.name)!, kind: d.kind, targets: start..<identifierList.count, links: v(d.links), meta: v(d.meta),
                    extras: Int(d.extras.lowerBound)..<Int(d.extras.upperBound)))
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
