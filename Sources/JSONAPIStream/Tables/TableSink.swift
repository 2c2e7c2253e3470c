#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One of the tables whose columns are fixed (`_documents`, `_relationships`, `_edges`):
/// written while the input is read.
final class FixedTable {
    let name: String
    let columns: [String]
    let file: String
    let fd: Int32
    let out: ByteWriter
    let rows: RowWriter

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

    /// Rows written (CSV: not counting the header).
    var rowCount: Int { rows.rows }

    /// Writes out what is buffered and closes the file.
    func finish() throws(JSONAPIError) {
        try out.flush()
        close(fd)
    }
}

/// The first pass of `normalize --split-by-type`: takes each resource as it closes, writes its
/// relationship and edge rows, and spills its own row to its type's table, learning the
/// table's columns; each document's row is written as the document closes.
final class TableSink: DocumentSink {
    let keepsValues = false
    let directory: String
    let format: TableFormat
    let options: OutputOptions
    private(set) var tables: [TypeTable] = []
    private var tableNumbers = ByteInterner()
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
    private var other = ByteArena(capacity: 256)
    /// The document's primary linkage as JSON text, in pieces (it may be long).
    private let primary = SpillBuffer()
    private var primaryCount = 0
    private var identifier = ByteArena(capacity: 128)
    private var relationshipName: [UInt8] = []
    private var relationshipNames: [[UInt8]] = []
    /// Bytes of rows held in memory across all tables.
    private var spilledInMemory = 0
    private(set) var documentCount = 0
    private(set) var resourcesWritten = 0
    var sourceName: String?
    var onDiagnostic: ((Diagnostic) -> Void)?

    static let documentColumns = ["document", "source", "data", "primary", "meta", "links", "jsonapi", "errors", "_other"]
    static let relationshipColumns = ["from_type", "from_id", "from_lid", "from_row", "relationship", "data", "count", "links", "meta", "_other"]
    static let edgeColumns = ["from_type", "from_id", "from_lid", "from_row", "relationship", "position", "to_type", "to_id", "to_lid", "meta", "_other"]

    init(directory: String, format: TableFormat, options: OutputOptions, duplicates: DuplicatePolicy) throws(JSONAPIError) {
        self.directory = directory
        self.format = format
        self.options = options
        selection = Selection(options)
        selecting = options.selects
        self.duplicates = duplicates != .last ? DuplicateTracker(policy: duplicates) : nil
        textWriter = ResourceWriter(out: ByteWriter(), options: options)
        documents = try FixedTable(name: "_documents", columns: Self.documentColumns, directory: directory, format: format)
        relationships = try FixedTable(name: "_relationships", columns: Self.relationshipColumns, directory: directory, format: format)
        edges = try FixedTable(name: "_edges", columns: Self.edgeColumns, directory: directory, format: format)
    }

    // MARK: - Resources

    func resource(_ r: ResourceDraft, in a: inout DraftArenas) throws(JSONAPIError) {
        var writes = try duplicates?.admits(r, in: a, sourceName: sourceName, onDiagnostic: onDiagnostic) ?? true
        if selecting && !selection.selects(a.scratch.bytes(in: r.type.range)) { writes = false }
        if !writes && !r.isPrimary { return }
        parts.fill(r, in: a)
        parts.place = r.place
        if r.isPrimary {
            identifier.removeAll()
            if primaryCount > 0 { identifier.append(UInt8(ascii: ",")) }
            JSONEscaping.appendIdentifier(type: parts.type, id: parts.id, lid: parts.lid, to: &identifier)
            try identifier.withBytes { (bytes) throws(JSONAPIError) in try primary.append(bytes) }
            primaryCount += 1
        }
        guard writes else { return }
        if selecting, let fields = selection.fields(of: parts.type) { parts.keepFields(fields) }
        let t = table(parts.type)
        // The relationship and edge rows stay in their buffers until the resource's own row
        // is spilled: a resource that fails half-way (N04) is taken back whole.
        let relationshipMark = relationships.out.mark
        let edgeMark = edges.out.mark
        do {
            try writeRelationships(row: t.rows + 1)
            try spillRow(t)
        } catch {
            relationships.out.discard(from: relationshipMark)
            edges.out.discard(from: edgeMark)
            throw error.withSourceIfMissing(sourceName ?? "-")
        }
        try relationships.out.endRecord()
        try edges.out.endRecord()
        resourcesWritten += 1
    }

