import Foundation
import Testing

@testable import JSONAPIStream

/// A run that prints only the first thousand warnings words only those
/// (``DocumentOptions/warningTexts``): the rest reach the handler textless, with their rules,
/// in the same order and number, and the output and the graph's kept warnings do not change.
/// On one reader, on workers over documents and over one document's elements; for graphs,
/// NDJSON and tables.
struct WarningTextsTests {
    /// 1,500 pages, each with an unknown member (R14) and people 7 again (N01 in a graph), or
    /// one document of 2,500 resources with an unknown member each.
    static func input(oneDocument: Bool) -> [UInt8] {
        var text = ""
        if oneDocument {
            text = #"{"data":["#
            for i in 0..<2_500 { text += (i > 0 ? "," : "") + #"{"type":"articles","id":"\#(i)","x-extra":\#(i)}"# }
            text += "]}"
        } else {
            for i in 0..<1_500 {
                text += #"{"data":[{"type":"articles","id":"\#(i)","x-extra":\#(i)}],"#
                text += #""included":[{"type":"people","id":"7","attributes":{"n":\#(i)}}]}"# + "\n"
            }
        }
        return Array(text.utf8)
    }

    static func options(workers: Int, oneDocument: Bool, texts: Int) -> DocumentOptions {
        var o = DocumentOptions()
        o.parse.workers = workers
        o.warningTexts = texts
        return o
    }

    /// The handler's warnings with and without the limit: the same number and rules, the
    /// first thousand the same; past them each the same or textless (each reader words its
    /// own first thousand), `textless` of them textless.
    static func expectSameButTextless(_ all: [Diagnostic], _ limited: [Diagnostic], textless: Int?, _ what: String) {
        #expect(all.count > 1_400, "\(what): \(all.count)")
        #expect(limited.count == all.count, "\(what)")
        #expect(limited.map(\.rule) == all.map(\.rule), "\(what)")
        #expect(limited.prefix(1000).map(\.description) == all.prefix(1000).map(\.description), "\(what)")
        #expect(!all.contains { $0.isTextless }, "\(what)")
        for (a, l) in zip(all, limited).dropFirst(1000) where !l.isTextless {
            #expect(l.description == a.description, "\(what)")
        }
        if let textless { #expect(limited.filter(\.isTextless).count == textless, "\(what)") }
    }

    @Test(arguments: [1, 2], [false, true])
    func graphsWordTheFirstThousand(workers: Int, oneDocument: Bool) throws {
        let input = Self.input(oneDocument: oneDocument)
        func read(texts: Int) throws -> (Graph, [Diagnostic]) {
            let parser = GraphParser(options: Self.options(workers: workers, oneDocument: oneDocument, texts: texts))
            var handed: [Diagnostic] = []
            parser.onWarning = { handed.append($0) }
            if workers > 1 { parser.tuneWorkers(batchBytes: 900, continuationBytes: 2500, decisionBytes: 4000) }
            try input.withUnsafeBytes { try parser.feed($0) }
            let graph = try parser.finish()
            #expect(parser.isReadByWorkers == (workers > 1))
            return (graph, handed)
        }
        let (all, allHanded) = try read(texts: .max)
        let (limited, limitedHanded) = try read(texts: 1000)
        // A graph's sink sees every warning in order: all past the first thousand are textless.
        Self.expectSameButTextless(allHanded, limitedHanded, textless: allHanded.count - 1000, "graph, \(workers) workers, one document \(oneDocument)")
        if !oneDocument { #expect(allHanded.contains { $0.rule == .N01 } && allHanded.contains { $0.rule == .R14 }) }
        #expect(limited.warningCount == all.warningCount)
        #expect(limited.warnings.map(\.description) == all.warnings.map(\.description))
        #expect(limited.warnings.count == 1000 && !limited.warnings.contains { $0.isTextless })
        #expect(try GraphMergingTests.flat(limited) == GraphMergingTests.flat(all))
    }

    @Test(arguments: [1, 2], [false, true])
    func normalizedOutputIsTheSame(workers: Int, oneDocument: Bool) throws {
        for format in [OutputFormat.ndjson, .json] { try normalizedOutputIsTheSame(format: format, workers: workers, oneDocument: oneDocument) }
    }

    func normalizedOutputIsTheSame(format: OutputFormat, workers: Int, oneDocument: Bool) throws {
        let input = Self.input(oneDocument: oneDocument)
        func run(texts: Int) throws -> (String, [Diagnostic], Bool) {
            let out = ByteWriter()
            let n = Normalizer(format: format, out: out, document: Self.options(workers: workers, oneDocument: oneDocument, texts: texts))
            if workers > 1 { n.tuneWorkers(batchBytes: 900, continuationBytes: 2500, decisionBytes: 4000) }
            var handed: [Diagnostic] = []
            n.onDiagnostic = { handed.append($0) }
            try n.read(.bytes(input, name: "w"))
            try n.finish()
            #expect(n.isReadByWorkers == (workers > 1))
            return (out.string, handed, n.readsElementRanges)
        }
        let (allOut, allHanded, ranges) = try run(texts: .max)
        let (limitedOut, limitedHanded, _) = try run(texts: 1000)
        // Two workers share one document out a range of elements each.
        #expect(ranges == (workers > 1 && oneDocument))
        #expect(limitedOut == allOut)
        // One reader words its first thousand; so does a graph's sink of its own (N01): in a
        // dump, 1,500 unknown members and 1,499 repeats. Workers each word their own.
        let textless = workers > 1 ? nil : oneDocument ? 1_500 : format == .json ? 500 + 499 : 500
        Self.expectSameButTextless(allHanded, limitedHanded, textless: textless, "\(format), \(workers) workers, one document \(oneDocument)")
        if workers > 1 && oneDocument { #expect(limitedHanded.contains { $0.isTextless }, "each worker's share is over a thousand") }
    }
}

extension WarningTextsTests {
    /// `--on-duplicate first` on NDJSON: the duplicate tracker words its first thousand
    /// repeats (N01) too, beside the reader's unknown members (R14).
    @Test func repeatsSkippedByTheFirstPolicyAreWordedTheSame() throws {
        let input = Self.input(oneDocument: false)
        func run(texts: Int) throws -> (String, [Diagnostic]) {
            let out = ByteWriter()
            let n = Normalizer(format: .ndjson, out: out, document: Self.options(workers: 1, oneDocument: false, texts: texts), duplicates: .first)
            var handed: [Diagnostic] = []
            n.onDiagnostic = { handed.append($0) }
            try n.read(.bytes(input, name: "w"))
            try n.finish()
            return (out.string, handed)
        }
        let (allOut, allHanded) = try run(texts: .max)
        let (limitedOut, limitedHanded) = try run(texts: 1000)
        #expect(limitedOut == allOut)
        #expect(allHanded.filter { $0.rule == .N01 }.count == 1_499)
        Self.expectSameButTextless(allHanded, limitedHanded, textless: 500 + 499, "ndjson, first")
    }

    /// The same for per-type tables, whose sink has a duplicate tracker of its own.
    @Test func tablesWordTheFirstThousandToo() throws {
        let input = Self.input(oneDocument: false)
        func run(texts: Int) throws -> ([String: String], [Diagnostic]) {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("warning-texts-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let splitter = try TableSplitter(
                directory: directory.path, document: Self.options(workers: 1, oneDocument: false, texts: texts), duplicates: .first)
            var handed: [Diagnostic] = []
            splitter.onDiagnostic = { handed.append($0) }
            try splitter.read(.bytes(input, name: "w"))
            _ = try splitter.finish()
            var tables: [String: String] = [:]
            for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
                tables[name] = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            }
            return (tables, handed)
        }
        let (allTables, allHanded) = try run(texts: .max)
        let (limitedTables, limitedHanded) = try run(texts: 1000)
        #expect(!allTables.isEmpty && limitedTables == allTables)
        Self.expectSameButTextless(allHanded, limitedHanded, textless: 500 + 499, "tables, first")
    }
}
