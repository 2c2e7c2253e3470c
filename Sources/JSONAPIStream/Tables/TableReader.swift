import Foundation

/// A directory that ``TableSplitter`` wrote, read back (`jsonapi denormalize DIR`): its
/// `_schema.json`, and each table's rows as JSON values, one per column, undoing what the
/// table form did to them (JSON text parsed again, numbers written as strings made numbers
/// again, CSV cells typed by their column).
struct TableDirectory {
    struct Table {
        var type: String?
        var file: String
        var columns: [(name: String, type: ColumnType)]
    }

    let path: String
    let format: TableFormat
    let numbers: NumberPolicy
    let types: [Table]
    let fixed: [String: Table]

    init(path: String) throws(JSONAPIError) {
        self.path = path
        let schemaPath = path + "/_schema.json"
        let schema = try JSONValue(parsing: Self.contents(of: schemaPath))
        func bad(_ what: String) -> JSONAPIError {
            .input("\(schemaPath) is not a table schema written by normalize --split-by-type: \(what)")
        }
        guard let f = schema["format"]?.stringValue, let format = TableFormat(rawValue: f) else { throw bad("no known \"format\"") }
        guard let n = schema["numbers"]?.stringValue, let numbers = NumberPolicy(rawValue: n) else { throw bad("no known \"numbers\"") }
        func tables(_ key: String) throws(JSONAPIError) -> [Table] {
            guard case .array(let list)? = schema[key] else { throw bad("no \"\(key)\" list") }
            var out: [Table] = []
            for t in list {
                guard let file = t["file"]?.stringValue, !file.contains("/"), case .array(let cols)? = t["columns"] else {
                    throw bad("a table without \"file\" or \"columns\"")
                }
                var columns: [(String, ColumnType)] = []
                for c in cols {
                    guard let name = c["name"]?.stringValue, let type = c["type"]?.stringValue.flatMap(ColumnType.init(rawValue:)) else {
                        throw bad("a column of \(file) without a known \"name\" and \"type\"")
                    }
                    columns.append((name, type))
                }
                out.append(Table(type: key == "types" ? t["type"]?.stringValue : t["table"]?.stringValue, file: file, columns: columns))
            }
            return out
        }
        self.format = format
        self.numbers = numbers
        types = try tables("types")
        var fixed: [String: Table] = [:]
        for t in try tables("tables") { if let name = t.type { fixed[name] = t } }
        for name in ["_documents", "_relationships", "_edges"] where fixed[name] == nil { throw bad("no \(name) table") }
        self.fixed = fixed
    }

    /// The bytes of the file at `path`, read as every input is (``InputSource``; Foundation's
    /// `FileManager.contents(atPath:)` leaks a buffer per call, as LeakSanitizer shows).
    static func contents(of path: String) throws(JSONAPIError) -> [UInt8] {
        var bytes: [UInt8] = []
        try InputSource(path: path).read(chunkSize: 1 << 20) { (chunk) throws(JSONAPIError) in bytes.append(contentsOf: chunk) }
        return bytes
    }

    /// The rows of `table`: for each, one value per column; nil where the cell is null (a
    /// JSON-text cell holding `null` is `.null`: a member that was there with the value null).
    func rows(of table: Table) throws(JSONAPIError) -> [[JSONValue?]] {
        var rows: [[JSONValue?]] = []
        try forEachRow(of: table) { (_, row) throws(JSONAPIError) in rows.append(row) }
        return rows
    }

    /// Calls `body` with each row of `table` (its number from 1, and one value per column, as
    /// ``rows(of:)`` gives them) as the file is read: an NDJSON table a read at a time, so
    /// that no more than a read's rows are held at once.
    func forEachRow(of table: Table, _ body: (Int, [JSONValue?]) throws(JSONAPIError) -> Void) throws(JSONAPIError) {
        let file = path + "/" + table.file
        func bad(_ row: Int, _ what: String) -> JSONAPIError {
            .input("\(file), row \(row): \(what) (not a table written by normalize --split-by-type)")
        }
        switch format {
        case .ndjson:
            var options = ParseOptions()
            options.duplicateMembers = .allowInValues
            options.multipleDocuments = true
            let builder = JSONValueReceiver(options: options)
            let parser = JSONStreamParser(outlet: builder, options: options)
            var k = 0
            func take() throws(JSONAPIError) {
                for v in builder.takeValues() {
                    k += 1
                    guard case .object(let o) = v, o.members.count == table.columns.count else { throw bad(k, "not an object with one member per column") }
                    var row: [JSONValue?] = []
                    row.reserveCapacity(table.columns.count)
                    for (c, column) in table.columns.enumerated() {
                        guard o.members[c].key == column.name else { throw bad(k, "member \(c + 1) is not \(quoted(column.name))") }
                        row.append(try value(o.members[c].value, column.type, file, k))
                    }
                    try body(k, row)
                }
            }
            var fed = 0
            do {
                try InputSource(path: file).read(chunkSize: 1 << 20) { (chunk) throws(JSONAPIError) in
                    fed += chunk.count
                    try parser.feed(chunk)
                    try take()
                }
                // An empty table file has no rows (not a missing value).
                if fed > 0 { try parser.finish() }
            } catch {
                throw error.withSourceIfMissing(file)
            }
            try take()
        case .csv:
            var reader = CSVReader(try Self.contents(of: file))
            guard let header = try reader.next(file) else { throw JSONAPIError.input("\(file) has no header line") }
            guard header.map(\.text) == table.columns.map(\.name) else { throw bad(0, "the header does not name the schema's columns") }
            var k = 0
            while let cells = try reader.next(file) {
                k += 1
                guard cells.count == table.columns.count else { throw bad(k, "\(cells.count) cells for \(table.columns.count) columns") }
                var row: [JSONValue?] = []
                row.reserveCapacity(table.columns.count)
                for (cell, column) in zip(cells, table.columns) {
                    row.append(try value(csv: cell, column.type, file, k))
                }
                try body(k, row)
            }
        }
    }

