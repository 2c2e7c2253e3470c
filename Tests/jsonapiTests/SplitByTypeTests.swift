import Foundation
import JSONAPIStream
import Testing

/// `jsonapi normalize --split-by-type DIR` as a user runs it: one table per type, the
/// tables beside them, the schema, the number policy, and what a failed or stopped run leaves.
@Suite(.serialized)
struct SplitByTypeTests {
    /// A fresh directory to split into (`out` inside a new temporary directory).
    static func target() throws -> (parent: URL, out: URL) {
        let parent = try temporaryDirectory()
        return (parent, parent.appendingPathComponent("out"))
    }

    static func write(_ text: String, in dir: URL, name: String = "doc.json") throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static func schema(_ dir: URL) throws -> JSONValue {
        try JSONValue(parsing: Array(Data(contentsOf: dir.appendingPathComponent("_schema.json"))))
    }

    /// The rows of an NDJSON table.
    static func rows(_ dir: URL, _ file: String) throws -> [JSONValue] {
        let bytes = try Data(contentsOf: dir.appendingPathComponent(file))
        return bytes.isEmpty ? [] : try JSONValue.parseAll(Array(bytes))
    }

    /// The column names and types of a table in `_schema.json`, by file.
    static func columns(_ schema: JSONValue) -> [String: [(name: String, type: String)]] {
        var out: [String: [(String, String)]] = [:]
        for key in ["types", "tables"] {
            for t in schema[key]?.arrayValue ?? [] {
                out[t["file"]!.stringValue!] = t["columns"]!.arrayValue!.map { ($0["name"]!.stringValue!, $0["type"]!.stringValue!) }
            }
        }
        return out
    }

    /// `comparable` with each resource's attributes in name order (a table puts them in
    /// its column order).
    static func comparable(_ flat: Data) throws -> JSONValue {
        let v = try DenormalizeCommandTests.comparable(flat)
        var out = JSONObject()
        for m in v.objectValue!.members {
            guard m.key == "resources" else { out.append(m.key, m.value); continue }
            var resources = JSONObject()
            for r in m.value.objectValue!.members {
                var resource = JSONObject()
                for member in r.value.objectValue!.members {
                    if member.key == "attributes", case .object(let a) = member.value {
                        resource.append("attributes", .object(JSONObject(a.members.sorted { $0.key < $1.key })))
                    } else {
                        resource.append(member.key, member.value)
                    }
                }
                resources.append(r.key, .object(resource))
            }
            out.append("resources", .object(resources))
        }
        return .object(out)
    }

    /// Every corpus document, split by type (NDJSON and CSV, exact numbers) and read back by
    /// `denormalize DIR`, gives the same graph; every row of every table has the schema's
    /// columns in the schema's order.
    @Test(arguments: DenormalizeCommandTests.inputs)
    func everyCorpusDocumentComesBackFromItsTables(_ path: String) throws {
        let context = DenormalizeCommandTests.context(path)
        let first = try run(["normalize", "--quiet"] + context + [path])
        #expect(first.status == 0, "\(path): \(first.stderr)")
        for format in ["ndjson", "csv"] {
            let (parent, out) = try Self.target()
            defer { try? FileManager.default.removeItem(at: parent) }
            let split = try run(["normalize", "--quiet", "--numbers", "exact", "--format", format, "--split-by-type", out.path] + context + [path])
            #expect(split.status == 0, "\(path) \(format): \(split.stderr)")
            let columns = Self.columns(try Self.schema(out))
            let files = try FileManager.default.contentsOfDirectory(atPath: out.path).filter { $0 != "_schema.json" }
            #expect(Set(files) == Set(columns.keys), "\(path) \(format): files \(files), schema \(columns.keys)")
            if format == "ndjson" {
                for file in files {
                    let names = columns[file]!.map(\.name)
                    for row in try Self.rows(out, file) {
                        #expect(row.objectValue?.members.map(\.key) == names, "\(path): a row of \(file) does not have the schema's columns")
                    }
                }
            } else {
                for file in files {
                    let text = try String(contentsOf: out.appendingPathComponent(file), encoding: .utf8)
                    #expect(text.hasPrefix(columns[file]!.map(\.name).joined(separator: ",") + "\n"), "\(path): the header of \(file)")
                }
            }
            let document = try run(["denormalize", out.path])
            #expect(document.status == 0, "\(path) \(format): \(document.stderr)")
            let again = try run(["normalize", "--quiet"] + context + ["-"], stdin: document.stdout)
            #expect(again.status == 0, "\(path) \(format): \(again.stderr)\n\(document.out)")
            #expect(try Self.comparable(again.stdout) == Self.comparable(first.stdout), "\(path) from \(format) tables:\n\(document.out)")
        }
    }

