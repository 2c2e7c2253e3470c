#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The first pass of `normalize --split-by-type`: takes each resource as it closes, writes its
/// relationship and edge rows, and spills its own row to its type's table, learning the
/// table's columns; each document's row is written as the document closes.
///
/// A worker's sink (``collects``, inputs of many documents read by workers) writes nothing to
/// files: it keeps its rows in memory and hands them over after each batch (``takePiece()``),
/// for the caller's sink to take in, in input order (``merge(_:)``): the columns a type's
/// names make, and each resource's row number in its type (a relationship's `from_row`),
/// depend on every row before it, so they are settled there.
final class TableSink: DocumentSink, PrimaryLinkageGathering {
    let keepsValues = false
    /// Whether it is a worker's (its rows go to the caller's sink, not to files).
    let collects: Bool
    let directory: String
    let format: TableFormat
    let options: OutputOptions
    @exclusivity(unchecked) private(set) var tables: [TypeTable] = []
    @exclusivity(unchecked) private var tableNumbers = ByteInterner()
    private var fileNames: Set<String> = []
    private let parts = ResourceParts()
    private let selection: Selection
    private let selecting: Bool
    private let duplicates: DuplicateTracker?
    let documents: FixedTable
    let relationships: FixedTable
    let edges: FixedTable
    /// Writes `meta` objects with their names formatted (`--keys`), as JSON text.
    private let textWriter: ResourceWriter
    /// Unknown members of a resource, a relationship or an identifier, as `{…}` text.
    @exclusivity(unchecked) private var other = ByteArena(capacity: 256)
    /// The document's primary linkage as JSON text, in pieces (it may be long).
    let primary = SpillBuffer()
    @exclusivity(unchecked) var primaryCount = 0
    @exclusivity(unchecked) private var relationshipName: [UInt8] = []
    @exclusivity(unchecked) private var relationshipNames: [[UInt8]] = []
    /// Bytes of rows held in memory across all tables.
    @exclusivity(unchecked) private var spilledInMemory = 0
    /// A resource's attributes, as ``TypeTable/takeRow(_:flags:)`` takes them.
    @exclusivity(unchecked) private var rowEntries: [UInt64] = []
    /// The first cells of the resource's relationship and edge rows (`from_type`, `from_id`,
    /// `from_lid`, the same columns in both tables), as its first such row wrote them.
    @exclusivity(unchecked) private var fromCells = ByteArena(capacity: 128)
    @exclusivity(unchecked) private var fromCellsWritten = false
    /// Whether a worker's sink notes what its tables held before each resource of a piece, so
    /// that the caller can cut the piece there (``TablePiece/cut(toResources:)``): strict
    /// mode with the compound rules, on ranges of one large document.
    var marksResources = false
    @exclusivity(unchecked) private var marks: [TablePiece.ResourceMark] = []
    /// Resource rows taken so far: one per resource written, in its type's table.
    var resourcesWritten: Int { tables.reduce(0) { $0 + $1.rows } }
    var sourceName: String?
    var onDiagnostic: ((Diagnostic) -> Void)?

    static let documentColumns = ["document", "source", "data", "primary", "meta", "links", "jsonapi", "errors", "_other"]
    static let relationshipColumns = ["from_type", "from_id", "from_lid", "from_row", "relationship", "data", "count", "links", "meta", "_other"]
    static let edgeColumns = ["from_type", "from_id", "from_lid", "from_row", "relationship", "position", "to_type", "to_id", "to_lid", "meta", "_other"]

    /// `warningTexts`: the duplicate warnings worded before the rest go out textless
    /// (``DocumentOptions/warningTexts``).
    convenience init(directory: String, format: TableFormat, options: OutputOptions, duplicates: DuplicatePolicy, warningTexts: Int = .max) throws(JSONAPIError) {
        self.init(
            directory: directory, format: format, options: options, duplicates: duplicates, warningTexts: warningTexts, collects: false,
            documents: try FixedTable(name: "_documents", columns: Self.documentColumns, directory: directory, format: format),
            relationships: try FixedTable(name: "_relationships", columns: Self.relationshipColumns, directory: directory, format: format),
            edges: try FixedTable(name: "_edges", columns: Self.edgeColumns, directory: directory, format: format))
    }

