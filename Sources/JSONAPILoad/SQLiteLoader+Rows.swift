import JSONAPIStream

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writing one resource: its row (merged with the stored one), its relationships and
/// linkage, its `_resources` entry.
extension SQLiteLoader {
    /// An attribute of the resource being written: its column (or -1 for `_overflow`), and
    /// the spans of its name and value in the `attributes` text.
    struct Cell {
        var column: Int
        var name: Range<Int>
        var value: Range<Int>
        var isNull: Bool
    }

    func write(_ view: ResourceView) throws(JSONAPIError) {
        let p = view.parts
        run.summary.resources += 1
        if p.isPrimary { run.primary.append(p) }
        let t = try table(for: p.type)
        t.resourcesRead += 1
        view.withJSONText { run.hasher.hex($0, into: run.hash) }
        guard let document = run.documentKey else { throw JSONAPIError.misuse("a resource outside a document") }
        // The stored resource: by type and id, or (no id) by lid within the document; a
        // resource with neither is always new.
        var stored = Stored.new
        if let id = p.id {
            if run.options.onDuplicate == .error { try run.seen.admit(p, id, view) }
            let f = fixed.findResource
            f.bind(1, borrowed: p.type)
            f.bind(2, borrowed: id)
            stored = try find(f)
        } else if let lid = p.lid {
            let f = fixed.findScoped
            f.bind(1, document)
            f.bind(2, borrowed: p.type)
            f.bind(3, borrowed: lid)
            stored = try find(f)
        }
        var key: Int64?
        switch stored {
        case .new: break
        case .unchanged:
            run.summary.unchanged += 1
            return
        case .changed(let k): key = k
        }
        let exists = key != nil
        let isPrimary = Int64(p.isPrimary ? 1 : 0)
        if let key {
            let u = fixed.updateResource
            u.bind(1, borrowed: p.lid)
            u.bind(2, document)
            u.bind(3, isPrimary)
            u.bind(4, borrowed: UnsafeRawBufferPointer(run.hash))
            u.bind(5, run.loadedAt)
            u.bind(6, key)
            try u.run()
        } else {
            let s = fixed.insertResource
            s.bind(1, borrowed: p.type)
            s.bind(2, borrowed: p.id)
            s.bind(3, borrowed: p.lid)
            s.bind(4, document)
            s.bind(5, isPrimary)
            s.bind(6, borrowed: UnsafeRawBufferPointer(run.hash))
            s.bind(7, run.loadedAt)
            try s.run()
            key = db.lastInsertRowID
        }
        try writeRow(p, t, key: key!, exists: exists)
        try writeRelationships(p, key: key!, exists: exists)
        run.summary.written += 1
    }

    /// What `_resources` has of the resource being written.
    enum Stored {
        case new
        /// Stored with the same content hash: nothing to write.
        case unchanged
        /// Stored under this key with other content.
        case changed(Int64)
    }

    /// Runs a lookup of `_resources` (`key`, `hash`) and compares the hash.
    private func find(_ f: SQLiteStatement) throws(JSONAPIError) -> Stored {
        defer { f.reset() }
        guard try f.step() else { return .new }
        let same = f.bytes(1).map { memoryEqual($0, UnsafeRawBufferPointer(run.hash)) } ?? false
        return same ? .unchanged : .changed(f.int64(0))
    }

    // MARK: - The row

