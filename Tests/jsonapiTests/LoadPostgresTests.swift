import Foundation
import JSONAPIStream
import Testing

/// A throwaway PostgreSQL server for one test (`Scripts/postgres-server.sh`): started by
/// `init`, stopped by `deinit`.
final class PostgresServer {
    let state: URL
    let url: String

    init() throws {
        state = try temporaryDirectory().appendingPathComponent("pg")
        let started = try PostgresServerTests.script(["start", state.path])
        guard started.status == 0 else { throw JSONAPIError.input("postgres-server start: \(started.err)") }
        url = started.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    deinit {
        _ = try? PostgresServerTests.script(["stop", state.path])
        try? FileManager.default.removeItem(at: state.deletingLastPathComponent())
    }

    /// The rows of a query through `psql` (unaligned, `|` between cells; NULL as `∅`).
    func query(_ sql: String) throws -> [[String]] {
        let r = try PostgresServerTests.psql(url, sql, options: ["-P", "null=∅"])
        guard r.status == 0 else { throw JSONAPIError.input("psql: \(r.err)") }
        return r.out.split(separator: "\n", omittingEmptySubsequences: true).map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }
    }

    func execute(_ sql: String) throws {
        let r = try PostgresServerTests.psql(url, sql)
        guard r.status == 0 else { throw JSONAPIError.input("psql: \(r.err)") }
    }

    /// Drops every table (a fresh database for the next load).
    func reset() throws { try execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public") }
}

/// `jsonapi load postgresql://…` into a real PostgreSQL server the tests start and stop,
/// read back with `denormalize postgresql://…` and with `psql`: the same guarantees as the
/// SQLite loader (LoadSQLiteTests), with PostgreSQL's types.
@Suite(.serialized)
struct LoadPostgresTests {
    static func write(_ text: String, in dir: URL, name: String) throws -> String {
        try LoadSQLiteTests.write(text, in: dir, name: name)
    }

    /// Numbers by exact value, as sign, significant digits and exponent: `double precision`
    /// writes `1e2` as `100`, `numeric` writes `1e400` with its 400 zeros.
    static func byExactValue(_ v: JSONValue) -> JSONValue {
        switch v {
        case .number(let n):
            return .string("number " + canonical(n.text))
        case .array(let a): return .array(a.map(byExactValue))
        case .object(let o): return .object(JSONObject(o.members.map { ($0.key, byExactValue($0.value)) }))
        default: return v
        }
    }

    /// Where two values first differ (a JSON pointer and both values), nil when they are equal.
    static func firstDifference(_ a: JSONValue, _ b: JSONValue, at path: String = "") -> String? {
        switch (a, b) {
        case (.object(let x), .object(let y)) where x.keys == y.keys:
            for m in x.members { if let d = firstDifference(m.value, y[m.key]!, at: path + "/" + m.key) { return d } }
            return nil
        case (.array(let x), .array(let y)) where x.count == y.count:
            for (k, (p, q)) in zip(x, y).enumerated() { if let d = firstDifference(p, q, at: path + "/\(k)") { return d } }
            return nil
        default:
            return a == b ? nil : "\(path): \(a.jsonText.prefix(200)) and \(b.jsonText.prefix(200))"
        }
    }

    /// `-1.50e3` → `-15e2`: the digits without leading or trailing zeros and the exponent.
    static func canonical(_ text: String) -> String {
        var s = Substring(text)
        let negative = s.first == "-"
        if negative { s = s.dropFirst() }
        var exponent = 0
        if let e = s.firstIndex(where: { $0 == "e" || $0 == "E" }) {
            exponent = Int(s[s.index(after: e)...].replacingOccurrences(of: "+", with: "")) ?? 0
            s = s[..<e]
        }
        var digits = String(s)
        if let point = digits.firstIndex(of: ".") {
            exponent -= digits.distance(from: point, to: digits.endIndex) - 1
            digits.remove(at: point)
        }
        digits = String(digits.drop(while: { $0 == "0" }))
        while digits.last == "0" {
            digits.removeLast()
            exponent += 1
        }
        if digits.isEmpty { return negative ? "-0" : "0" }
        return (negative ? "-" : "") + digits + "e\(exponent)"
    }

