import JSONAPIStream

/// Reads a PostgreSQL database that ``PostgresLoader`` wrote back as resources and documents
/// (what `jsonapi denormalize postgres://…` turns into one compound document), a page of rows
/// at a time.
public enum PostgresReader {
    /// Rows read per query.
    static let page = 1000

    /// Feeds every resource, then every document's top level, to `denormalizer`, in the order
    /// of ``SQLiteReader/read(database:into:)``.
    public static func read(url: String, into denormalizer: Denormalizer) throws(JSONAPIError) {
        let db = try PostgresConnection(url: url)
        guard try db.rows(#"SELECT to_regclass('"_tables"') IS NOT NULL"#).first?.first == "t" else {
            throw JSONAPIError.input("database \(db.name): not a database written by jsonapi load (no _tables)")
        }
        // One snapshot for the whole read.
        try db.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        defer { try? db.execute("ROLLBACK") }
        for row in try db.rows(#"SELECT "type", "table" FROM "_tables" ORDER BY "key""#) {
            guard let type = row[0], let table = row[1] else { continue }
            var columns: [(name: String, role: ColumnRole, type: ColumnType)] = []
            for c in try db.rows(#"SELECT "column", "role", "type" FROM "_columns" WHERE "table" = $1 ORDER BY "position""#, [table]) {
                guard let n = c[0], let role = c[1].flatMap(ColumnRole.init(rawValue:)), let t = c[2].flatMap(ColumnType.init(rawValue:)) else {
                    throw JSONAPIError.input("database \(db.name): _columns has a row that is not this program's (table \(table))")
                }
                columns.append((n, role, t))
            }
            guard columns.contains(where: { $0.role == .key }) else { continue }
            let select =
                "SELECT \(columns.map { quoted($0.name) }.joined(separator: ", ")) FROM \(quoted(table)) "
                + "WHERE \(quoted(ColumnRole.key.rawValue)) > $1 ORDER BY \(quoted(ColumnRole.key.rawValue)) LIMIT \(page)"
            var last: Int64 = -1 << 62
            while true {
                var rows: [(key: Int64, id: String?, lid: String?, values: [(String, JSONValue?)], cells: [ColumnRole: JSONValue])] = []
                try PostgresConnection.withByteArrays([Array(String(last).utf8)]) { (p) throws(JSONAPIError) in
                    try db.query(select, p) { (r) throws(JSONAPIError) in
                        var cells: [ColumnRole: JSONValue] = [:]
                        var id: String?, lid: String?, key: Int64 = 0
                        var values: [(String, JSONValue?)] = []
                        for (k, c) in columns.enumerated() {
                            switch c.role {
                            case .id: id = r.text(k)
                            case .lid: lid = r.text(k)
                            case .key: key = r.int64(k)
                            case .attribute: values.append((c.name, try value(r, k, c.type, db.name)))
                            default: if let v = try json(r, k, db.name) { cells[c.role] = v }
                            }
                        }
                        rows.append((key, id, lid, values, cells))
                    }
                }
                guard let end = rows.last?.key else { break }
                let related = try relationships(db, keys: rows.map(\.key))
                for row in rows {
                    let resource = StoredGraph.resource(
                        type: type, id: row.id, lid: row.lid, attributes: row.values, cells: row.cells,
                        relationships: related[row.key] ?? JSONObject())
                    try denormalizer.acceptResource(resource)
                }
                last = end
                if rows.count < page { break }
            }
        }
        try db.query(
            #"""
            SELECT "data", "primary", "meta", "links", "jsonapi", "errors", "other" FROM "_documents" ORDER BY "key"
            """#, []
        ) { (r) throws(JSONAPIError) in
            var members: [JSONValue?] = []
            for k in 1...6 { members.append(try json(r, k, db.name)) }
            try denormalizer.acceptDocumentLine(StoredGraph.document(data: r.text(0), members: members))
        }
    }

    /// The relationships of a page of resources, by resource key, in the order they were
    /// first loaded, each with its linkage in position order.
    private static func relationships(_ db: PostgresConnection, keys: [Int64]) throws(JSONAPIError) -> [Int64: JSONObject] {
        let array = Array(("{" + keys.map(String.init).joined(separator: ",") + "}").utf8)
        var targets: [Int64: [[UInt8]: [JSONValue]]] = [:]
        var out: [Int64: JSONObject] = [:]
        try PostgresConnection.withByteArrays([array]) { (p) throws(JSONAPIError) in
            try db.query(
                #"""
                SELECT "resource", "name", "to_type", "to_id", "to_lid", "meta", "other" FROM "_edges" WHERE "resource" = ANY($1::bigint[])
                ORDER BY "resource", "position"
                """#, p
            ) { (r) throws(JSONAPIError) in
                let identifier = StoredGraph.identifier(
                    type: r.text(2) ?? "", id: r.text(3), lid: r.text(4), meta: try json(r, 5, db.name), other: try json(r, 6, db.name))
                targets[r.int64(0), default: [:]][Array(r.bytes(1) ?? UnsafeRawBufferPointer(start: nil, count: 0)), default: []].append(identifier)
            }
            try db.query(
                #"""
                SELECT "resource", "name", "data", "links", "meta", "other" FROM "_relationships" WHERE "resource" = ANY($1::bigint[])
                ORDER BY "resource", "key"
                """#, p
            ) { (r) throws(JSONAPIError) in
                let key = r.int64(0)
                let name = r.bytes(1) ?? UnsafeRawBufferPointer(start: nil, count: 0)
                let object = StoredGraph.relationship(
                    data: r.text(2), targets: targets[key]?[Array(name)] ?? [], links: try json(r, 3, db.name), meta: try json(r, 4, db.name),
                    other: try json(r, 5, db.name))
                out[key, default: JSONObject()].append(String(decoding: name, as: UTF8.self), .object(object))
            }
        }
        return out
    }

    /// A `json` cell (nil for NULL).
    private static func json(_ r: PostgresRow, _ k: Int, _ name: String) throws(JSONAPIError) -> JSONValue? {
        guard let bytes = r.bytes(k) else { return nil }
        do throws(JSONAPIError) { return try JSONValue(parsingStoredValue: bytes, options: valueOptions) } catch {
            throw JSONAPIError.input("database \(name): a json column holds text that is not JSON: \(error)")
        }
    }

    /// An attribute cell as its column's type stores it (nil for NULL): numbers from their
    /// text (`numeric` exactly; `double precision` in its shortest form, the same value).
    private static func value(_ r: PostgresRow, _ k: Int, _ type: ColumnType, _ name: String) throws(JSONAPIError) -> JSONValue? {
        guard let text = r.text(k) else { return nil }
        switch type {
        case .string: return .string(text)
        case .boolean: return .bool(text == "t")
        case .json: return try json(r, k, name)
        case .integer, .double, .decimal:
            guard let n = JSONNumber(text) else {
                throw JSONAPIError.input("database \(name): a \(type.rawValue) column holds \(text), which is not a JSON number")
            }
            return .number(n)
        }
    }
}