    private func writeRow(_ p: ResourceParts, _ t: LoadTable, key: Int64, exists: Bool) throws(JSONAPIError) {
        let attributes = p.attributes ?? UnsafeRawBufferPointer(start: nil, count: 0)
        var cells: [Cell] = []
        var widenings: [(column: Int, kinds: ValueKinds)] = []
        let otherMembers = try readAttributes(p, t) { column, name, value, kinds in
            if column >= 0 {
                let now = t.columns[column].kinds.union(kinds)
                if now.columnType != t.columns[column].type {
                    if let k = widenings.firstIndex(where: { $0.column == column }) {
                        widenings[k].kinds.formUnion(kinds)
                    } else {
                        widenings.append((column, now))
                    }
                } else {
                    catalog.noteKinds(t, column, kinds)
                }
            }
            cells.append(Cell(column: column, name: name, value: value, isNull: kinds == .null))
        }
        if !widenings.isEmpty { try widen(t, widenings) }

        // What the new resource brings beside its attribute columns.
        var nulls: [String] = []
        var overflow: [String] = []
        for c in cells where c.column < 0 || c.isNull {
            let name = StoredJSON.decodeString(attributes, c.name)
            if c.column < 0 {
                overflow.append(
                    String(decoding: UnsafeRawBufferPointer(rebasing: attributes[c.name]), as: UTF8.self)
                        + ":" + String(decoding: UnsafeRawBufferPointer(rebasing: attributes[c.value]), as: UTF8.self))
            } else {
                nulls.append(name)
            }
        }
        func objectText(_ members: [String]) -> String? { members.isEmpty ? nil : "{" + members.joined(separator: ",") + "}" }
        func text(_ bytes: UnsafeRawBufferPointer?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }
        let m = try MergedMembers(
            old: exists ? try oldRow(t, key) : nil, links: text(p.links), meta: text(p.meta), other: objectText(otherMembers),
            overflow: objectText(overflow), nulls: nulls, names: cells.map { Array(StoredJSON.decodeString(attributes, $0.name).utf8) },
            columns: cells.map(\.column), table: t, newWins: run.options.onDuplicate != .first)
        let keptColumns = m.keptColumns
        // The resource's own links and meta are bound from its bytes; only a merge makes text.
        var fixedValues: [(role: ColumnRole, value: FixedValue)] = []
        if let lid = p.lid { fixedValues.append((.lid, .borrowed(lid))) }
        if let links = m.links.map({ $0.map(FixedValue.text) }) ?? p.links.map(FixedValue.borrowed) { fixedValues.append((.links, links)) }
        if let meta = m.meta.map({ $0.map(FixedValue.text) }) ?? p.meta.map(FixedValue.borrowed) { fixedValues.append((.meta, meta)) }
        if let other = m.other { fixedValues.append((.other, .text(other))) }
        if let overflow = m.overflow { fixedValues.append((.overflow, .text(overflow))) }
        if m.writeNulls { fixedValues.append((.nulls, .text(m.nullsText))) }

        // The statement for this set of columns.
        var signature: [Int32] = []
        for f in fixedValues { signature.append(Int32(try ensureColumn(t, f.role))) }
        let written = cells.filter { $0.column >= 0 && !keptColumns.contains($0.column) }
        signature += written.map { Int32($0.column) }
        let s = try upsert(t, signature)
        s.bind(1, key)
        s.bind(2, borrowed: p.id)
        var k: Int32 = 3
        for f in fixedValues {
            switch f.value {
            case .borrowed(let bytes): s.bind(k, borrowed: bytes)
            case .text(let text): s.bind(k, text)
            }
            k += 1
        }
        for c in written {
            bind(s, k, UnsafeRawBufferPointer(rebasing: attributes[c.value]), as: t.columns[c.column].type)
            k += 1
        }
        try s.run()
    }

    /// A value of a row's fixed columns: the resource's own bytes (valid during the call), or
    /// text the loader made (a merge, `_nulls`, `_other`, `_overflow`).
    enum FixedValue {
        case borrowed(UnsafeRawBufferPointer)
        case text(String?)
    }

    /// The upsert of a row's key, id and the columns of a signature (column numbers).
    private func upsert(_ t: LoadTable, _ signature: [Int32]) throws(JSONAPIError) -> SQLiteStatement {
        if let s = t.upserts[signature] { return s }
        if t.upserts.count >= 256 { t.upserts.removeAll() }
        var names = [quoted(ColumnRole.key.rawValue), "\"id\""]
        for c in signature { names.append(quoted(t.columns[Int(c)].name)) }
        let updates = names.dropFirst(2).map { "\($0) = excluded.\($0)" }
        let action = updates.isEmpty ? "DO NOTHING" : "DO UPDATE SET " + updates.joined(separator: ", ")
        let sql = "INSERT INTO \(quoted(t.name)) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", "))) ON CONFLICT (\(names[0])) \(action)"
        let s = try db.prepare(sql)
        t.upserts[signature] = s
        return s
    }

    /// Binds a stored JSON value as its column's type holds it.
    private func bind(_ s: SQLiteStatement, _ k: Int32, _ v: UnsafeRawBufferPointer, as type: ColumnType) {
        if v[0] == UInt8(ascii: "n") { return s.bindNull(k) }
        switch type {
        case .string:
            var text = ByteArena(capacity: v.count)
            StoredJSON.appendUnescaped(UnsafeRawBufferPointer(rebasing: v[1..<v.count - 1]), to: &text)
            text.withBytes { s.bind(k, text: $0) }
        case .integer:
            s.bind(k, Self.int64(v))
        case .double:
            s.bind(k, Self.double(v))
        case .boolean:
            s.bind(k, Int64(v[0] == UInt8(ascii: "t") ? 1 : 0))
        case .decimal, .json:
            s.bind(k, borrowed: v)
        }
    }

