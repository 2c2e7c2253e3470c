import JSONAPIStream

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a column of a type's table holds, as the catalog (`_columns`) records it.
enum ColumnRole: String {
    /// The resource's key in `_resources` (the table's rowid: rows stay in load order).
    case key = "_resource"
    case id, lid
    case attribute
    case links = "_links"
    case meta = "_meta"
    /// Unknown and `@`-members of the resource object (and `attributes` when it was not an object).
    case other = "_other"
    /// The names of attributes whose value is JSON `null` (a NULL cell whose name is not
    /// here is an attribute the resource did not have).
    case nulls = "_nulls"
    /// Attributes without a column of their own, as one JSON object.
    case overflow = "_overflow"
}

extension ColumnType {
    /// The declared SQL type: its affinity keeps every value as written (TEXT affinity for
    /// decimals and JSON, so that SQLite never turns `1.0` into `1`).
    var sqliteDeclaration: String {
        switch self {
        case .string: "TEXT"
        case .integer: "INTEGER"
        case .double: "REAL"
        case .decimal: "DECIMAL TEXT"
        case .boolean: "BOOLEAN"
        case .json: "JSON TEXT"
        }
    }
}

/// How the JSON text of a column is read back: member names repeated inside a value (which
/// `--duplicate-members allow-in-values` keeps) stay. The text is what a load wrote, under
/// whatever limits it was given (`--max-depth` 600, `--max-string-bytes` 1G): it is read
/// back under wide ones, so that a stored value is never refused for a limit it was loaded
/// under. The depth stays bounded (values become `JSONValue` trees, released recursively).
let valueOptions: ParseOptions = {
    var o = ParseOptions()
    o.duplicateMembers = .allowInValues
    o.limits.maxDepth = 8192
    o.limits.maxKeyBytes = Int(Int32.max)
    o.limits.maxStringBytes = Int(Int32.max)
    o.limits.maxNumberLength = Int(Int32.max)
    return o
}()

/// A stored value's JSON text read back (a column the loader wrote), or the error that says
/// which column (`what`) could not be.
func storedValue(_ text: String, _ what: String) throws(JSONAPIError) -> JSONValue {
    do throws(JSONAPIError) { return try JSONValue(parsingStoredValue: Array(text.utf8), options: valueOptions) } catch {
        throw JSONAPIError.input("a stored \(what) value cannot be read back to merge with: \(error)")
    }
}

/// A stored object's JSON text read back (``storedValue(_:_:)``).
func storedObject(_ text: String, _ what: String) throws(JSONAPIError) -> JSONObject {
    guard case .object(let o) = try storedValue(text, what) else { throw JSONAPIError.input("a stored \(what) value is not a JSON object: \(text.prefix(80))") }
    return o
}

/// The stored row's mergeable members, as the loaders read them before a merge.
struct OldRow {
    var links, meta, other, overflow: String?
    var nulls: [String] = []
    /// Attribute names the stored row has (policy `first`).
    var present: Set<[UInt8]> = []
}

extension OldRow {
    /// What a loader selects of the stored row of `t`: `_links`, `_meta`, `_other`,
    /// `_overflow`, `_nulls` (NULL where the table has no such column), then, for policy
    /// `first`, whether each attribute column is not NULL (`attributeColumns`). nil when there
    /// is nothing to select.
    static func selection(_ t: LoadTable, first: Bool, suffix: String = "") -> (list: String, attributeColumns: [Int])? {
        let roles: [ColumnRole] = [.links, .meta, .other, .overflow, .nulls]
        let attributeColumns = first ? t.columns.indices.filter { t.columns[$0].role == .attribute } : []
        guard roles.contains(where: { t.column($0) != nil }) || !attributeColumns.isEmpty else { return nil }
        var select = roles.map { role in t.column(role).map { quoted(t.columns[$0].name) + suffix } ?? "NULL" }
        select += attributeColumns.map { "\(quoted(t.columns[$0].name)) IS NOT NULL" }
        return (select.joined(separator: ", "), attributeColumns)
    }

