/// What a worker's ``TableSink`` read in one batch: its types' tables (spilled rows, the
/// attribute names they use, each row's attributes) and the rows of the fixed tables, taken
/// in by the caller's sink in input order (``TableSink/merge(_:)``).
final class TablePiece: @unchecked Sendable {
    /// What a worker's tables held before one resource of the piece
    /// (``TableSink/marksResources``).
    struct ResourceMark {
        /// The resource's table in the piece, or -1 (not written: a selection).
        var table: Int32 = -1
        var rows = 0
        var spill = 0
        var records = 0
        var names = 0
        var relationships: FixedTable.PieceMark
        var edges: FixedTable.PieceMark
    }

    let tables: [TypeTable]
    let documents: TakenRows
    let relationships: TakenRows
    let edges: TakenRows
    /// What the tables held before each resource of the piece (``TableSink/marksResources``).
    let marks: [ResourceMark]
    /// Attribute names of each table the caller takes in: all, unless the piece was cut.
    private(set) var nameCounts: [Int]

    init(tables: [TypeTable], documents: TakenRows, relationships: TakenRows, edges: TakenRows, marks: [ResourceMark]) {
        self.tables = tables
        self.documents = documents
        self.relationships = relationships
        self.edges = edges
        self.marks = marks
        nameCounts = tables.map { $0.names.count }
    }

    /// Keeps what the piece's first `k` resources wrote (strict mode: a violation of the
    /// compound rules found by the caller stops the read before resource `k`, as one reader
    /// would have). Each table keeps its rows, spilled bytes, row records and attribute names
    /// from before its first resource from `k` on; the fixed tables their rows before `k`.
    func cut(toResources k: Int) {
        guard k < marks.count else { return }
        relationships.cut(at: marks[k].relationships)
        edges.cut(at: marks[k].edges)
        var cut = [Bool](repeating: false, count: tables.count)
        for m in marks[k...] where m.table >= 0 && !cut[Int(m.table)] {
            let t = tables[Int(m.table)]
            cut[Int(m.table)] = true
            t.rows = m.rows
            t.spill.truncate(to: m.spill)
            t.rowRecords.removeSubrange(m.records...)
            nameCounts[Int(m.table)] = m.names
        }
    }
}
