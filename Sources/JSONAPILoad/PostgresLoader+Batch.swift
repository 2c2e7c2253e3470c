import JSONAPIStream

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resources read and not yet written: their bytes copied into one arena, their parts as
/// ranges of it (the views they came from are gone by the time the batch is written).
final class PostgresBatch {
    struct Resource {
        enum State { case new, unchanged, changed }
        var table: LoadTable
        var type: Range<Int>
        var id: Range<Int>?
        var lid: Range<Int>?
        var hash: Range<Int>
        var primary: Bool
        var cells: Range<Int>
        var links: Range<Int>?
        var meta: Range<Int>?
        /// `_other`: the unknown members as one JSON object.
        var other: Range<Int>?
        var relationships: Range<Int>
        var state = State.new
        var key: Int64 = 0
    }

    /// An attribute: its column (-1: `_overflow`), its name as stored (a JSON string) and value.
    struct Cell {
        var column: Int
        var name: Range<Int>
        var value: Range<Int>
        var isNull: Bool
    }

    struct Relationship {
        var name: Range<Int>
        var shape: StaticString
        var links: Range<Int>?
        var meta: Range<Int>?
        var other: Range<Int>?
        var edges: Range<Int>
    }

    struct Edge {
        var type: Range<Int>
        var id: Range<Int>?
        var lid: Range<Int>?
        var meta: Range<Int>?
        var other: Range<Int>?
    }

    var bytes = ByteArena(capacity: 1 << 16)
    var resources: [Resource] = []
    var cells: [Cell] = []
    var relationships: [Relationship] = []
    var edges: [Edge] = []
    /// The type and id (or lid) of each resource in the batch: a resource read twice is
    /// written (the first time) before it is read again.
    var identities: Set<[UInt8]> = []

    func add(_ b: UnsafeRawBufferPointer) -> Range<Int> {
        let start = bytes.count
        bytes.append(b)
        return start..<bytes.count
    }

    func add(_ s: String) -> Range<Int> {
        var s = s
        return s.withUTF8 { add(UnsafeRawBufferPointer($0)) }
    }

    /// The bytes of a range (valid until the next ``add(_:)``).
    func view(_ r: Range<Int>) -> UnsafeRawBufferPointer { bytes.bytes(in: r) }

    func removeAll() {
        bytes.removeAll()
        bytes.giveBack(ifAbove: 16 << 20, to: 1 << 16)
        resources.removeAll(keepingCapacity: true)
        cells.removeAll(keepingCapacity: true)
        relationships.removeAll(keepingCapacity: true)
        edges.removeAll(keepingCapacity: true)
        identities.removeAll(keepingCapacity: true)
    }
}