    /// The stored row from a row of ``selection(_:first:suffix:)``: `text(k)` is cell k as
    /// text, `isSet(k)` whether cell k (an `IS NOT NULL`) is true.
    init(_ t: LoadTable, attributeColumns: [Int], first: Bool, text: (Int) -> String?, isSet: (Int) -> Bool) throws(JSONAPIError) {
        self.init(links: text(0), meta: text(1), other: text(2), overflow: text(3))
        if let n = text(4) {
            guard case .array(let names) = try storedValue(n, "_nulls") else { throw JSONAPIError.input("a stored _nulls value is not a JSON array: \(n.prefix(80))") }
            nulls = names.compactMap(\.stringValue)
        }
        guard first else { return }
        for (k, c) in attributeColumns.enumerated() where isSet(5 + k) { present.insert(Array(t.columns[c].name.utf8)) }
        present.formUnion(nulls.map { Array($0.utf8) })
        if let o = overflow { present.formUnion(try storedObject(o, "_overflow").keys.map { Array($0.utf8) }) }
    }
}

/// A resource's mergeable members after the merge rule: what to write in `_links`, `_meta`,
/// `_other`, `_overflow` and `_nulls`, and which attribute columns keep their stored value.
struct MergedMembers {
    /// Merged `links` and `meta` text; nil when the stored row had none (the new resource's
    /// own bytes are written as they are).
    var links: String??
    var meta: String??
    var other: String?
    var overflow: String?
    /// The names in `_nulls`, and whether the column changes.
    var nulls: [String]
    var writeNulls: Bool
    /// Columns whose stored value stays (policy `first`).
    var keptColumns: Set<Int> = []

    /// The new resource's members merged with the stored row's (`old`, nil for a new row):
    /// with `newWins` (policies `last` and `error`) the new members replace the stored ones and
    /// absent ones stay; otherwise the stored ones stay and only new members are added.
    /// `names` are the new resource's attribute names, `columns` their columns (-1: overflow).
    init(
        old: OldRow?, links: @autoclosure () -> String?, meta: @autoclosure () -> String?, other: String?, overflow: String?,
        nulls: [String], names: [[UInt8]], columns: [Int], table t: LoadTable, newWins: Bool
    ) throws(JSONAPIError) {
        self.other = other
        self.overflow = overflow
        self.nulls = nulls
        writeNulls = !nulls.isEmpty
        guard let old else { return }
        if old.links != nil { self.links = .some(try mergeObjects(old.links, links(), newWins: newWins, "_links")) }
        if old.meta != nil { self.meta = .some(try mergeObjects(old.meta, meta(), newWins: newWins, "_meta")) }
        self.other = try mergeObjects(old.other, other, newWins: newWins, "_other")
        self.overflow = try mergeObjects(old.overflow, overflow, newWins: newWins, "_overflow")
        // `_nulls`: what the stored row had, less what the new resource sets, plus its nulls.
        var merged: [String]
        if newWins {
            let newNames = Set(names)
            merged = old.nulls.filter { !newNames.contains(Array($0.utf8)) } + nulls
        } else {
            merged = old.nulls + nulls.filter { !old.present.contains(Array($0.utf8)) }
            keptColumns = Set(columns.filter { c in c >= 0 && old.present.contains(Array(t.columns[c].name.utf8)) })
        }
        writeNulls = merged.map { Array($0.utf8) } != old.nulls.map { Array($0.utf8) }
        self.nulls = merged
    }

    /// `_nulls` as JSON text (nil for none).
    var nullsText: String? { nulls.isEmpty ? nil : JSONValue.array(nulls.map { .string($0) }).jsonText }
}