    /// A worker's sink (``collects``): the resources of each batch, for ``takePiece()``.
    convenience init(collecting format: TableFormat, options: OutputOptions) {
        self.init(
            directory: "", format: format, options: options, duplicates: .last, warningTexts: .max, collects: true,
            documents: FixedTable(collecting: "_documents", columns: Self.documentColumns, format: format),
            relationships: FixedTable(collecting: "_relationships", columns: Self.relationshipColumns, format: format),
            edges: FixedTable(collecting: "_edges", columns: Self.edgeColumns, format: format))
    }

    private init(
        directory: String, format: TableFormat, options: OutputOptions, duplicates: DuplicatePolicy, warningTexts: Int, collects: Bool,
        documents: FixedTable, relationships: FixedTable, edges: FixedTable
    ) {
        self.directory = directory
        self.format = format
        self.options = options
        self.collects = collects
        selection = Selection(options)
        selecting = options.selects
        self.duplicates = duplicates != .last ? DuplicateTracker(policy: duplicates, warningTexts: warningTexts) : nil
        textWriter = ResourceWriter(out: ByteWriter(), options: options)
        self.documents = documents
        self.relationships = relationships
        self.edges = edges
    }

    // MARK: - Resources

    func resource(_ r: ResourceDraft, in a: inout DraftArenas) throws(JSONAPIError) {
        if marksResources { marks.append(TablePiece.ResourceMark(relationships: relationships.pieceMark, edges: edges.pieceMark)) }
        var writes = try duplicates?.admits(r, in: a, sourceName: sourceName, onDiagnostic: onDiagnostic) ?? true
        if selecting && !selection.selects(a.scratch.bytes(in: r.type.range)) { writes = false }
        if !writes && !r.isPrimary { return }
        parts.fill(r, in: a)
        parts.place = r.place
        if r.isPrimary {
            try primary.appendIdentifier(type: parts.type, id: parts.id, lid: parts.lid, comma: primaryCount > 0)
            primaryCount += 1
        }
        guard writes else { return }
        if selecting, let fields = selection.fields(of: parts.type) { parts.keepFields(fields) }
        let k = table(parts.type)
        let t = tables[k]
        if marksResources {
            let m = marks.count - 1
            marks[m].table = Int32(k)
            marks[m].rows = t.rows
            marks[m].spill = t.spill.count
            marks[m].records = t.rowRecords.count
            marks[m].names = t.names.count
        }
        // The relationship and edge rows stay in their buffers until the resource's own row
        // is spilled: a resource that fails half-way (N04) is taken back whole.
        let relationshipMark = relationships.mark
        let edgeMark = edges.mark
        fromCellsWritten = false
        do {
            try writeRelationships(table: k, row: t.rows)
            try spillRow(t)
        } catch {
            relationships.discard(from: relationshipMark)
            edges.discard(from: edgeMark)
            throw error.withSourceIfMissing(sourceName ?? "-")
        }
        try relationships.out.endRecord()
        try edges.out.endRecord()
    }

    /// The number of the table of `type`, made when the type is new.
    private func table(_ type: UnsafeRawBufferPointer) -> Int {
        let before = tableNumbers.count
        let k = Int(tableNumbers.intern(type))
        if tableNumbers.count > before {
            // (A worker's tables have no files: the caller's sink names them.)
            let name = collects ? "" : TableFileNames.unique(type, taken: &fileNames)
            tables.append(
                TypeTable(
                    type: Array(type), file: name + "." + format.fileExtension,
                    spillPath: directory + "/.spill-\(k)"))
        }
        return k
    }

