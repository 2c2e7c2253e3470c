import Foundation
import JSONAPILoad
import JSONAPIStream
import Testing

/// `jsonapi load DB` into real SQLite files, read back with `denormalize DB`, the `sqlite3`
/// library's own view of the tables, and the loader's guarantees: idempotence, merging,
/// schema evolution, atomicity, bad input.
@Suite(.serialized)
struct LoadSQLiteTests {
    /// A fresh directory and a database path in it.
    static func database() throws -> (dir: URL, db: String) {
        let dir = try temporaryDirectory()
        return (dir, dir.appendingPathComponent("load.sqlite").path)
    }

    static func write(_ text: String, in dir: URL, name: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// The rows of a query, each cell as SQLite's text (NULL as nil), through the loader's
    /// own connection type's C library: the same file any reader sees.
    static func query(_ db: String, _ sql: String) throws -> [[String?]] {
        try SQLiteInspection.rows(database: db, sql)
    }

    /// Every corpus document loaded into SQLite and read back by `denormalize DB` gives the
    /// same graph as `normalize` (numbers exactly, absent and null attributes apart).
    @Test(arguments: DenormalizeCommandTests.inputs)
    func everyCorpusDocumentComesBackFromTheDatabase(_ path: String) throws {
        let context = DenormalizeCommandTests.context(path)
        let first = try run(["normalize", "--quiet"] + context + [path])
        #expect(first.status == 0, "\(path): \(first.stderr)")
        let (dir, db) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        let load = try run(["load", "--quiet", db] + context + [path])
        #expect(load.status == 0, "\(path): \(load.stderr)")
        let document = try run(["denormalize", db])
        #expect(document.status == 0, "\(path): \(document.stderr)")
        let again = try run(["normalize", "--quiet"] + context + ["-"], stdin: document.stdout)
        #expect(again.status == 0, "\(path): \(again.stderr)\n\(document.out)")
        #expect(try Self.byValue(SplitByTypeTests.comparable(again.stdout)) == Self.byValue(SplitByTypeTests.comparable(first.stdout)), "\(path):\n\(document.out)")
    }

    /// Numbers a double holds exactly compared by value (a REAL column keeps `1e2` as
    /// `100`); every other number by its exact text.
    static func byValue(_ v: JSONValue) -> JSONValue {
        switch v {
        case .number(let n): return n.exactDoubleValue.map { .number(JSONNumber($0)) } ?? v
        case .array(let a): return .array(a.map(byValue))
        case .object(let o): return .object(JSONObject(o.members.map { ($0.key, byValue($0.value)) }))
        default: return v
        }
    }

    static let things = #"""
        {"data":[
          {"type":"things","id":"1","attributes":{"name":"a","size":1,"price":19.99,"exact":0.1000000000000000055511151231257827,"tags":["x"],"on":true,"gone":null},"links":{"self":"/things/1"}},
          {"type":"things","id":"2","attributes":{"name":"b","size":2},"relationships":{"owner":{"data":{"type":"people","id":"9","meta":{"role":"admin"}}},"parts":{"data":[{"type":"things","id":"1"},{"type":"things","id":"3"}]}},"@ext:flag":1}
        ],"meta":{"total":2}}
        """#

    /// Columns take the type their values have (exact numbers as text), absent and null
    /// attributes stay apart, relationships and linkage are rows of their own.
    @Test func tablesHoldTheValuesAsTheyWere() throws {
        let (dir, db) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        let doc = try Self.write(Self.things, in: dir, name: "things.json")
        let r = try run(["load", db, doc])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("2 resources (2 written, 0 unchanged), 3 edges"), "\(r.stderr)")
        let info = try Self.query(db, #"SELECT "name", "type" FROM pragma_table_info('things')"#).map { "\($0[0]!) \($0[1]!)" }
        #expect(
            info == [
                "_resource INTEGER", "id TEXT", "name TEXT", "size INTEGER", "price REAL", "exact DECIMAL TEXT", "tags JSON TEXT", "on BOOLEAN",
                "gone TEXT", "_links JSON TEXT", "_nulls JSON TEXT", "_other JSON TEXT",
            ])
        let rows = try Self.query(db, #"SELECT id, name, size, typeof(size), price, exact, typeof(exact), tags, "on", gone, _links, _nulls, _other FROM things ORDER BY rowid"#)
        #expect(
            rows == [
                ["1", "a", "1", "integer", "19.99", "0.1000000000000000055511151231257827", "text", #"["x"]"#, "1", nil, #"{"self":"/things/1"}"#, #"["gone"]"#, nil],
                ["2", "b", "2", "integer", nil, nil, "null", nil, nil, nil, nil, nil, #"{"@ext:flag":1}"#],
            ])
        #expect(
            try Self.query(db, #"SELECT from_type, from_id, name, data, count FROM _relationships ORDER BY rowid"#) == [
                ["things", "2", "owner", "one", "1"], ["things", "2", "parts", "many", "2"],
            ])
        #expect(
            try Self.query(db, #"SELECT name, position, to_type, to_id, meta FROM _edges ORDER BY rowid"#) == [
                ["owner", "0", "people", "9", #"{"role":"admin"}"#], ["parts", "0", "things", "1", nil], ["parts", "1", "things", "3", nil],
            ])
        #expect(
            try Self.query(db, #"SELECT source, ordinal, data, "primary", meta FROM _documents"#) == [
                [doc, "0", "many", #"[{"type":"things","id":"1"},{"type":"things","id":"2"}]"#, #"{"total":2}"#]
            ])
        #expect(
            try Self.query(db, #"SELECT "column", role, type FROM _columns WHERE "table" = 'things' AND role = 'attribute' AND "column" IN ('exact', 'on')"#) == [
                ["exact", "attribute", "decimal"], ["on", "attribute", "boolean"],
            ])
    }

    /// Loading the same documents again changes no row and no hash; only `_documents.loaded_at`.
    @Test func loadingAgainChangesNothing() throws {
        let (dir, db) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        let doc = "Corpus/documents/spec-compound.json"
        #expect(try run(["load", "--quiet", db, doc]).status == 0)
        let tables = ["articles", "people", "comments", "_resources", "_relationships", "_edges"]
        func snapshot() throws -> [[[String?]]] { try tables.map { try Self.query(db, "SELECT rowid, * FROM \"\($0)\" ORDER BY rowid") } }
        let before = try snapshot()
        let r = try run(["load", db, doc])
        #expect(r.status == 0)
        #expect(r.stderr.contains("4 resources (0 written, 4 unchanged), 0 edges"), "\(r.stderr)")
        #expect(try snapshot() == before)
        #expect(try Self.query(db, "SELECT count(*) FROM _documents") == [["1"]])
    }

    /// `--progress` shows the progress line (bytes, resources) on standard error; without it,
    /// and not on a terminal, there is none.
    @Test func progressLine() throws {
        let (dir, db) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        let shown = try run(["load", "--progress", db, "Corpus/documents/spec-compound.json"])
        #expect(shown.status == 0)
        #expect(shown.stderr.contains("MB read (100%)") && shown.stderr.contains("4 resources"), "\(shown.stderr)")
        let quiet = try run(["load", db, "Corpus/documents/spec-compound.json"])
        #expect(!quiet.stderr.contains("MB read"), "\(quiet.stderr)")
    }

    /// A newer document merges member by member: attributes it has replace the stored ones,
    /// those it lacks stay; a relationship it has replaces the stored linkage whole.
    @Test func newerDocumentsMergeMemberByMember() throws {
        let (dir, db) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        let one = try Self.write(
            #"""
            {"data":{"type":"a","id":"1","attributes":{"x":1,"y":"keep","z":null},"relationships":{"r":{"data":[{"type":"b","id":"1"},{"type":"b","id":"2"}]},"s":{"data":null}},"meta":{"m":1}}}
            """#, in: dir, name: "one.json")
        let two = try Self.write(
            #"""
            {"data":{"type":"a","id":"1","attributes":{"x":2,"z":"now"},"relationships":{"r":{"data":[{"type":"b","id":"3"}]}},"meta":{"n":2}}}
            """#, in: dir, name: "two.json")
        #expect(try run(["load", "--quiet", db, one, two]).status == 0)
        #expect(try Self.query(db, #"SELECT x, y, z, _nulls, _meta FROM a"#) == [["2", "keep", "now", nil, #"{"m":1,"n":2}"#]])
        #expect(try Self.query(db, #"SELECT name, to_id FROM _edges ORDER BY name, position"#) == [["r", "3"]])
        #expect(try Self.query(db, #"SELECT name, data FROM _relationships ORDER BY rowid"#) == [["r", "many"], ["s", "null"]])
        // --on-duplicate first: what is stored wins, only new members are added.
        let (dir2, db2) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir2) }
        #expect(try run(["load", "--quiet", "--on-duplicate", "first", db2, one, two]).status == 0)
        #expect(try Self.query(db2, #"SELECT x, y, z, _nulls, _meta FROM a"#) == [["1", "keep", nil, #"["z"]"#, #"{"m":1,"n":2}"#]])
        #expect(try Self.query(db2, #"SELECT name, to_id FROM _edges ORDER BY name, position"#) == [["r", "1"], ["r", "2"]])
        // --on-duplicate error: a resource read twice in one run is refused, and its document
        // is not loaded.
        let (dir3, db3) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir3) }
        let refused = try run(["load", "--on-duplicate", "error", db3, one, two])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("two.json:1:9: error: resource (type \"a\", id \"1\") appears again") && refused.stderr.contains("[N01]"), "\(refused.stderr)")
        #expect(try Self.query(db3, #"SELECT x FROM a"#) == [["1"]])
        #expect(try Self.query(db3, #"SELECT source FROM _documents"#) == [[one]])
    }

    /// A stored value is read back under wide limits, not the default ones: a `meta` value
    /// loaded under a raised `--max-depth` still merges member by member when its resource
    /// comes again (it was replaced, silently), and `denormalize` reads it back.
    @Test func deepStoredValuesMergeMemberByMember() throws {
        let (dir, db) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        let deep = String(repeating: "[", count: 600) + String(repeating: "]", count: 600)
        let one = try Self.write(#"{"data":{"type":"a","id":"1","meta":{"m":\#(deep)}}}"#, in: dir, name: "one.json")
        let two = try Self.write(#"{"data":{"type":"a","id":"1","meta":{"n":2}}}"#, in: dir, name: "two.json")
        let loaded = try run(["load", "--quiet", "--max-depth", "700", db, one, two])
        #expect(loaded.status == 0, "\(loaded.stderr)")
        #expect(try Self.query(db, #"SELECT _meta FROM a"#) == [[#"{"m":\#(deep),"n":2}"#]])
        let back = try run(["denormalize", "--max-depth", "700", db])
        #expect(back.status == 0, "\(back.stderr)")
        #expect(back.out.contains(#""meta":{"m":\#(deep),"n":2}"#))
    }

    /// A value that no longer fits its column widens it: the table is rebuilt with the wider
    /// type and every stored value converted without change of value.
    @Test func columnsWidenAsValuesChangeType() throws {
        let (dir, db) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        var docs: [String] = []
        for (k, v) in ["1", "2.5", "\"three\"", "{\"four\":4}", "12345678901234567890123"].enumerated() {
            docs.append(try Self.write(#"{"data":{"type":"t","id":"\#(k)","attributes":{"v":\#(v),"n":\#(k)}}}"#, in: dir, name: "\(k).json"))
        }
        let first = try run(["load", db, docs[0], docs[1]])
        #expect(first.stderr.contains("widened t.v: integer → double"), "\(first.stderr)")
        #expect(try Self.query(db, #"SELECT typeof(v), v FROM t ORDER BY rowid"#) == [["real", "1.0"], ["real", "2.5"]])
        let rest = try run(["load", db] + docs[2...])
        #expect(rest.stderr.contains("widened t.v: double → json"), "\(rest.stderr)")
        #expect(try Self.query(db, #"SELECT type FROM pragma_table_info('t') WHERE name = 'v'"#) == [["JSON TEXT"]])
        #expect(try Self.query(db, #"SELECT v FROM t ORDER BY rowid"#) == [["1"], ["2.5"], [#""three""#], [#"{"four":4}"#], ["12345678901234567890123"]])
        #expect(try Self.query(db, #"SELECT typeof(n), count(*) FROM t GROUP BY 1"#) == [["integer", "5"]])
        let back = try run(["denormalize", db])
        let values = try JSONValue(parsing: Array(back.stdout))["data"]!.arrayValue!.map { $0["attributes"]!["v"]!.jsonText }
        #expect(values == ["1", "2.5", #""three""#, #"{"four":4}"#, "12345678901234567890123"])
    }

    /// Names SQL cannot take as they are, and more attributes than the column limit.
    @Test func awkwardNamesAndTheOverflowColumn() throws {
        let (dir, db) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        var attributes = (0..<30).map { #""a\#($0)":\#($0)"# }
        attributes += [#""Title":"x""#, #""title":"y""#, #""semi;colon \"q\"":1"#, #""_under":2"#, #""lid":3"#]
        let doc = try Self.write(
            #"""
            {"data":[{"type":"sqlite_master","id":"1","attributes":{\#(attributes.joined(separator: ","))}},
                     {"type":"Odd \"type\"; DROP TABLE x","id":"1"},{"type":"odd \"TYPE\"; drop table x","id":"2"}]}
            """#, in: dir, name: "odd.json")
        let r = try run(["load", "--max-columns", "25", db, doc])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            try Self.query(db, #"SELECT type, "table" FROM _tables ORDER BY rowid"#) == [
                ["sqlite_master", "tsqlite_master"], [#"Odd "type"; DROP TABLE x"#, #"Odd "type"; DROP TABLE x"#],
                [#"odd "TYPE"; drop table x"#, #"odd "TYPE"; drop table x~2"#],
            ])
        let columns = try Self.query(db, #"SELECT name FROM pragma_table_info('tsqlite_master')"#).map { $0[0]! }
        #expect(columns.count == 2 + 25 + 1)
        #expect(columns.last == "_overflow")
        let overflow = try JSONValue(parsing: Array(try Self.query(db, "SELECT _overflow FROM tsqlite_master")[0][0]!.utf8))
        #expect(overflow.objectValue!.keys == ["a25", "a26", "a27", "a28", "a29", "Title", "title", #"semi;colon "q""#, "_under", "lid"])
        let back = try run(["denormalize", db])
        let a = try JSONValue(parsing: Array(back.stdout))["data"]!.arrayValue![0]["attributes"]!
        #expect(a.objectValue!.count == 35)
        #expect(a["title"] == "y" && a["Title"] == "x" && a["lid"] == 3)
    }

    /// Names are compared byte for byte: `é` and `e` + U+0301 are two attributes (two columns)
    /// and two types (two tables), though Swift's `String` takes them for equal.
    @Test func canonicallyEquivalentNamesStayApart() throws {
        let (dir, db) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        let doc = try Self.write(
            #"""
            {"data":[{"type":"caf\u00e9","id":"1","attributes":{"\u00e9":1,"e\u0301":2}},{"type":"cafe\u0301","id":"1","attributes":{"x":3}}]}
            """#, in: dir, name: "nfc.json")
        let r = try run(["load", "--quiet", db, doc])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.query(db, #"SELECT count(*) FROM _tables"#) == [["2"]])
        #expect(try Self.query(db, "SELECT \"\u{e9}\", \"e\u{301}\" FROM \"caf\u{e9}\"") == [["1", "2"]])
        #expect(try Self.query(db, "SELECT x FROM \"cafe\u{301}\"") == [["3"]])
    }

    /// 3,000 attributes on one type (1,000 columns, the rest in `_overflow`) and an id longer
    /// than 1 MB load, and come back.
    @Test func manyAttributesAndALongID() throws {
        let (dir, db) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        let attributes = (0..<3000).map { #""field\#($0)":\#($0)"# }.joined(separator: ",")
        let longID = String(repeating: "x", count: 1_100_000)
        let doc = try Self.write(
            #"""
            {"data":[{"type":"wide","id":"1","attributes":{\#(attributes)}},{"type":"wide","id":"\#(longID)","attributes":{"field2999":1}}]}
            """#, in: dir, name: "wide.json")
        let r = try run(["load", "--quiet", db, doc])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Self.query(db, #"SELECT count(*) FROM pragma_table_info('wide')"#) == [["1003"]])
        #expect(try Self.query(db, #"SELECT length(id) FROM wide ORDER BY _resource"#) == [["1"], ["1100000"]])
        let overflow = try Self.query(db, #"SELECT _overflow FROM wide ORDER BY _resource"#)
        #expect(overflow[1] == [#"{"field2999":1}"#])
        let back = try run(["denormalize", db])
        let data = try JSONValue(parsing: Array(back.stdout))["data"]!.arrayValue!
        #expect(data[0]["attributes"]!.objectValue!.count == 3000)
        #expect(data[0]["attributes"]!["field2999"] == 2999)
        #expect(data[1]["id"]?.stringValue?.count == 1_100_000)
    }

    /// A document that fails half-way leaves nothing of itself; the documents before it stay
    /// (all of them go with --single-transaction). The error names the file and position.
    @Test func aDocumentThatFailsLeavesNothing() throws {
        let (dir, db) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = try Self.write(#"{"data":[{"type":"a","id":"1"}]}"#, in: dir, name: "good.json")
        let bad = try Self.write(#"{"data":[{"type":"a","id":"2"},{"type":"b","id":"3","attributes":{"x":1}},{"type":"a","id":"4",]}"#, in: dir, name: "bad.json")
        let r = try run(["load", db, good, bad])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bad.json:1:"), "\(r.stderr)")
        #expect(r.stderr.contains("the document with the error was not loaded"), "\(r.stderr)")
        #expect(try Self.query(db, "SELECT id FROM a") == [["1"]])
        #expect(try Self.query(db, #"SELECT count(*) FROM "_resources""#) == [["1"]])
        #expect(try Self.query(db, #"SELECT count(*) FROM sqlite_schema WHERE name = 'b'"#) == [["0"]])
        let (dir2, db2) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir2) }
        let all = try run(["load", "--single-transaction", db2, good, bad])
        #expect(all.status == 1)
        #expect(try Self.query(db2, #"SELECT count(*) FROM "_resources""#) == [["0"]])
        // The database is usable afterwards: the good document loads.
        #expect(try run(["load", "--quiet", db2, good]).status == 0)
        #expect(try Self.query(db2, "SELECT id FROM a") == [["1"]])
    }

    /// `load --workers 2`: a dump of many documents, larger than the 4 MiB the reader looks at
    /// before it hands documents to workers, parsed on workers while this thread writes; the
    /// same rows in every table as one reader, with the same file given twice (documents are
    /// numbered per input, in order with the resources, so the second reading finds the
    /// first's rows). A bad document in the middle fails at the same place, with the documents
    /// before it loaded.
    @Test func workersLoadTheSameRows() throws {
        let (dir, db1) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        let generated = try run(["generate", "--resources", "3000", "--documents", "120"])
        #expect(generated.status == 0)
        #expect(generated.stdout.count > 5_000_000)
        let dump = dir.appendingPathComponent("dump.json")
        try generated.stdout.write(to: dump)
        let db2 = dir.appendingPathComponent("workers.sqlite").path
        let one = try run(["load", "--workers", "1", db1, dump.path, dump.path])
        let two = try run(["load", "--workers", "2", db2, dump.path, dump.path])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(two.stderr.replacingOccurrences(of: db2, with: db1) == one.stderr)
        // Both readings of the file: 9,840 resources each, those the second finds as stored
        // unchanged (a resource in several pages is written back to each page's content).
        #expect(one.stderr.contains("loaded 240 documents into"), "\(one.stderr)")
        #expect(one.stderr.contains("19680 resources (9481 written, 10199 unchanged)"), "\(one.stderr)")
        let tables = try Self.query(db1, "SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").map { $0[0]! }
        #expect(tables.count > 6, "\(tables)")
        for t in tables {
            let columns = try Self.query(db1, "SELECT name FROM pragma_table_info('\(t)') WHERE name <> 'loaded_at'").map { "\"\($0[0]!)\"" }
            let sql = "SELECT \(columns.joined(separator: ", ")) FROM \"\(t)\" ORDER BY rowid"
            let a = try Self.query(db1, sql)
            #expect(a.count > 0 || t.hasPrefix("_crawl"), "\(t) is empty")
            #expect(try Self.query(db2, sql) == a, "\(t) differs")
        }
        // A bad document among them.
        var bytes = Array(generated.stdout)
        let middle = bytes.index(bytes.startIndex, offsetBy: bytes.count / 2)
        let cut = bytes[middle...].firstIndex(of: 0x0A)! + 1
        let before = bytes[..<cut].filter { $0 == 0x0A }.count
        #expect(before > 50)
        bytes.insert(contentsOf: Array(#"{"data":[{"type":"a","id":"1",]}"#.utf8) + [0x0A], at: cut)
        let bad = dir.appendingPathComponent("bad.json")
        try Data(bytes).write(to: bad)
        let (dir3, db3) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir3) }
        let db4 = dir3.appendingPathComponent("workers.sqlite").path
        let failedOne = try run(["load", "--workers", "1", db3, bad.path])
        let failedTwo = try run(["load", "--workers", "2", db4, bad.path])
        #expect(failedOne.status == 1)
        #expect(failedTwo.status == 1)
        #expect(failedTwo.stderr.replacingOccurrences(of: db4, with: db3) == failedOne.stderr)
        #expect(failedOne.stderr.contains("bad.json:"), "\(failedOne.stderr)")
        let count = "SELECT count(*) FROM _documents"
        #expect(try Self.query(db4, count) == Self.query(db3, count))
        #expect(try Self.query(db3, count) == [["\(before)"]])
    }

    /// Bad databases and bad values: clear errors, never a crash.
    @Test func badDatabasesAndValues() throws {
        let (dir, db) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        let doc = try Self.write(#"{"data":{"type":"a","id":"1","attributes":{"s":"nul\u0000here"}}}"#, in: dir, name: "doc.json")
        let notSQLite = try Self.write("this is not a database, just text that is long enough to be read as a header\n", in: dir, name: "text.db")
        let r = try run(["load", notSQLite, doc])
        #expect(r.status == 2)
        #expect(r.stderr.contains("file is not a database"), "\(r.stderr)")
        let directory = try run(["load", dir.path, doc])
        #expect(directory.status == 2 && directory.stderr.contains("is a directory"), "\(directory.stderr)")
        // U+0000 inside a string is kept (SQLite text has a length).
        #expect(try run(["load", "--quiet", db, doc]).status == 0)
        #expect(try Self.query(db, "SELECT length(CAST(s AS BLOB)), hex(s) FROM a") == [["8", "6E756C0068657265"]])
        // A read-only database file.
        try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: db)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: dir.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: dir.path) }
        // Root writes whatever the permissions say: the check runs as `nobody` then.
        let readOnly = try run(["load", db, doc], user: getuid() == 0 ? "nobody" : nil)
        #expect(readOnly.status == 2, "\(readOnly.stderr)")
        #expect(readOnly.stderr.contains("attempt to write a readonly database"), "\(readOnly.stderr)")
        #expect(try Self.query(db, "SELECT count(*) FROM _documents") == [["1"]])
    }

    /// Resources without an id are keyed by lid within their document: loading the document
    /// again replaces them instead of adding copies.
    @Test func lidOnlyResourcesBelongToTheirDocument() throws {
        let (dir, db) = try Self.database()
        defer { try? FileManager.default.removeItem(at: dir) }
        let doc = try Self.write(
            #"""
            {"data":{"type":"articles","lid":"a1","attributes":{"title":"t"},"relationships":{"author":{"data":{"type":"people","lid":"p1"}}}},
             "included":[{"type":"people","lid":"p1","attributes":{"name":"n"}}]}
            """#, in: dir, name: "create.json")
        for _ in 0..<2 { #expect(try run(["load", "--quiet", "--context", "create", db, doc]).status == 0) }
        #expect(try Self.query(db, #"SELECT type, id, lid FROM _resources ORDER BY type"#).count == 2)
        #expect(try Self.query(db, #"SELECT count(*) FROM _edges"#) == [["1"]])
        #expect(try Self.query(db, #"SELECT id, lid, title FROM articles"#) == [[nil, "a1", "t"]])
    }

    /// A DocumentView's absent top-level members are nil, not JSON null (the loader's
    /// `_documents` relies on it).
    @Test func absentTopLevelMembersAreNil() throws {
        final class Tops: StreamSink {
            var seen: [String] = []
            func resource(_ r: ResourceView) throws(JSONAPIError) {}
            func document(_ d: DocumentView) throws(JSONAPIError) {
                seen.append("\(d.meta == nil) \(d.links == nil) \(d.jsonapi == nil) \(d.errors == nil) \(d.meta?.jsonText ?? "-")")
            }
        }
        let tops = Tops()
        let stream = DocumentStream(sinks: [tops])
        try stream.feed(Array(#"{"data":[]}{"data":null,"meta":null}"#.utf8))
        try stream.finish()
        #expect(tops.seen == ["true true true true -", "false true true true null"])
    }
}
