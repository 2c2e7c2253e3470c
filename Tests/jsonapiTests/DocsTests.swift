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
}
