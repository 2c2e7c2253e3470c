import Foundation
import JSONAPIStream
import Testing

/// `jsonapi denormalize` as a user runs it: `normalize` output back to JSON:API documents.
@Suite(.serialized)
struct DenormalizeCommandTests {
    static let inputs = corpusFiles("documents") + corpusFiles("requests").filter { !$0.hasSuffix("manifest.json") }

    /// The context a request fixture is read in (its file name says which).
    static func context(_ path: String) -> [String] {
        guard path.contains("/requests/") else { return [] }
        if path.contains("relationship-update") { return ["--context", "relationship-update"] }
        if path.contains("/update") { return ["--context", "update"] }
        return ["--context", "create"]
    }

    /// A flat object in a form that ignores what a merge may reorder: resources sorted by
    /// type and key, primary data with each resource once.
    static func comparable(_ flat: Data) throws -> JSONValue {
        let v = try JSONValue(parsing: Array(flat))
        var out = JSONObject()
        for m in v.objectValue!.members where m.key != "resources" && m.key != "data" { out.append(m.key, m.value) }
        var resources: [(key: String, value: JSONValue)] = []
        for t in v["resources"]!.objectValue!.members {
            for r in t.value.objectValue!.members { resources.append((key: t.key + "/" + r.key, value: r.value)) }
        }
        out.append("resources", .object(JSONObject(resources.sorted { $0.key < $1.key })))
        var seen = Set<JSONValue>()
        switch v["data"]! {
        case .array(let a): out.append("data", .array(a.filter { seen.insert($0).inserted }))
        case let one: out.append("data", one)
        }
        return .object(out)
    }

    /// normalize, denormalize, normalize again: the same flat object as the first
    /// normalize, from flat JSON and from NDJSON; byte for byte when nothing was merged.
    @Test(arguments: inputs)
    func roundTripThroughTheCommands(_ path: String) throws {
        let context = Self.context(path)
        let first = try run(["normalize", "--quiet"] + context + [path])
        #expect(first.status == 0, "\(path): \(first.stderr)")
        for format in ["json", "ndjson"] {
            let normalized = try run(["normalize", "--quiet", "--format", format] + context + [path])
            let document = try run(["denormalize"], stdin: normalized.stdout)
            #expect(document.status == 0, "\(path) from \(format): \(document.stderr)")
            let again = try run(["normalize", "--quiet"] + context + ["-"], stdin: document.stdout)
            #expect(again.status == 0, "\(path) from \(format): \(again.stderr)\n\(document.out)")
            #expect(try Self.comparable(again.stdout) == Self.comparable(first.stdout), "\(path) from \(format):\n\(document.out)")
            let merged = path.contains("/multi/") || path.contains("included-before-data")
            if !merged {
                #expect(again.stdout == first.stdout, "\(path) from \(format)")
            }
            // A valid response document stays valid.
            if context.isEmpty && !path.contains("/multi/") {
                let check = try run(["validate", "--quiet", "-"], stdin: document.stdout)
                #expect(check.status == 0, "\(path) from \(format): \(check.out)\(check.stderr)")
            }
        }
    }

    @Test func includePathsAndSparseFieldsets() throws {
        let flat = try run(["normalize", "Corpus/documents/spec-compound.json"]).stdout
        let r = try run(["denormalize", "--include", "author", "--fields", "articles=title,author", "--fields", "people=firstName"], stdin: flat)
        #expect(r.status == 0, "\(r.stderr)")
        let doc = try JSONValue(parsing: Array(r.stdout))
        let article = try #require(doc["data"]?.arrayValue?.first)
        #expect(article["attributes"]?.objectValue?.members.map(\.key) == ["title"])
        #expect(article["relationships"]?.objectValue?.members.map(\.key) == ["author"])
        let included = try #require(doc["included"]?.arrayValue)
        #expect(included.map { "\($0["type"]!.stringValue!)/\($0["id"]!.stringValue!)" } == ["people/9"])
        #expect(included[0]["attributes"]?.objectValue?.members.map(\.key) == ["firstName"])
    }