    static let mixed = #"""
        {"data":[
          {"type":"things","id":"1","attributes":{"name":"a","size":1,"tags":["x"],"mixed":1},"links":{"self":"/things/1"}},
          {"type":"things","id":"2","attributes":{"name":null,"mixed":"one"},"meta":{"m":true},"@ext:flag":1},
          {"type":"things","lid":"new","attributes":{"size":2,"extra":true}}
        ]}
        """#

    /// Each row of a type has every column, null where it lacks a value; absent attributes
    /// are listed in `_missing`, values of several JSON types become JSON text.
    @Test func everyRowOfATypeHasTheSameColumns() throws {
        let (parent, out) = try Self.target()
        defer { try? FileManager.default.removeItem(at: parent) }
        let doc = try Self.write(Self.mixed, in: parent)
        let r = try run(["normalize", "--quiet", "--split-by-type", out.path, doc])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try Self.rows(out, "things.ndjson")
        let expected = [
            #"{"id":"1","lid":null,"name":"a","size":1,"tags":"[\"x\"]","mixed":"1","extra":null,"_links":"{\"self\":\"/things/1\"}","_meta":null,"_other":null,"_missing":"[\"extra\"]"}"#,
            #"{"id":"2","lid":null,"name":null,"size":null,"tags":null,"mixed":"\"one\"","extra":null,"_links":null,"_meta":"{\"m\":true}","_other":"{\"@ext:flag\":1}","_missing":"[\"size\",\"tags\",\"extra\"]"}"#,
            #"{"id":null,"lid":"new","name":null,"size":2,"tags":null,"mixed":null,"extra":true,"_links":null,"_meta":null,"_other":null,"_missing":"[\"name\",\"tags\",\"mixed\"]"}"#,
        ]
        let text = try String(contentsOf: out.appendingPathComponent("things.ndjson"), encoding: .utf8)
        #expect(text == expected.joined(separator: "\n") + "\n")
        #expect(rows.count == 3)
        let types = Dictionary(uniqueKeysWithValues: Self.columns(try Self.schema(out))["things.ndjson"]!.map { ($0.name, $0.type) })
        #expect(
            types == [
                "id": "string", "lid": "string", "name": "string", "size": "integer", "tags": "json", "mixed": "json",
                "extra": "boolean", "_links": "json", "_meta": "json", "_other": "json", "_missing": "json",
            ])
        // The document, relationship and edge tables.
        let documents = try String(contentsOf: out.appendingPathComponent("_documents.ndjson"), encoding: .utf8)
        #expect(
            documents
                == #"{"document":1,"source":"\#(doc)","data":"many","primary":"[{\"type\":\"things\",\"id\":\"1\"},{\"type\":\"things\",\"id\":\"2\"},{\"type\":\"things\",\"lid\":\"new\"}]","meta":null,"links":null,"jsonapi":null,"errors":null,"_other":null}"#
                + "\n")
    }

    static let numbers = #"""
        {"data":[
          {"type":"n","id":"1","attributes":{"i":1,"d":0.1,"dec":1,"mixed":1,"big":1152921504606846976,"neg":-0,"obj":{"x":9007199254740993},"s":"a,b"}},
          {"type":"n","id":"2","attributes":{"i":-7,"d":5,"dec":9007199254740993,"mixed":"x","big":2,"neg":3,"obj":null,"s":"say \"hi\""}},
          {"type":"n","id":"3","attributes":{"i":null,"d":3.19,"dec":1e400,"mixed":null,"big":1,"neg":1.10,"obj":[1],"s":"line\nbreak"}},
          {"type":"n","id":"4","attributes":{"i":2,"d":1e-3,"dec":1e-400,"mixed":true,"big":0,"neg":0,"obj":{},"s":""}},
          {"type":"n","id":"5","attributes":{"i":0,"d":100000000000000000000,"dec":123456789012345678901234567890,"mixed":[],"big":-5,"neg":2,"obj":1,"s":null}}
        ]}
        """#

    /// The number policy value by value: each attribute keeps one JSON type; a column with
    /// a number a double would change writes all its numbers as strings; a double column's
    /// integers get `.0`; `--numbers exact` keeps every text.
    @Test func numbersEveryReaderCanHold() throws {
        let (parent, out) = try Self.target()
        defer { try? FileManager.default.removeItem(at: parent) }
        let doc = try Self.write(Self.numbers, in: parent)
        let r = try run(["normalize", "--split-by-type", out.path, doc])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("jsonapi: 5 numbers written as strings of their exact text"), "\(r.stderr)")
        let types = Dictionary(uniqueKeysWithValues: Self.columns(try Self.schema(out))["n.ndjson"]!.map { ($0.name, $0.type) })
        #expect(
            types["i"] == "integer" && types["d"] == "double" && types["dec"] == "decimal" && types["big"] == "integer"
                && types["neg"] == "double" && types["mixed"] == "json" && types["obj"] == "json" && types["s"] == "string")
        let text = try String(contentsOf: out.appendingPathComponent("n.ndjson"), encoding: .utf8)
        #expect(
            text == [
                #"{"id":"1","i":1,"d":0.1,"dec":"1","mixed":"1","big":1152921504606846976,"neg":-0.0,"obj":"{\"x\":9007199254740993}","s":"a,b"}"#,
                #"{"id":"2","i":-7,"d":5.0,"dec":"9007199254740993","mixed":"\"x\"","big":2,"neg":3.0,"obj":null,"s":"say \"hi\""}"#,
                #"{"id":"3","i":null,"d":3.19,"dec":"1e400","mixed":null,"big":1,"neg":1.10,"obj":"[1]","s":"line\nbreak"}"#,
                #"{"id":"4","i":2,"d":1e-3,"dec":"1e-400","mixed":"true","big":0,"neg":0.0,"obj":"{}","s":""}"#,
                #"{"id":"5","i":0,"d":100000000000000000000.0,"dec":"123456789012345678901234567890","mixed":"[]","big":-5,"neg":2.0,"obj":"1","s":null}"#,
            ].joined(separator: "\n") + "\n")

        // --numbers exact: the same columns and types, every number as it was.
        let exact = parent.appendingPathComponent("exact")
        #expect(try run(["normalize", "--quiet", "--numbers", "exact", "--split-by-type", exact.path, doc]).status == 0)
        let exactText = try String(contentsOf: exact.appendingPathComponent("n.ndjson"), encoding: .utf8)
        #expect(exactText.contains(#""d":5,"dec":9007199254740993,"#) && exactText.contains(#""dec":1e400,"#) && exactText.contains(#""neg":-0,"#))

        // CSV: the exact text of every number, RFC 4180 quoting, an empty string quoted and
        // null as an empty cell.
        let csv = parent.appendingPathComponent("csv")
        #expect(try run(["normalize", "--quiet", "--format", "csv", "--split-by-type", csv.path, doc]).status == 0)
        let csvText = try String(contentsOf: csv.appendingPathComponent("n.csv"), encoding: .utf8)
        #expect(
            csvText == #"""
                id,i,d,dec,mixed,big,neg,obj,s
                1,1,0.1,1,1,1152921504606846976,-0,"{""x"":9007199254740993}","a,b"
                2,-7,5,9007199254740993,"""x""",2,3,,"say ""hi"""
                3,,3.19,1e400,,1,1.10,[1],"line
                break"
                4,2,1e-3,1e-400,true,0,0,{},""
                5,0,100000000000000000000,123456789012345678901234567890,[],-5,2,1,

