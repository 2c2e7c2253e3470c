import Foundation
import JSONAPILoad
import Testing

/// The README's promises that tests can hold it to.
struct ReadmeTests {
    static let readme = (try? String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)) ?? ""

    /// The first two shell blocks: the set-up-and-run command and the test command.
    static var commands: [String] {
        var out: [String] = []
        var inBlock = false
        var current: [String] = []
        for line in readme.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") {
                if inBlock { out.append(current.joined(separator: "\n")); current = [] }
                inBlock.toggle()
                continue
            }
            if inBlock { current.append(String(line)) }
        }
        return out
    }

    @Test func ciRunsExactlyTheReadmeTestCommand() throws {
        let commands = Self.commands
        try #require(commands.count >= 2)
        let testCommand = commands[1]
        let ci = try String(contentsOf: repositoryRoot.appendingPathComponent(".ci/run"), encoding: .utf8)
        let ciLines = ci.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty }
        #expect(ciLines.last == testCommand, "the last command of .ci/run must be the README's test command")
    }

    @Test func firstCommandNormalizesACorpusDocument() throws {
        let first = try #require(Self.commands.first)
        #expect(first.contains("jsonapi normalize"))
        let path = try #require(first.split(separator: " ").last.map(String.init))
        #expect(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(path).path))
    }

    /// The NDJSON and edge examples in the README are the tool's real output.
    @Test func examplesAreRealOutput() throws {
        let nd = try run(["normalize", "--format", "ndjson", "Corpus/documents/spec-compound.json"]).out
        for line in nd.split(separator: "\n") { #expect(Self.readme.contains(line), "README lacks \(line)") }
        let edges = try run(["normalize", "--format", "edges", "Corpus/documents/spec-compound.json"]).out
        for line in edges.split(separator: "\n") { #expect(Self.readme.contains(line), "README lacks \(line)") }
        let atomic = try run(["normalize", "--format", "ndjson", "--extension", "atomic", "docs/examples/atomic-request.json"]).out
        #expect(atomic.split(separator: "\n").count == 3)
        for line in atomic.split(separator: "\n") { #expect(Self.readme.contains("# " + line), "README lacks \(line)") }
        let stats = try run(["stats", "Corpus/documents/spec-compound.json"]).out
        for line in stats.split(separator: "\n").dropFirst() where !line.isEmpty {
            #expect(Self.readme.contains(line), "README lacks \(line)")
        }
        let validate = try run(["validate", "Corpus/invalid/R07-object.json"])
        #expect(validate.status == 1)
        #expect(Self.readme.contains(validate.stderr.trimmingCharacters(in: .newlines)), "README lacks \(validate.stderr)")
        // `load` and a query of what it wrote.
        let loadDir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: loadDir) }
        let db = loadDir.appendingPathComponent("shop.sqlite").path
        let load = try run(["load", db, "Corpus/documents/spec-compound.json"])
        #expect(load.status == 0)
        for line in load.stderr.replacingOccurrences(of: db, with: "shop.sqlite").split(separator: "\n") {
            #expect(Self.readme.contains(line), "README lacks \(line)")
        }
        let query = "select c.body, e.to_type, e.to_id from comments c join _edges e on e.resource = c._resource where e.name = 'author'"
        #expect(Self.readme.contains("$ sqlite3 shop.sqlite \"\(query)\""))
        for row in try SQLiteInspection.rows(database: db, query) {
            #expect(Self.readme.contains("\n" + row.map { $0 ?? "" }.joined(separator: "|") + "\n"), "README lacks \(row)")
        }
        // The tables of --split-by-type (the type tables and the document table, in full).
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out")
        #expect(try run(["normalize", "--quiet", "--split-by-type", out.path, "Corpus/documents/spec-compound.json"]).status == 0)
        for file in ["articles.ndjson", "people.ndjson", "comments.ndjson", "_documents.ndjson"] {
            let text = try String(contentsOf: out.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") { #expect(Self.readme.contains(line), "README lacks \(file): \(line)") }
        }
        let flat = try run(["normalize", "Corpus/documents/spec-compound.json"]).stdout
        let shown = try #require(Self.readme.components(separatedBy: "```json\n").dropFirst().first?.components(separatedBy: "```").first)
        let a = try JSONSerialization.jsonObject(with: flat) as! NSDictionary
        let b = try JSONSerialization.jsonObject(with: Data(shown.utf8)) as! NSDictionary
        #expect(a == b, "the flat JSON example differs from the output")
    }
}
