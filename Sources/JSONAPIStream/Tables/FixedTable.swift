#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One of the tables whose columns are fixed (`_documents`, `_relationships`, `_edges`):
/// written while the input is read, or (a worker's, ``TableSink/collects``) kept in memory
/// for the caller's.
final class FixedTable {
    let name: String
    let columns: [String]
    let file: String
    /// The file's descriptor, or -1 (a worker's).
    let fd: Int32
    let out: ByteWriter
    let rows: RowWriter
    /// A worker's rows: where their `from_row` goes, known once the caller takes them in.
    @exclusivity(unchecked) var holes: [RowHole] = []
    /// Rows handed over so far (``take()``).
    private var rowsTaken = 0

    init(name: String, columns: [String], directory: String, format: TableFormat) throws(JSONAPIError) {
        self.name = name
        self.columns = columns
        file = "\(name).\(format.fileExtension)"
        let path = directory + "/" + file
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw JSONAPIError.input("cannot create \(path): \(String(cString: strerror(errno)))") }
        out = ByteWriter(fd: fd, bufferSize: 128 * 1024)
        let names = columns.map { Array($0.utf8) }
        rows = RowWriter(format: format, out: out, columns: names)
        rows.writeHeader(names)
    }

    /// A worker's table, in memory, without a header.
    init(collecting name: String, columns: [String], format: TableFormat) {
        self.name = name
        self.columns = columns
        file = ""
        fd = -1
        out = ByteWriter()
        rows = RowWriter(format: format, out: out, columns: columns.map { Array($0.utf8) })
    }

    /// Rows written (CSV: not counting the header).
    var rowCount: Int { rows.rows }

    /// The position a resource's rows start at, to take them back with ``discard(from:)``.
    var mark: Int { out.mark }

    /// Where a worker's rows of the current piece stand: bytes, rows and holes since the last
    /// ``take()``.
    struct PieceMark {
        var bytes: Int
        var rows: Int
        var holes: Int
    }

    /// A worker's rows of the current piece so far.
    var pieceMark: PieceMark { PieceMark(bytes: out.mark, rows: rows.rows - rowsTaken, holes: holes.count) }

    /// Takes back the rows written since `mark` (a resource that failed half-way).
    func discard(from mark: Int) {
        out.discard(from: mark)
        while let last = holes.last, last.offset >= mark { holes.removeLast() }
    }

    /// Writes out what is buffered and closes the file.
    func finish() throws(JSONAPIError) {
        try out.flush()
        close(fd)
    }

    /// A worker's rows since the last call, handed over.
    func take() -> TakenRows {
        let taken = TakenRows(rows: rows.rows - rowsTaken, holes: holes)
        rowsTaken = rows.rows
        holes = []
        out.take(into: &taken.bytes)
        return taken
    }

    /// Appends a worker's rows, each `from_row` its type's rows before the worker's piece
    /// (`bases`, by the piece's tables) plus the row's number in the piece.
    func append(_ taken: TakenRows, bases: [Int]) throws(JSONAPIError) {
        taken.bytes.withBytes { b in
            var at = 0
            for h in taken.holes {
                out.write(UnsafeRawBufferPointer(rebasing: b[at..<h.offset]))
                out.buffer.appendDecimal(bases[h.table] + h.row + 1)
                at = h.offset
            }
            out.write(UnsafeRawBufferPointer(rebasing: b[at...]))
        }
        rows.count(taken.rows)
        try out.flushIfFull()
    }
}

/// Where a worker's relationship or edge row has its `from_row`: `row` of the piece's table
/// `table` (0-based), written at `offset` once the caller knows the rows before the piece.
struct RowHole {
    var offset: Int
    var table: Int
    var row: Int
}

/// Rows of a fixed table a worker wrote, handed over to the caller (``FixedTable/take()``).
final class TakenRows {
    var bytes = ByteArena(capacity: 16)
    private(set) var rows: Int
    private(set) var holes: [RowHole]

    init(rows: Int, holes: [RowHole]) {
        self.rows = rows
        self.holes = holes
    }

    /// Keeps the rows before `mark` (whole rows: a mark falls between resources).
    func cut(at mark: FixedTable.PieceMark) {
        bytes.truncate(to: mark.bytes)
        rows = mark.rows
        holes.removeSubrange(mark.holes...)
    }
}