                """#)
        // Both come back with the same values (exact text from CSV).
        for dir in [csv, exact] {
            let back = try run(["denormalize", dir.path])
            #expect(back.status == 0, "\(back.stderr)")
            let original = try run(["normalize", "--quiet", doc])
            let again = try run(["normalize", "--quiet", "-"], stdin: back.stdout)
            #expect(try Self.comparable(again.stdout) == Self.comparable(original.stdout), "\(dir.lastPathComponent)")
        }
    }

    /// A member whose value is `null` comes back as `null`, not as a member that was absent
    /// (a fuzz finding, `Corpus/fuzz/roundtrip/split-null-top-level-member-is-not-absent.input`:
    /// `{"errors":null}` lost its `errors`).
    @Test func aNullMemberIsNotAnAbsentOne() throws {
        let (parent, out) = try Self.target()
        defer { try? FileManager.default.removeItem(at: parent) }
        let doc = try Self.write(#"{"data":{"type":"a","id":"1","attributes":{"x":null},"links":null,"meta":{"m":null}},"jsonapi":null}"#, in: parent)
        for format in ["ndjson", "csv"] {
            let dir = out.appendingPathExtension(format)
            let r = try run(["normalize", "--quiet", "--format", format, "--split-by-type", dir.path, doc])
            #expect(r.status == 0, "\(r.stderr)")
            let back = try run(["denormalize", dir.path])
            #expect(back.status == 0, "\(back.stderr)")
            #expect(back.out.contains(#""links":null"#) && back.out.contains(#""jsonapi":null"#), "\(format): \(back.out)")
            let again = try run(["normalize", "--quiet", "-"], stdin: back.stdout)
            let original = try run(["normalize", "--quiet", doc])
            #expect(try Self.comparable(again.stdout) == Self.comparable(original.stdout), "\(format): \(back.out)")
        }
    }

    /// A CSV table damaged after it was written is refused with its file and line: a byte
    /// after a quoted cell (the old reader took it as the start of a new row), and a quoted
    /// cell left open at the end of the file (named by the line it opened on).
    @Test func aDamagedCSVTableNamesItsLine() throws {
        let (parent, out) = try Self.target()
        defer { try? FileManager.default.removeItem(at: parent) }
        let doc = try Self.write(Self.mixed, in: parent)
        #expect(try run(["normalize", "--quiet", "--format", "csv", "--split-by-type", out.path, doc]).status == 0)
        let table = out.appendingPathComponent("things.csv")
        let written = try Data(contentsOf: table)
        // The header and the rows of the three things end lines 1 to 4 (no cell spans lines).
        #expect(written.filter { $0 == 0x0A }.count == 4)
        let cases = [
            (#""4"x,"#, #"things.csv, line 5: "x" after a quoted CSV cell, where a comma or a line end belongs"#),
            ("\"open\ncell", "things.csv, line 5: a quoted CSV cell is not closed at the end of the file"),
        ]
        for (tail, message) in cases {
            try (written + Data(tail.utf8)).write(to: table)
            let back = try run(["denormalize", out.path])
            #expect(back.status != 0 && back.stderr.contains(message), "\(back.status): \(back.stderr)")
            #expect(back.stdout.isEmpty)
        }
    }

    /// Type names that are not safe file names, that differ only by case, or are long; and
    /// attributes whose names would collide with a fixed column or another column.
    @Test func namesThatCannotBeUsedAsTheyAre() throws {
        let (parent, out) = try Self.target()
        defer { try? FileManager.default.removeItem(at: parent) }
        let long = String(repeating: "long", count: 80)
        let doc = try Self.write(
            #"""
            {"data":[
              {"type":"Article","id":"1","attributes":{"Title":"A","title":"b","ID":5,"name":"n"}},
              {"type":"article","id":"1","attributes":{"title":"c"}},
              {"type":"ça va","id":"1"},
              {"type":"\#(long)","id":"1"}
            ]}
            """#, in: parent)
        let r = try run(["normalize", "--quiet", "--split-by-type", out.path, doc])
        #expect(r.status == 0, "\(r.stderr)")
        let files = Set(try FileManager.default.contentsOfDirectory(atPath: out.path))
        #expect(files.contains("Article.ndjson") && files.contains("article~2.ndjson") && files.contains("%C3%A7a%20va.ndjson"), "\(files)")
        let longFile = files.first { $0.hasPrefix("long") }
        #expect(longFile != nil && longFile!.utf8.count < 220 && longFile!.contains("~"), "\(files)")
        let schema = try Self.schema(out)
        let byType = Dictionary(uniqueKeysWithValues: schema["types"]!.arrayValue!.map { ($0["type"]!.stringValue!, $0["file"]!.stringValue!) })
        #expect(byType["article"] == "article~2.ndjson" && byType["ça va"] == "%C3%A7a%20va.ndjson" && byType[long] == longFile)
        // "title" and "ID" collide (ignoring case) with the column "Title" and with "id".
        let text = try String(contentsOf: out.appendingPathComponent("Article.ndjson"), encoding: .utf8)
        #expect(text == #"{"id":"1","Title":"A","name":"n","_other":"{\"attributes\":{\"title\":\"b\",\"ID\":5}}"}"# + "\n")
        // They all come back.
        let back = try run(["denormalize", out.path])
        let again = try run(["normalize", "--quiet", "-"], stdin: back.stdout)
        let original = try run(["normalize", "--quiet", doc])
        #expect(try Self.comparable(again.stdout) == Self.comparable(original.stdout), "\(back.out)")
    }

    /// `--type` and `--keep-fields` apply to the tables; `--keys` to column names.
    @Test func selectionAndKeys() throws {
        let (parent, out) = try Self.target()
        defer { try? FileManager.default.removeItem(at: parent) }
        let r = try run([
            "normalize", "--quiet", "--split-by-type", out.path, "--type", "articles", "--keep-fields", "articles=title,author",
            "--keys", "snake", "Corpus/documents/spec-compound.json",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(
            Set(try FileManager.default.contentsOfDirectory(atPath: out.path))
                == ["articles.ndjson", "_documents.ndjson", "_relationships.ndjson", "_edges.ndjson", "_schema.json"])
        let names = Self.columns(try Self.schema(out))["articles.ndjson"]!.map(\.name)
        #expect(names == ["id", "title", "_links"])
        let relationships = try Self.rows(out, "_relationships.ndjson")
        #expect(relationships.map { $0["relationship"]!.stringValue! } == ["author"])
    }

    /// DIR must be new or empty (`--force` replaces it); a failed run leaves nothing, and
    /// with `--keep-partial` the whole rows read before the error.
    @Test func theDirectoryAppearsOnlyWhenComplete() throws {
        let (parent, out) = try Self.target()
        defer { try? FileManager.default.removeItem(at: parent) }
        let doc = "Corpus/documents/spec-compound.json"
        // Not empty: refused, untouched.
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: out.appendingPathComponent("mine.txt"))
        let refused = try run(["normalize", "--split-by-type", out.path, doc])
        #expect(refused.status == 2 && refused.stderr.contains("exists and is not empty (--force replaces it)"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out.path) == ["mine.txt"])
        // --force replaces it.
        let forced = try run(["normalize", "--quiet", "--force", "--split-by-type", out.path, doc])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out.appendingPathComponent("mine.txt").path))
        #expect(FileManager.default.fileExists(atPath: out.appendingPathComponent("articles.ndjson").path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["out"], "nothing left beside it")
        // A file in its place is refused even with --force.
        let file = parent.appendingPathComponent("file")
        try Data().write(to: file)
        let notDir = try run(["normalize", "--force", "--split-by-type", file.path, doc])
        #expect(notDir.status == 2 && notDir.stderr.contains("is not a directory"), "\(notDir.stderr)")

        // A document that breaks after two resources.
        let broken = try Self.write(
            #"{"data":[{"type":"a","id":"1","attributes":{"x":1}},{"type":"a","id":"2","attributes":{"x":2}},{"type":"a","id":"3","attributes":{"x":"#, in: parent, name: "broken.json")
        let failed = parent.appendingPathComponent("failed")
        let f = try run(["normalize", "--split-by-type", failed.path, broken])
        #expect(f.status == 1, "\(f.stderr)")
        #expect(!FileManager.default.fileExists(atPath: failed.path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path).filter { $0.hasPrefix(".") } == [])
        let kept = try run(["normalize", "--keep-partial", "--split-by-type", failed.path, broken])
        #expect(kept.status == 1)
        #expect(kept.stderr.contains("kept the whole rows read before the error in \(failed.path)") && kept.stderr.contains("a.ndjson 2"), "\(kept.stderr)")
        #expect(try String(contentsOf: failed.appendingPathComponent("a.ndjson"), encoding: .utf8) == "{\"id\":\"1\",\"x\":1}\n{\"id\":\"2\",\"x\":2}\n")
        #expect(kept.stderr.contains("J09"), "the input's error is reported: \(kept.stderr)")

        // A resource that fails half-way (two attributes that --keys makes one name) is taken
        // back whole: no row, and none of its relationship or edge rows.
        let clash = try Self.write(
            #"""
            {"data":[{"type":"a","id":"1","attributes":{"first_name":"x"},"relationships":{"b":{"data":{"type":"b","id":"1"}}}},
                     {"type":"a","id":"2","attributes":{"firstName":"y","first_name":"z"},"relationships":{"b":{"data":{"type":"b","id":"2"}}}}]}
            """#, in: parent, name: "clash.json")
        let clashed = parent.appendingPathComponent("clashed")
        let c = try run(["normalize", "--keep-partial", "--keys", "snake", "--split-by-type", clashed.path, clash])
        #expect(c.status == 1 && c.stderr.contains("N04"), "\(c.stderr)")
        #expect(try Self.rows(clashed, "a.ndjson").count == 1)
        #expect(try Self.rows(clashed, "_relationships.ndjson").map { $0["from_id"]!.stringValue! } == ["1"])
        #expect(try Self.rows(clashed, "_edges.ndjson").map { $0["to_id"]!.stringValue! } == ["1"])
    }

    @Test func optionsThatDoNotGoTogether() throws {
        let doc = "Corpus/documents/spec-compound.json"
        for (arguments, message) in [
            (["--format", "csv", doc], "--format csv writes one table per type: it needs --split-by-type DIR"),
            (["--split-by-type", "x", "--format", "json", doc], "--split-by-type writes ndjson or csv tables, not --format json"),
            (["--split-by-type", "x", "-o", "y", doc], "-o does not apply"),
            (["--force", doc], "--force and --keep-partial apply to --split-by-type"),
            (["--split-by-type", "x", "--hash", doc], "--hash applies to --format ndjson without --split-by-type"),
        ] {
            let r = try run(["normalize"] + arguments)
            #expect(r.status == 2 && r.stderr.contains(message), "\(arguments): \(r.status) \(r.stderr)")
        }
    }

    /// SIGINT, SIGTERM or SIGHUP during a split: the temporary directory is removed, and the
    /// process dies of the signal.
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalRemovesThePartialDirectory(_ signal: Int32) throws {
        let parent = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let process = Process()
        process.executableURL = jsonapiBinary
        process.arguments = ["normalize", "--split-by-type", parent.appendingPathComponent("out").path]
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        var text = #"{"data":["#
        for i in 0..<2000 { text += #"{"type":"things","id":"\#(i)","attributes":{"n":\#(i)}},"# }
        try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        let deadline = Date().addingTimeInterval(20)
        var seen: [String] = []
        while Date() < deadline {
            seen = try FileManager.default.contentsOfDirectory(atPath: parent.path).filter { $0.hasPrefix(".out.tmp-\(process.processIdentifier)-") }
            if !seen.isEmpty { break }
            usleep(20_000)
        }
        #expect(!seen.isEmpty, "no temporary directory appeared")
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal && process.terminationStatus == signal)
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == [], "left behind after signal \(signal)")
    }
}
