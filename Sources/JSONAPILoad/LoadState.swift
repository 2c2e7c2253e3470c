import JSONAPIStream

/// The type tables a database holds, as both loaders keep them in memory: each type's
/// table by the type's bytes, the names already taken (case-folded), and the columns whose
/// kinds changed in the open transaction (recorded in `_columns` when it commits).
final class TableCatalog {
    private var tables: [[UInt8]: LoadTable] = [:]
    private var takenNames: Set<[UInt8]> = []
    private var last: LoadTable?
    /// Columns whose kinds changed in the open transaction.
    var changedKinds: [(table: LoadTable, column: Int)] = []

    /// Reads what earlier loads made: `names` every table name in the database (a row each,
    /// the name first), `types` the rows of `_tables` (type, table) and `columns` the rows of
    /// `_columns` for a table (column, role, type, kinds), in position order.
    func read(
        names: [[String?]], types: [[String?]], database: String, columns: (String) throws(JSONAPIError) -> [[String?]]
    ) throws(JSONAPIError) {
        for row in names { if let n = row[0] { takenNames.insert(folded(n)) } }
        for row in types {
            guard let type = row[0], let name = row[1] else { continue }
            var list: [LoadTable.Column] = []
            for c in try columns(name) {
                guard let n = c[0], let role = c[1].flatMap(ColumnRole.init(rawValue:)), let type = c[2].flatMap(ColumnType.init(rawValue:)),
                    let kinds = c[3].flatMap(UInt8.init)
                else { throw JSONAPIError.input("database \(database): _columns has a row that is not this program's (table \(name))") }
                list.append(LoadTable.Column(name: n, role: role, type: type, kinds: ValueKinds(rawValue: kinds)))
            }
            tables[Array(type.utf8)] = LoadTable(type: type, name: name, columns: list)
        }
    }

    /// The table of a type, if it has one. Resources of one type mostly come in runs: the
    /// last table is checked first.
    func table(for typeBytes: UnsafeRawBufferPointer) -> LoadTable? {
        if let last, last.typeBytes.withUnsafeBytes({ memoryEqual($0, typeBytes) }) { return last }
        guard let t = tables[Array(typeBytes)] else { return nil }
        last = t
        return t
    }

    /// The table of a type read back from the database (nil when the type has none).
    func table(ofType type: String) -> LoadTable? { tables[Array(type.utf8)] }

    /// A new type's table as both loaders start it (under a free name): the key and the id.
    func newTable(for type: String) -> LoadTable {
        LoadTable(
            type: type, name: tableName(for: type, taken: takenNames),
            columns: [
                LoadTable.Column(name: ColumnRole.key.rawValue, role: .key, type: .integer, kinds: .integer),
                LoadTable.Column(name: "id", role: .id, type: .string, kinds: .string),
            ])
    }

    /// Notes new kinds of values in a column (recorded in `_columns` with the document).
    func noteKinds(_ t: LoadTable, _ c: Int, _ kinds: ValueKinds) {
        guard !t.columns[c].kinds.isSuperset(of: kinds) else { return }
        t.noteKinds(c, kinds)
        changedKinds.append((t, c))
    }

    /// Takes a new table in.
    func add(_ t: LoadTable) {
        takenNames.insert(folded(t.name))
        tables[Array(t.type.utf8)] = t
        last = t
    }

    /// Counts the resources read into each table.
    func count(into summary: inout LoadSummary) {
        for t in tables.values where t.resourcesRead > 0 { summary.resourcesByTable[t.name, default: 0] += t.resourcesRead }
    }
}

/// Where a loader is in its inputs: the document open (its index in the stream) and the
/// ordinal it gets in `_documents`, counted from 0 in each input, so that loading the same
/// input again finds the same rows.
struct DocumentOrdinals {
    private var newInput = true
    private var source: String?
    private var base = 0
    /// The index (in the stream) of the last document entered.
    private(set) var index = -1

    /// The next input starts: its documents are numbered from 0 again.
    mutating func beginInput() { newInput = true }

    /// Enters the document `index` of `source` and returns its ordinal in its input.
    mutating func enter(index: Int, source: String?) -> Int {
        if newInput || source != self.source {
            newInput = false
            self.source = source
            base = index
        }
        self.index = index
        return index - base
    }
}

/// The identifiers of a document's primary data, as JSON text, for `_documents.primary`.
struct PrimaryIdentifiers: ~Copyable {
    /// `[` and the identifiers so far, comma-separated.
    private var text = ByteArena(capacity: 1024)
    private(set) var count = 0

    /// Starts a new document's list.
    mutating func reset() {
        text.removeAll()
        text.append(UInt8(ascii: "["))
        count = 0
    }

    /// Appends a primary resource's identifier (`{"type":…,"id":…}`).
    mutating func append(_ p: ResourceParts) {
        if count > 0 { text.append(UInt8(ascii: ",")) }
        count += 1
        JSONEscaping.appendIdentifier(type: p.type, id: p.id, lid: p.lid, to: &text)
    }

    /// The column's text for a document whose primary data had `shape`: the array, the
    /// object alone for a single resource, or nil (no data, or `null`).
    mutating func withColumnText<R, E: Error>(shape: PrimaryDataShape, _ body: (UnsafeRawBufferPointer?) throws(E) -> R) throws(E) -> R {
        switch shape {
        case .single where count == 1:
            let all = text.bytes(in: 0..<text.count)
            return try body(UnsafeRawBufferPointer(rebasing: all.dropFirst()))
        case .many:
            text.append(UInt8(ascii: "]"))
            return try body(text.bytes(in: 0..<text.count))
        default:
            return try body(nil)
        }
    }
}

/// The resources read in a run, for `--on-duplicate error`: a key read twice is refused.
struct SeenKeys {
    private var keys: Set<[UInt8]> = []

    /// Takes a resource's key in; throws when it was read before in this run.
    mutating func admit(_ p: ResourceParts, _ id: UnsafeRawBufferPointer, _ view: ResourceView) throws(JSONAPIError) {
        var key = Array(p.type)
        key.append(0)
        key.append(contentsOf: id)
        guard !keys.insert(key).inserted else { return }
        let what = "resource (type \"\(String(decoding: p.type, as: UTF8.self))\", id \"\(String(decoding: id, as: UTF8.self))\")"
        throw JSONAPIError.document(
            Diagnostic(
                severity: .error, rule: .N01, message: "\(what) appears again in this load; duplicates are refused (--on-duplicate error)",
                location: p.position, pointer: view.pointer, source: view.source))
    }
}

/// Unknown members (`"name":value` texts of `p.extras` in `range`) as one JSON object, nil
/// for none.
func membersText(_ p: ResourceParts, _ range: Range<Int>) -> String? {
    guard !range.isEmpty else { return nil }
    return "{" + range.map { String(decoding: p.extras[$0], as: UTF8.self) }.joined(separator: ",") + "}"
}