    /// The table of `type`, made when the type is new.
    private func table(_ type: UnsafeRawBufferPointer) -> TypeTable {
        let before = tableNumbers.count
        let k = Int(tableNumbers.intern(type))
        if tableNumbers.count > before {
            let name = TableFileNames.unique(type, taken: &fileNames)
            tables.append(
                TypeTable(
                    type: Array(type), file: name + "." + format.fileExtension,
                    spillPath: directory + "/.spill-\(k)"))
        }
        return tables[k]
    }

    /// Spills the resource's row to its table `t`: whole, or (on an error) not at all.
    private func spillRow(_ t: TypeTable) throws(JSONAPIError) {
        let p = parts
        let row = t.rows
        // What can fail comes first: the meta object with its names formatted (held by
        // textWriter until the row is spilled), then the attribute names.
        let meta = try formattedMeta(p.meta, pointer: "/meta")
        // Columns and their kinds.
        var present = 0
        var collision: String? = nil
        if let a = p.attributes, a.first == UInt8(ascii: "{") {
            StoredJSON.forEachMember(a, 0..<a.count) { name, value in
                let k = t.attribute(UnsafeRawBufferPointer(rebasing: a[name]), keys: options)
                let c = Int(t.attributeNames[k].column)
                if c < 0 {
                    t.hasOther = true
                    return true
                }
                if !t.note(column: c, kinds: ValueKinds.of(UnsafeRawBufferPointer(rebasing: a[value])), row: row) {
                    collision = String(decoding: t.columns[c].name, as: UTF8.self)
                    return false
                }
                present += 1
                return true
            }
        } else if p.attributes != nil {
            t.hasOther = true
        }
        if let collision {
            throw JSONAPIError.document(
                Diagnostic(
                    severity: .error, rule: .N04,
                    message: "two attribute names become \(JSONEscaping.quotedString(collision)) with \(options.keysDescription)",
                    location: p.position, pointer: p.pointer + "/attributes"))
        }
        t.fewestColumns = min(t.fewestColumns, present)
        if p.lid != nil { t.hasLid = true }
        if p.links != nil { t.hasLinks = true }
        if p.meta != nil { t.hasMeta = true }
        if !p.resourceExtras.isEmpty { t.hasOther = true }
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
        t.rows += 1
        spilledInMemory += t.spill.count - start
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

    private func writeRelationships(row: Int) throws(JSONAPIError) {
        let p = parts
        relationshipNames.removeAll(keepingCapacity: true)
        for rel in p.relationships {
            if !options.formatsNames {
                try writeRelationship(rel, name: rel.name, row: row)
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
            try withContiguousBytes(of: relationshipName) { (name) throws(JSONAPIError) in try writeRelationship(rel, name: name, row: row) }
        }
    }

    private func writeRelationship(_ rel: ResourceParts.Relationship, name: UnsafeRawBufferPointer, row: Int) throws(JSONAPIError) {
        let p = parts
        let w = relationships.rows
        beginRow(w, row: row, name: name)
        w.text(RowWriter.bytes(rel.kind.shapeWord(count: rel.targets.count)))
        w.integer(rel.targets.count)
        w.jsonText(rel.links)
        w.jsonText(try formattedMeta(rel.meta, pointer: "/relationships"))
        w.jsonText(otherText(rel.extras))
        w.end()
        let e = edges.rows
        for (position, k) in rel.targets.enumerated() {
            let t = p.identifiers[k]
            beginRow(e, row: row, name: name)
            e.integer(position)
            e.text(t.type)
            e.text(t.id)
            e.text(t.lid)
            e.jsonText(try formattedMeta(t.meta, pointer: "/relationships"))
            e.jsonText(otherText(t.extras))
            e.end()
        }
    }

    /// A relationship or edge row's first columns: where it is from, and the relationship.
    private func beginRow(_ w: RowWriter, row: Int, name: UnsafeRawBufferPointer) {
        w.begin()
        w.text(parts.type)
        w.text(parts.id)
        w.text(parts.lid)
        w.integer(row)
        w.text(name)
    }

    // MARK: - Documents

    func document(_ d: DocumentDraft, in a: borrowing DraftArenas) throws(JSONAPIError) {
        defer { primaryCount = 0 }
        documentCount += 1
        let store = a.store.bytes(in: 0..<a.store.count)
        func v(_ span: ValueSpan) -> UnsafeRawBufferPointer? {
            span.isNone ? nil : UnsafeRawBufferPointer(rebasing: store[span.range])
        }
        parts.position = d.position
        parts.place = .document
        let w = documents.rows
        w.begin()
        w.integer(documentCount)
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
                w.jsonTextPiece(bytes)
                if documents.out.buffer.count > 1 << 20 { try documents.out.flush() }
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
}