    /// The kind of a value as a column stores it: that of the tables (``ValueKinds``), but a
    /// negative zero is a decimal, since neither an SQLite INTEGER nor REAL keeps its sign.
    static func kinds(of v: UnsafeRawBufferPointer) -> ValueKinds {
        let k = ValueKinds.of(v)
        guard k == .integer || k == .double, v[0] == UInt8(ascii: "-") else { return k }
        for c in v.dropFirst() {
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
            if c != UInt8(ascii: "0") && c != UInt8(ascii: ".") { return k }
        }
        return .decimal
    }

    /// The bytes of a static string (which lives as long as the program).
    static func bytes(_ s: StaticString) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)
    }

    /// An integer literal a 64-bit integer holds (``ValueKinds/integer``).
    static func int64(_ v: UnsafeRawBufferPointer) -> Int64 {
        var n: Int64 = 0
        let negative = v[0] == UInt8(ascii: "-")
        for c in v.dropFirst(negative ? 1 : 0) { n = n &* 10 &- Int64(c &- 0x30) }
        return negative ? n : -n
    }

    /// A JSON number as a double (``ValueKinds/double``: one a double holds exactly).
    static func double(_ v: UnsafeRawBufferPointer) -> Double {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: v.count + 1) { buffer in
            for (i, c) in v.enumerated() { buffer[i] = CChar(bitPattern: c) }
            buffer[v.count] = 0
            return strtod(buffer.baseAddress!, nil)
        }
    }

    // MARK: - Merging with the stored row

    /// The stored row's mergeable members, when the table has any of them (or policy
    /// `first`, which needs to know which attributes the row has).
    private func oldRow(_ t: LoadTable, _ key: Int64) throws(JSONAPIError) -> OldRow? {
        let first = run.options.onDuplicate == .first
        guard let selection = OldRow.selection(t, first: first) else { return nil }
        let s: SQLiteStatement
        if let cached = t.oldRowStatement {
            s = cached
        } else {
            s = try db.prepare("SELECT \(selection.list) FROM \(quoted(t.name)) WHERE \(quoted(ColumnRole.key.rawValue)) = ?")
            t.oldRowStatement = s
        }
        defer { s.reset() }
        s.bind(1, key)
        guard try s.step() else { return nil }
        return try OldRow(t, attributeColumns: selection.attributeColumns, first: first, text: { s.text(Int32($0)) }, isSet: { s.int64(Int32($0)) != 0 })
    }

    // MARK: - Relationships and linkage

    private func writeRelationships(_ p: ResourceParts, key: Int64, exists: Bool) throws(JSONAPIError) {
        guard !p.relationships.isEmpty else { return }
        let document = run.documentKey!
        for rel in p.relationships {
            let keep = exists && run.options.onDuplicate == .first
            let s = keep ? fixed.keepRelationship : fixed.upsertRelationship
            s.bind(1, key)
            s.bind(2, borrowed: p.type)
            s.bind(3, borrowed: p.id)
            s.bind(4, borrowed: p.lid)
            s.bind(5, borrowed: rel.name)
            s.bind(6, borrowed: Self.bytes(rel.kind.shapeWord(count: rel.targets.count)))
            s.bind(7, Int64(rel.targets.count))
            s.bind(8, borrowed: rel.links)
            s.bind(9, borrowed: rel.meta)
            s.bind(10, membersText(p, rel.extras))
            s.bind(11, document)
            try s.run()
            if keep && db.changes == 0 { continue }
            if exists {
                // The stored linkage of this relationship is replaced whole.
                let d = fixed.deleteEdges
                d.bind(1, key)
                d.bind(2, borrowed: rel.name)
                try d.run()
            }
            // Up to 8 edges per statement: one statement run costs about as much as a row.
            var position = 0
            while position < rel.targets.count {
                let n = min(8, rel.targets.count - position)
                let e = try fixed.insertEdges(n, db)
                var k: Int32 = 1
                for j in 0..<n {
                    let target = p.identifiers[rel.targets.lowerBound + position + j]
                    e.bind(k, key)
                    e.bind(k + 1, borrowed: p.type)
                    e.bind(k + 2, borrowed: p.id)
                    e.bind(k + 3, borrowed: p.lid)
                    e.bind(k + 4, borrowed: rel.name)
                    e.bind(k + 5, Int64(position + j))
                    e.bind(k + 6, borrowed: target.type)
                    e.bind(k + 7, borrowed: target.id)
                    e.bind(k + 8, borrowed: target.lid)
                    e.bind(k + 9, borrowed: target.meta)
                    e.bind(k + 10, membersText(p, target.extras))
                    e.bind(k + 11, document)
                    k += 12
                }
                try e.run()
                position += n
            }
            run.summary.edges += rel.targets.count
        }
    }
}