/// Two JSON objects merged member by member (a name in both keeps its first position and
/// takes the winner's value); nil when nothing is to be written (no new value). `what` names
/// the column in an error.
func mergeObjects(_ old: String?, _ new: String?, newWins: Bool, _ what: String) throws(JSONAPIError) -> String? {
    guard let new else { return nil }
    guard let old else { return new }
    let o = try storedObject(old, what)
    let n = try storedObject(new, what)
    var members = o.members
    var index: [[UInt8]: Int] = [:]
    for (k, m) in members.enumerated() { index[Array(m.key.utf8)] = k }
    for m in n.members {
        if let k = index[Array(m.key.utf8)] {
            if newWins { members[k].value = m.value }
        } else {
            index[Array(m.key.utf8)] = members.count
            members.append(m)
        }
    }
    return JSONValue.object(JSONObject(members)).jsonText
}

/// Quotes an SQL identifier (`"a""b"`).
func quoted(_ name: String) -> String { "\"" + name.replacing("\"", with: "\"\"") + "\"" }

/// ASCII lower case, as SQLite compares identifiers, as bytes: names are compared byte for
/// byte everywhere here (Swift's `String` equality would take `é` and `e` + U+0301 for one
/// name, and put two attributes in one column).
func folded(_ name: String) -> [UInt8] {
    name.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
}

/// One resource type's table: its columns in order, the catalog's record of them, and the
/// upsert statements prepared for the column sets its resources have.
///
/// An attribute gets a column named as it is, unless its name starts with `_`, is longer
/// than 63 bytes (PostgreSQL's limit), holds U+0000, equals `id`, `lid` or an earlier
/// column's name ignoring ASCII case, or the table already has ``LoadOptions/maxColumns``
/// attribute columns: then it goes to `_overflow`. The mapping is stable: it is kept in
/// `_columns`, and a name is decided once.
final class LoadTable {
    struct Column {
        var name: String
        var role: ColumnRole
        var type: ColumnType
        var kinds: ValueKinds
    }

    let type: String
    let typeBytes: [UInt8]
    let name: String
    /// Every column in table order.
    private(set) var columns: [Column]
    /// Column index by name (attributes and fixed columns).
    private var index: [[UInt8]: Int] = [:]
    private var foldedNames: Set<[UInt8]> = []
    private(set) var attributeCount = 0
    /// Stored (quoted, minimally escaped) attribute names seen, and each one's column (-1:
    /// overflow).
    private var storedNames = ByteInterner()
    private var storedColumn: [Int32] = []
    /// Resources read into this table in this run.
    var resourcesRead = 0
    /// Upserts by column signature.
    var upserts: [[Int32]: SQLiteStatement] = [:]
    /// The old row's mergeable members (see ``SQLiteLoader``), by table version.
    var oldRowStatement: SQLiteStatement?

    init(type: String, name: String, columns: [Column]) {
        self.type = type
        typeBytes = Array(type.utf8)
        self.name = name
        self.columns = []
        // `lid` is reserved for the lid column even before the table has one.
        foldedNames.insert(Array("lid".utf8))
        for c in columns { register(c) }
    }

    private func register(_ c: Column) {
        index[Array(c.name.utf8)] = columns.count
        foldedNames.insert(folded(c.name))
        if c.role == .attribute { attributeCount += 1 }
        columns.append(c)
    }

    func column(_ role: ColumnRole) -> Int? {
        switch role {
        case .attribute: nil
        default: index[Array(role.rawValue.utf8)]
        }
    }

    /// The column of a stored attribute name: an existing one, -1 for overflow, or nil when
    /// the name is new and may get a column (``canHaveColumn(_:maxColumns:)``).
    func storedColumn(of stored: UnsafeRawBufferPointer) -> (key: UInt32, column: Int32?) {
        let before = storedNames.count
        let k = storedNames.intern(stored)
        if storedNames.count > before {
            storedColumn.append(-2)
            let name = StoredJSON.decodeString(stored, 0..<stored.count)
            if let c = index[Array(name.utf8)], columns[c].role == .attribute {
                storedColumn[Int(k)] = Int32(c)
            } else if !canHaveColumn(name) {
                storedColumn[Int(k)] = -1
            }
        }
        let c = storedColumn[Int(k)]
        return (k, c == -2 ? nil : c)
    }

