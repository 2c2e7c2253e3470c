/// How `normalize --split-by-type` writes each table.
public enum TableFormat: String, Sendable, Hashable, CaseIterable {
    /// One JSON object per row, every row with the same members in the same order.
    case ndjson
    /// A header line, then one line per row (RFC 4180 quoting; an empty cell is null).
    case csv

    var fileExtension: String { rawValue }
}

/// The type of a table column, as `_schema.json` declares it.
public enum ColumnType: String, Sendable, Hashable, CaseIterable {
    /// Text (also a column that only ever held null).
    case string
    /// Integers that a 64-bit integer and a double both hold exactly.
    case integer
    /// Numbers a double holds (integers among them are written with `.0` under
    /// `--numbers safe`, so that readers do not take the column for integers).
    case double
    /// Exact decimal numbers that a double would change, written as strings of their exact
    /// text under `--numbers safe` (as numbers under `exact`; in CSV always their text).
    case decimal
    case boolean
    /// JSON text: objects, arrays, and attributes whose values mix JSON types.
    case json
}

/// Writes the rows of one table, in NDJSON or CSV, to a ``ByteWriter``: each row is
/// ``begin()``, one value per column in the table's order, then ``end()``. Rows are only
/// appended to the writer's buffer: the caller ends the record (`endRecord()`, which may
/// write the buffer out) where all the rows of one resource or document are complete, so that
/// a resource that fails half-way can be taken back whole.
///
/// In NDJSON every row names every column (a value is `null` when the row has none); in CSV
/// the names go once into the header. Values come in four forms: text (unescaped bytes),
/// JSON strings as the value store holds them (minimally escaped, with quotes), JSON
/// literals (numbers, `true`, `false`), and JSON text written as a string (objects, arrays).
final class RowWriter {
    let format: TableFormat
    let out: ByteWriter
    /// NDJSON: `"name":null` for each column, one after the other; column `k`'s name is
    /// `nameBytes[nameStarts[k]..<nameStarts[k + 1] - 4]`, with `null` the rest.
    ///
    /// Unsafe: allocated in `init`, written there only, freed in `deinit`; read per cell
    /// without the reference counting an array of arrays costs.
    private let nameBytes: UnsafeMutableRawBufferPointer
    private let nameStarts: UnsafeMutableBufferPointer<Int>
    @exclusivity(unchecked) private var column = 0
    /// Rows written (not counting a CSV header).
    @exclusivity(unchecked) private(set) var rows = 0
    /// Unescaped text for CSV cells.
    @exclusivity(unchecked) private var text = ByteArena(capacity: 256)

