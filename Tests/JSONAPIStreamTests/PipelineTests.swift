import Foundation
import Testing
@testable import JSONAPIStream
@testable import JSONAPIBenchmarking

/// Parsing on one thread and building on another (``ParseConcurrency/pipelined``) must be
/// indistinguishable from one thread: same output bytes, same errors at the same positions
/// with the same pointers, same warnings.
struct PipelineTests {
    /// The C recorder writes event kinds by cplatform.h's numbers, the replayer reads them as
    /// `TapeKind`: one list, checked here.
    @Test func tapeKindsAreNumberedAlikeInCAndSwift() {
        #expect(TapeKind.allCases.map { Int($0.rawValue) } == TapeKind.numbersInC)
        #expect(TapeKind.allCases.count == 13)
    }

    static func options(_ c: ParseConcurrency, validation: ValidationMode = .lenient) -> DocumentOptions {
        var o = DocumentOptions()
        o.parse.concurrency = c
        o.validation = validation
        return o
    }

    static func run(_ input: [UInt8], format: OutputFormat, _ c: ParseConcurrency, chunk: Int, validation: ValidationMode = .lenient) -> (String, JSONAPIError?, [Diagnostic]) {
        let out = ByteWriter()
        let n = Normalizer(format: format, out: out, document: options(c, validation: validation))
        var warnings: [Diagnostic] = []
        n.onDiagnostic = { warnings.append($0) }
        do throws(JSONAPIError) {
            try n.beginInput(named: "in")
            try feedChunked(input, chunk: chunk) { (b) throws(JSONAPIError) in try n.feed(b) }
            try n.finish()
            return (out.string, nil, warnings)
        } catch {
            return (out.string, error, warnings)
        }
    }

    static let documents: [String] = CorpusTests.files("documents").map { "documents/\($0)" }

    @Test(arguments: documents)
    func corpusDocumentsAreIdentical(_ path: String) throws {
        let input = Array(try Data(contentsOf: corpusURL(path)))
        for format in OutputFormat.allCases {
            for chunk in [0, 7, 64] {
                let a = Self.run(input, format: format, .sequential, chunk: chunk)
                let b = Self.run(input, format: format, .pipelined, chunk: chunk)
                #expect(a.0 == b.0, "\(path) \(format) read size \(chunk): output differs")
                #expect(a.1 == b.1, "\(path): \(String(describing: a.1)) vs \(String(describing: b.1))")
                #expect(a.2 == b.2, "\(path): warnings differ")
            }
        }
    }

    @Test(arguments: CorpusTests.manifest("invalid").map(\.0))
    func invalidFixturesFailTheSameWay(_ name: String) throws {
        let url = corpusURL("invalid/\(name)")
        let entry = CorpusTests.manifest("invalid").first { $0.0 == name }!.1
        var (o, _, _) = CorpusTests.options(entry)
        for chunk in [1 << 20, 5] {
            o.parse.concurrency = .sequential
            let a = try DocumentValidator(options: o).validate(.bytes(Array(Data(contentsOf: url)), name: name), chunkSize: chunk)
            o.parse.concurrency = .pipelined
            let b = try DocumentValidator(options: o).validate(.bytes(Array(Data(contentsOf: url)), name: name), chunkSize: chunk)
            #expect(a == b, "\(name) at read size \(chunk):\n\(a)\n\(b)")
        }
        // Strict normalizing stops at the same first error.
        let input = Array(try Data(contentsOf: url))
        let s = Self.run(input, format: .ndjson, .sequential, chunk: 3, validation: .strict)
        let p = Self.run(input, format: .ndjson, .pipelined, chunk: 3, validation: .strict)
        #expect(s.1 == p.1, "\(name): \(String(describing: s.1)) vs \(String(describing: p.1))")
        #expect(s.0 == p.0)
    }

    @Test func truncationAtEveryByte() throws {
        let doc = Array(try Data(contentsOf: corpusURL("documents/spec-compound.json")))
        for cut in stride(from: 0, to: doc.count, by: 3) {
            let piece = Array(doc[..<cut])
            let a = Self.run(piece, format: .ndjson, .sequential, chunk: 0)
            let b = Self.run(piece, format: .ndjson, .pipelined, chunk: 0)
            #expect(a.0 == b.0 && a.1 == b.1, "cut at \(cut): \(String(describing: a.1)) vs \(String(describing: b.1))")
        }
    }

    @Test func generatedDocumentGivesTheSameGraph() throws {
        let out = ByteWriter()
        try DocumentGenerator(resources: 3000, seed: 5).write(to: out)
        let input = out.bytes
        for format in OutputFormat.allCases {
            let a = Self.run(input, format: format, .sequential, chunk: 1 << 20)
            let b = Self.run(input, format: format, .pipelined, chunk: 1 << 20)
            #expect(a.1 == nil && b.1 == nil)
            #expect(a.0 == b.0, "\(format) differs")
        }
        var o = DocumentOptions()
        o.parse.concurrency = .pipelined
        let g = try Graph(bytes: input, options: o)
        g.checkInvariants()
        #expect(g.count == 9500)
    }