    /// Records the decision for a stored name that had none.
    func decide(_ key: UInt32, column: Int32) { storedColumn[Int(key)] = column }

    /// The column of the attribute named `a[name]` (its stored, quoted text) whose value has
    /// `kinds`: its existing column, -1 for `_overflow`, or a new column (typed by `kinds`,
    /// made by `add`, which alters the table) while the table has fewer than `maxColumns`.
    func attributeColumn(
        _ a: UnsafeRawBufferPointer, name: Range<Int>, kinds: ValueKinds, maxColumns: Int,
        add: (Column) throws(JSONAPIError) -> Int
    ) throws(JSONAPIError) -> Int {
        let stored = storedColumn(of: UnsafeRawBufferPointer(rebasing: a[name]))
        if let c = stored.column { return Int(c) }
        var column = -1
        if attributeCount < maxColumns {
            column = try add(Column(name: StoredJSON.decodeString(a, name), role: .attribute, type: kinds.columnType, kinds: kinds))
        }
        decide(stored.key, column: Int32(column))
        return column
    }

    private func canHaveColumn(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.first != UInt8(ascii: "_") && name.utf8.count <= 63 && !name.utf8.contains(0)
            && !foldedNames.contains(folded(name))
    }

    /// Adds a column (the caller alters the table and the catalog).
    @discardableResult
    func add(_ c: Column) -> Int {
        register(c)
        upserts.removeAll()
        oldRowStatement = nil
        return columns.count - 1
    }

    /// Changes a column's type and kinds (after the table was rebuilt).
    func retype(_ c: Int, to type: ColumnType, kinds: ValueKinds) {
        columns[c].type = type
        columns[c].kinds = kinds
        upserts.removeAll()
        oldRowStatement = nil
    }

    func noteKinds(_ c: Int, _ kinds: ValueKinds) { columns[c].kinds.formUnion(kinds) }

    /// The SQL that creates the table with its columns.
    func createSQL(named table: String? = nil) -> String {
        var parts: [String] = []
        for c in columns {
            var def = quoted(c.name) + " " + (c.role == .key ? "INTEGER PRIMARY KEY" : c.type.sqliteDeclaration)
            if c.role == .id { def += " UNIQUE" }
            parts.append(def)
        }
        return "CREATE TABLE \(quoted(table ?? name)) (\(parts.joined(separator: ", ")))"
    }
}

/// A table name for a type: the type itself when SQL can use it, otherwise a documented
/// mapping. A name starting with `_` or `sqlite_` (reserved) gets `t` in front; U+0000 is
/// dropped; a name longer than 63 bytes is cut there; a name equal to an earlier table's,
/// ignoring ASCII case, gets `~2`, `~3`, ….
func tableName(for type: String, taken: Set<[UInt8]>) -> String {
    var base = String(decoding: type.utf8.filter { $0 != 0 }, as: UTF8.self)
    if base.isEmpty || base.hasPrefix("_") || folded(base).starts(with: "sqlite_".utf8) { base = "t" + base }
    if base.utf8.count > 60 {
        var cut = Array(base.utf8.prefix(60))
        // Back to a character boundary.
        while let last = cut.last, last & 0xC0 == 0x80 { cut.removeLast() }
        if let last = cut.last, last >= 0xC0 { cut.removeLast() }
        base = String(decoding: cut, as: UTF8.self)
    }
    var name = base
    var n = 2
    while taken.contains(folded(name)) {
        name = "\(base)~\(n)"
        n += 1
    }
    return name
}