    /// A value of an NDJSON row as the resource had it.
    private func value(_ v: JSONValue, _ type: ColumnType, _ file: String, _ row: Int) throws(JSONAPIError) -> JSONValue? {
        if v == .null { return nil }
        switch type {
        case .json:
            guard case .string(let text) = v else { return v }
            return try parseText(text, file, row)
        case .decimal:
            guard case .string(let text) = v else { return v }
            guard let n = JSONNumber(text) else { throw JSONAPIError.input("\(file), row \(row): \(quoted(text)) is not a number") }
            return .number(n)
        default:
            return v
        }
    }

    /// A CSV cell as the resource had it.
    private func value(csv cell: CSVReader.Cell, _ type: ColumnType, _ file: String, _ row: Int) throws(JSONAPIError) -> JSONValue? {
        if cell.text.isEmpty && !cell.quoted { return nil }
        switch type {
        case .string: return .string(cell.text)
        case .boolean:
            if cell.text == "true" { return .bool(true) }
            if cell.text == "false" { return .bool(false) }
        case .integer, .double, .decimal:
            if let n = JSONNumber(cell.text) { return .number(n) }
        case .json:
            return try parseText(cell.text, file, row)
        }
        throw JSONAPIError.input("\(file), row \(row): \(quoted(cell.text)) is not a \(type.rawValue)")
    }

    private func parseText(_ text: String, _ file: String, _ row: Int) throws(JSONAPIError) -> JSONValue {
        var options = ParseOptions()
        options.duplicateMembers = .allowInValues
        do { return try JSONValue(parsing: Array(text.utf8), options: options) } catch {
            throw JSONAPIError.input("\(file), row \(row): a JSON text column holds no JSON: \(error.description)")
        }
    }
}

/// RFC 4180 records: cells separated by commas, records by LF or CRLF, a quoted cell's
/// quotes doubled. Keeps whether a cell was quoted (an empty quoted cell is an empty
/// string; an empty unquoted one, null).
struct CSVReader {
    struct Cell {
        var text: String
        var quoted: Bool
    }

    private let bytes: [UInt8]
    private var at = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The next record, or nil at the end.
    mutating func next(_ file: String) throws(JSONAPIError) -> [Cell]? {
        guard at < bytes.count else { return nil }
        var cells: [Cell] = []
        var text: [UInt8] = []
        while true {
            text.removeAll(keepingCapacity: true)
            var quoted = false
            if at < bytes.count && bytes[at] == UInt8(ascii: "\"") {
                quoted = true
                at += 1
                while true {
                    guard at < bytes.count else { throw JSONAPIError.input("\(file): a quoted CSV cell is not closed") }
                    let c = bytes[at]
                    at += 1
                    if c == UInt8(ascii: "\"") {
                        if at < bytes.count && bytes[at] == UInt8(ascii: "\"") {
                            text.append(c)
                            at += 1
                            continue
                        }
                        break
                    }
                    text.append(c)
                }
            } else {
                while at < bytes.count, bytes[at] != UInt8(ascii: ","), bytes[at] != 0x0A, bytes[at] != 0x0D {
                    text.append(bytes[at])
                    at += 1
                }
            }
            cells.append(Cell(text: String(decoding: text, as: UTF8.self), quoted: quoted))
            if at < bytes.count && bytes[at] == UInt8(ascii: ",") {
                at += 1
                continue
            }
            if at < bytes.count && bytes[at] == 0x0D { at += 1 }
            if at < bytes.count && bytes[at] == 0x0A { at += 1 }
            return cells
        }
    }
}
