import Foundation
import Testing
@testable import JSONAPIStream

/// Inputs of many documents read by several workers (``ParseOptions/workers``) must be
/// indistinguishable from one reader: the same output bytes, the same warnings in the same
/// order, the same first error (rule, message, position, pointer, input), for any read size
/// and any number of workers. Small batch sizes put the corpus through the workers' paths:
/// batches of several documents, documents handed over in pieces, inputs that stay on one
/// stream.
struct ParallelReaderTests {
    struct Run: Equatable {
        var output: String
        var error: JSONAPIError?
        var warnings: [Diagnostic]
        var byWorkers: Bool
        /// Workers read ranges of the elements of large documents.
        var byElements = false
    }

    /// Normalizes `inputs` (name, bytes) with `workers`, feeding `chunk` bytes at a time;
    /// `prepare` is given the normalizer before the first byte (a test's hooks).
    static func run(
        _ inputs: [(String, [UInt8])], format: OutputFormat = .ndjson, workers: Int, chunk: Int,
        options: DocumentOptions = DocumentOptions(), batch: Int = 900, continuation: Int = 1000, decision: Int = 4000,
        reading: InputReading = .fed, prepare: (Normalizer) -> Void = { _ in }
    ) -> Run {
        var o = options
        o.parse.workers = workers
        let out = ByteWriter()
        let n = Normalizer(format: format, out: out, document: o)
        n.tuneWorkers(batchBytes: batch, continuationBytes: continuation, decisionBytes: decision)
        prepare(n)
        var warnings: [Diagnostic] = []
        n.onDiagnostic = { warnings.append($0) }
        var names: [String: String] = [:]
        do throws(JSONAPIError) {
            if case .files = reading {
                // Files read into blocks, as `jsonapi` reads them: batches view the blocks.
                try readFromFiles(inputs, chunk: chunk, names: &names) { (source, size) throws(JSONAPIError) in try n.read(source, chunkSize: size) }
                try n.finish()
                return Run(
                    output: out.string, error: nil, warnings: warnings.map { renamed($0, names) }, byWorkers: n.isReadByWorkers,
                    byElements: n.readsElementRanges)
            } else if case .whole = reading {
                // One input read in place (`finish(reading:)`): batches view its bytes.
                precondition(inputs.count == 1, "one input read whole")
                let (name, bytes) = inputs[0]
                try withContiguousBytes(of: bytes) { (b) throws(JSONAPIError) in
                    try n.finish(reading: b, named: name, chunkSize: chunk <= 0 ? max(b.count, 1) : chunk)
                }
            } else {
                try readInputs(inputs, chunk: chunk, into: n)
                try n.finish()
            }
            return Run(output: out.string, error: nil, warnings: warnings, byWorkers: n.isReadByWorkers, byElements: n.readsElementRanges)
        } catch {
            return Run(
                output: out.string, error: renamed(error, names), warnings: warnings.map { renamed($0, names) }, byWorkers: n.isReadByWorkers,
                byElements: n.readsElementRanges)
        }
    }

    /// Every corpus document that normalizes without error by default, each followed by one of
    /// the separators JSON texts may have between them (or none).
    static let dump: [UInt8] = {
        let separators = ["\n", "", "  \r\n", "\t", "\n\n"]
        var bytes: [UInt8] = []
        var k = 0
        for dir in ["documents", "valid"] {
            for file in CorpusTests.files(dir) where file.hasSuffix(".json") {
                guard let data = try? Data(contentsOf: corpusURL("\(dir)/\(file)")) else { continue }
                let doc = Array(data)
                guard run([("one", doc)], workers: 1, chunk: 0).error == nil else { continue }
                bytes += doc
                bytes += Array(separators[k % separators.count].utf8)
                k += 1
            }
        }
        return bytes
    }()

