import JSONAPIStream

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing a batch: new resources by `COPY`, stored ones merged (stored rows read per table,
/// the writes sent as one script).
extension PostgresLoader {
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
            case .unchanged: run.summary.unchanged += 1
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
            var script: String? = run.options.onDuplicate == .first ? nil : ""
            for i in changed {
                try merge(batch.resources[i], old: olds[batch.resources[i].key], script: &script, edges: &edges, scratch: &scratch)
                run.summary.written += 1
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
            out.digitsField(run.documentKey!)
            out.append(r.primary ? UInt8(ascii: "t") : UInt8(ascii: "f"))
            out.tab()
            out.append(batch.view(r.hash))
            out.tab()
            out.copyText(run.loadedAt)
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
            run.summary.written += 1
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
                try PostgresConnection.withByteArrays([Array(String(run.documentKey!).utf8)]) { (document) throws(JSONAPIError) in
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
        out.digitsField(key)
        appendFrom(r, rel, into: &out)
        out.append(rel.shape)
        out.tab()
        out.digitsField(Int64(rel.edges.count))
        out.textField(rel.links.map(batch.view))
        out.textField(rel.meta.map(batch.view))
        out.textField(rel.other.map(batch.view))
        out.appendDigits(run.documentKey!)
        out.append(UInt8(ascii: "\n"))
    }

    /// The fields `_relationships` and `_edges` start with: `resource`, `from_type`,
    /// `from_id`, `from_lid`, `name`, each followed by a tab.
    private func appendFrom(_ r: PostgresBatch.Resource, _ rel: PostgresBatch.Relationship, into out: inout ByteArena) {
        appendIdentity(r, into: &out)
        out.textField(batch.view(rel.name))
    }

    /// A resource's `key`, `type`, `id`, `lid`, each followed by a tab: how `_resources`
    /// lines and the `_relationships` and `_edges` lines (``appendFrom(_:_:into:)``) start.
    private func appendIdentity(_ r: PostgresBatch.Resource, into out: inout ByteArena) {
        out.digitsField(r.key)
        out.textField(batch.view(r.type))
        out.textField(r.id.map(batch.view))
        out.textField(r.lid.map(batch.view))
    }

    func appendEdges(_ r: PostgresBatch.Resource, _ rel: PostgresBatch.Relationship, into out: inout ByteArena) {
        for (position, e) in batch.edges[rel.edges].enumerated() {
            appendFrom(r, rel, into: &out)
            out.digitsField(Int64(position))
            out.textField(batch.view(e.type))
            out.textField(e.id.map(batch.view))
            out.textField(e.lid.map(batch.view))
            out.textField(e.meta.map(batch.view))
            out.textField(e.other.map(batch.view))
            out.appendDigits(run.documentKey!)
            out.append(UInt8(ascii: "\n"))
        }
        run.summary.edges += rel.edges.count
    }
}
