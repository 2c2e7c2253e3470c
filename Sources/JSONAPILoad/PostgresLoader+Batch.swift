import JSONAPIStream

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reading resources into the batch (the batch is written by `PostgresLoader+BatchWriting`).
extension PostgresLoader {
    func read(_ view: ResourceView) throws(JSONAPIError) {
        let p = view.parts
        run.summary.resources += 1
        guard run.documentKey != nil else { throw JSONAPIError.misuse("a resource outside a document") }
        try Self.requireText(p.type, "a resource type")
        if let id = p.id { try Self.requireText(id, "the id of a resource") }
        if let lid = p.lid { try Self.requireText(lid, "the lid of a resource") }
        if p.isPrimary { run.primary.append(p) }
        let t = try table(for: p.type)
        t.resourcesRead += 1

        var identity: [UInt8]?
        if let id = p.id {
            if run.options.onDuplicate == .error { try run.seen.admit(p, id, view) }
            identity = Array(p.type) + [0] + Array(id)
        } else if let lid = p.lid {
            identity = Array(p.type) + [1] + Array(lid)
        }
        if let identity, batch.identities.contains(identity) { try flush() }
        if let identity { batch.identities.insert(identity) }

        view.withJSONText { run.hasher.hex($0, into: run.hash) }
        let cellStart = batch.cells.count
        let a = p.attributes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        let otherMembers = try readAttributes(p, t) { (column, name, value, kinds) throws(JSONAPIError) in
            let v = UnsafeRawBufferPointer(rebasing: a[value])
            if column >= 0 {
                var now = t.columns[column].kinds.union(kinds)
                // `numeric` has no negative zero: a column that would hold one is json.
                if now.columnType == .decimal {
                    let negativeZero = try Self.isNegativeZero(v) ? true : holdsNegativeZero(t, column)
                    if negativeZero { now.insert(.object) }
                }
                if now.columnType != t.columns[column].type {
                    try widen(t, column, to: now)
                } else {
                    catalog.noteKinds(t, column, kinds)
                }
            }
            batch.cells.append(.init(column: column, name: batch.add(UnsafeRawBufferPointer(rebasing: a[name])), value: batch.add(v), isNull: kinds == .null))
        }

        let relationshipStart = batch.relationships.count
        for rel in p.relationships {
            try Self.requireText(rel.name, "a relationship name")
            let edgeStart = batch.edges.count
            for target in p.identifiers[rel.targets] {
                try Self.requireText(target.type, "a type in linkage")
                if let id = target.id { try Self.requireText(id, "an id in linkage") }
                if let lid = target.lid { try Self.requireText(lid, "a lid in linkage") }
                batch.edges.append(
                    .init(
                        type: batch.add(target.type), id: target.id.map(batch.add), lid: target.lid.map(batch.add),
                        meta: target.meta.map(batch.add), other: membersText(p, target.extras).map(batch.add)))
            }
            batch.relationships.append(
                .init(
                    name: batch.add(rel.name), shape: rel.kind.shapeWord(count: rel.targets.count), links: rel.links.map(batch.add),
                    meta: rel.meta.map(batch.add), other: membersText(p, rel.extras).map(batch.add), edges: edgeStart..<batch.edges.count))
        }

        let r = PostgresBatch.Resource(
            table: t, type: batch.add(p.type), id: p.id.map(batch.add), lid: p.lid.map(batch.add),
            hash: batch.add(UnsafeRawBufferPointer(run.hash)), primary: p.isPrimary, cells: cellStart..<batch.cells.count,
            links: p.links.map(batch.add), meta: p.meta.map(batch.add),
            other: otherMembers.isEmpty ? nil : batch.add("{" + otherMembers.joined(separator: ",") + "}"),
            relationships: relationshipStart..<batch.relationships.count)
        // The fixed columns this resource needs.
        if r.lid != nil { _ = try ensureColumn(t, .lid) }
        if r.links != nil { _ = try ensureColumn(t, .links) }
        if r.meta != nil { _ = try ensureColumn(t, .meta) }
        if r.other != nil { _ = try ensureColumn(t, .other) }
        if batch.cells[r.cells].contains(where: { $0.column < 0 }) { _ = try ensureColumn(t, .overflow) }
        if batch.cells[r.cells].contains(where: { $0.isNull && $0.column >= 0 }) { _ = try ensureColumn(t, .nulls) }
        batch.resources.append(r)
        if batch.resources.count >= Self.batchResources || batch.bytes.count >= Self.batchBytes { try flush() }
    }

    /// Whether a `double precision` column holds a negative zero, stored or in the batch
    /// (asked before it would widen to `numeric`, which cannot hold one).
    private func holdsNegativeZero(_ t: LoadTable, _ column: Int) throws(JSONAPIError) -> Bool {
        guard t.columns[column].type == .double else { return false }
        for r in batch.resources where r.table === t {
            for c in batch.cells[r.cells] where c.column == column && !c.isNull && Self.isNegativeZero(batch.view(c.value)) { return true }
        }
        let name = quoted(t.columns[column].name)
        return try db.rows("SELECT EXISTS (SELECT 1 FROM \(quoted(t.name)) WHERE \(name) = 0 AND \(name)::text = '-0')").first?.first == "t"
    }

    static func requireText(_ b: UnsafeRawBufferPointer, _ what: @autoclosure () -> String) throws(JSONAPIError) {
        if b.count > 0, memchr(b.baseAddress!, 0, b.count) != nil {
            throw JSONAPIError.input("\(what()) holds U+0000, which PostgreSQL text cannot store")
        }
    }

}