    /// The document splitter's ways of reading (a byte at a time, SSE2 blocks, AVX2 blocks, the
    /// fastest this processor has: AVX-512 blocks where it has them) find the same ends of documents, with the same lines and counts, in the
    /// dump, in documents broken at random bytes (not JSON: the cuts must still agree), and in
    /// strings of backslash runs, read in pieces of every size from 1 to 400 bytes.
    @Test func theSplitterReadsTheSameEveryWay() {
        var escapes = ""
        var seeded = XorShift(seed: 11)
        for i in 0..<300 {
            let slashes = String(repeating: "\\", count: Int(seeded.next() % 6))
            let pad = String(repeating: "x", count: Int(seeded.next() % 70))
            escapes += #"{"data":{"type":"t","id":"\#(i)","attributes":{"s":"\#(pad)\#(slashes)\#(slashes.count % 2 == 0 ? "" : "\"")}]{["}}}"# + (i % 3 == 0 ? "\n" : "")
        }
        var broken = Self.dump
        for _ in 0..<200 {
            broken[Int(seeded.next() % UInt64(broken.count))] = Array(#"\"{}[],"#.utf8)[Int(seeded.next() % 7)]
        }
        var ends = 0
        for (name, input) in [("dump", Self.dump), ("escapes", Array(escapes.utf8)), ("broken", broken)] {
            for round in 0..<4 {
                var traces: [[Int]] = []
                for variant in Int32(0)...3 {
                    var pieces = XorShift(seed: UInt64(round + 1))
                    var split = DocumentSplitter()
                    var trace: [Int] = []
                    pieces.readInPieces(input, longest: round % 2 == 0 ? 7 : 400) { piece, at, cutAfter in
                        let cut = split.scan(piece, cutAfter: cutAfter, variant: variant)
                        if let cut { trace.append(at + cut) }
                        trace += [split.offset, split.line, split.lineStart, split.documents]
                        return cut ?? piece.count
                    }
                    traces.append(trace)
                }
                ends += traces[0].count
                #expect(traces[1] == traces[0], "\(name), round \(round): bytes alone differ")
                #expect(traces[2] == traces[0], "\(name), round \(round): SSE2 blocks differ")
                #expect(traces[3] == traces[0], "\(name), round \(round): AVX2 blocks differ")
            }
        }
        #expect(ends > 1000)
    }

    @Test func theDumpHoldsManyDocuments() {
        // More than a batch and more than the decision: the workers' paths are taken.
        #expect(Self.dump.count > 30_000)
        #expect(Self.run([("dump", Self.dump)], workers: 2, chunk: 0).byWorkers)
    }

    @Test(arguments: [OutputFormat.ndjson, .edges])
    func manyDocumentsGiveTheSameBytesWarningsAndOrder(_ format: OutputFormat) {
        let one = Self.run([("dump", Self.dump)], format: format, workers: 1, chunk: 0)
        #expect(one.error == nil)
        #expect(!one.byWorkers)
        #expect(one.output.count > 4_000)
        for workers in [2, 3] {
            // (Read whole: the batches view the input rather than copy it.)
            // (Read from files: into blocks that the batches view.)
            let reads: [(Int, InputReading)] = [(0, .fed), (1, .fed), (7, .fed), (4096, .fed), (0, .whole), (7, .whole), (4096, .whole), (0, .files), (7, .files), (4096, .files)]
            for (chunk, reading) in reads {
                let many = Self.run([("dump", Self.dump)], format: format, workers: workers, chunk: chunk, reading: reading)
                let what = "\(format), \(workers) workers, read size \(chunk)\(reading)"
                #expect(many.byWorkers, "\(what)")
                #expect(many.output == one.output, "\(what): output differs")
                #expect(many.warnings == one.warnings, "\(what): warnings differ")
                #expect(many.error == nil)
            }
        }
    }

    /// A count past ``ParseOptions/maxWorkers`` starts that many, with the same bytes (100000
    /// took gigabytes and minutes before the limit).
    @Test func workersAreAtMostTheLimit() {
        var o = ParseOptions()
        o.workers = 100_000
        #expect(o.effectiveWorkers == ParseOptions.maxWorkers)
        o.workers = 3
        #expect(o.effectiveWorkers == 3)
        let one = Self.run([("dump", Self.dump)], workers: 1, chunk: 0)
        let many = Self.run([("dump", Self.dump)], workers: 100_000, chunk: 4096)
        #expect(many.byWorkers && many.error == nil)
        #expect(many.output == one.output)
    }

    @Test func strictModeAndSafeNumbersGiveTheSameBytes() {
        var o = DocumentOptions()
        o.validation = .strict
        let input = [("dump", Self.dump)]
        let one = Self.run(input, workers: 1, chunk: 0, options: o)
        let many = Self.run(input, workers: 2, chunk: 0, options: o)
        // Strict mode stops at the corpus's first rule violation: the same one, after the
        // same lines.
        #expect(many == Run(output: one.output, error: one.error, warnings: one.warnings, byWorkers: true))
    }

    /// The dump cut between two documents near its middle: `a.json` (its first half), `b.json`
    /// (the second half, starting there) and `c.json` (the first half again).
    static var threeInputs: [(String, [UInt8])] {
        let cut = boundary(near: dump.count / 2)
        return [("a.json", Array(dump[..<cut])), ("b.json", Array(dump[cut...])), ("c.json", Array(dump[..<cut]))]
    }

    @Test func severalInputsKeepTheirOwnPositionsAndOrder() {
        let inputs = Self.threeInputs
        let one = Self.run(inputs, workers: 1, chunk: 0)
        #expect(one.error == nil)
        for chunk in [0, 13] {
            let many = Self.run(inputs, workers: 2, chunk: chunk)
            #expect(many.output == one.output)
            #expect(many.warnings == one.warnings)
            #expect(many.warnings.contains { $0.source == "b.json" } == one.warnings.contains { $0.source == "b.json" })
        }
    }

    @Test func aByteOrderMarkIsReportedWhenItsInputEnds() {
        var o = DocumentOptions()
        o.parse.byteOrderMark = .strip
        let input = [("bom.json", [0xEF, 0xBB, 0xBF] + Self.dump), ("next.json", Self.dump)]
        let one = Self.run(input, workers: 1, chunk: 0, options: o)
        let many = Self.run(input, workers: 2, chunk: 5, options: o)
        #expect(one.warnings.contains { $0.rule == .N02 })
        #expect(many.output == one.output)
        #expect(many.warnings == one.warnings)
        #expect(many.byWorkers)
    }

    /// Each invalid fixture in the middle of the dump: the same first error at the same
    /// place, after the same output and warnings.
    @Test(arguments: CorpusTests.manifest("invalid").map(\.0))
    func anInvalidDocumentAmongManyFailsTheSameWay(_ name: String) throws {
        let (o, input) = try Self.amongMany(invalid: name)
        let one = Self.run(input, workers: 1, chunk: 0, options: o)
        // (Output rules, N01-N05, are not errors of the document.)
        if !name.hasPrefix("N") { #expect(one.error != nil, "\(name) fails") }
        for (workers, chunk) in [(2, 0), (3, 11)] {
            let many = Self.run(input, workers: workers, chunk: chunk, options: o)
            #expect(many.error == one.error, "\(name), \(workers) workers: \(String(describing: many.error)) vs \(String(describing: one.error))")
            #expect(many.output == one.output, "\(name), \(workers) workers: output differs")
            #expect(many.warnings == one.warnings, "\(name), \(workers) workers: warnings differ")
        }
    }

    /// `DocumentValidator` on workers: the same findings in the same order, for the dump in
    /// lenient checking (every finding) and with an invalid fixture in its middle.
    @Test func theValidatorFindsTheSameOnWorkers() throws {
        func findings(_ bytes: [UInt8], workers: Int) throws -> [Diagnostic] {
            var o = DocumentOptions()
            o.parse.workers = workers
            o.parse.workerBatchBytes = 700
            return try DocumentValidator(options: o).validate(.bytes(bytes, name: "dump"), chunkSize: 4096)
        }
        let one = try findings(Self.dump, workers: 1)
        #expect(!one.isEmpty, "the corpus breaks some rules in lenient checking")
        #expect(try findings(Self.dump, workers: 2) == one)
        #expect(try findings(Self.dump, workers: 3) == one)
        let broken = Array(Self.dump[..<Self.boundary(near: 9000)]) + Array(#"{"data":{"type":"a","id":"1","attributes":{"x":1e}}}"#.utf8) + Self.dump
        let failing = try findings(broken, workers: 1)
        #expect(failing.last?.rule.isJSONRule == true, "\(String(describing: failing.last))")
        #expect(try findings(broken, workers: 2) == failing)

        // From a file, as `jsonapi validate` reads one: read in blocks of 64 KiB (the smallest
        // read size blocks are used for by default) that the batches view, several blocks.
        func fromFile(_ bytes: [UInt8], workers: Int) throws -> [Diagnostic] {
            var o = DocumentOptions()
            o.parse.workers = workers
            o.parse.workerBatchBytes = 700
            var names: [String: String] = [:]
            var found: [Diagnostic] = []
            try readFromFiles([("dump", bytes)], chunk: 65536, names: &names) { (source, size) throws(JSONAPIError) in
                found = try DocumentValidator(options: o).validate(source, chunkSize: size)
            }
            return found.map { renamed($0, names) }
        }
        let four = Self.dump + Self.dump + Self.dump + Self.dump
        #expect(four.count > 2 * 65536)
        let fourOne = try findings(four, workers: 1)
        #expect(try fromFile(four, workers: 1) == fourOne)
        #expect(try fromFile(four, workers: 2) == fourOne)
        #expect(try fromFile(four, workers: 3) == fourOne)
        let brokenFour = four + Array(#"{"data":{"type":"a","id":"1","attributes":{"x":1e}}}"#.utf8) + Self.dump
        let brokenOne = try findings(brokenFour, workers: 1)
        #expect(brokenOne.last?.rule.isJSONRule == true)
        #expect(try fromFile(brokenFour, workers: 2) == brokenOne)
    }

    /// What needs every document in one place keeps one reader, with the output one reader
    /// gives: NDJSON with `--on-duplicate first|error` or a resource limit, `recordsTopLevel`
    /// (flat JSON is built from graph pieces: `ParallelGraphTests`).
    @Test func whatNeedsEveryDocumentKeepsOneReader() throws {
        let input = Array(Self.dump)
        func run(_ format: OutputFormat, _ duplicates: DuplicatePolicy, limit: Int? = nil, topLevel: Bool = false, workers: Int) throws -> (String, Bool) {
            var o = DocumentOptions()
            o.parse.workers = workers
            o.parse.limits.maxResources = limit
            let out = ByteWriter()
            let n = Normalizer(format: format, out: out, document: o, duplicates: duplicates)
            n.tuneWorkers(batchBytes: 900, continuationBytes: 2500, decisionBytes: 4000)
            n.recordsTopLevel = topLevel
            try n.read(.bytes(input, name: "dump"))
            try n.finish()
            return (out.string, n.isReadByWorkers)
        }
        for (format, duplicates, limit, topLevel) in [
            (OutputFormat.ndjson, DuplicatePolicy.first, Int?.none, false), (.ndjson, .last, 1_000_000, false), (.json, .last, nil, true),
            (.ndjson, .last, nil, true),
        ] {
            let one = try run(format, duplicates, limit: limit, topLevel: topLevel, workers: 1)
            let two = try run(format, duplicates, limit: limit, topLevel: topLevel, workers: 2)
            #expect(!two.1, "\(format) \(duplicates) \(String(describing: limit)) \(topLevel)")
            #expect(two.0 == one.0)
        }
        // And with none of them, the same input is read by workers.
        #expect(try run(.ndjson, .last, workers: 2).1)
    }

    /// An input of many documents whose size is known (read whole, or from a regular file) has
    /// its last batches cut smaller, as a large document's last ranges are
    /// (``ElementRangeTests/theLastRangesOfAnInputOfKnownSizeAreCutSmaller()``); fed in chunks,
    /// every batch holds the batch size. The output is one reader's either way.
    @Test func theLastBatchesOfAnInputOfKnownSizeAreCutSmaller() {
        var dump: [UInt8] = []
        for i in 0..<600 {
            dump += Array(#"{"data":{"type":"t","id":"\#(i)","attributes":{"s":"}{"}}}"#.utf8) + [0x0A]
        }
        // A document's bytes, about (ids of 1 to 3 digits).
        let document = 64
        let batch = 2048
        func batches(_ reading: InputReading, workers: Int = 2) -> (sizes: [Int], output: String) {
            var sizes: [Int] = []
            let run = Self.run(
                [("dump", dump)], workers: workers, chunk: 1000, batch: batch, continuation: 2 * batch, decision: 4 * batch, reading: reading
            ) { $0.didCutBatch = { sizes.append($0) } }
            #expect(run.error == nil && run.byWorkers == (workers > 1), "\(reading)")
            return (sizes, run.output)
        }
        let one = batches(.fed, workers: 1)
        let fed = batches(.fed)
        #expect(fed.output == one.output)
        for reading in [InputReading.whole, .files] {
            let known = batches(reading)
            #expect(known.output == one.output, "\(reading)")
            // Fed, every batch closed at a document's end holds the batch size; with the size
            // known, the last ones are smaller and smaller.
            expectCutSmallerAtTheEnd(fed: fed.sizes, known: known.sizes, batch: batch, piece: document, "\(reading)")
        }
    }

    @Test func inputsTooSmallStayOnOneStreamAndOneLargeDocumentIsReadByElements() {
        let small = Self.run([("small", Array(Self.dump.prefix(upTo: Self.boundary(near: 2000))))], workers: 2, chunk: 0)
        #expect(small.error == nil && !small.byWorkers)
        // One document larger than the decision size: no document boundary in it.
        var big = Array(#"{"data":["#.utf8)
        for i in 0..<400 {
            if i > 0 { big.append(UInt8(ascii: ",")) }
            big += Array(#"{"type":"t","id":"\#(i)","attributes":{"s":"{[\"]}"}}"#.utf8)
        }
        big += Array("]}\n".utf8)
        let one = Self.run([("big", big + big)], workers: 1, chunk: 0)
        let many = Self.run([("big", big + big)], workers: 2, chunk: 0)
        #expect(big.count > 4000)
        // No document boundary in the first 4000 bytes: ranges of elements on workers.
        #expect(many.byWorkers && many.byElements)
        #expect(many.output == one.output && one.error == nil)
        // Flat JSON too (a graph of the ranges' pieces), and strict checking (its compound rules
        // checked from what the ranges gather); a request document, whose rules need its one
        // primary resource in one place, keeps one stream.
        let flat = Self.run([("big", big + big)], format: .json, workers: 2, chunk: 0)
        #expect(flat.byElements && flat.output == Self.run([("big", big + big)], format: .json, workers: 1, chunk: 0).output)
        var strict = DocumentOptions()
        strict.validation = .strict
        let checked = Self.run([("big", big + big)], workers: 2, chunk: 0, options: strict)
        #expect(checked.byElements && checked.error == nil && checked.output == one.output)
        var request = DocumentOptions()
        request.context = .update
        let whole = Self.run([("big", big + big)], workers: 2, chunk: 0, options: request)
        #expect(!whole.byWorkers && whole.output == Self.run([("big", big + big)], workers: 1, chunk: 0, options: request).output)
        // The same documents with a larger decision size: two documents, each handed over in
        // pieces (continuation batches) to one worker.
        let pieces = Self.run([("big", big + big)], workers: 2, chunk: 0, batch: 300, continuation: 1000, decision: big.count + 1000)
        #expect(pieces.byWorkers)
        #expect(pieces.output == one.output)
    }

    @Test func anEmptyOrBlankInputFailsAsOnOneStream() {
        for text in ["", "  \n", "{\"data\":null}\n   ", "{\"data\":null} {"] {
            let input = [("in", Array(Self.dump.prefix(upTo: Self.boundary(near: 5000))) + Array(text.utf8)), ("blank", Array(text.utf8))]
            let one = Self.run(input, workers: 1, chunk: 0)
            let many = Self.run(input, workers: 2, chunk: 0)
            #expect(many.error == one.error, "\(text.debugDescription)")
            #expect(many.output == one.output)
        }
    }

    /// The invalid fixture `name` between two runs of the dump's documents, as one input, and
    /// its manifest's options in strict mode.
    static func amongMany(invalid name: String) throws -> (DocumentOptions, [(String, [UInt8])]) {
        let entry = CorpusTests.manifest("invalid").first { $0.0 == name }!.1
        var (o, _, _) = CorpusTests.options(entry)
        o.validation = .strict
        let fixture = Array(try Data(contentsOf: corpusURL("invalid/\(name)")))
        let prefix = Array(dump.prefix(upTo: boundary(near: 6000)))
        let suffix = Array(dump[..<boundary(near: 3000)])
        return (o, [("in.json", prefix + fixture + [0x0A] + suffix)])
    }

    /// The offset just after the document that ends at or after `offset` in the dump.
    static func boundary(near offset: Int) -> Int {
        var s = DocumentSplitter()
        return Self.dump.withUnsafeBytes { b in s.scan(b, cutAfter: offset) ?? b.count }
    }

    /// The splitter against a byte-at-a-time reading of the same rules, on text where
    /// brackets, quotes and escapes fall on every side of its 32-byte blocks, read in pieces
    /// of every size.
    @Test func theSplitterFindsTheBoundariesAByteAtATimeReadingFinds() {
        var rng = SystemRandomNumberGenerator()
        let alphabet = Array(#"{}[]"\ ,:a1\n"#.utf8) + [0x0A]
        for round in 0..<300 {
            var text: [UInt8] = []
            let length = Int.random(in: 0..<300, using: &rng)
            for _ in 0..<length { text.append(alphabet.randomElement(using: &rng)!) }
            if round % 3 == 0 { text = Array(#"{"a":"x\"}]\\"}[{"b":[1,"]"]}]"#.utf8) + text }
            let (expected, documents) = Self.reference(text)
            for piece in [1, 5, 31, 32, 33, 64, 1000] {
                var s = DocumentSplitter()
                var cuts: [Int] = []
                var lines: [(Int, Int)] = []
                var start = 0
                while start < text.count {
                    let end = min(text.count, start + piece)
                    var at = start
                    while at < end {
                        let found = text[at..<end].withUnsafeBytes { s.scan($0, cutAfter: 0) }
                        guard let found else { break }
                        at += found
                        cuts.append(at)
                        lines.append((s.line, s.lineStart))
                        #expect(s.offset == at)
                    }
                    start = end
                }
                #expect(cuts == expected.map(\.cut), "round \(round), pieces of \(piece): \(String(decoding: text, as: UTF8.self).debugDescription)")
                #expect(lines.map(\.0) == expected.map(\.line) && lines.map(\.1) == expected.map(\.lineStart))
                #expect(s.offset == text.count)
                #expect(s.documents == documents)
            }
        }
    }

    /// Where a plain reading of the rules cuts: after each closing bracket that brings the
    /// depth back to 0, outside strings; and how many top-level values it saw begin.
    static func reference(_ text: [UInt8]) -> (cuts: [(cut: Int, line: Int, lineStart: Int)], documents: Int) {
        var cuts: [(Int, Int, Int)] = []
        var depth = 0, documents = 0, line = 1, lineStart = 0
        var inString = false, escaped = false
        for (i, c) in text.enumerated() {
            if c == 0x0A {
                line += 1
                lineStart = i + 1
            }
            if escaped {
                escaped = false
                continue
            }
            if inString {
                if c == UInt8(ascii: "\"") { inString = false } else if c == UInt8(ascii: "\\") { escaped = true }
                continue
            }
            switch c {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                if depth == 0 { documents += 1 }
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { cuts.append((i + 1, line, lineStart)) }
            default: break
            }
        }
        return (cuts, documents)
    }
}

/// The window of batches in flight is bounded by bytes too: documents several times the batch
/// size each make a batch as large, and past two per worker only as many as the byte window
/// holds are in flight, with the same output.
struct BatchWindowTests {
    /// `count` documents of about `resources` × 130 bytes each, one per line.
    static func dump(documents count: Int, resources: Int) -> [UInt8] {
        var text = ""
        for d in 0..<count {
            text += #"{"data":["#
            for r in 0..<resources {
                text += (r == 0 ? "" : ",") + #"{"type":"articles","id":"\#(d)-\#(r)","attributes":{"title":"a title of some length","n":\#(r)}}"#
            }
            text += "]}\n"
        }
        return Array(text.utf8)
    }

    /// NDJSON (or `format`) of `input` on 2 workers with batches of 900 bytes (read `chunk`
    /// bytes at a time), and the normalizer, for what it saw in flight.
    /// Waits, `lock` held, until `done()` (checked every millisecond with the lock released
    /// in between), for 5 s at most: a worker held up in `willRead`, bounded so that a failing
    /// pool lets the read go on.
    static func hold(_ lock: Condition, until done: () -> Bool) {
        for _ in 0..<5_000 where !done() {
            lock.unlock()
            usleep(1_000)
            lock.lock()
        }
    }

    static func normalizeOnTwoWorkers(
        _ input: [UInt8], chunk: Int, format: OutputFormat = .ndjson, largeDocumentsOnly: Bool = false,
        continuation: Int? = 20_000, willRead: (@Sendable (_ worker: Int, _ batch: Int) -> Void)? = nil
    ) -> (Normalizer, String) {
        var o = DocumentOptions()
        o.parse.workers = 2
        o.parse.largeDocumentsOnly = largeDocumentsOnly
        let out = ByteWriter()
        let n = Normalizer(format: format, out: out, document: o)
        // (`nil`: the reader's own sizes.)
        if let continuation { n.tuneWorkers(batchBytes: 900, continuationBytes: continuation, decisionBytes: 20_000) }
        n.willRead = willRead
        do throws(JSONAPIError) {
            try readInputs([("dump", input)], chunk: chunk, into: n)
            try n.finish()
        } catch {
            Issue.record("\(error)")
        }
        return (n, out.string)
    }

    @Test func largeDocumentsAreBoundedByBytes() {
        // Documents of about 5 KB, batches of 900 bytes: every batch is one document, larger
        // than the window's room for a usual batch.
        let input = Self.dump(documents: 30, resources: 40)
        let one = ParallelReaderTests.run([("dump", input)], workers: 1, chunk: 0, batch: 900, continuation: 20_000, decision: 20_000)
        #expect(one.error == nil)
        for chunk in [0, 4096] {
            let (n, output) = Self.normalizeOnTwoWorkers(input, chunk: chunk)
            #expect(n.isReadByWorkers)
            #expect(output == one.output, "read size \(chunk)")
            let (batches, bytes) = n.mostInFlight
            let bounds = n.windowBounds
            #expect(bounds.batches == 8 && bounds.bytes == 8 * 1350)
            // Two per worker, not the eight the count allows.
            #expect(batches >= 1 && batches <= 4, "\(batches) batches in flight")
            #expect(bytes <= 4 * 6_000, "\(bytes) bytes in flight")
        }
    }

    /// A document longer than the batch size goes to its worker in pieces of a batch size,
    /// and the piece that holds its end ends there, so the next document starts a batch of
    /// its own (on the other worker): the first bytes hold document ends, and the input is
    /// read as documents, not as one large document's elements.
    @Test func longDocumentsGoInPiecesOfABatch() {
        // Documents of about 5 KB; batches and pieces of 900 bytes.
        let input = Self.dump(documents: 30, resources: 40)
        let one = ParallelReaderTests.run([("dump", input)], workers: 1, chunk: 0, batch: 900, continuation: 900, decision: 20_000)
        #expect(one.error == nil)
        for chunk in [0, 700, 4096] {
            let (n, output) = Self.normalizeOnTwoWorkers(input, chunk: chunk, continuation: 900)
            #expect(n.isReadByWorkers && !n.readsElementRanges, "read size \(chunk)")
            #expect(output == one.output, "read size \(chunk)")
            #expect(n.largestBatchRoom <= 900, "\(n.largestBatchRoom) bytes of room")
            let (batches, bytes) = n.mostInFlight
            #expect(batches >= 1 && batches <= 8, "\(batches) batches in flight")
            #expect(bytes <= 8 * 900, "\(bytes) bytes in flight")
        }
    }

    /// The same with the reader's own sizes: documents of about 400 KB, over the batch size
    /// (256 KiB), are read by workers as documents, with at most 8 batch sizes of input
    /// in flight (whole-document batches kept 4 documents' worth).
    @Test func documentsOfHalfAMegabyteAreReadInPieces() {
        let input = Self.dump(documents: 8, resources: 4_600)
        #expect(input.count > 3_000_000)
        let one = ParallelReaderTests.run([("dump", input)], workers: 1, chunk: 0)
        #expect(one.error == nil)
        let (n, output) = Self.normalizeOnTwoWorkers(input, chunk: 64 * 1024, continuation: nil)
        #expect(n.isReadByWorkers && !n.readsElementRanges)
        #expect(output == one.output)
        let (batches, bytes) = n.mostInFlight
        #expect(batches >= 3, "\(batches) batches in flight")
        #expect(bytes <= 8 * 256 * 1024, "\(bytes) bytes in flight")
        #expect(n.largestBatchRoom <= 256 * 1024 + 32 * 1024, "\(n.largestBatchRoom) bytes of room")
    }

    @Test func smallDocumentsKeepTheWindowByCount() {
        // Documents of about 300 bytes: batches of several, within the byte window.
        let input = Self.dump(documents: 400, resources: 2)
        let one = ParallelReaderTests.run([("dump", input)], workers: 1, chunk: 0, batch: 900, continuation: 20_000, decision: 20_000)
        let (n, output) = Self.normalizeOnTwoWorkers(input, chunk: 0)
        #expect(n.isReadByWorkers)
        #expect(output == one.output)
        let (batches, bytes) = n.mostInFlight
        #expect(batches >= 1 && batches <= 8, "\(batches) batches in flight")
        #expect(bytes <= 8 * 1350, "\(bytes) bytes in flight")
    }

    /// A worker held up does not hold up the others: while it reads the first batch, the
    /// other reads every later batch the window lets in flight (7 of the 8), not only those
    /// that would have been its turn (4). Whole segments go to whichever worker is free.
    @Test func aWorkerHeldUpDoesNotHoldUpTheOthers() {
        // Documents of about 300 bytes, batches of about 900: every batch is a whole segment.
        let input = Self.dump(documents: 400, resources: 2)
        let one = ParallelReaderTests.run([("dump", input)], workers: 1, chunk: 0, batch: 900, continuation: 20_000, decision: 20_000)
        #expect(one.error == nil)
        final class Hold: @unchecked Sendable {
            let lock = Condition()
            var readByOthers = 0
            var seenByTheHeld = -1
        }
        let hold = Hold()
        let (n, output) = Self.normalizeOnTwoWorkers(input, chunk: 0) { _, id in
            hold.lock.lock()
            defer { hold.lock.unlock() }
            guard id == 0 else {
                if hold.seenByTheHeld < 0 { hold.readByOthers += 1 }
                return
            }
            // Held until the other worker has begun 7 batches, for 5 s at most (bounded: a
            // failing pool lets the read go on, more slowly).
            Self.hold(hold.lock) { hold.readByOthers >= 7 }
            hold.seenByTheHeld = hold.readByOthers
        }
        #expect(n.isReadByWorkers)
        #expect(output == one.output)
        #expect(hold.lock.withLock { hold.seenByTheHeld } == 7)
        // The held worker began the first batch; the other, the 7 and more after it.
        let segments = n.segmentsByWorker
        #expect(segments.count == 2 && segments.min()! >= 1 && segments.max()! >= 7, "\(segments)")
    }
}

/// The reading thread is one of the workers (`WorkerPool`'s helper): two workers are one
/// thread of their own and the caller's.
struct CallerAsWorkerTests {
    /// With the thread held up on its first batch, the caller reads the batches after it itself
    /// (on its own thread, as worker number 1), and the output is one reader's.
    @Test func theCallerReadsBatchesWhileTheThreadIsHeldUp() {
        let input = BatchWindowTests.dump(documents: 400, resources: 2)
        let one = ParallelReaderTests.run([("dump", input)], workers: 1, chunk: 0, batch: 900, continuation: 20_000, decision: 20_000)
        #expect(one.error == nil)
        final class Seen: @unchecked Sendable {
            let lock = Condition()
            var threadsByWorker: [Int: Set<ObjectIdentifier>] = [:]
            var readByCaller = 0
        }
        let seen = Seen()
        let caller = ObjectIdentifier(Thread.current)
        let (n, output) = BatchWindowTests.normalizeOnTwoWorkers(input, chunk: 0) { w, id in
            let me = ObjectIdentifier(Thread.current)
            seen.lock.lock()
            seen.threadsByWorker[w, default: []].insert(me)
            if me == caller { seen.readByCaller += 1 }
            guard w == 0 && id == 0 else { return seen.lock.unlock() }
            // The thread's first batch: held until the caller has read 5 (for 5 s at most).
            BatchWindowTests.hold(seen.lock) { seen.readByCaller >= 5 }
            seen.lock.unlock()
        }
        #expect(n.isReadByWorkers)
        #expect(output == one.output)
        let (threads, byCaller) = seen.lock.withLock { (seen.threadsByWorker, seen.readByCaller) }
        // Worker 1 is the caller's: every batch it read, it read on the caller's thread; worker
        // 0 is a thread of its own.
        #expect(threads[1] == [caller], "\(threads)")
        #expect(threads[0].map { !$0.contains(caller) } == true, "\(threads)")
        #expect(byCaller >= 5, "the caller read \(byCaller) batches")
        let segments = n.segmentsByWorker
        #expect(segments.count == 2 && segments[1] >= 5, "\(segments)")
    }

    /// Long documents go in pieces of a batch, a segment of several batches given to one
    /// worker in turn, the caller's among them, which reads its pieces as they come; the whole
    /// batches of short documents go to whichever worker is free. After reading a piece ahead,
    /// the caller still reads the older whole batches the held-up thread has left (no error
    /// met: nothing ties it to input order), rather than waiting for the thread.
    @Test func theCallerReadsOlderBatchesAfterReadingAPieceAhead() {
        var text = ""
        for d in 0..<60 {
            // A document of about 5 KB (pieces of 1500 bytes), then seven of about 300.
            let resources = d % 8 == 0 ? 40 : 2
            text += #"{"data":["#
            for r in 0..<resources {
                text += (r == 0 ? "" : ",") + #"{"type":"articles","id":"\#(d)-\#(r)","attributes":{"title":"a title of some length","n":\#(r)}}"#
            }
            text += "]}\n"
        }
        let input = Array(text.utf8)
        let one = ParallelReaderTests.run([("dump", input)], workers: 1, chunk: 0, batch: 900, continuation: 1500, decision: 20_000)
        #expect(one.error == nil)
        final class Seen: @unchecked Sendable {
            let lock = Condition()
            /// The batches the caller (worker 1) read, in the order it read them.
            var byCaller: [Int] = []
            var olderAfterNewer: Bool {
                zip(byCaller, byCaller.dropFirst()).contains { $1 < $0 }
            }
        }
        let seen = Seen()
        let (n, output) = BatchWindowTests.normalizeOnTwoWorkers(input, chunk: 0, continuation: 1500) { w, id in
            seen.lock.lock()
            defer { seen.lock.unlock() }
            if w == 1 { seen.byCaller.append(id) }
            // The thread's first batch: held until the caller has read an older batch after a
            // newer one (for 2 s at most: a caller held to input order never does).
            guard w == 0, id == 0 else { return }
            for _ in 0..<2_000 where !seen.olderAfterNewer {
                seen.lock.unlock()
                usleep(1_000)
                seen.lock.lock()
            }
        }
        #expect(n.isReadByWorkers && !n.readsElementRanges)
        #expect(output == one.output)
        #expect(seen.lock.withLock { seen.olderAfterNewer }, "the caller read \(seen.lock.withLock { seen.byCaller })")
    }
}