    /// Spills the resource's row to its table `t`: whole, or (on an error) not at all.
    private func spillRow(_ t: TypeTable) throws(JSONAPIError) {
        let p = parts
        let row = t.rows
        // What can fail comes first: the meta object with its names formatted (held by
        // textWriter until the row is spilled), then the attribute names.
        let meta = try formattedMeta(p.meta, pointer: "/meta")
        // The attributes' names and kinds; two names that --keys makes one are an error
        // (whether they get a column or go to _other).
        var flags: TypeTable.RowFlags = []
        var collision: String? = nil
        rowEntries.removeAll(keepingCapacity: true)
        if let a = p.attributes, a.first == UInt8(ascii: "{") {
            StoredJSON.forEachMember(a, 0..<a.count) { name, value in
                let k = t.attribute(UnsafeRawBufferPointer(rebasing: a[name]), keys: options)
                if !t.claim(k, row: row) {
                    collision = t.writtenName(k)
                    return false
                }
                let kinds = ValueKinds.of(UnsafeRawBufferPointer(rebasing: a[value]))
                rowEntries.append(UInt64(k) | UInt64(kinds.rawValue) << 32)
                return true
            }
        } else if p.attributes != nil {
            flags.insert(.other)
        }
        if let collision {
            throw JSONAPIError.document(
                Diagnostic(
                    severity: .error, rule: .N04,
                    message: "two attribute names become \(JSONEscaping.quotedString(collision)) with \(options.keysDescription)",
                    location: p.position, pointer: p.pointer + "/attributes"))
        }
        if p.lid != nil { flags.insert(.lid) }
        if p.links != nil { flags.insert(.links) }
        if p.meta != nil { flags.insert(.meta) }
        if !p.resourceExtras.isEmpty { flags.insert(.other) }
        // The row.
        let start = t.spill.count
        t.spillLength(0)
        t.spillField(p.id)
        t.spillField(p.lid)
        t.spillField(p.attributes)
        t.spillField(p.links)
        t.spillField(meta)
        if p.resourceExtras.isEmpty {
            t.spillField(nil)
        } else {
            other.removeAll()
            for (n, k) in p.resourceExtras.enumerated() {
                if n > 0 { other.append(UInt8(ascii: ",")) }
                other.append(p.extras[k])
            }
            other.withBytes { t.spillField($0) }
        }
        let length = UInt32(t.spill.count - start - 4)
        withUnsafeBytes(of: length.littleEndian) { t.spill.overwrite(at: start, with: $0) }
        if collects {
            // The caller's sink takes the row into its table's columns.
            t.rowRecords.append(UInt64(rowEntries.count) | UInt64(flags.rawValue) << 32)
            t.rowRecords.append(contentsOf: rowEntries)
            t.rows += 1
            return
        }
        rowEntries.withUnsafeBufferPointer { t.takeRow($0, flags: flags) }
        try spilled(t.spill.count - start, into: t)
    }

    /// After `n` bytes of rows were added to `t`'s spill: writes spills out when they are large.
    private func spilled(_ n: Int, into t: TypeTable) throws(JSONAPIError) {
        spilledInMemory += n
        if t.spill.count >= 256 * 1024 {
            spilledInMemory -= t.spill.count
            try t.flushSpill()
        }
        if spilledInMemory >= 16 << 20 {
            for table in tables { try table.flushSpill() }
            spilledInMemory = 0
        }
    }

    /// A `meta` object with its member names formatted (as it is without `--keys`).
    private func formattedMeta(_ m: UnsafeRawBufferPointer?, pointer: String) throws(JSONAPIError) -> UnsafeRawBufferPointer? {
        guard let m else { return nil }
        guard options.formatsNames else { return m }
        textWriter.out.buffer.removeAll()
        try textWriter.writeObject(m, formatNames: true, what: "meta member", at: parts, pointer: pointer)
        return textWriter.out.buffer.bytes(in: 0..<textWriter.out.buffer.count)
    }

