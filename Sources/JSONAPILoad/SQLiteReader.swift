import JSONAPIStream

#if canImport(Glibc)
import Glibc
#endif

/// Reads a database that ``SQLiteLoader`` wrote back as resources and documents (what
/// `jsonapi denormalize DB` turns into one compound document).
public enum SQLiteReader {
    /// The first 16 bytes of every SQLite database file.
    public static func isSQLiteFile(_ path: String) -> Bool {
        // Only a regular file is looked at: opening a FIFO (or a shell's `<(...)`) would
        // wait for a writer, and the bytes read would be gone from the input.
        guard InputSource.regularFileSize(path) != nil else { return false }
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 16)
        let n = header.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 16) }
        return n == 16 && header == Array("SQLite format 3\0".utf8)
    }

    /// Feeds every resource of the database, then every document's top level, to
    /// `denormalizer`. Resources come table by table in the order they were first loaded;
    /// attributes in their table's column order, each number with its value (a double
    /// column's integers come back as doubles of the same value).
    public static func read(database path: String, into denormalizer: Denormalizer) throws(JSONAPIError) {
        let db = try SQLiteConnection(path: path, readOnly: true)
        guard try !db.rows(#"SELECT 1 FROM "sqlite_schema" WHERE "name" = '_tables'"#).isEmpty else {
            throw JSONAPIError.input("database \(path): not a database written by jsonapi load (no _tables)")
        }
        let relationships = try db.prepare(
            #"""
            SELECT "name", "data", "links", "meta", "other" FROM "_relationships" WHERE "resource" = ? ORDER BY rowid
            """#)
        let edges = try db.prepare(
            #"""
            SELECT "to_type", "to_id", "to_lid", "meta", "other" FROM "_edges" WHERE "resource" = ? AND "name" = ? ORDER BY "position"
            """#)
        for row in try db.rows(#"SELECT "type", "table" FROM "_tables" ORDER BY rowid"#) {
            guard let type = row[0], let table = row[1] else { continue }
            var columns: [(name: String, role: ColumnRole, type: ColumnType)] = []
            for c in try db.rows(#"SELECT "column", "role", "type" FROM "_columns" WHERE "table" = ? ORDER BY "position""#, [table]) {
                guard let n = c[0], let role = c[1].flatMap(ColumnRole.init(rawValue:)), let t = c[2].flatMap(ColumnType.init(rawValue:)) else {
                    throw JSONAPIError.input("database \(path): _columns has a row that is not this program's (table \(table))")
                }
                columns.append((n, role, t))
            }
            let s = try db.prepare("SELECT \(columns.map { quoted($0.name) }.joined(separator: ", ")) FROM \(quoted(table)) ORDER BY rowid")
            while try s.step() {
                var cells: [ColumnRole: JSONValue] = [:]
                var id: String?, lid: String?, key: Int64 = 0
                var values: [(String, JSONValue?)] = []
                for (k, c) in columns.enumerated() {
                    let i = Int32(k)
                    switch c.role {
                    case .id: id = s.text(i)
                    case .lid: lid = s.text(i)
                    case .key: key = s.int64(i)
                    case .attribute: values.append((c.name, try value(s, i, c.type, path)))
                    default: if !s.isNull(i) { cells[c.role] = try json(s, i, path) }
                    }
                }
                var related = JSONObject()
                relationships.bind(1, key)
                while try relationships.step() {
                    let name = relationships.text(0) ?? ""
                    edges.bind(1, key)
                    edges.bind(2, name)
                    var targets: [JSONValue] = []
                    while try edges.step() {
                        targets.append(
                            StoredGraph.identifier(
                                type: edges.text(0) ?? "", id: edges.text(1), lid: edges.text(2),
                                meta: try optionalJSON(edges, 3, path), other: try optionalJSON(edges, 4, path)))
                    }
                    edges.reset()
                    let object = StoredGraph.relationship(
                        data: relationships.text(1), targets: targets, links: try optionalJSON(relationships, 2, path),
                        meta: try optionalJSON(relationships, 3, path),
                        other: try optionalJSON(relationships, 4, path))
                    related.append(name, .object(object))
                }
                relationships.reset()
                let resource = StoredGraph.resource(type: type, id: id, lid: lid, attributes: values, cells: cells, relationships: related)
                try denormalizer.acceptResource(resource)
            }
        }
        let documents = try db.prepare(
            #"""
            SELECT "data", "primary", "meta", "links", "jsonapi", "errors", "other" FROM "_documents" ORDER BY "key"
            """#)
        while try documents.step() {
            var members: [JSONValue?] = []
            for k in 1...6 { members.append(try optionalJSON(documents, Int32(k), path)) }
            let top = StoredGraph.document(data: documents.text(0), members: members)
            try denormalizer.acceptDocumentLine(top)
        }
    }

    /// A JSON text column, nil for NULL.
    private static func optionalJSON(_ s: SQLiteStatement, _ i: Int32, _ path: String) throws(JSONAPIError) -> JSONValue? {
        s.isNull(i) ? JSONValue?.none : try json(s, i, path)
    }

    /// A JSON text column.
    private static func json(_ s: SQLiteStatement, _ i: Int32, _ path: String) throws(JSONAPIError) -> JSONValue {
        guard let bytes = s.bytes(i) else { return .null }
        do throws(JSONAPIError) { return try JSONValue(parsingStoredValue: bytes, options: valueOptions) } catch {
            throw JSONAPIError.input("database \(path): a JSON column holds text that is not JSON: \(error)")
        }
    }

    /// An attribute cell as its column's type stores it (nil for NULL).
    private static func value(_ s: SQLiteStatement, _ i: Int32, _ type: ColumnType, _ path: String) throws(JSONAPIError) -> JSONValue? {
        switch s.storage(i) {
        case .null: return nil
        case .integer:
            let v = s.int64(i)
            return type == .boolean ? .bool(v != 0) : .number(JSONNumber(v))
        case .real:
            let d = s.double(i)
            guard d.isFinite else { throw JSONAPIError.input("database \(path): a column holds \(d), which JSON has no number for") }
            return .number(JSONNumber(d))
        case .text, .blob:
            switch type {
            case .string: return .string(s.text(i) ?? "")
            case .json: return try json(s, i, path)
            default:
                guard let n = JSONNumber(s.text(i) ?? "") else {
                    throw JSONAPIError.input("database \(path): a \(type.rawValue) column holds \(s.text(i) ?? ""), which is not a JSON number")
                }
                return .number(n)
            }
        }
    }
}

/// Builds resources and documents back from what the loaders store (shared by the SQLite
/// and PostgreSQL readers).
enum StoredGraph {
    /// A resource object: `type`, `id`, `lid`, `attributes` (columns in order; a NULL cell is
    /// an attribute only when `_nulls` names it; `_overflow` after them), `relationships`,
    /// `links`, `meta`, and the members `_other` kept.
    static func resource(
        type: String, id: String?, lid: String?, attributes values: [(String, JSONValue?)], cells: [ColumnRole: JSONValue],
        relationships: JSONObject
    ) -> JSONObject {
        var resource = JSONObject()
        resource.append("type", .string(type))
        if let id { resource.append("id", .string(id)) }
        if let lid { resource.append("lid", .string(lid)) }
        var attributes = JSONObject()
        let nulls = Set(cells[.nulls]?.arrayValue?.compactMap { $0.stringValue.map { Array($0.utf8) } } ?? [])
        for (name, v) in values {
            if let v { attributes.append(name, v) } else if nulls.contains(Array(name.utf8)) { attributes.append(name, .null) }
        }
        if case .object(let more)? = cells[.overflow] { for m in more.members { attributes.append(m.key, m.value) } }
        let other = cells[.other]?.objectValue ?? JSONObject()
        resource.append("attributes", other["attributes"] ?? .object(attributes))
        resource.append("relationships", .object(relationships))
        if let links = cells[.links] { resource.append("links", links) }
        if let meta = cells[.meta] { resource.append("meta", meta) }
        for m in other.members where m.key != "attributes" { resource.append(m.key, m.value) }
        return resource
    }

    /// A relationship object from its `data` shape word, its linkage and members.
    static func relationship(data: String?, targets: [JSONValue], links: JSONValue?, meta: JSONValue?, other: JSONValue?) -> JSONObject {
        var object = JSONObject()
        switch data {
        case "null": object.append("data", .null)
        case "one": object.append("data", targets.first ?? .null)
        case "many", "empty": object.append("data", .array(targets))
        default: break
        }
        if let links { object.append("links", links) }
        if let meta { object.append("meta", meta) }
        if case .object(let o)? = other { for m in o.members { object.append(m.key, m.value) } }
        return object
    }

    /// A resource identifier object.
    static func identifier(type: String, id: String?, lid: String?, meta: JSONValue?, other: JSONValue?) -> JSONValue {
        var identifier = JSONObject()
        identifier.append("type", .string(type))
        if let id { identifier.append("id", .string(id)) }
        if let lid { identifier.append("lid", .string(lid)) }
        if let meta { identifier.append("meta", meta) }
        if case .object(let o)? = other { for m in o.members { identifier.append(m.key, m.value) } }
        return .object(identifier)
    }

    /// A document's top level from `_documents`: the shape word, then primary, meta, links,
    /// jsonapi, errors, other (nil for NULL).
    static func document(data: String?, members: [JSONValue?]) -> JSONObject {
        var top = JSONObject()
        switch data {
        case "null": top.append("data", .null)
        case "one", "many", "empty": top.append("data", members[0] ?? .array([]))
        default: break
        }
        for (k, name) in ["meta", "links", "jsonapi", "errors"].enumerated() {
            if let v = members[k + 1] { top.append(name, v) }
        }
        if case .object(let o)? = members[5] { for m in o.members { top.append(m.key, m.value) } }
        return top
    }
}

/// Reads any query's rows from a database file, each cell as SQLite's text (NULL as nil):
/// for the package's tests and checks, not an API.
package enum SQLiteInspection {
    package static func rows(database path: String, _ sql: String) throws(JSONAPIError) -> [[String?]] {
        try SQLiteConnection(path: path, readOnly: true).rows(sql)
    }
}
