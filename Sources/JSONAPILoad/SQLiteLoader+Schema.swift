import JSONAPIStream

/// The schema: fixed tables, the catalog (`_tables`, `_columns`), a table per type, columns
/// added as attributes appear and widened when a value no longer fits.
extension SQLiteLoader {
    static func createFixedTables(_ db: SQLiteConnection) throws(JSONAPIError) {
        try db.execute(
            #"""
            CREATE TABLE IF NOT EXISTS "_tables" ("type" TEXT PRIMARY KEY, "table" TEXT NOT NULL UNIQUE);
            CREATE TABLE IF NOT EXISTS "_columns" ("table" TEXT NOT NULL, "position" INTEGER NOT NULL, "column" TEXT NOT NULL,
                "role" TEXT NOT NULL, "type" TEXT NOT NULL, "kinds" INTEGER NOT NULL, PRIMARY KEY ("table", "column"));
            CREATE TABLE IF NOT EXISTS "_documents" ("key" INTEGER PRIMARY KEY, "source" TEXT NOT NULL, "ordinal" INTEGER NOT NULL,
                "data" TEXT, "primary" JSON TEXT, "meta" JSON TEXT, "links" JSON TEXT, "jsonapi" JSON TEXT, "errors" JSON TEXT,
                "other" JSON TEXT, "loaded_at" TEXT NOT NULL, UNIQUE ("source", "ordinal"));
            CREATE TABLE IF NOT EXISTS "_resources" ("key" INTEGER PRIMARY KEY, "type" TEXT NOT NULL, "id" TEXT, "lid" TEXT,
                "document" INTEGER NOT NULL, "primary" BOOLEAN NOT NULL, "hash" TEXT NOT NULL, "loaded_at" TEXT NOT NULL,
                UNIQUE ("type", "id"));
            CREATE INDEX IF NOT EXISTS "_resources_scoped" ON "_resources" ("document", "type", "lid") WHERE "id" IS NULL;
            CREATE TABLE IF NOT EXISTS "_relationships" ("resource" INTEGER NOT NULL, "from_type" TEXT NOT NULL, "from_id" TEXT,
                "from_lid" TEXT, "name" TEXT NOT NULL, "data" TEXT NOT NULL, "count" INTEGER NOT NULL, "links" JSON TEXT,
                "meta" JSON TEXT, "other" JSON TEXT, "document" INTEGER NOT NULL, UNIQUE ("resource", "name"));
            CREATE TABLE IF NOT EXISTS "_edges" ("resource" INTEGER NOT NULL, "from_type" TEXT NOT NULL, "from_id" TEXT,
                "from_lid" TEXT, "name" TEXT NOT NULL, "position" INTEGER NOT NULL, "to_type" TEXT NOT NULL, "to_id" TEXT,
                "to_lid" TEXT, "meta" JSON TEXT, "other" JSON TEXT, "document" INTEGER NOT NULL);
            CREATE INDEX IF NOT EXISTS "_edges_resource" ON "_edges" ("resource", "name", "position");
            """#)
    }

    /// Reads the tables and columns earlier loads made.
    func loadCatalog() throws(JSONAPIError) {
        try catalog.read(
            names: db.rows(#"SELECT "name" FROM "sqlite_schema" WHERE "type" = 'table'"#),
            types: db.rows(#"SELECT "type", "table" FROM "_tables" ORDER BY rowid"#), database: db.path
        ) { (name) throws(JSONAPIError) in
            try db.rows(#"SELECT "column", "role", "type", "kinds" FROM "_columns" WHERE "table" = ? ORDER BY "position""#, [name])
        }
    }

    /// The table of a type, created when new.
    func table(for typeBytes: UnsafeRawBufferPointer) throws(JSONAPIError) -> LoadTable {
        if let t = catalog.table(for: typeBytes) { return t }
        let t = catalog.newTable(for: String(decoding: typeBytes, as: UTF8.self))
        try db.execute(t.createSQL())
        let s = try db.prepare(#"INSERT INTO "_tables" ("type", "table") VALUES (?, ?)"#)
        s.bind(1, t.type)
        s.bind(2, t.name)
        try s.run()
        try recordColumn(t, 0)
        try recordColumn(t, 1)
        catalog.add(t)
        return t
    }

    /// Widens columns whose values no longer fit their type, in one rebuild of the table (an
    /// SQLite column's declared type cannot be changed in place): a new table with the new
    /// types, every row copied in order through `jsonapi_widen`, the old table dropped.
    func widen(_ t: LoadTable, _ changes: [(column: Int, kinds: ValueKinds)]) throws(JSONAPIError) {
        let before = t.columns
        for (c, kinds) in changes {
            run.summary.widened.append("\(t.name).\(before[c].name): \(before[c].type.rawValue) → \(kinds.columnType.rawValue)")
            t.retype(c, to: kinds.columnType, kinds: kinds)
        }
        let temporary = "_jsonapi_rebuild"
        let names = t.columns.map { quoted($0.name) }.joined(separator: ", ")
        let values = t.columns.indices.map { c in
            before[c].type == t.columns[c].type
                ? quoted(t.columns[c].name)
                : "jsonapi_widen(\(quoted(t.columns[c].name)), '\(before[c].type.rawValue)', '\(t.columns[c].type.rawValue)')"
        }.joined(separator: ", ")
        try db.execute(
            """
            DROP TABLE IF EXISTS \(quoted(temporary));
            \(t.createSQL(named: temporary));
            INSERT INTO \(quoted(temporary)) (\(names)) SELECT \(values) FROM \(quoted(t.name)) ORDER BY rowid;
            DROP TABLE \(quoted(t.name));
            ALTER TABLE \(quoted(temporary)) RENAME TO \(quoted(t.name));
            """)
        let s = try db.prepare(#"UPDATE "_columns" SET "type" = ?, "kinds" = ? WHERE "table" = ? AND "column" = ?"#)
        for (c, _) in changes {
            s.bind(1, t.columns[c].type.rawValue)
            s.bind(2, Int64(t.columns[c].kinds.rawValue))
            s.bind(3, t.name)
            s.bind(4, t.columns[c].name)
            try s.run()
        }
    }

}

/// `jsonapi_widen(value, from, to)`: a stored value of column type `from` as column type
/// `to` (a wider one): integers as doubles; numbers as their exact text (decimal); and any
/// value as JSON text (strings quoted, booleans as `true`/`false`).
let widenFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, count, args in
    guard count == 3, let args else { return SQLiteFunction.result(context, error: "jsonapi_widen takes 3 arguments") }
    let from = ColumnType(rawValue: String(decoding: SQLiteFunction.text(args, 1), as: UTF8.self))
    let to = ColumnType(rawValue: String(decoding: SQLiteFunction.text(args, 2), as: UTF8.self))
    guard let from, let to else { return SQLiteFunction.result(context, error: "jsonapi_widen: unknown column type") }
    switch SQLiteFunction.storage(args, 0) {
    case .null:
        SQLiteFunction.resultNull(context)
    case .integer:
        let v = SQLiteFunction.int64(args, 0)
        if to == .double { return SQLiteFunction.result(context, Double(v)) }
        var text = from == .boolean ? (v != 0 ? "true" : "false") : String(v)
        text.withUTF8 { SQLiteFunction.result(context, text: UnsafeRawBufferPointer($0)) }
    case .real:
        let d = SQLiteFunction.double(args, 0)
        guard d.isFinite else { return SQLiteFunction.resultNull(context) }
        if to == .double { return SQLiteFunction.result(context, d) }
        var text = JSONNumber(d).text
        text.withUTF8 { SQLiteFunction.result(context, text: UnsafeRawBufferPointer($0)) }
    case .text, .blob:
        let bytes = SQLiteFunction.text(args, 0)
        guard from == .string, to == .json else { return SQLiteFunction.result(context, text: bytes) }
        var quotedText = ByteArena(capacity: bytes.count + 2)
        JSONEscaping.appendQuoted(bytes, to: &quotedText)
        quotedText.withBytes { SQLiteFunction.result(context, text: $0) }
    }
}