    @Test func badArgumentsAndInputs() throws {
        let flat = try run(["normalize", "Corpus/documents/spec-compound.json"]).stdout
        // A fieldset without a type is a usage error.
        let usage = try run(["denormalize", "--fields", "title"], stdin: flat)
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("TYPE=FIELD"))
        // An include path that names no relationship is a usage error, not an empty `included`.
        let typo = try run(["denormalize", "--include", "autor"], stdin: flat)
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("include path \"autor\""), "\(typo.stderr)")
        #expect(typo.stdout.isEmpty)
        // Input that is not normalize output says so, with its position.
        let notNormalized = try run(["denormalize"], stdin: Data("{\"a\":1}\n".utf8))
        #expect(notNormalized.status == 1)
        #expect(notNormalized.stderr.contains("-:1:1: error: not normalize output"), "\(notNormalized.stderr)")
        let scalar = try run(["denormalize"], stdin: Data("{\"type\":\"a\",\"id\":\"1\"}\n42\n".utf8))
        #expect(scalar.status == 1)
        #expect(scalar.stderr.contains("-:2:1: error: not normalize output: a record is not a JSON object"), "\(scalar.stderr)")
        // Broken JSON: the JSON error and its position; nothing on standard output.
        let truncated = try run(["denormalize"], stdin: flat.prefix(flat.count / 2))
        #expect(truncated.status == 1)
        #expect(truncated.stderr.contains("error:") && truncated.stderr.contains("[J"), "\(truncated.stderr)")
        #expect(truncated.stdout.isEmpty)
    }

    /// `--workers`: the same document from NDJSON whatever the number (here a dump of pages
    /// that repeat resources, so that pieces merge; 5.5 MB of lines, past the 4 MiB the
    /// workers decide on), and a usage error below 1.
    @Test func workersGiveTheSameDocument() throws {
        let dump = try run(["generate", "--resources", "3000", "--documents", "6"]).stdout
        let lines = try run(["normalize", "--quiet", "--format", "ndjson", "-"], stdin: dump)
        #expect(lines.status == 0, "\(lines.stderr)")
        let one = try run(["denormalize", "--workers", "1"], stdin: lines.stdout)
        let two = try run(["denormalize", "--workers", "2"], stdin: lines.stdout)
        #expect(one.status == 0 && two.status == 0, "\(one.stderr)\(two.stderr)")
        #expect(one.stdout == two.stdout)
        #expect(try JSONValue(parsing: Array(one.stdout))["data"]?.arrayValue?.count == 3000)
        let zero = try run(["denormalize", "--workers", "0"], stdin: Data("{}\n".utf8))
        #expect(zero.status == 2)
        #expect(zero.stderr.contains("--workers must be from 1 to 256"), "\(zero.stderr)")
    }

    /// Atomic Operations through the commands: operations and results come back as the
    /// documents had them, whether the document said so in jsonapi.ext or the option did.
    @Test func atomicDocumentsComeBack() throws {
        let results = Data(
            #"{"atomic:results":[{"data":{"type":"tags","id":"1","attributes":{"name":"swift"}}},{},{"data":{"type":"tags","id":"1","attributes":{"name":"Swift"}},"meta":{"n":2}}]}"#
                .utf8)
        let lines = try run(["normalize", "--quiet", "--format", "ndjson", "--extension", "atomic", "-"], stdin: results)
        #expect(lines.status == 0, "\(lines.stderr)")
        #expect(lines.out.split(separator: "\n").count == 3)
        // Without the option, denormalize cannot know: the resources come back included.
        let plain = try run(["denormalize"], stdin: lines.stdout)
        #expect(try JSONValue(parsing: Array(plain.stdout))["included"] != nil)
        let back = try run(["denormalize", "--extension", "atomic"], stdin: lines.stdout)
        #expect(back.status == 0, "\(back.stderr)")
        #expect(
            back.out
                == #"{"atomic:results":[{"data":{"type":"tags","id":"1","attributes":{"name":"Swift"},"relationships":{}}},{},{"data":{"type":"tags","id":"1","attributes":{"name":"Swift"},"relationships":{}},"meta":{"n":2}}]}"#
                + "\n")
        let check = try run(["validate", "--extension", "atomic", "-"], stdin: back.stdout)
        #expect(check.status == 0, "\(check.out)\(check.stderr)")

        let operations = Data(#"{"jsonapi":{"ext":["https://jsonapi.org/ext/atomic"]},"atomic:operations":[{"op":"remove","ref":{"type":"tags","id":"1"}}]}"#.utf8)
        let opLines = try run(["normalize", "--quiet", "--format", "ndjson", "-"], stdin: operations)
        #expect(opLines.out.hasPrefix(#"{"operation":{"op":"remove","ref":{"type":"tags","id":"1"}}}"#))
        let opBack = try run(["denormalize"], stdin: opLines.stdout)
        #expect(opBack.out == #"{"jsonapi":{"ext":["https://jsonapi.org/ext/atomic"]},"atomic:operations":[{"op":"remove","ref":{"type":"tags","id":"1"}}]}"# + "\n")
    }

    /// The limits are the documents', as normalize took them: a document deeper than the
    /// default normalizes under --max-depth and comes back under the same option (its records
    /// nest deeper still); past a limit, the error names its rule.
    @Test func limitsAreTheDocuments() throws {
        let levels = 600
        let depth = 3 + levels
        let text = #"{"data":{"type":"a","id":"1","attributes":{"x":"# + String(repeating: "[", count: levels) + String(repeating: "]", count: levels) + "}}}"
        var deep = ParseOptions()
        deep.limits.maxDepth = depth
        let document = try JSONValue(parsing: Array(text.utf8), options: deep)
        var outputs: [Data] = []
        for format in ["ndjson", "json"] {
            let records = try run(["normalize", "--format", format, "--max-depth", "\(depth)"], stdin: Data(text.utf8))
            #expect(records.status == 0, "\(records.stderr)")
            let refused = try run(["denormalize"], stdin: records.stdout)
            // The record is read with two levels more than the documents' 512.
            #expect(refused.status == 1 && refused.stderr.contains("nesting deeper than 514 levels [J05]"), "\(refused.stderr)")
            #expect(refused.out.isEmpty)
            let back = try run(["denormalize", "--max-depth", "\(depth)"], stdin: records.stdout)
            #expect(back.status == 0, "\(back.stderr)")
            let value = try JSONValue(parsing: Array(back.stdout), options: deep)
            #expect(value["data"]?["attributes"] == document["data"]?["attributes"], "\(format)")
            outputs.append(back.stdout)
        }
        #expect(outputs[0] == outputs[1])
        let line = Data((#"{"type":"a","id":"1","attributes":{"s":"abcd"},"relationships":{}}"# + "\n").utf8)
        let long = try run(["denormalize", "--max-string-bytes", "3"], stdin: line)
        #expect(long.status == 1 && long.stderr.contains("[J06]"), "\(long.stderr)")
        #expect(try run(["denormalize", "--max-string-bytes", "4"], stdin: line).status == 0)
        let big = try run(["denormalize", "--max-input-bytes", "10"], stdin: line)
        #expect(big.status == 1 && big.stderr.contains("[J12]"), "\(big.stderr)")
    }

    /// Members of a resource named `primary` and `hash` (unknown members, kept with a
    /// warning) are the resource's own in flat JSON, tables and databases, and come back from
    /// each; only NDJSON lines add members of those names, and refuse the resource's own.
    @Test func membersNamedLikeNormalizesOwnComeBack() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = #"{"data":{"type":"a","id":"1","attributes":{"x":1},"hash":"mine","primary":7}}"#
        let input = dir.appendingPathComponent("in.json")
        try Data(text.utf8).write(to: input)
        let tables = dir.appendingPathComponent("tables").path
        #expect(try run(["normalize", "--quiet", "--split-by-type", tables, input.path]).status == 0)
        let db = dir.appendingPathComponent("db.sqlite").path
        #expect(try run(["load", "--quiet", db, input.path]).status == 0)
        let flat = try run(["normalize", "--quiet", input.path])
        #expect(flat.status == 0)
        for (name, back) in [
            ("tables", try run(["denormalize", tables])), ("database", try run(["denormalize", db])),
            ("flat", try run(["denormalize"], stdin: flat.stdout)),
        ] {
            #expect(back.status == 0, "\(name): \(back.stderr)")
            let resource = try JSONValue(parsing: Array(back.stdout))["data"]
            #expect(resource?["hash"] == .string("mine") && resource?["primary"]?.numberValue?.text == "7", "\(name): \(back.out)")
        }
        #expect(try run(["normalize", "--format", "ndjson", input.path]).status == 1)
    }
}