    /// Every corpus document loaded into PostgreSQL and read back gives the same graph as
    /// `normalize` (numbers by value, absent and null attributes apart).
    @Test func everyCorpusDocumentComesBackFromTheDatabase() throws {
        let server = try PostgresServer()
        for path in DenormalizeCommandTests.inputs {
            try server.reset()
            let context = DenormalizeCommandTests.context(path)
            let first = try run(["normalize", "--quiet"] + context + [path])
            #expect(first.status == 0, "\(path): \(first.stderr)")
            let load = try run(["load", "--quiet", server.url] + context + [path])
            #expect(load.status == 0, "\(path): \(load.stderr)")
            let document = try run(["denormalize", server.url])
            #expect(document.status == 0, "\(path): \(document.stderr)")
            let again = try run(["normalize", "--quiet"] + context + ["-"], stdin: document.stdout)
            #expect(again.status == 0, "\(path): \(again.stderr)\n\(document.out)")
            #expect(
                try Self.byExactValue(SplitByTypeTests.comparable(again.stdout))
                    == Self.byExactValue(SplitByTypeTests.comparable(first.stdout)), "\(path):\n\(document.out.prefix(4000))")
        }
    }

    /// A generated document of several batches (new rows by COPY), loaded into PostgreSQL and
    /// into SQLite, comes back the same from both; so do hundreds of changed resources (merged)
    /// and one changed by hand.
    @Test func postgresAndSQLiteHoldTheSameGraph() throws {
        let server = try PostgresServer()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let generated = try run(["generate", "--resources", "2600", "--seed", "7"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let big = dir.appendingPathComponent("big.json").path
        try generated.stdout.write(to: URL(fileURLWithPath: big))
        // Another seed changes the first 300 articles, their comments and people: merged
        // (several hundred resources, a script per batch in PostgreSQL).
        let other = try run(["generate", "--resources", "300", "--seed", "8"])
        let changes = dir.appendingPathComponent("changes.json").path
        try other.stdout.write(to: URL(fileURLWithPath: changes))
        let change = try Self.write(
            #"""
            {"data":[{"type":"people","id":"1","attributes":{"name":"changed","extra":[1,2]},"relationships":{"new":{"data":[]}}}]}
            """#, in: dir, name: "change.json")
        let sqlite = dir.appendingPathComponent("same.sqlite").path
        for db in [server.url, sqlite] {
            let r = try run(["load", db, big, changes, change])
            #expect(r.status == 0, "\(r.stderr)")
            #expect(r.stderr.contains("loaded 3 documents"), "\(r.stderr)")
        }
        let fromPostgres = try run(["denormalize", server.url])
        let fromSQLite = try run(["denormalize", sqlite])
        #expect(fromPostgres.status == 0 && fromSQLite.status == 0, "\(fromPostgres.stderr) \(fromSQLite.stderr)")
        let a = Self.byExactValue(try JSONValue(parsing: Array(fromPostgres.stdout)))
        let b = Self.byExactValue(try JSONValue(parsing: Array(fromSQLite.stdout)))
        let difference = Self.firstDifference(a, b)
        #expect(difference == nil, "the PostgreSQL and SQLite databases give different documents at \(difference ?? "")")
        #expect((a["included"]?.arrayValue?.count ?? 0) + (a["data"]?.arrayValue?.count ?? 0) > 2600)
        #expect(try server.query(#"SELECT name, extra FROM people WHERE id = '1'"#) == [["changed", "[1,2]"]])
    }

    /// `load --workers 2` into PostgreSQL: a dump of many documents past the 4 MiB the
    /// reader looks at first, parsed on workers while this thread sends the batches; the same
    /// rows as one reader (the database read back, and every table's rows but the load times).
    @Test func workersLoadTheSameRows() throws {
        let server = try PostgresServer()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let generated = try run(["generate", "--resources", "3000", "--documents", "120", "--seed", "3"])
        #expect(generated.stdout.count > 5_000_000)
        let dump = dir.appendingPathComponent("dump.json").path
        try generated.stdout.write(to: URL(fileURLWithPath: dump))
        func load(workers: Int) throws -> (stderr: String, graph: Data, rows: [[[String]]]) {
            try server.reset()
            let r = try run(["load", "--workers", String(workers), server.url, dump])
            #expect(r.status == 0, "\(r.stderr)")
            let back = try run(["denormalize", server.url])
            #expect(back.status == 0, "\(back.stderr)")
            let tables = try server.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1").map { $0[0] }
            #expect(tables.count > 6, "\(tables)")
            let rows = try tables.map { t in
                let columns = try server.query(
                    "SELECT column_name FROM information_schema.columns WHERE table_name = '\(t)' AND column_name <> 'loaded_at' ORDER BY ordinal_position")
                let list = columns.map { "\"\($0[0])\"" }.joined(separator: ", ")
                return try server.query("SELECT \(list) FROM \"\(t)\" ORDER BY ROW(\(list))::text")
            }
            return (r.stderr, back.stdout, rows)
        }
        let one = try load(workers: 1)
        let two = try load(workers: 2)
        #expect(one.stderr.contains("loaded 120 documents"), "\(one.stderr)")
        #expect(two.stderr == one.stderr)
        #expect(two.graph == one.graph)
        #expect(one.rows.reduce(0) { $0 + $1.count } > 30_000)
        #expect(two.rows == one.rows)
    }

    /// PostgreSQL's types for the values, text escaped through COPY (tab, backslash, newline),
    /// absent and null attributes apart, relationships and linkage as rows.
    @Test func tablesHoldTheValuesAsTheyWere() throws {
        let server = try PostgresServer()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let doc = try Self.write(
            LoadSQLiteTests.things.replacingOccurrences(of: #""name":"a""#, with: #""name":"a\tb\\c\nd""#),
            in: dir, name: "things.json")
        let r = try run(["load", server.url, doc])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("2 resources (2 written, 0 unchanged), 3 edges"), "\(r.stderr)")
        let types = try server.query(
            #"""
            SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'things' ORDER BY ordinal_position
            """#
        ).map { $0.joined(separator: " ") }
        #expect(
            types == [
                "_resource bigint", "id text", "name text", "size bigint", "price double precision", "exact numeric", "tags json",
                "on boolean", "gone text", "_links json", "_nulls json", "_other json",
            ])
        #expect(
            try server.query(#"SELECT id, name = E'a\tb\\c\nd', size, price, exact, tags, "on", gone, _links, _nulls, _other FROM things ORDER BY _resource"#) == [
                ["1", "t", "1", "19.99", "0.1000000000000000055511151231257827", #"["x"]"#, "t", "∅", #"{"self":"/things/1"}"#, #"["gone"]"#, "∅"],
                ["2", "f", "2", "∅", "∅", "∅", "∅", "∅", "∅", "∅", #"{"@ext:flag":1}"#],
            ])
        #expect(try server.query(#"SELECT from_id, name, data, count FROM _relationships ORDER BY key"#) == [["2", "owner", "one", "1"], ["2", "parts", "many", "2"]])
        #expect(
            try server.query(#"SELECT name, position, to_type, to_id, meta FROM _edges ORDER BY name, position"#) == [
                ["owner", "0", "people", "9", #"{"role":"admin"}"#], ["parts", "0", "things", "1", "∅"], ["parts", "1", "things", "3", "∅"],
            ])
        #expect(
            try server.query(#"SELECT data, "primary", meta FROM _documents"#) == [
                ["many", #"[{"type":"things","id":"1"},{"type":"things","id":"2"}]"#, #"{"total":2}"#]
            ])
    }

    /// Loading again writes nothing (no row gets a new version: `xmin` stays); a newer
    /// document merges member by member; `--on-duplicate first` and `error` as in SQLite.
    @Test func reloadingAndMerging() throws {
        let server = try PostgresServer()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let doc = "Corpus/documents/spec-compound.json"
        #expect(try run(["load", "--quiet", server.url, doc]).status == 0)
        let tables = ["articles", "people", "comments", "_resources", "_relationships", "_edges"]
        func snapshot() throws -> [[[String]]] { try tables.map { try server.query("SELECT xmin, * FROM \"\($0)\" ORDER BY 2, 3") } }
        let before = try snapshot()
        let again = try run(["load", server.url, doc])
        #expect(again.stderr.contains("4 resources (0 written, 4 unchanged), 0 edges"), "\(again.stderr)")
        #expect(try snapshot() == before)
        #expect(try server.query("SELECT count(*) FROM _documents") == [["1"]])

        try server.reset()
        let one = try Self.write(
            #"""
            {"data":{"type":"a","id":"1","attributes":{"x":1,"y":"keep","z":null},"relationships":{"r":{"data":[{"type":"b","id":"1"},{"type":"b","id":"2"}]},"s":{"data":null}},"meta":{"m":1}}}
            """#, in: dir, name: "one.json")
        let two = try Self.write(
            #"""
            {"data":{"type":"a","id":"1","attributes":{"x":2,"z":"now"},"relationships":{"r":{"data":[{"type":"b","id":"3"}]}},"meta":{"n":2}}}
            """#, in: dir, name: "two.json")
        #expect(try run(["load", "--quiet", server.url, one, two]).status == 0)
        #expect(try server.query(#"SELECT x, y, z, _nulls, _meta FROM a"#) == [["2", "keep", "now", "∅", #"{"m":1,"n":2}"#]])
        #expect(try server.query(#"SELECT name, to_id FROM _edges ORDER BY name, position"#) == [["r", "3"]])
        #expect(try server.query(#"SELECT name, data FROM _relationships ORDER BY key"#) == [["r", "many"], ["s", "null"]])
        try server.reset()
        #expect(try run(["load", "--quiet", "--on-duplicate", "first", server.url, one, two]).status == 0)
        #expect(try server.query(#"SELECT x, y, z, _nulls, _meta FROM a"#) == [["1", "keep", "∅", #"["z"]"#, #"{"m":1,"n":2}"#]])
        #expect(try server.query(#"SELECT name, to_id FROM _edges ORDER BY name, position"#) == [["r", "1"], ["r", "2"]])
        try server.reset()
        let refused = try run(["load", "--on-duplicate", "error", server.url, one, two])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("two.json:1:9: error: resource (type \"a\", id \"1\") appears again"), "\(refused.stderr)")
        #expect(try server.query(#"SELECT x FROM a"#) == [["1"]])

        // Resources without an id belong to their document: loading it again replaces them.
        try server.reset()
        let create = try Self.write(
            #"""
            {"data":{"type":"articles","lid":"a1","attributes":{"title":"t"},"relationships":{"author":{"data":{"type":"people","lid":"p1"}}}},
             "included":[{"type":"people","lid":"p1","attributes":{"name":"n"}}]}
            """#, in: dir, name: "create.json")
        for _ in 0..<2 { #expect(try run(["load", "--quiet", "--context", "create", server.url, create]).status == 0) }
        #expect(try server.query(#"SELECT count(*) FROM _resources"#) == [["2"]])
        #expect(try server.query(#"SELECT count(*) FROM _edges"#) == [["1"]])
        #expect(try server.query(#"SELECT id, lid, title FROM articles"#) == [["∅", "a1", "t"]])
    }

    /// Columns widen in place (`ALTER COLUMN … TYPE … USING`), values unchanged; what
    /// PostgreSQL's types cannot hold goes to `json`: a string with U+0000, a number beyond
    /// `numeric`; a negative zero is a double (`bigint` and `numeric` would drop its sign).
    @Test func columnsWidenAndAwkwardValues() throws {
        let server = try PostgresServer()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var docs: [String] = []
        for (k, v) in ["1", "2.5", "12345678901234567890123", "\"three\"", "{\"four\":4}"].enumerated() {
            docs.append(try Self.write(#"{"data":{"type":"t","id":"\#(k)","attributes":{"v":\#(v),"n":\#(k)}}}"#, in: dir, name: "\(k).json"))
        }
        let first = try run(["load", server.url, docs[0], docs[1], docs[2]])
        #expect(first.stderr.contains("widened t.v: integer → double") && first.stderr.contains("widened t.v: double → decimal"), "\(first.stderr)")
        #expect(try server.query(#"SELECT v FROM t ORDER BY _resource"#) == [["1"], ["2.5"], ["12345678901234567890123"]])
        let rest = try run(["load", server.url] + docs[3...])
        #expect(rest.stderr.contains("widened t.v: decimal → json"), "\(rest.stderr)")
        #expect(
            try server.query(#"SELECT pg_typeof(v), v FROM t ORDER BY _resource"#) == [
                ["json", "1"], ["json", "2.5"], ["json", "12345678901234567890123"], ["json", #""three""#], ["json", #"{"four":4}"#],
            ])
        let back = try run(["denormalize", server.url])
        let values = try JSONValue(parsing: Array(back.stdout))["data"]!.arrayValue!.map { $0["attributes"]!["v"]!.jsonText }
        #expect(values == ["1", "2.5", "12345678901234567890123", #""three""#, #"{"four":4}"#])

        try server.reset()
        let odd = try Self.write(
            #"""
            {"data":[{"type":"odd","id":"1","attributes":{"nul":"a\u0000b","huge":1e200000,"tiny":1e-20000,"big":1e400,"negzero":-0,"z":-0.0}}]}
            """#, in: dir, name: "odd.json")
        let r = try run(["load", server.url, odd])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            try server.query(
                #"""
                SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 'odd' AND column_name NOT LIKE '\_%' ORDER BY ordinal_position
                """#
            ).map { $0.joined(separator: " ") } == ["id text", "nul json", "huge json", "tiny json", "big numeric", "negzero double precision", "z double precision"])
        #expect(try server.query(#"SELECT nul, huge, tiny, big = 1e400, negzero, z FROM odd"#) == [[#""a\u0000b""#, "1e200000", "1e-20000", "t", "-0", "-0"]])
        let oddBack = try JSONValue(parsing: Array(try run(["denormalize", server.url]).stdout))
        let a = oddBack["data"]!.arrayValue![0]["attributes"]!
        #expect(a["nul"] == .string("a\u{0}b"))
        #expect(a["huge"]?.jsonText == "1e200000" && a["tiny"]?.jsonText == "1e-20000")
        #expect(a["negzero"]?.jsonText == "-0" && a["z"]?.jsonText == "-0")
        // A negative zero and a decimal in one column: json, whichever comes first, in one
        // batch or across loads.
        let mixed = try Self.write(
            #"""
            {"data":[{"type":"mix","id":"1","attributes":{"m":-0,"n":12345678901234567890123}},
                     {"type":"mix","id":"2","attributes":{"m":12345678901234567890123,"n":-0.0}}]}
            """#, in: dir, name: "mixed.json")
        #expect(try run(["load", "--quiet", server.url, mixed]).status == 0)
        let later = try Self.write(#"{"data":[{"type":"mix","id":"3","attributes":{"m":1,"n":2}}]}"#, in: dir, name: "later.json")
        let zeroFirst = try Self.write(#"{"data":[{"type":"mix2","id":"1","attributes":{"z":-0}}]}"#, in: dir, name: "zero.json")
        let decimalLater = try Self.write(#"{"data":[{"type":"mix2","id":"2","attributes":{"z":0.1000000000000000055511151231257827}}]}"#, in: dir, name: "dec.json")
        #expect(try run(["load", "--quiet", server.url, later, zeroFirst]).status == 0)
        #expect(try run(["load", "--quiet", server.url, decimalLater]).status == 0)
        #expect(
            try server.query(#"SELECT pg_typeof(m), m, pg_typeof(n), n FROM mix ORDER BY _resource"#) == [
                ["json", "-0", "json", "12345678901234567890123"], ["json", "12345678901234567890123", "json", "-0.0"], ["json", "1", "json", "2"],
            ])
        #expect(
            try server.query(#"SELECT pg_typeof(z), z FROM mix2 ORDER BY _resource"#) == [
                ["json", "-0"], ["json", "0.1000000000000000055511151231257827"],
            ])
    }

    /// Names SQL cannot take as they are, 3,000 attributes (the rest in `_overflow`), an id
    /// longer than 1 MB (B-tree entries hold 2.7 kB: identities are indexed by digest).
    @Test func awkwardNamesManyAttributesAndALongID() throws {
        let server = try PostgresServer()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let attributes = (0..<3000).map { #""field\#($0)":\#($0)"# } + [#""Field0":"x""#, #""semi;colon \"q\"":1"#, #""_under":2"#]
        let longID = String(repeating: "x", count: 1_100_000)
        let doc = try Self.write(
            #"""
            {"data":[{"type":"Odd \"type\"; DROP TABLE x","id":"1","attributes":{\#(attributes.joined(separator: ","))}},
                     {"type":"Odd \"type\"; DROP TABLE x","id":"\#(longID)","attributes":{"field2999":1}},
                     {"type":"odd \"TYPE\"; drop table x","id":"2"}]}
            """#, in: dir, name: "wide.json")
        let r = try run(["load", server.url, doc])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            try server.query(#"SELECT type, "table" FROM _tables ORDER BY key"#) == [
                [#"Odd "type"; DROP TABLE x"#, #"Odd "type"; DROP TABLE x"#], [#"odd "TYPE"; drop table x"#, #"odd "TYPE"; drop table x~2"#],
            ])
        #expect(try server.query(#"SELECT count(*) FROM information_schema.columns WHERE table_name = 'Odd "type"; DROP TABLE x'"#) == [["1003"]])
        #expect(try server.query(#"SELECT length(id) FROM "Odd ""type""; DROP TABLE x" ORDER BY _resource"#) == [["1"], ["1100000"]])
        // Loading it again finds the long id (unchanged).
        let again = try run(["load", server.url, doc])
        #expect(again.stderr.contains("3 resources (0 written, 3 unchanged)"), "\(again.stderr)")
        let back = try run(["denormalize", server.url])
        let data = try JSONValue(parsing: Array(back.stdout))["data"]!.arrayValue!
        #expect(data[0]["attributes"]!.objectValue!.count == 3003)
        #expect(data[0]["attributes"]!["field2999"] == 2999 && data[0]["attributes"]!["Field0"] == "x")
        #expect(data[1]["id"]?.stringValue?.count == 1_100_000)
    }

    /// A document that fails half-way leaves nothing of itself; with --single-transaction
    /// nothing at all. Text PostgreSQL cannot hold in a key (U+0000 in an id) is a clear error.
    @Test func aDocumentThatFailsLeavesNothing() throws {
        let server = try PostgresServer()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = try Self.write(#"{"data":[{"type":"a","id":"1"}]}"#, in: dir, name: "good.json")
        let bad = try Self.write(#"{"data":[{"type":"a","id":"2"},{"type":"b","id":"3","attributes":{"x":1}},{"type":"a","id":"4",]}"#, in: dir, name: "bad.json")
        let r = try run(["load", server.url, good, bad])
        #expect(r.status == 1)
        #expect(r.stderr.contains("bad.json:1:"), "\(r.stderr)")
        #expect(try server.query("SELECT id FROM a") == [["1"]])
        #expect(try server.query(#"SELECT count(*) FROM _resources"#) == [["1"]])
        #expect(try server.query(#"SELECT count(*) FROM pg_tables WHERE tablename = 'b'"#) == [["0"]])
        try server.reset()
        let all = try run(["load", "--single-transaction", server.url, good, bad])
        #expect(all.status == 1)
        #expect(try server.query(#"SELECT count(*) FROM pg_tables WHERE tablename = 'a'"#) == [["0"]])
        #expect(try run(["load", "--quiet", server.url, good]).status == 0)
        let nul = try Self.write(#"{"data":[{"type":"a","id":"5"},{"type":"a","id":"x\u0000y"}]}"#, in: dir, name: "nul.json")
        let refused = try run(["load", server.url, nul])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("the id of a resource holds U+0000, which PostgreSQL text cannot store"), "\(refused.stderr)")
        #expect(try server.query("SELECT id FROM a") == [["1"]])
    }

    /// Servers that cannot be reached, refuse writes, or go away mid-load: clear errors
    /// (exit 2), no crash, the open document rolled back, no password in any message.
    @Test func unreachableReadOnlyAndVanishingServers() throws {
        let server = try PostgresServer()
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let doc = try Self.write(#"{"data":[{"type":"a","id":"1","attributes":{"x":1}}]}"#, in: dir, name: "doc.json")
        // Nothing listens on the port (the server's, stopped below, is not reused).
        let port = URLComponents(string: server.url)!.port!
        let closed = try run(["load", "postgresql://someone:secret@127.0.0.1:1/db", doc])
        #expect(closed.status == 2)
        #expect(closed.stderr.contains("cannot connect") && !closed.stderr.contains("secret"), "\(closed.stderr)")
        let query = try run(["load", "postgresql://someone@127.0.0.1:1/db?password=hush&connect_timeout=5", doc])
        #expect(query.status == 2)
        #expect(query.stderr.contains("connect_timeout=5") && !query.stderr.contains("hush"), "\(query.stderr)")
        // A role that may read but not create tables.
        try server.execute("CREATE ROLE reader LOGIN; REVOKE CREATE ON SCHEMA public FROM PUBLIC")
        let readOnly = try run(["load", "postgresql://reader@127.0.0.1:\(port)/postgres", doc])
        #expect(readOnly.status == 2)
        #expect(readOnly.stderr.contains("permission denied"), "\(readOnly.stderr)")
        // The server goes away while a document is being read: the load is fed the first half
        // of a document, its connection is ended, and the rest arrives.
        let p = Process()
        p.executableURL = jsonapiBinary
        p.arguments = ["load", server.url]
        let input = Pipe(), errors = Pipe()
        p.standardInput = input
        p.standardError = errors
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        // Standard input is read a megabyte at a time: 3 MB, so that batches are written.
        let padding = String(repeating: "p", count: 100)
        let resources = (0..<25_000).map { #"{"type":"a","id":"\#($0 + 10)","attributes":{"x":\#($0),"p":"\#(padding)"}}"# }
        input.fileHandleForWriting.write(Data((#"{"data":["# + resources.joined(separator: ",")).utf8))
        // Wait until the loader has written its first batch, then end every loader session.
        var waited = 0
        while try server.query("SELECT count(*) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND query LIKE 'COPY%'") == [["0"]], waited < 100 {
            Thread.sleep(forTimeInterval: 0.1)
            waited += 1
        }
        try server.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'")
        input.fileHandleForWriting.write(Data(#",{"type":"a","id":"last"}]}"#.utf8))
        try input.fileHandleForWriting.close()
        p.waitUntilExit()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationReason == .exit && p.terminationStatus == 2, "\(message)")
        #expect(message.contains("connection to the server was lost") || message.contains("terminating connection"), "\(message)")
        #expect(try server.query("SELECT count(*) FROM _resources WHERE id = 'last' OR id = '10'") == [["0"]])
    }
}