    /// `{…}` of the unknown members `extras[range]`, or nil.
    private func otherText(_ range: Range<Int>) -> UnsafeRawBufferPointer? {
        guard !range.isEmpty else { return nil }
        other.removeAll()
        other.append(UInt8(ascii: "{"))
        for k in range {
            if k > range.lowerBound { other.append(UInt8(ascii: ",")) }
            other.append(parts.extras[k])
        }
        other.append(UInt8(ascii: "}"))
        return other.bytes(in: 0..<other.count)
    }

    /// The relationship and edge rows of the resource that is row `row` (0-based) of table
    /// `table`.
    private func writeRelationships(table: Int, row: Int) throws(JSONAPIError) {
        let p = parts
        relationshipNames.removeAll(keepingCapacity: true)
        for rel in p.relationships {
            if !options.formatsNames {
                try writeRelationship(rel, name: rel.name, table: table, row: row)
                continue
            }
            // The name as written, refusing two that --keys makes equal.
            if !options.formatName(rel.name, into: &relationshipName) { relationshipName.append(contentsOf: rel.name) }
            if relationshipNames.contains(relationshipName) {
                throw JSONAPIError.document(
                    Diagnostic(
                        severity: .error, rule: .N04,
                        message: "two relationship names become \(JSONEscaping.quotedString(String(decoding: relationshipName, as: UTF8.self))) with \(options.keysDescription)",
                        location: p.position, pointer: p.pointer + "/relationships"))
            }
            relationshipNames.append(relationshipName)
            try withContiguousBytes(of: relationshipName) { (name) throws(JSONAPIError) in
                try writeRelationship(rel, name: name, table: table, row: row)
            }
        }
    }

    private func writeRelationship(_ rel: ResourceParts.Relationship, name: UnsafeRawBufferPointer, table: Int, row: Int) throws(JSONAPIError) {
        let p = parts
        let w = relationships.rows
        beginRow(relationships, table: table, row: row, name: name)
        w.text(RowWriter.bytes(rel.kind.shapeWord(count: rel.targets.count)))
        w.integer(rel.targets.count)
        w.jsonText(rel.links)
        w.jsonText(try formattedMeta(rel.meta, pointer: "/relationships"))
        w.jsonText(otherText(rel.extras))
        w.end()
        let e = edges.rows
        for (position, k) in rel.targets.enumerated() {
            let t = p.identifiers[k]
            beginRow(edges, table: table, row: row, name: name)
            e.integer(position)
            e.text(t.type)
            e.text(t.id)
            e.text(t.lid)
            e.jsonText(try formattedMeta(t.meta, pointer: "/relationships"))
            e.jsonText(otherText(t.extras))
            e.end()
        }
    }

    /// A relationship or edge row's first columns: where it is from (row `row`, 0-based, of
    /// table `table`; a worker's row numbers are settled by the caller), and the relationship.
    private func beginRow(_ f: FixedTable, table: Int, row: Int, name: UnsafeRawBufferPointer) {
        let w = f.rows
        w.begin()
        if fromCellsWritten {
            fromCells.withBytes { w.repeatCells($0, count: 3) }
        } else {
            let start = f.out.mark
            w.text(parts.type)
            w.text(parts.id)
            w.text(parts.lid)
            fromCells.removeAll()
            fromCells.append(f.out.buffer.bytes(in: start..<f.out.mark))
            fromCellsWritten = true
        }
        if collects {
            f.holes.append(RowHole(offset: w.placeholder(), table: table, row: row))
        } else {
            w.integer(row + 1)
        }
        w.text(name)
    }

    // MARK: - Documents