/// Reading resources into the batch, and writing a batch: new resources by `COPY`, stored
/// ones merged (stored rows read per table, the writes sent as one script).
extension PostgresLoader {
    func read(_ view: ResourceView) throws(JSONAPIError) {
        let p = view.parts
        summary.resources += 1
        guard documentKey != nil else { throw JSONAPIError.misuse("a resource outside a document") }
        try Self.requireText(p.type, "a resource type")
        if let id = p.id { try Self.requireText(id, "the id of a resource") }
        if let lid = p.lid { try Self.requireText(lid, "the lid of a resource") }
        if p.isPrimary { appendIdentifier(p, to: &primary, count: &primaryCount) }
        let t = try table(for: p.type)
        t.resourcesRead += 1

        var identity: [UInt8]?
        if let id = p.id {
            if options.onDuplicate == .error { try admit(p, id, view) }
            identity = Array(p.type) + [0] + Array(id)
        } else if let lid = p.lid {
            identity = Array(p.type) + [1] + Array(lid)
        }
        if let identity, batch.identities.contains(identity) { try flush() }
        if let identity { batch.identities.insert(identity) }

        view.withJSONText { hasher.hex($0, into: hash) }
        let cellStart = batch.cells.count
        var otherMembers: [String] = []
        if let a = p.attributes, a.first == UInt8(ascii: "{") {
            var failure: JSONAPIError?
            StoredJSON.forEachMember(a, 0..<a.count) { name, value in
                do throws(JSONAPIError) {
                    let v = UnsafeRawBufferPointer(rebasing: a[value])
                    let kinds = Self.kinds(of: v)
                    let column = try t.attributeColumn(a, name: name, kinds: kinds, maxColumns: options.maxColumns) {
                        (c) throws(JSONAPIError) in try addColumn(t, c)
                    }
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
                            noteKinds(t, column, kinds)
                        }
                    }
                    batch.cells.append(.init(column: column, name: batch.add(UnsafeRawBufferPointer(rebasing: a[name])), value: batch.add(v), isNull: kinds == .null))
                    return true
                } catch {
                    failure = error
                    return false
                }
            }
            if let failure { throw failure }
        } else if let a = p.attributes {
            otherMembers.append(#""attributes":"# + String(decoding: a, as: UTF8.self))
        }
        for k in p.resourceExtras { otherMembers.append(String(decoding: p.extras[k], as: UTF8.self)) }

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
            hash: batch.add(UnsafeRawBufferPointer(hash)), primary: p.isPrimary, cells: cellStart..<batch.cells.count,
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

    /// `--on-duplicate error`: a key read twice in this run is refused.
    private func admit(_ p: ResourceParts, _ id: UnsafeRawBufferPointer, _ view: ResourceView) throws(JSONAPIError) {
        var key = Array(p.type)
        key.append(0)
        key.append(contentsOf: id)
        guard !seen.insert(key).inserted else { return }
        throw duplicateError(p, id, view)
    }

    // MARK: - Writing a batch

    /// Writes the batch: looks up which resources are stored (and whether their hash
    /// changed), merges the changed ones, and copies the new ones.
    func flush() throws(JSONAPIError) {
        guard !batch.resources.isEmpty else { return }
        defer { batch.removeAll() }
        try lookUp()
        var fresh: [Int] = []
        for (i, r) in batch.resources.enumerated() {
            switch r.state {
            case .new: fresh.append(i)
            case .unchanged: summary.unchanged += 1
            case .changed: break
            }
        }
        if !fresh.isEmpty {
            let first = try reserveKeys("_resources", fresh.count)
            for (k, i) in fresh.enumerated() { batch.resources[i].key = first + Int64(k) }
        }
        var edges = ByteArena(capacity: 1 << 14)
        var scratch = ByteArena(capacity: 256)
        let changed = batch.resources.indices.filter { batch.resources[$0].state == .changed }
        if !changed.isEmpty {
            // The stored rows in one query per table; under the newer-wins policies the merged
            // writes go as one script per megabyte (one round trip, where they took about ten
            // per resource), under `first` one statement at a time (a kept relationship keeps
            // its linkage, which the statement's result decides).
            let olds = try oldRows(changed.map { batch.resources[$0] })
            var script: String? = options.onDuplicate == .first ? nil : ""
            for i in changed {
                try merge(batch.resources[i], old: olds[batch.resources[i].key], script: &script, edges: &edges, scratch: &scratch)
                summary.written += 1
                if let text = script, text.utf8.count > 1 << 20 {
                    try db.execute(text)
                    script = ""
                }
            }
            if let text = script, !text.isEmpty { try db.execute(text) }
        }
        guard !fresh.isEmpty || edges.count > 0 else { return }
        var out = ByteArena(capacity: 1 << 16)
        // `_resources`
        for i in fresh {
            let r = batch.resources[i]
            appendIdentity(r, into: &out)
            out.appendDigits(documentKey!)
            out.tab()
            out.append(r.primary ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            out.tab()
            out.append(batch.view(r.hash))
            out.tab()
            out.copyText(loadedAt)
            out.append(UInt8(ascii: "\n"))
        }
        try send(&out, #"COPY "_resources" ("key", "type", "id", "lid", "document", "primary", "hash", "loaded_at") FROM STDIN"#)
        // The type tables, each with all its columns.
        var done = Set<ObjectIdentifier>()
        for i in fresh where !done.contains(ObjectIdentifier(batch.resources[i].table)) {
            let t = batch.resources[i].table
            done.insert(ObjectIdentifier(t))
            var cellOf = [Int](repeating: -1, count: t.columns.count)
            for j in fresh where batch.resources[j].table === t {
                appendRow(batch.resources[j], t, &cellOf, into: &out, scratch: &scratch)
            }
            let names = t.columns.map { quoted($0.name) }.joined(separator: ", ")
            try send(&out, "COPY \(quoted(t.name)) (\(names)) FROM STDIN")
        }
        // `_relationships` and `_edges`.
        let relationshipCount = fresh.reduce(0) { $0 + batch.resources[$1].relationships.count }
        var relationshipKey = relationshipCount > 0 ? try reserveKeys("_relationships", relationshipCount) : 0
        for i in fresh {
            let r = batch.resources[i]
            for rel in batch.relationships[r.relationships] {
                appendRelationship(r, rel, key: relationshipKey, into: &out)
                relationshipKey += 1
                appendEdges(r, rel, into: &edges)
            }
            summary.written += 1
        }
        try send(
            &out,
            #"""
            COPY "_relationships" ("key", "resource", "from_type", "from_id", "from_lid", "name", "data", "count", "links", "meta",
            "other", "document") FROM STDIN
            """#)
        try send(
            &edges,
            #"""
            COPY "_edges" ("resource", "from_type", "from_id", "from_lid", "name", "position", "to_type", "to_id", "to_lid", "meta",
            "other", "document") FROM STDIN
            """#)
    }

    /// Takes `count` consecutive keys from a table's `key` sequence and returns the first: one
    /// statement for a batch, where `nextval` per row costs a call each. Loaders hold an
    /// advisory lock for their transaction, so no other loader draws from the sequence
    /// meanwhile (a `nextval` of anyone else would only leave a gap).
    private func reserveKeys(_ table: String, _ count: Int) throws(JSONAPIError) -> Int64 {
        let sequence = "pg_get_serial_sequence('\(quoted(table))', 'key')"
        let last = try db.rows("SELECT setval(\(sequence), nextval(\(sequence)) + \(count - 1))").first?.first ?? nil
        guard let last, let end = Int64(last) else { throw db.error("no keys from the sequence of \(table)") }
        return end - Int64(count - 1)
    }

    /// Sends the lines in `out` to a COPY (nothing when there are none) and empties it.
    private func send(_ out: inout ByteArena, _ sql: String) throws(JSONAPIError) {
        guard out.count > 0 else { return }
        try out.withBytes { (b) throws(JSONAPIError) in try db.copy(sql, b) }
        out.removeAll()
    }

    /// Finds the stored resources of the batch: by type and id in one query (the batch's
    /// identifiers as two arrays), by lid within the document one by one.
    private func lookUp() throws(JSONAPIError) {
        var types = ByteArena(capacity: 4096), ids = ByteArena(capacity: 4096)
        var order: [Int] = []
        for (i, r) in batch.resources.enumerated() {
            if let id = r.id {
                types.append(order.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ","))
                ids.append(order.isEmpty ? UInt8(ascii: "{") : UInt8(ascii: ","))
                types.arrayElement(batch.view(r.type))
                ids.arrayElement(batch.view(id))
                order.append(i)
            } else if let lid = r.lid {
                try PostgresConnection.withByteArrays([Array(String(documentKey!).utf8)]) { (document) throws(JSONAPIError) in
                    try db.query(
                        #"""
                        SELECT "key", "hash" FROM "_resources" WHERE "document" = $1 AND "type" = $2 AND "lid" = $3 AND "id" IS NULL
                        """#, [document[0], batch.view(r.type), batch.view(lid)]
                    ) { row in
                        setStored(i, row)
                    }
                }
            }
        }
        guard !order.isEmpty else { return }
        types.append(UInt8(ascii: "}"))
        ids.append(UInt8(ascii: "}"))
        // A lateral lookup per identifier: the identity's hash index, whatever the planner would
        // estimate for a join (it took a hash join over the whole table, 15 times slower).
        let sql = #"""
            SELECT u.n, r."key", r."hash" FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u("type", "id", n)
            CROSS JOIN LATERAL (SELECT "key", "hash" FROM "_resources"
            WHERE (length("type") || ':' || "type" || "id") = (length(u."type") || ':' || u."type" || u."id") AND "id" IS NOT NULL
            AND "type" = u."type" AND "id" = u."id" LIMIT 1) r
            """#
        try types.withBytes { (t) throws(JSONAPIError) in
            try ids.withBytes { (d) throws(JSONAPIError) in
                try db.query(sql, [t, d]) { row in
                    setStored(order[Int(row.int64(0)) - 1], row, from: 1)
                }
            }
        }
    }

    private func setStored(_ i: Int, _ row: PostgresRow, from k: Int = 0) {
        batch.resources[i].key = row.int64(k)
        let same = row.bytes(k + 1).map { memoryEqual($0, batch.view(batch.resources[i].hash)) } ?? false
        batch.resources[i].state = same ? .unchanged : .changed
    }

    /// A type row for COPY: every column of the table, `\N` for what the resource lacks.
    private func appendRow(
        _ r: PostgresBatch.Resource, _ t: LoadTable, _ cellOf: inout [Int], into out: inout ByteArena, scratch: inout ByteArena
    ) {
        for k in cellOf.indices { cellOf[k] = -1 }
        var hasNulls = false, hasOverflow = false
        for c in r.cells {
            let cell = batch.cells[c]
            if cell.column >= 0 { cellOf[cell.column] = c } else { hasOverflow = true }
            if cell.isNull && cell.column >= 0 { hasNulls = true }
        }
        for (k, column) in t.columns.enumerated() {
            if k > 0 { out.tab() }
            switch column.role {
            case .key: out.appendDigits(r.key)
            case .id: out.copyText(r.id.map(batch.view))
            case .lid: out.copyText(r.lid.map(batch.view))
            case .links: out.copyText(r.links.map(batch.view))
            case .meta: out.copyText(r.meta.map(batch.view))
            case .other: out.copyText(r.other.map(batch.view))
            case .nulls:
                guard hasNulls else { out.append("\\N"); continue }
                var first = true
                out.append(UInt8(ascii: "["))
                for c in r.cells where batch.cells[c].isNull && batch.cells[c].column >= 0 {
                    if !first { out.append(UInt8(ascii: ",")) }
                    first = false
                    out.copyText(batch.view(batch.cells[c].name))
                }
                out.append(UInt8(ascii: "]"))
            case .overflow:
                guard hasOverflow else { out.append("\\N"); continue }
                var first = true
                out.append(UInt8(ascii: "{"))
                for c in r.cells where batch.cells[c].column < 0 {
                    if !first { out.append(UInt8(ascii: ",")) }
                    first = false
                    out.copyText(batch.view(batch.cells[c].name))
                    out.append(UInt8(ascii: ":"))
                    out.copyText(batch.view(batch.cells[c].value))
                }
                out.append(UInt8(ascii: "}"))
            case .attribute:
                let c = cellOf[k]
                guard c >= 0, !batch.cells[c].isNull else { out.append("\\N"); continue }
                let v = batch.view(batch.cells[c].value)
                switch column.type {
                case .string:
                    scratch.removeAll()
                    StoredJSON.appendUnescaped(UnsafeRawBufferPointer(rebasing: v[1..<v.count - 1]), to: &scratch)
                    scratch.withBytes { out.copyText($0) }
                case .boolean:
                    out.append(v[0] == UInt8(ascii: "t") ? UInt8(ascii: "t") : UInt8(ascii: "f"))
                default:
                    out.copyText(v)
                }
            }
        }
        out.append(UInt8(ascii: "\n"))
    }

    private func appendRelationship(_ r: PostgresBatch.Resource, _ rel: PostgresBatch.Relationship, key: Int64, into out: inout ByteArena) {
        out.appendDigits(key)
        out.tab()
        appendFrom(r, rel, into: &out)
        out.append(rel.shape)
        out.tab()
        out.appendDigits(Int64(rel.edges.count))
        out.tab()
        out.copyText(rel.links.map(batch.view))
        out.tab()
        out.copyText(rel.meta.map(batch.view))
        out.tab()
        out.copyText(rel.other.map(batch.view))
        out.tab()
        out.appendDigits(documentKey!)
        out.append(UInt8(ascii: "\n"))
    }

    /// The fields `_relationships` and `_edges` start with: `resource`, `from_type`,
    /// `from_id`, `from_lid`, `name`, each followed by a tab.
    private func appendFrom(_ r: PostgresBatch.Resource, _ rel: PostgresBatch.Relationship, into out: inout ByteArena) {
        appendIdentity(r, into: &out)
        out.copyText(batch.view(rel.name))
        out.tab()
    }

    /// A resource's `key`, `type`, `id`, `lid`, each followed by a tab: how `_resources`
    /// lines and the `_relationships` and `_edges` lines (``appendFrom(_:_:into:)``) start.
    private func appendIdentity(_ r: PostgresBatch.Resource, into out: inout ByteArena) {
        out.appendDigits(r.key)
        out.tab()
        out.copyText(batch.view(r.type))
        out.tab()
        out.copyText(r.id.map(batch.view))
        out.tab()
        out.copyText(r.lid.map(batch.view))
        out.tab()
    }

    func appendEdges(_ r: PostgresBatch.Resource, _ rel: PostgresBatch.Relationship, into out: inout ByteArena) {
        for (position, e) in batch.edges[rel.edges].enumerated() {
            appendFrom(r, rel, into: &out)
            out.appendDigits(Int64(position))
            out.tab()
            out.copyText(batch.view(e.type))
            out.tab()
            out.copyText(e.id.map(batch.view))
            out.tab()
            out.copyText(e.lid.map(batch.view))
            out.tab()
            out.copyText(e.meta.map(batch.view))
            out.tab()
            out.copyText(e.other.map(batch.view))
            out.tab()
            out.appendDigits(documentKey!)
            out.append(UInt8(ascii: "\n"))
        }
        summary.edges += rel.edges.count
    }

    /// Unknown members (`"name":value` texts) as one JSON object, nil for none.
    private func membersText(_ p: ResourceParts, _ range: Range<Int>) -> String? {
        guard !range.isEmpty else { return nil }
        return "{" + range.map { String(decoding: p.extras[$0], as: UTF8.self) }.joined(separator: ",") + "}"
    }
}
