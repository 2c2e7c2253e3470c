import JSONAPIStream

#if canImport(Glibc)
import Glibc
#endif

/// Reads a database that ``SQLiteLoader`` wrote back as resources and documents (what
/// `jsonapi denormalize DB` turns into one compound document).
public enum SQLiteReader {
    /// The first 16 bytes of every SQLite database file.
    public static func isSQLiteFile(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
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
        let relationships = try db.prepare(#"""
            SELECT "name", "data", "links", "meta", "other" FROM "_relationships" WHERE "resource" = ? ORDER BY rowid
            """#)
        let edges = try db.prepare(#"""
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
                var resource = JSONObject()
                resource.append("type", .string(type))
                var attributes = JSONObject()
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
                if let id { resource.append("id", .string(id)) }
                if let lid { resource.append("lid", .string(lid)) }
                let nulls = Set(cells[.nulls]?.arrayValue?.compactMap { $0.stringValue.map { Array($0.utf8) } } ?? [])
                for (name, v) in values {
                    if let v { attributes.append(name, v) } else if nulls.contains(Array(name.utf8)) { attributes.append(name, .null) }
                }
                if case .object(let more)? = cells[.overflow] { for m in more.members { attributes.append(m.key, m.value) } }
                let other = cells[.other]?.objectValue ?? JSONObject()
                resource.append("attributes", other["attributes"] ?? .object(attributes))
                var related = JSONObject()
                relationships.bind(1, key)
                while try relationships.step() {
                    let name = relationships.text(0) ?? ""
                    var object = JSONObject()
                    edges.bind(1, key)
                    edges.bind(2, name)
                    var targets: [JSONValue] = []
                    while try edges.step() {
                        var identifier = JSONObject()
                        identifier.append("type", .string(edges.text(0) ?? ""))
                        if let v = edges.text(1) { identifier.append("id", .string(v)) }
                        if let v = edges.text(2) { identifier.append("lid", .string(v)) }
                        if !edges.isNull(3) { identifier.append("meta", try json(edges, 3, path)) }
                        if case .object(let o) = edges.isNull(4) ? JSONValue.null : try json(edges, 4, path) {
                            for m in o.members { identifier.append(m.key, m.value) }
                        }
                        targets.append(.object(identifier))
                    }
                    edges.reset()
                    switch relationships.text(1) {
                    case "null": object.append("data", .null)
                    case "one": object.append("data", targets.first ?? .null)
                    case "many", "empty": object.append("data", .array(targets))
                    default: break
                    }
                    if !relationships.isNull(2) { object.append("links", try json(relationships, 2, path)) }
                    if !relationships.isNull(3) { object.append("meta", try json(relationships, 3, path)) }
                    if case .object(let o) = relationships.isNull(4) ? JSONValue.null : try json(relationships, 4, path) {
                        for m in o.members { object.append(m.key, m.value) }
                    }
                    related.append(name, .object(object))
                }
                relationships.reset()
                resource.append("relationships", .object(related))
                if let links = cells[.links] { resource.append("links", links) }
                if let meta = cells[.meta] { resource.append("meta", meta) }
                for m in other.members where m.key != "attributes" { resource.append(m.key, m.value) }
                try denormalizer.acceptResourceLine(resource)
            }
        }
        let documents = try db.prepare(#"""
            SELECT "data", "primary", "meta", "links", "jsonapi", "errors", "other" FROM "_documents" ORDER BY "key"
            """#)
        while try documents.step() {
            var top = JSONObject()
            switch documents.text(0) {
            case "null": top.append("data", .null)
            case "one", "many", "empty": top.append("data", documents.isNull(1) ? .array([]) : try json(documents, 1, path))
            default: break
            }
            for (k, name) in ["meta", "links", "jsonapi", "errors"].enumerated() where !documents.isNull(Int32(k + 2)) {
                top.append(name, try json(documents, Int32(k + 2), path))
            }
            if !documents.isNull(6), case .object(let o) = try json(documents, 6, path) {
                for m in o.members { top.append(m.key, m.value) }
            }
            try denormalizer.acceptDocumentLine(top)
        }
    }

    /// A JSON text column.
    private static func json(_ s: SQLiteStatement, _ i: Int32, _ path: String) throws(JSONAPIError) -> JSONValue {
        guard let bytes = s.bytes(i) else { return .null }
        do throws(JSONAPIError) { return try JSONValue(parsing: bytes, options: valueOptions) } catch {
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

/// Reads any query's rows from a database file, each cell as SQLite's text (NULL as nil):
/// for the package's tests and checks, not an API.
package enum SQLiteInspection {
    package static func rows(database path: String, _ sql: String) throws(JSONAPIError) -> [[String?]] {
        try SQLiteConnection(path: path, readOnly: true).rows(sql)
    }
}