    func document(_ d: DocumentDraft, in a: borrowing DraftArenas) throws(JSONAPIError) {
        defer { primaryCount = 0 }
        let store = a.store.bytes(in: 0..<a.store.count)
        func v(_ span: ValueSpan) -> UnsafeRawBufferPointer? {
            span.isNone ? nil : UnsafeRawBufferPointer(rebasing: store[span.range])
        }
        parts.position = d.position
        parts.place = .document
        let w = documents.rows
        w.begin()
        w.integer(d.index + 1)
        if var name = sourceName {
            name.withUTF8 { w.text(UnsafeRawBufferPointer($0)) }
        } else {
            w.null()
        }
        w.text(RowWriter.bytes(d.primaryShape.shapeWord(count: primaryCount)))
        switch d.primaryShape {
        case .absent, .null:
            w.null()
            try primary.drain { _ in }
        case .single where primaryCount == 0:
            w.null()
        case .single, .many:
            w.beginJSONText()
            if d.primaryShape == .many { w.jsonTextPiece(RowWriter.bytes("[")) }
            try primary.drain { (bytes) throws(JSONAPIError) in
                try documents.out.makeRoom(for: bytes.count)
                w.jsonTextPiece(bytes)
            }
            if d.primaryShape == .many { w.jsonTextPiece(RowWriter.bytes("]")) }
            w.endJSONText()
        }
        w.jsonText(try formattedMeta(v(d.meta), pointer: "/meta"))
        w.jsonText(v(d.links))
        w.jsonText(v(d.jsonapi))
        w.jsonText(v(d.errors))
        if d.extras.isEmpty {
            w.null()
        } else {
            other.removeAll()
            other.append(UInt8(ascii: "{"))
            for (k, span) in d.extras.enumerated() {
                if k > 0 { other.append(UInt8(ascii: ",")) }
                other.append(v(span)!)
            }
            other.append(UInt8(ascii: "}"))
            other.withBytes { w.jsonText($0) }
        }
        w.end()
        try documents.out.endRecord()
    }

    // MARK: - Workers

    /// A worker's rows since the last call (``collects``): its tables, and the rows of the
    /// fixed tables; the next piece starts with tables of its own.
    func takePiece() -> TablePiece {
        precondition(collects, "a worker's sink")
        let piece = TablePiece(tables: tables, documents: documents.take(), relationships: relationships.take(), edges: edges.take(), marks: marks)
        marks.removeAll(keepingCapacity: true)
        tables = []
        tableNumbers = ByteInterner()
        return piece
    }

    /// Takes in a worker's piece, after everything before it in input order: its rows go to
    /// their types' tables (numbered after the rows before them), their attribute names to
    /// the tables' columns, as one reader would have made them.
    func merge(_ piece: TablePiece) throws(JSONAPIError) {
        precondition(!collects, "the caller's sink")
        var bases: [Int] = []
        bases.reserveCapacity(piece.tables.count)
        var numbers: [UInt64] = []
        for (i, local) in piece.tables.enumerated() {
            let t = tables[local.type.withUnsafeBytes { table($0) }]
            bases.append(t.rows)
            // The piece's attribute names, in the order they first appeared in it, are the
            // names' numbers in the caller's table.
            numbers.removeAll(keepingCapacity: true)
            for k in 0..<piece.nameCounts[i] {
                numbers.append(UInt64(t.attribute(local.names.bytes(of: UInt32(k)), keys: options)))
            }
            local.rowRecords.withUnsafeBufferPointer { records in
                var at = 0
                while at < records.count {
                    let header = records[at]
                    let n = Int(UInt32(truncatingIfNeeded: header))
                    rowEntries.removeAll(keepingCapacity: true)
                    for e in records[at + 1..<at + 1 + n] {
                        rowEntries.append(numbers[Int(UInt32(truncatingIfNeeded: e))] | e & 0xFFFF_FFFF_0000_0000)
                    }
                    rowEntries.withUnsafeBufferPointer { t.takeRow($0, flags: TypeTable.RowFlags(rawValue: UInt32(header >> 32))) }
                    at += 1 + n
                }
            }
            local.spill.withBytes { t.spill.append($0) }
            try spilled(local.spill.count, into: t)
        }
        try documents.append(piece.documents, bases: bases)
        try relationships.append(piece.relationships, bases: bases)
        try edges.append(piece.edges, bases: bases)
    }
}