    @Test func severalInputsAndBOMNotices() throws {
        var o = DocumentOptions()
        o.parse.concurrency = .pipelined
        o.parse.byteOrderMark = .strip
        let p = GraphParser(options: o)
        var warnings: [Diagnostic] = []
        p.onWarning = { warnings.append($0) }
        try p.beginInput(named: "a")
        try p.feed([0xEF, 0xBB, 0xBF] + bytes(#"{"data":{"type":"t","id":"1","attributes":{"v":1}}}"#))
        try p.beginInput(named: "b")
        try p.feed(bytes(#"{"data":{"type":"t","id":"1","attributes":{"v":2}}}"#))
        let g = try p.finish()
        #expect(g[type: "t", id: "1"]?.attributes["v"]?.number?.intValue == 2)
        #expect(warnings.map(\.rule) == [.N02, .N01])
        #expect(warnings.last?.source == "b")
    }
}

/// Strings with escapes are read a second time, from their source bytes, only when a `\u`
/// escape could hide an unpaired surrogate (or the raw text is over the length limit).
struct EscapedStringTests {
    static func fullCheck(_ token: [UInt8]) -> LexicalScanner.Failure? {
        token.withUnsafeBytes { LexicalScanner.fullCheck($0, base: 0, limits: Limits()) }
    }

    /// Tokens yajl accepts (valid escapes only), with and without `\u`: the quick answer is
    /// the full scanner's answer.
    @Test func quickCheckAgreesWithTheFullScanner() {
        let pieces = ["a", "\\/", "\\\"", "\\\\", "\\n", "\\u0041", "\\ud800", "\\udc00", "\\ud83d\\ude00", "é", "\\\\u", "u"]
        var rng = SplitMix64(seed: 42)
        var failures = 0
        for _ in 0..<5_000 {
            var s = "\""
            for _ in 0..<Int(rng.next() % 6) { s += pieces[Int(rng.next() % UInt64(pieces.count))] }
            s += "\""
            let token = Array(s.utf8)
            let quick = token.withUnsafeBytes { LexicalScanner.checkEscapedString($0, base: 0, limits: Limits()) }
            let full = Self.fullCheck(token)
            #expect((quick == nil) == (full == nil), "\(s)")
            #expect(quick?.rule == full?.rule && quick?.offset == full?.offset, "\(s)")
            if full != nil { failures += 1 }
        }
        #expect(failures > 100)  // unpaired surrogates were drawn, and refused
    }

    @Test func phpStyleLinksAndUnpairedSurrogates() {
        let links = #"{"data":{"type":"a","id":"1","attributes":{"q":"say \"hi\" \\u0041"},"links":{"self":"https:\/\/example.com\/a\/1"}}}"#
        for c in [ParseConcurrency.sequential, .pipelined] {
            let (out, error, warnings) = PipelineTests.run(Array(links.utf8), format: .ndjson, c, chunk: 0)
            #expect(error == nil && warnings.isEmpty, "\(c)")
            #expect(out.contains(#""self":"https://example.com/a/1""#), "\(c): \(out)")
            #expect(out.contains(#""q":"say \"hi\" \\u0041""#), "\(c): \(out)")
        }
        let bad = #"{"data":{"type":"a","id":"1","attributes":{"q":"x\ud800y"}}}"#
        var errors: [JSONAPIError] = []
        for c in [ParseConcurrency.sequential, .pipelined] {
            let (_, error, _) = PipelineTests.run(Array(bad.utf8), format: .ndjson, c, chunk: 0)
            guard let error, case .syntax(let d) = error else { Issue.record("\(c): no syntax error"); continue }
            #expect(d.rule == .J03, "\(c): \(d)")
            #expect(d.pointer == "/data/attributes/q", "\(c): \(d)")
            errors.append(error)
        }
        #expect(errors.count == 2 && errors[0] == errors[1])
    }
}

/// In automatic mode the first read decides: a full pipe's 64 KiB (standard input from another
/// program) builds on a second thread, as a file's 1 MiB reads do; a smaller one stays on one.
struct AutomaticConcurrencyTests {
    @Test func aFullPipeReadBuildsOnASecondThread() throws {
        let out = ByteWriter()
        try DocumentGenerator(resources: 200, seed: 1).write(to: out)
        let document = out.bytes
        #expect(document.count > DocumentReader.pipelinedFirstRead)
        for (first, pipelined) in [(DocumentReader.pipelinedFirstRead, true), (1 << 20, true), (DocumentReader.pipelinedFirstRead - 1, false), (4096, false)] {
            let options = DocumentOptions()
            #expect(options.parse.concurrency == .automatic)
            let sink = GraphSink(options: options, policy: .last)
            let reader = DocumentReader(options: options, sink: sink)
            try reader.begin(sourceName: "stdin")
            try feedChunked(document, chunk: first) { (b) throws(JSONAPIError) in try reader.feed(b) }
            #expect(reader.isPipelined == pipelined, "first read \(first)")
            try reader.end()
            reader.close()
            #expect(reader.resourcesBuilt > 200, "first read \(first)")
        }
    }
}
