import JSONAPIStream

/// Merging resources that are stored with other content (the merge rule of
/// ``MergedMembers``): their stored rows read in one query per table, the merged writes sent
/// as one script per batch (statement by statement under `--on-duplicate first`).
extension PostgresLoader {
    /// Writes a resource that is stored with other content: its `_resources` entry, its row
    /// merged member by member with the stored one, its relationships (each one's linkage
    /// replaced whole; the new edges go to `edges`, copied after the old ones are deleted).
    func merge(
        _ r: PostgresBatch.Resource, old: OldRow?, script: inout String?, edges: inout ByteArena, scratch: inout ByteArena
    ) throws(JSONAPIError) {
        let t = r.table
        let key = Array(String(r.key).utf8)
        let document = Array(String(run.documentKey!).utf8)
        /// Runs a statement now (no script), or adds it to the script with its parameters as
        /// literals; returns the rows it changed (0 when scripted).
        func perform(_ sql: String, _ parameters: [UnsafeRawBufferPointer?]) throws(JSONAPIError) -> Int {
            guard script != nil else { return try db.run(sql, parameters) }
            script!.append(PostgresConnection.inline(sql, parameters))
            script!.append(";\n")
            return 0
        }
        try PostgresConnection.withByteArrays([Array(document), Array((r.primary ? "true" : "false").utf8), Array(run.loadedAt.utf8), key]) {
            (fixed) throws(JSONAPIError) in
            _ = try perform(
                #"""
                UPDATE "_resources" SET "lid" = coalesce($1, "lid"), "document" = $2, "primary" = $3, "hash" = $4, "loaded_at" = $5
                WHERE "key" = $6
                """#, [r.lid.map(batch.view), fixed[0], fixed[1], batch.view(r.hash), fixed[2], fixed[3]])
        }
        let cells = batch.cells[r.cells]
        func text(_ range: Range<Int>?) -> String? { range.map { String(decoding: batch.view($0), as: UTF8.self) } }
        func name(_ c: PostgresBatch.Cell) -> String { StoredJSON.decodeString(batch.view(c.name), 0..<c.name.count) }
        let overflow = cells.filter { $0.column < 0 }.map { text($0.name)! + ":" + text($0.value)! }
        let m = try MergedMembers(
            old: old, links: text(r.links), meta: text(r.meta), other: text(r.other),
            overflow: overflow.isEmpty ? nil : "{" + overflow.joined(separator: ",") + "}",
            nulls: cells.filter { $0.isNull && $0.column >= 0 }.map(name), names: cells.map { Array(name($0).utf8) },
            columns: cells.map(\.column), table: t, newWins: run.options.onDuplicate != .first)
        let keptColumns = m.keptColumns
        var columns: [Int] = [t.column(.key)!, t.column(.id)!]
        var values: [[UInt8]?] = [key, r.id.map { Array(batch.view($0)) }]
        func set(_ role: ColumnRole, _ value: String?) throws(JSONAPIError) {
            columns.append(try ensureColumn(t, role))
            values.append(value.map { Array($0.utf8) })
        }
        if r.lid != nil { try set(.lid, text(r.lid)) }
        if let links = m.links ?? text(r.links) { try set(.links, links) }
        if let meta = m.meta ?? text(r.meta) { try set(.meta, meta) }
        if let other = m.other { try set(.other, other) }
        if let overflow = m.overflow { try set(.overflow, overflow) }
        if m.writeNulls { try set(.nulls, m.nullsText) }
        for c in cells where c.column >= 0 && !keptColumns.contains(c.column) {
            columns.append(c.column)
            let v = batch.view(c.value)
            if c.isNull {
                values.append(nil)
            } else if t.columns[c.column].type == .string {
                scratch.removeAll()
                StoredJSON.appendUnescaped(UnsafeRawBufferPointer(rebasing: v[1..<v.count - 1]), to: &scratch)
                values.append(scratch.withBytes { Array($0) })
            } else {
                values.append(Array(v))
            }
        }
        let names = columns.map { quoted(t.columns[$0].name) }
        let updates = names.dropFirst(2).map { "\($0) = excluded.\($0)" }
        let action = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + updates.joined(separator: ", ")
        let sql = "INSERT INTO \(quoted(t.name)) (\(names.joined(separator: ", "))) VALUES (\((1...names.count).map { "$\($0)" }.joined(separator: ", "))) ON CONFLICT (\(names[0])) \(action)"
        try PostgresConnection.withByteArrays(values) { (v) throws(JSONAPIError) in _ = try perform(sql, v) }

        let keep = run.options.onDuplicate == .first
        for rel in batch.relationships[r.relationships] {
            let shape = rel.shape
            let changed = try PostgresConnection.withByteArrays([key, Array(String(rel.edges.count).utf8), document]) {
                (n) throws(JSONAPIError) -> Int in
                let values: [UnsafeRawBufferPointer?] = [
                    n[0], batch.view(r.type), r.id.map(batch.view), r.lid.map(batch.view), batch.view(rel.name),
                    UnsafeRawBufferPointer(start: shape.utf8Start, count: shape.utf8CodeUnitCount), n[1],
                    rel.links.map(batch.view), rel.meta.map(batch.view), rel.other.map(batch.view), n[2],
                ]
                // Newer wins: the stored relationship is replaced (or a new one added);
                // stored wins: a new one is added, a stored one kept with its linkage.
                if !keep {
                    let updated = try perform(
                        #"""
                        UPDATE "_relationships" SET "from_lid" = $4, "data" = $6, "count" = $7, "links" = $8, "meta" = $9, "other" = $10,
                        "document" = $11 WHERE "resource" = $1 AND "name" = $5 AND "from_type" = $2 AND "from_id" IS NOT DISTINCT FROM $3
                        """#, values)
                    if updated > 0 { return updated }
                }
                return try perform(
                    #"""
                    INSERT INTO "_relationships" ("resource", "from_type", "from_id", "from_lid", "name", "data", "count", "links", "meta",
                    "other", "document") SELECT $1::bigint, $2, $3, $4, $5, $6, $7::bigint, $8::json, $9::json, $10::json, $11::bigint
                    WHERE NOT EXISTS (SELECT 1 FROM "_relationships" WHERE "resource" = $1::bigint AND "name" = $5)
                    """#, values)
            }
            if keep && changed == 0 { continue }
            try PostgresConnection.withByteArrays([key]) { (k) throws(JSONAPIError) in
                _ = try perform(#"DELETE FROM "_edges" WHERE "resource" = $1 AND "name" = $2"#, [k[0], batch.view(rel.name)])
            }
            appendEdges(r, rel, into: &edges)
        }
    }

    /// The stored rows' mergeable members (and, policy `first`, which attributes they have),
    /// by key: one query per table.
    func oldRows(_ resources: [PostgresBatch.Resource]) throws(JSONAPIError) -> [Int64: OldRow] {
        let first = run.options.onDuplicate == .first
        var out: [Int64: OldRow] = [:]
        var done = Set<ObjectIdentifier>()
        for r in resources where done.insert(ObjectIdentifier(r.table)).inserted {
            let t = r.table
            guard let selection = OldRow.selection(t, first: first, suffix: "::text") else { continue }
            let keys = resources.filter { $0.table === t }.map { String($0.key) }.joined(separator: ",")
            let key = quoted(ColumnRole.key.rawValue)
            for row in try db.rows("SELECT \(key), \(selection.list) FROM \(quoted(t.name)) WHERE \(key) = ANY($1::bigint[])", ["{\(keys)}"]) {
                guard let k = row[0].flatMap({ Int64($0) }) else { continue }
                out[k] = try OldRow(t, attributeColumns: selection.attributeColumns, first: first, text: { row[$0 + 1] }, isSet: { row[$0 + 1] == "t" })
            }
        }
        return out
    }
}
