import Foundation
import JSONAPIStream
import Testing

/// The project's own documents (`docs/`): current, complete, and what the code cites.
@Suite struct DocsTests {
    static func read(_ path: String) throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent(path), encoding: .utf8)
    }

    /// `docs/rules.md` is what `Scripts/rules-doc.py` writes from `Rule.swift` and the corpus
    /// manifests, and has an entry for every rule the code reports.
    @Test func theRulesDocumentIsCurrentAndComplete() throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "Scripts/rules-doc.py", "--check"]
        p.currentDirectoryURL = repositoryRoot
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "docs/rules.md is not current: run Scripts/rules-doc.py")
        let rules = try Self.read("docs/rules.md")
        for rule in Rule.allCases {
            #expect(rules.contains("### \(rule)\n"), "docs/rules.md has no entry for \(rule)")
            let summary = rule.summary.prefix(1).uppercased() + rule.summary.dropFirst()
            #expect(rules.contains(summary), "docs/rules.md lacks the summary of \(rule)")
        }
    }

    /// Every relative link in the README and `docs/` names a file of the repository, and no
    /// file cites the documents the project started from (it keeps its own).
    @Test func linksResolveAndNothingCitesOutsideDocuments() throws {
        let docs = try FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        #expect(Set(docs).isSuperset(of: ["docs/output-contract.md", "docs/rules.md", "docs/architecture.md", "docs/performance.md"]))
        let link = try Regex(#"\]\(([^)#:]+)(#[^)]*)?\)"#)
        for path in ["README.md", "Corpus/README.md"] + docs {
            let text = try Self.read(path)
            let base = URL(fileURLWithPath: path).deletingLastPathComponent().relativePath
            for match in text.matches(of: link) {
                let target = String(match.output[1].substring ?? "")
                let resolved = repositoryRoot.appendingPathComponent(base == "." ? target : base + "/" + target).standardized.path
                #expect(FileManager.default.fileExists(atPath: resolved), "\(path) links to \(target), which does not exist")
            }
        }
        // Sources, scripts and documents (build products, virtual environments and git skipped).
        let enumerator = FileManager.default.enumerator(atPath: repositoryRoot.path)!
        while let path = enumerator.nextObject() as? String {
            let name = (path as NSString).lastPathComponent
            if [".build", ".git", ".venv", "var", "node_modules"].contains(name) || name.hasPrefix(".build-") {
                enumerator.skipDescendants()
                continue
            }
            guard [".swift", ".md", ".sh", ".py", ".c", ".h"].contains(where: path.hasSuffix) else { continue }
            let text = (try? Self.read(path)) ?? ""
            for cited in ["SPEC-RULES" + ".md", "CONTRACT" + ".md", "DESIGN" + ".md", "STYLE" + ".md"] {
                #expect(!text.contains(cited), "\(path) cites \(cited), which is not in the repository (docs/ is)")
            }
        }
    }

    /// Every public declaration of the libraries and programs has a documentation comment,
    /// but for what a protocol documents already (`description`, `==`, `hash(into:)`,
    /// `Codable`, `Collection` and literal conformances) and enum cases of a documented enum.
    @Test func everyPublicDeclarationIsDocumented() throws {
        let declaration = try Regex(
            #"^(@\w+(\([^)]*\))?\s+)*(public|open)\s+(static |final |private\(set\) |mutating |override |convenience |indirect |nonisolated |lazy )*(func|var|let|init|struct|class|enum|protocol|typealias|actor|subscript)\b"#
        )
        let witness = try Regex(
            #"(var description|var debugDescription|func hash\(into|static func ==|static func <|init\(from decoder|func encode\(to encoder|var startIndex|var endIndex|subscript\(position|func index\(after|func makeIterator|func next\(\)|Literal|init\(argument|var errorDescription|init\?\(rawValue|var rawValue)"#
        )
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)!.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var undocumented: [String] = []
        for file in files.sorted() {
            let lines = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
            for (i, line) in lines.enumerated() {
                let s = line.trimmingCharacters(in: .whitespaces)
                guard s.firstMatch(of: declaration) != nil, s.firstMatch(of: witness) == nil else { continue }
                var j = i - 1
                while j >= 0 && lines[j].trimmingCharacters(in: .whitespaces).hasPrefix("@") { j -= 1 }
                if j < 0 || !lines[j].trimmingCharacters(in: .whitespaces).hasPrefix("///") {
                    undocumented.append("Sources/\(file):\(i + 1): \(s.prefix(100))")
                }
            }
        }
        #expect(undocumented.isEmpty, "public declarations without a /// comment:\n\(undocumented.joined(separator: "\n"))")
        #expect(files.count > 100)
    }
}