    /// A writer for a table with these column names (UTF-8 text).
    init(format: TableFormat, out: ByteWriter, columns: [[UInt8]]) {
        self.format = format
        self.out = out
        var arena = ByteArena(capacity: 64)
        let starts = UnsafeMutableBufferPointer<Int>.allocate(capacity: columns.count + 1)
        for (k, name) in columns.enumerated() {
            starts[k] = arena.count
            name.withUnsafeBytes { JSONEscaping.appendQuoted($0, to: &arena) }
            arena.append(UInt8(ascii: ":"))
            arena.append("null")
        }
        starts[columns.count] = arena.count
        let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: max(arena.count, 1), alignment: 1)
        arena.withBytes { bytes.copyMemory(from: $0) }
        nameStarts = starts
        nameBytes = bytes
    }

    deinit {
        nameBytes.deallocate()
        nameStarts.deallocate()
    }

    /// CSV: the header line (NDJSON has none).
    func writeHeader(_ columns: [[UInt8]]) {
        guard format == .csv else { return }
        for (k, name) in columns.enumerated() {
            if k > 0 { out.write(byte: UInt8(ascii: ",")) }
            name.withUnsafeBytes { cell($0) }
        }
        out.write(byte: 0x0A)
    }

    func begin() {
        column = 0
        if format == .ndjson { out.write(byte: UInt8(ascii: "{")) }
    }

    /// The first `count` cells of the row again, as an earlier row (of a table whose first
    /// `count` columns have the same names) wrote them after its ``begin()``.
    func repeatCells(_ bytes: UnsafeRawBufferPointer, count: Int) {
        out.write(bytes)
        column += count
    }

    func end() {
        assert(column == nameStarts.count - 1, "a row has one value per column")
        if format == .ndjson { out.write(byte: UInt8(ascii: "}")) }
        out.write(byte: 0x0A)
        rows += 1
    }

    /// Before each value: the separator and (NDJSON) the column's name.
    @inline(__always)
    private func next() {
        if column > 0 { out.write(byte: UInt8(ascii: ",")) }
        if format == .ndjson { out.write(UnsafeRawBufferPointer(rebasing: nameBytes[nameStarts[column]..<nameStarts[column + 1] &- 4])) }
        column += 1
    }

    func null() {
        if column > 0 { out.write(byte: UInt8(ascii: ",")) }
        if format == .ndjson { out.write(UnsafeRawBufferPointer(rebasing: nameBytes[nameStarts[column]..<nameStarts[column + 1]])) }
        column += 1
    }

    /// Text given as its UTF-8 bytes (type names, ids).
    func text(_ bytes: UnsafeRawBufferPointer?) {
        guard let bytes else { return null() }
        next()
        if format == .ndjson { JSONEscaping.appendQuoted(bytes, to: &out.buffer) } else { cell(bytes) }
    }

    /// A string as the value store holds it: quoted, minimally escaped.
    func storedString(_ quoted: UnsafeRawBufferPointer) {
        next()
        if format == .ndjson {
            out.write(quoted)
        } else {
            text.removeAll()
            StoredJSON.appendUnescaped(UnsafeRawBufferPointer(rebasing: quoted[1..<quoted.count - 1]), to: &text)
            text.withBytes { cell($0) }
        }
    }

    /// A JSON number, `true` or `false`, as it is.
    func literal(_ bytes: UnsafeRawBufferPointer) {
        next()
        out.write(bytes)
    }

    /// A value written later (a worker's `from_row`, ``RowHole``): where it goes.
    func placeholder() -> Int {
        next()
        return out.buffer.count
    }

    /// Counts `n` rows another writer wrote, appended to ``out``.
    func count(_ n: Int) { rows += n }

    /// An integer.
    func integer(_ n: Int) {
        next()
        out.buffer.appendDecimal(n)
    }

    /// A number as a string of its text in NDJSON (its text in CSV).
    func numberAsText(_ bytes: UnsafeRawBufferPointer) {
        next()
        if format == .ndjson {
            out.write(byte: UInt8(ascii: "\""))
            out.write(bytes)
            out.write(byte: UInt8(ascii: "\""))
        } else {
            out.write(bytes)
        }
    }

    /// An integer literal in a double column: `5` as `5.0` in NDJSON (as it is in CSV).
    func integerAsDouble(_ bytes: UnsafeRawBufferPointer) {
        next()
        out.write(bytes)
        if format == .ndjson { out.write(".0") }
    }

    /// JSON text (`{"a":1}`) as a value: a JSON string holding it in NDJSON, a cell in CSV.
    func jsonText(_ json: UnsafeRawBufferPointer?) {
        guard let json else { return null() }
        next()
        if format == .ndjson { JSONEscaping.appendQuoted(json, to: &out.buffer) } else { cell(json) }
    }

    /// JSON text written in pieces (a document's primary linkage, which may be long):
    /// ``beginJSONText()``, ``jsonTextPiece(_:)``…, ``endJSONText()``.
    func beginJSONText() {
        next()
        out.write(byte: UInt8(ascii: "\""))
    }

    func jsonTextPiece(_ json: UnsafeRawBufferPointer) {
        if format == .ndjson {
            if JSONEscaping.isPlain(json) { out.write(json) } else { JSONEscaping.appendEscaped(json, to: &out.buffer) }
        } else {
            Self.appendDoublingQuotes(json, to: &out.buffer)
        }
    }

    func endJSONText() { out.write(byte: UInt8(ascii: "\"")) }

    /// A CSV cell: as it is, or quoted (RFC 4180) when it holds a comma, a quote, a line
    /// break, or nothing at all (an empty string, told apart from null, which is no cell).
    private func cell(_ bytes: UnsafeRawBufferPointer) {
        var needsQuotes = bytes.isEmpty
        if !needsQuotes {
            for c in bytes where c == UInt8(ascii: ",") || c == UInt8(ascii: "\"") || c == 0x0A || c == 0x0D {
                needsQuotes = true
                break
            }
        }
        guard needsQuotes else { return out.write(bytes) }
        out.write(byte: UInt8(ascii: "\""))
        Self.appendDoublingQuotes(bytes, to: &out.buffer)
        out.write(byte: UInt8(ascii: "\""))
    }

    private static func appendDoublingQuotes(_ bytes: UnsafeRawBufferPointer, to a: inout ByteArena) {
        var start = 0
        for i in 0..<bytes.count where bytes[i] == UInt8(ascii: "\"") {
            a.append(UnsafeRawBufferPointer(rebasing: bytes[start...i]))
            a.append(UInt8(ascii: "\""))
            start = i + 1
        }
        if start < bytes.count { a.append(UnsafeRawBufferPointer(rebasing: bytes[start...])) }
    }

    /// The bytes of a static string (which lives as long as the program).
    static func bytes(_ s: StaticString) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)
    }
}

/// The word the tables (and the database loader) write for the shape of `data`: `absent`,
/// `null`, `one`, `empty` or `many`.
extension LinkageKind {
    package func shapeWord(count: Int) -> StaticString {
        switch self {
        case .absent: "absent"
        case .null: "null"
        case .toOne: "one"
        case .toMany: count == 0 ? "empty" : "many"
        }
    }
}

extension PrimaryDataShape {
    package func shapeWord(count: Int) -> StaticString {
        switch self {
        case .absent: "absent"
        case .null: "null"
        case .single: "one"
        case .many: count == 0 ? "empty" : "many"
        }
    }
}
