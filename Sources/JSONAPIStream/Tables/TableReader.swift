#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
            // Read as the file is, a read at a time: only the row being read is held.
            var reader = CSVReader(file: file)
            var k = 0
            var header = false
            func take(_ cells: [CSVReader.Cell]) throws(JSONAPIError) {
                guard header else {
                    guard cells.map(\.text) == table.columns.map(\.name) else { throw bad(0, "the header does not name the schema's columns") }
                    header = true
                    return
                }
                k += 1
                guard cells.count == table.columns.count else { throw bad(k, "\(cells.count) cells for \(table.columns.count) columns") }
                var row: [JSONValue?] = []
                row.reserveCapacity(table.columns.count)
                for (cell, column) in zip(cells, table.columns) {
                    row.append(try value(csv: cell, column.type, file, k))
                }
                try body(k, row)
            }
            try InputSource(path: file).read(chunkSize: 1 << 20) { (chunk) throws(JSONAPIError) in
                try reader.feed(chunk, record: take)
            }
            try reader.finish(record: take)
            guard header else { throw JSONAPIError.input("\(file) has no header line") }
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

/// RFC 4180 records, read as the file is, a read at a time: cells separated by commas, records
/// by LF, CRLF or CR, a quoted cell's quotes doubled, line ends inside quoted cells kept. Only
/// the record being read is held, so a table of any size takes the memory of its longest row.
/// Keeps whether a cell was quoted (an empty quoted cell is an empty string; an empty unquoted
/// one, null). A blank line is a record of one empty cell; the file's last line end ends the
/// last record, not an empty one.
struct CSVReader: ~Copyable {
    struct Cell {
        var text: String
        var quoted: Bool
    }

    private enum State {
        /// At the start of a cell (of a record, when `inRecord` is false).
        case cellStart
        case unquoted
        case quoted
        /// A quote inside a quoted cell: doubled, or the cell's end.
        case quoteInQuoted
        /// After a quoted cell's closing quote: a comma or a line end must follow.
        case afterQuoted
        /// After a carriage return that ended a record: a line feed there belongs to it.
        case afterCarriageReturn
    }

    private let file: String
    private var state = State.cellStart
    private var inRecord = false
    private var cells: [Cell] = []
    private var text = ByteArena(capacity: 256)
    private var cellQuoted = false
    /// The line being read (from 1), and the line the open quoted cell started on.
    private var line = 1
    private var quoteLine = 1

    init(file: String) { self.file = file }

    private static let quote: UInt8 = 0x22
    private static let comma: UInt8 = 0x2C

    /// Reads `bytes`, the file's next ones, calling `record` with each record they complete.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, record: ([Cell]) throws(JSONAPIError) -> Void) throws(JSONAPIError) {
        // The loop works on locals, put back when it ends however it ends.
        var state = self.state
        var text = ByteArena(capacity: 16)
        swap(&text, &self.text)
        var cells: [Cell] = []
        swap(&cells, &self.cells)
        var line = self.line
        var cellQuoted = self.cellQuoted
        defer {
            self.state = state
            swap(&text, &self.text)
            swap(&cells, &self.cells)
            self.line = line
            self.cellQuoted = cellQuoted
        }
        var i = 0
        let n = bytes.count
        while i < n {
            let c = bytes[i]
            switch state {
            case .afterCarriageReturn:
                state = .cellStart
                if c == 0x0A { i += 1 }
            case .cellStart:
                inRecord = true
                if c == Self.quote {
                    cellQuoted = true
                    quoteLine = line
                    state = .quoted
                    i += 1
                } else {
                    cellQuoted = false
                    state = .unquoted
                }
            case .unquoted:
                // The cell's bytes up to a comma or a line end, as one run.
                var j = i
                while j < n {
                    let d = bytes[j]
                    if d == Self.comma || d == 0x0A || d == 0x0D { break }
                    j += 1
                }
                text.append(UnsafeRawBufferPointer(rebasing: bytes[i..<j]))
                if j < n, let done = Self.endCell(bytes[j], &text, &cells, &cellQuoted, &state, &line) {
                    inRecord = false
                    try record(done)
                }
                i = j + 1
            case .quoted:
                var j = i
                while j < n {
                    let d = bytes[j]
                    if d == Self.quote { break }
                    if d == 0x0A { line += 1 }
                    j += 1
                }
                text.append(UnsafeRawBufferPointer(rebasing: bytes[i..<j]))
                if j < n { state = .quoteInQuoted }
                i = j + 1
            case .quoteInQuoted:
                if c == Self.quote {
                    text.append(c)
                    state = .quoted
                    i += 1
                } else {
                    state = .afterQuoted
                }
            case .afterQuoted:
                guard c == Self.comma || c == 0x0A || c == 0x0D else {
                    throw JSONAPIError.input("\(file), line \(line): \(Self.describe(c)) after a quoted CSV cell, where a comma or a line end belongs")
                }
                if let done = Self.endCell(c, &text, &cells, &cellQuoted, &state, &line) {
                    inRecord = false
                    try record(done)
                }
                i += 1
            }
        }
    }

    /// Ends the file: the last record, when it has no line end.
    mutating func finish(record: ([Cell]) throws(JSONAPIError) -> Void) throws(JSONAPIError) {
        switch state {
        case .quoted:
            throw JSONAPIError.input("\(file), line \(quoteLine): a quoted CSV cell is not closed at the end of the file")
        case .unquoted, .quoteInQuoted, .afterQuoted, .cellStart:
            // (At a cell's start only after a comma: the record's last cell is empty.)
            guard inRecord else { return }
            inRecord = false
            if let done = Self.endCell(0x0A, &text, &cells, &cellQuoted, &state, &line) { try record(done) }
        case .afterCarriageReturn:
            break
        }
    }

    /// A comma or a line end (`c`) after a cell: the cell ends, and at a line end the record,
    /// whose cells are returned.
    @inline(__always)
    private static func endCell(
        _ c: UInt8, _ text: inout ByteArena, _ cells: inout [Cell], _ cellQuoted: inout Bool, _ state: inout State, _ line: inout Int
    ) -> [Cell]? {
        cells.append(Cell(text: text.string(0..<text.count), quoted: cellQuoted))
        text.removeAll()
        cellQuoted = false
        state = .cellStart
        guard c != comma else { return nil }
        if c == 0x0D { state = .afterCarriageReturn }
        line += 1
        let done = cells
        cells.removeAll(keepingCapacity: true)
        return done
    }

    private static func describe(_ c: UInt8) -> String {
        c >= 0x20 && c < 0x7F ? quoted(String(UnicodeScalar(c))) : "byte 0x" + (c < 0x10 ? "0" : "") + String(c, radix: 16, uppercase: true)
    }
}
