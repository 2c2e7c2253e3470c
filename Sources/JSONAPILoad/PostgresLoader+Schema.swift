import JSONAPIStream

extension ColumnType {
    /// The PostgreSQL type: `numeric` keeps a decimal's value exactly, `json` (not `jsonb`)
    /// keeps the text as written (member order, duplicate names, `-0`).
    var postgresDeclaration: String {
        switch self {
        case .string: "text"
        case .integer: "bigint"
        case .double: "double precision"
        case .decimal: "numeric"
        case .boolean: "boolean"
        case .json: "json"
        }
    }
}

/// The schema in PostgreSQL: the fixed tables, the catalog, a table per type, columns added
/// and widened (`ALTER COLUMN … TYPE … USING`, in place).
///
/// A B-tree entry holds at most about 2.7 kB, and an id may be longer than a megabyte: a
/// resource's type and id are kept unique by an exclusion constraint over a hash index (which
/// stores hash codes, not the text), the few other names users control (types in `_tables`,
/// sources, endpoints) by unique indexes on their MD5 digest. A relationship's (resource,
/// name) is kept unique by the loader (it replaces or adds one relationship at a time, under
/// the loaders' advisory lock): an index that enforced it cost 2 µs a row in a bulk load.
extension PostgresLoader {
    static func createFixedTables(_ db: PostgresConnection) throws(JSONAPIError) {
        try db.execute(
            #"""
            CREATE TABLE IF NOT EXISTS "_tables" ("key" bigserial PRIMARY KEY, "type" text NOT NULL, "table" text NOT NULL UNIQUE);
            CREATE UNIQUE INDEX IF NOT EXISTS "_tables_type" ON "_tables" (md5("type"));
            CREATE TABLE IF NOT EXISTS "_columns" ("table" text NOT NULL, "position" integer NOT NULL, "column" text NOT NULL,
                "role" text NOT NULL, "type" text NOT NULL, "kinds" integer NOT NULL, PRIMARY KEY ("table", "column"));
            CREATE TABLE IF NOT EXISTS "_documents" ("key" bigserial PRIMARY KEY, "source" text NOT NULL, "ordinal" bigint NOT NULL,
                "data" text, "primary" json, "meta" json, "links" json, "jsonapi" json, "errors" json, "other" json,
                "loaded_at" timestamptz NOT NULL);
            CREATE UNIQUE INDEX IF NOT EXISTS "_documents_source" ON "_documents" (md5("source"), "ordinal");
            CREATE TABLE IF NOT EXISTS "_resources" ("key" bigserial PRIMARY KEY, "type" text NOT NULL, "id" text, "lid" text,
                "document" bigint NOT NULL, "primary" boolean NOT NULL, "hash" text NOT NULL, "loaded_at" timestamptz NOT NULL,
                CONSTRAINT "_resources_identity" EXCLUDE USING hash ((length("type") || ':' || "type" || "id") WITH =)
                WHERE ("id" IS NOT NULL));
            CREATE INDEX IF NOT EXISTS "_resources_scoped" ON "_resources" ("document") WHERE "id" IS NULL;
            CREATE TABLE IF NOT EXISTS "_relationships" ("key" bigserial NOT NULL, "resource" bigint NOT NULL,
                "from_type" text NOT NULL, "from_id" text, "from_lid" text, "name" text NOT NULL, "data" text NOT NULL,
                "count" bigint NOT NULL, "links" json, "meta" json, "other" json, "document" bigint NOT NULL);
            CREATE INDEX IF NOT EXISTS "_relationships_resource" ON "_relationships" ("resource");
            CREATE TABLE IF NOT EXISTS "_edges" ("resource" bigint NOT NULL, "from_type" text NOT NULL, "from_id" text,
                "from_lid" text, "name" text NOT NULL, "position" bigint NOT NULL, "to_type" text NOT NULL, "to_id" text,
                "to_lid" text, "meta" json, "other" json, "document" bigint NOT NULL);
            CREATE INDEX IF NOT EXISTS "_edges_resource" ON "_edges" ("resource", "position");
            """#)
    }

    /// Reads the tables and columns earlier loads made.
    func loadCatalog() throws(JSONAPIError) {
        try catalog.read(
            names: db.rows("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()"),
            types: db.rows(#"SELECT "type", "table" FROM "_tables" ORDER BY "key""#), database: db.name
        ) { (name) throws(JSONAPIError) in
            try db.rows(#"SELECT "column", "role", "type", "kinds" FROM "_columns" WHERE "table" = $1 ORDER BY "position""#, [name])
        }
    }

    /// The table of a type, created when new.
    func table(for typeBytes: UnsafeRawBufferPointer) throws(JSONAPIError) -> LoadTable {
        if let t = catalog.table(for: typeBytes) { return t }
        let type = String(decoding: typeBytes, as: UTF8.self)
        try db.requireText(type, "a resource type")
        let t = catalog.newTable(for: type)
        try db.execute("CREATE TABLE \(quoted(t.name)) (\(quoted(ColumnRole.key.rawValue)) bigint PRIMARY KEY, \"id\" text)")
        _ = try db.rows(#"INSERT INTO "_tables" ("type", "table") VALUES ($1, $2)"#, [type, t.name])
        try recordColumn(t, 0)
        try recordColumn(t, 1)
        catalog.add(t)
        return t
    }

    /// Widens a column whose values no longer fit its type, in place: integers to `double
    /// precision` or `numeric` (doubles through their shortest text, so that `numeric` gets
    /// the digits that were loaded), anything to `json` (`to_json`: strings quoted, numbers
    /// and booleans as they are).
    func widen(_ t: LoadTable, _ c: Int, to kinds: ValueKinds) throws(JSONAPIError) {
        let before = t.columns[c]
        let to = kinds.columnType
        run.summary.widened.append("\(t.name).\(before.name): \(before.type.rawValue) → \(to.rawValue)")
        let column = quoted(before.name)
        let using =
            switch to {
            case .json: "to_json(\(column))"
            case .decimal: "\(column)::text::numeric"
            default: "\(column)::\(to.postgresDeclaration)"
            }
        try db.execute("ALTER TABLE \(quoted(t.name)) ALTER COLUMN \(column) TYPE \(to.postgresDeclaration) USING \(using)")
        t.retype(c, to: to, kinds: kinds)
        _ = try db.rows(
            #"UPDATE "_columns" SET "type" = $1, "kinds" = $2 WHERE "table" = $3 AND "column" = $4"#,
            [to.rawValue, String(kinds.rawValue), t.name, before.name])
    }

    /// The kind of a value as a PostgreSQL column stores it: that of the tables
    /// (``ValueKinds``), except a negative zero, which `bigint` and `numeric` turn into `0`
    /// (a double: `double precision` keeps the sign); a number `numeric` cannot hold (more
    /// than 131,072 digits before the point or 16,383 after it), and a string holding
    /// U+0000, which `text` cannot hold: both JSON (the `json` column keeps their text).
    static func kinds(of v: UnsafeRawBufferPointer) -> ValueKinds {
        let k = ValueKinds.of(v)
        switch k {
        case .integer, .double:
            return isNegativeZero(v) ? .double : k
        case .decimal:
            return isNegativeZero(v) ? .double : fitsNumeric(v) ? k : [.decimal, .object]
        case .string:
            return holdsNUL(v) ? [.string, .object] : k
        default:
            return k
        }
    }

    static func isNegativeZero(_ v: UnsafeRawBufferPointer) -> Bool {
        guard v[0] == UInt8(ascii: "-") else { return false }
        for c in v.dropFirst() {
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
            if c != UInt8(ascii: "0") && c != UInt8(ascii: ".") { return false }
        }
        return true
    }

    /// Whether `numeric` holds a JSON number: digits before the point (with the exponent)
    /// at most 131,072, after it at most 16,383.
    static func fitsNumeric(_ v: UnsafeRawBufferPointer) -> Bool {
        var integerDigits = 0, fractionDigits = 0, exponent = 0
        var k = v[0] == UInt8(ascii: "-") ? 1 : 0
        while k < v.count, v[k] >= 0x30, v[k] <= 0x39 { integerDigits += 1; k += 1 }
        if k < v.count, v[k] == UInt8(ascii: ".") {
            k += 1
            while k < v.count, v[k] >= 0x30, v[k] <= 0x39 { fractionDigits += 1; k += 1 }
        }
        if k < v.count, v[k] == UInt8(ascii: "e") || v[k] == UInt8(ascii: "E") {
            k += 1
            var negative = false
            if k < v.count, v[k] == UInt8(ascii: "+") || v[k] == UInt8(ascii: "-") { negative = v[k] == UInt8(ascii: "-"); k += 1 }
            while k < v.count, v[k] >= 0x30, v[k] <= 0x39 {
                exponent = min(exponent * 10 + Int(v[k] - 0x30), 10_000_000)
                k += 1
            }
            if negative { exponent = -exponent }
        }
        return integerDigits + exponent <= 131_072 && fractionDigits - exponent <= 16_383
    }

    /// Whether a JSON string literal has a `\u0000` escape.
    static func holdsNUL(_ v: UnsafeRawBufferPointer) -> Bool {
        var k = 1
        while k < v.count - 1 {
            if v[k] == UInt8(ascii: "\\") {
                if v[k + 1] == UInt8(ascii: "u"), k + 5 < v.count,
                    v[k + 2] == 0x30, v[k + 3] == 0x30, v[k + 4] == 0x30, v[k + 5] == 0x30
                {
                    return true
                }
                k += 2
            } else {
                k += 1
            }
        }
        return false
    }
}
