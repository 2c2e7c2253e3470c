import Foundation
import Testing
@testable import JSONAPIStream

/// One large document read by several workers, a range of whole elements of its `data` and
/// `included` arrays each (``ElementRange``), the rest by the caller's stream: the same output
/// bytes, the same warnings in the same order, the same first error as one reader, for every
/// corpus document, every read size and every number of workers. Tiny batch sizes make every
/// corpus document "large": ranges of one or a few elements, elements handed over in pieces.
struct ElementRangeTests {
    /// (bytes after which a range ends at the next comma, bytes after which a piece of a range
    /// is handed over anyway), with the decision after the first 16 bytes.
    static let sizes = [(batch: 8, continuation: 16), (batch: 40, continuation: 45)]

    /// Normalizes `bytes` on one reader and on workers by elements; the runs must agree.
    /// Returns whether any run read by elements.
    @discardableResult
    static func expectSame(
        _ name: String, _ bytes: [UInt8], options: DocumentOptions = DocumentOptions(), format: OutputFormat = .ndjson,
        chunks: [Int] = [0, 7], workers: [Int] = [2, 3], sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        let one = ParallelReaderTests.run([(name, bytes)], format: format, workers: 1, chunk: 0, options: options)
        var byElements = false
        // The last read size once more with the input read whole (ranges view its bytes), and
        // from a file (ranges view the blocks it is read into).
        let reads = chunks.map { ($0, InputReading.fed) } + [(chunks.last ?? 0, .whole), (chunks.last ?? 0, .files)]
        for w in workers {
            for (chunk, reading) in reads {
                for size in sizes {
                    let many = ParallelReaderTests.run(
                        [(name, bytes)], format: format, workers: w, chunk: chunk, options: options,
                        batch: size.batch, continuation: size.continuation, decision: 16, reading: reading)
                    let what = "\(name), \(w) workers, reads of \(chunk)\(reading), batches of \(size.batch)"
                    #expect(many.error == one.error, "\(what): \(String(describing: many.error)) vs \(String(describing: one.error))", sourceLocation: sourceLocation)
                    #expect(many.output == one.output, "\(what): output differs", sourceLocation: sourceLocation)
                    #expect(many.warnings == one.warnings, "\(what): warnings differ", sourceLocation: sourceLocation)
                    byElements = byElements || many.byElements
                }
            }
        }
        return byElements
    }

    static func corpusFiles(_ dir: String) -> [String] { CorpusTests.files(dir).map { "\(dir)/\($0)" } }

    @Test(arguments: corpusFiles("documents") + corpusFiles("valid"))
    func everyDocumentGivesTheSameLinesWarningsAndErrors(_ path: String) throws {
        let bytes = Array(try Data(contentsOf: corpusURL(path)))
        var strict = DocumentOptions()
        strict.validation = .strict
        Self.expectSame(path, bytes)
        Self.expectSame(path, bytes, options: strict, chunks: [0])
        Self.expectSame(path, bytes, format: .edges, chunks: [3])
        // Flat JSON: a graph of the ranges' pieces and the caller's stream's resources.
        Self.expectSame(path, bytes, format: .json, chunks: [0, 5])
        Self.expectSame(path, bytes, options: strict, format: .json, chunks: [0])
        // The compound rules as warnings: R22 and R23 among the ranges' own warnings.
        var compound = DocumentOptions()
        compound.checksCompoundRules = true
        Self.expectSame(path, bytes, options: compound, chunks: [0], workers: [2])
        Self.expectSame(path, bytes, options: compound, format: .json, chunks: [0], workers: [2])
        Self.expectSameFindings(path, bytes)
    }

    /// `DocumentValidator` (every rule, every finding) on one reader and on workers by
    /// elements; the findings must agree. Returns whether the workers read by elements.
    @discardableResult
    static func expectSameFindings(
        _ name: String, _ bytes: [UInt8], options: DocumentOptions = DocumentOptions(), sourceLocation: SourceLocation = #_sourceLocation
    ) -> Bool {
        func findings(workers: Int, batch: Int) -> Result<[Diagnostic], JSONAPIError> {
            var o = options
            o.parse.workers = workers
            o.parse.workerBatchBytes = batch
            return Result { () throws(JSONAPIError) in try DocumentValidator(options: o).validate(.bytes(bytes, name: name), chunkSize: 7) }
        }
        let one = findings(workers: 1, batch: 8)
        for batch in [1, 8, 40] {
            let many = findings(workers: 2, batch: batch)
            #expect(many == one, "\(name), batches of \(batch): \(many) vs \(one)", sourceLocation: sourceLocation)
        }
        return bytes.count > 8 * 8
    }

    @Test(arguments: CorpusTests.manifest("invalid").map(\.0))
    func everyInvalidFixtureFailsTheSameWay(_ name: String) throws {
        let entry = CorpusTests.manifest("invalid").first { $0.0 == name }!.1
        let (strict, _, _) = CorpusTests.options(entry)
        var lenient = strict
        lenient.validation = .lenient
        let bytes = Array(try Data(contentsOf: corpusURL("invalid/\(name)")))
        Self.expectSame(name, bytes, options: strict)
        Self.expectSame(name, bytes, options: lenient, chunks: [1])
        Self.expectSame(name, bytes, options: lenient, format: .json, chunks: [0])
    }

    /// A document of `count` resources in `data` (and as many in `included`), each with
    /// strings that hold brackets, commas, quotes and escapes.
    static func large(_ count: Int, included: Bool = true) -> String {
        func resource(_ t: String, _ i: Int) -> String {
            #"{"type":"\#(t)","id":"\#(i)","attributes":{"s":"[{,\"]}\\","n":\#(i).50,"a":[1,{"b":[]}]},"relationships":{"r":{"data":[{"type":"b","id":"\#(i)"}]}}}"#
        }
        var s = #"{"meta":{"m":[1,2]},"data":["#
        s += (0..<count).map { resource("a", $0) }.joined(separator: ",\n ")
        s += "]"
        if included { s += #","included":[ "# + (0..<count).map { resource("b", $0) }.joined(separator: " ,") + " ]" }
        return s + #","links":{"self":"/a"}}"#
    }

    @Test func largeDocumentsAreReadByElements() {
        let doc = Array(Self.large(40).utf8)
        #expect(Self.expectSame("large", doc, chunks: [0, 1, 64]))
        // Several large documents, as one input and after one another.
        #expect(Self.expectSame("three", doc + Array("\n".utf8) + doc + doc))
        // A graph: the copies' resources merged, with their warnings (N01).
        #expect(Self.expectSame("graph", doc + doc, format: .json))
        var last = DocumentOptions()
        last.parse.limits.maxResources = 50
        #expect(Self.expectSame("limit", doc, options: last, format: .json, chunks: [0]))
    }

    /// Elements longer than a piece of a range (`continuationBytes`): the piece after one
    /// ends its range at the next comma, so each range is one element or two, and there are
    /// ranges for every worker. (Ending only at a comma past the batch size within a piece, a
    /// range found one rarely, and one worker read nearly every element.) Which worker reads
    /// which range depends on which is free first, so the count is over all of them.
    @Test func rangesOfElementsLongerThanAPieceEndAfterThem() {
        let element = { (i: Int) in
            #"{"type":"a","id":"\#(i)","attributes":{"text":"\#(String(repeating: "x", count: 3000 + 37 * (i % 11)))"}}"#
        }
        let doc = Array((#"{"data":["# + (0..<60).map(element).joined(separator: ",") + "]}").utf8)
        let one = ParallelReaderTests.run([("huge", doc)], workers: 1, chunk: 0)
        #expect(one.error == nil)
        for chunk in [0, 1000, 4096] {
            let (n, output) = BatchWindowTests.normalizeOnTwoWorkers(doc, chunk: chunk, continuation: 1000)
            #expect(n.readsElementRanges, "read size \(chunk)")
            #expect(output == one.output, "read size \(chunk)")
            let segments = n.segmentsByWorker
            #expect(segments.count == 2 && segments.reduce(0, +) >= 30, "read size \(chunk): ranges per worker \(segments)")
        }
    }

    /// Arrays whose shape one parser refuses, or that stay whole: the same as one reader.
    @Test(arguments: [
        #"{"data":[1,]}"#, #"{"data":[,1]}"#, #"{"data":[{"type":"a","id":"1"},,{"type":"a","id":"2"}]}"#,
        #"{"data":[ ],"included":[]}"#, #"{"data":[{"type":"a","id":"1"} {"type":"a","id":"2"}]}"#,
        #"{"included":[{"type":"a","id":"1"},{"type":"a","id":"2"}],"data":[{"type":"a","id":"3"}]}"#,
        #"{"d\u0061ta":[{"type":"a","id":"1"},{"type":"a","id":"2"}]}"#, #"{"data":[[1],[2,[3]],{"type":"a","id":"1"}]}"#,
        #"{"data" : [ {"type":"a","id":"1"} , {"type":"a","id":"2"} ] , "data":[]}"#,
        #"{"jsonapi":{"ext":["https://jsonapi.org/ext/atomic"]},"data":[{"type":"a","id":"1","atomic:x":1},{"type":"a","id":"2"}]}"#,
        #"{"jsonapi":{"ext":["https://jsonapi.org/ext/\u0061tomic"]},"data":[{"type":"a","id":"1","atomic:x":1},{"type":"a","id":"2"}]}"#,
        #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"1"}],"included":[{"type":"a","id":"1"}]}"#,
        #"{"data":{"type":"a","id":"1"},"included":[{"type":"b","id":"1"},{"type":"b","id":"2"}]}"#,
        #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"}]]"#, #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"}}"#,
        #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"}],}"#, #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"}]} ]"#,
        #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"},"#, #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"} "#,
        #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"}]"#, #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"}],"data":1}"#,
        #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2","attributes":{"x":1,"x":2}}]}"#,
        #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"},{"type":"a","id":"3","attributes":{"s":"\ud800"}}]}"#,
        #"{"errors":[{"status":"500"}],"data":[{"type":"a","id":"1"},{"type":"a","id":"2"}]}"#,
    ])
    func awkwardArraysGiveTheSameResult(_ text: String) {
        var strict = DocumentOptions()
        strict.validation = .strict
        var deep = DocumentOptions()
        deep.parse.limits.maxDepth = 3
        var short = DocumentOptions()
        short.parse.limits.maxInputBytes = 60
        for options in [DocumentOptions(), strict, deep, short] {
            Self.expectSame(text, Array(text.utf8), options: options, chunks: [0, 1])
            Self.expectSame(text, Array(text.utf8), options: options, format: .json, chunks: [0])
        }
    }

    /// Commas that follow no element (`[,`, `,,`) at every place a range may end: with every
    /// batch size up to the document's, a range's end falls before, between and after them.
    /// (Cut at the second comma of `,,`, a range ended in a comma and its worker reported the
    /// `]` that closed it where one parser reports the comma.)
    @Test(arguments: [
        #"{"data":[{"type":"a","id":"1"},,{"type":"a","id":"2"},{"type":"a","id":"3"}]}"#,
        #"{"data":[,{"type":"a","id":"1"},{"type":"a","id":"2"}]}"#,
        #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"}, ,{"type":"a","id":"3"}]}"#,
        #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"},,,{"type":"a","id":"3"}]}"#,
    ])
    func commasAfterNoElementFailAsOneParserAtEveryBatchSize(_ text: String) {
        let bytes = Array(text.utf8)
        let one = ParallelReaderTests.run([(text, bytes)], workers: 1, chunk: 0)
        #expect(one.error != nil)
        var byElements = 0
        for batch in 1...bytes.count {
            for reading in [InputReading.fed, .whole] {
                let many = ParallelReaderTests.run(
                    [(text, bytes)], workers: 2, chunk: 0, batch: batch, continuation: batch + 8, decision: 1, reading: reading)
                if many.byElements { byElements += 1 }
                #expect(many.error == one.error, "batches of \(batch)\(reading): \(String(describing: many.error)) vs \(String(describing: one.error))")
                #expect(many.output == one.output, "batches of \(batch)\(reading): output differs")
            }
        }
        // (Read by elements wherever the reader got past its first range.)
        #expect(byElements > bytes.count)
    }

    /// The compound-document rules across ranges: a resource repeated in another range (R22,
    /// by id and by lid), an included resource nothing links to (R23), in strict mode (the
    /// first error, the output cut before the repeated resource), as warnings, and in
    /// `DocumentValidator`'s findings. One reader must find them, so that agreeing means
    /// something.
    @Test func compoundRulesHoldAcrossRanges() throws {
        func doc(_ count: Int, repeatAt: Int?, lid: Bool = false, unreached: Bool = false) -> [UInt8] {
            var text = Self.large(count)
            if let repeatAt {
                // The first primary resource again, late in `data` (by id), or two resources
                // claiming one lid.
                let again = lid ? #"{"type":"a","id":"x\#(repeatAt)","lid":"l"},{"type":"a","id":"y","lid":"l"}"# : #"{"type":"a","id":"0","attributes":{"again":true}}"#
                let marker = ",\n " + #"{"type":"a","id":"\#(repeatAt)""#
                let at = text.range(of: marker)!
                text.insert(contentsOf: "," + again, at: at.lowerBound)
            }
            if unreached { text = text.replacingOccurrences(of: #"{"type":"b","id":"7","#, with: #"{"type":"b","id":"unreached","#) }
            return Array(text.utf8)
        }
        var strict = DocumentOptions()
        strict.validation = .strict
        var lenient = DocumentOptions()
        lenient.checksCompoundRules = true
        var partial = lenient
        partial.allowsPartialLinkage = true
        let cases: [(String, [UInt8], Rule?)] = [
            ("no violation", doc(30, repeatAt: nil), nil),
            ("repeated id", doc(30, repeatAt: 25), .R22),
            ("repeated lid", doc(30, repeatAt: 20, lid: true), .R22),
            ("unreached", doc(30, repeatAt: nil, unreached: true), .R23),
            ("both", doc(30, repeatAt: 28, unreached: true), .R22),
        ]
        for (name, bytes, rule) in cases {
            let one = ParallelReaderTests.run([(name, bytes)], workers: 1, chunk: 0, options: strict)
            #expect(one.error?.diagnostic?.rule == rule, "\(name): \(String(describing: one.error))")
            if rule == .R22 {
                // One reader wrote the lines before the repeated resource, and no more.
                #expect(one.output.contains(#""id":"24""#) || one.output.contains(#""id":"19""#), "\(name)")
                #expect(!one.output.contains(#""id":"29""#), "\(name)")
            }
            for format in [OutputFormat.ndjson, .edges, .json] {
                #expect(Self.expectSame(name, bytes, options: strict, format: format, chunks: [0, 5]), "\(name), \(format)")
                #expect(Self.expectSame(name, bytes, options: lenient, format: format, chunks: [0]), "\(name), \(format)")
            }
            #expect(Self.expectSame(name, bytes, options: partial, chunks: [0]))
            let lenientOne = ParallelReaderTests.run([(name, bytes)], workers: 1, chunk: 0, options: lenient)
            #expect(lenientOne.warnings.contains { $0.rule == rule } || rule == nil, "\(name)")
            #expect(Self.expectSameFindings(name, bytes))
            var o = DocumentOptions()
            o.parse.workers = 1
            let findings = try DocumentValidator(options: o).validate(.bytes(bytes, name: name))
            #expect(findings.contains { $0.rule == rule } || rule == nil && !findings.contains { $0.rule == .R22 || $0.rule == .R23 }, "\(name): \(findings)")
        }
    }

    /// Primary data made of resource identifiers (a relationship endpoint's response) identify
    /// the resources included with them (R23), whether `data` comes before `included` or after
    /// it, read by one reader and across ranges: only the included resource no identifier
    /// names breaks full linkage, once, where it is.
    @Test func identifiersAsPrimaryDataIdentifyTheIncluded() throws {
        func doc(unreached: Bool, includedFirst: Bool) -> [UInt8] {
            let ids = (0..<200).map { #"{"type":"b","id":"\#($0)"}"# }
            var included = (0..<200).map { #"{"type":"b","id":"\#($0)","attributes":{"n":\#($0)}}"# }
            if unreached { included.insert(#"{"type":"c","id":"x","attributes":{}}"#, at: 150) }
            let data = #""data":[\#(ids.joined(separator: ",\n"))]"#
            let includedMember = #""included":[\#(included.joined(separator: ",\n"))]"#
            return Array((includedFirst ? "{\(includedMember),\(data)}" : "{\(data),\(includedMember)}").utf8)
        }
        var strict = DocumentOptions()
        strict.validation = .strict
        var lenient = DocumentOptions()
        lenient.checksCompoundRules = true
        for unreached in [false, true] {
            for includedFirst in [false, true] {
                let bytes = doc(unreached: unreached, includedFirst: includedFirst)
                let one = ParallelReaderTests.run([("ids", bytes)], workers: 1, chunk: 0, options: strict)
                #expect(one.error?.diagnostic?.rule == (unreached ? .R23 : nil), "\(String(describing: one.error))")
                if unreached { #expect(one.error?.diagnostic?.pointer == "/included/150") }
                let warned = ParallelReaderTests.run([("ids", bytes)], workers: 1, chunk: 0, options: lenient)
                #expect(warned.warnings.filter { $0.rule == .R23 }.count == (unreached ? 1 : 0))
                #expect(Self.expectSame("ids", bytes, options: strict, chunks: [0]))
                #expect(Self.expectSame("ids", bytes, options: lenient, chunks: [0]))
            }
        }
    }

    /// `DocumentValidator`'s findings on `bytes` with `workers` workers, in batches and reads of
    /// 64 KiB.
    static func validated(_ bytes: [UInt8], name: String, workers: Int) throws(JSONAPIError) -> [Diagnostic] {
        var o = DocumentOptions()
        o.parse.workers = workers
        o.parse.workerBatchBytes = 1 << 16
        return try DocumentValidator(options: o).validate(.bytes(bytes, name: name), chunkSize: 1 << 16)
    }

    /// The validator's key table past the size where the builder hints keys to it ahead of
    /// their lookup (``KeyHints``), alone and chained to a graph's (strict flat JSON: the
    /// validator and the graph read one stream). Hints change only timing: one reader, which
    /// hints, must find the same R22 and R23 as workers, whose tables are small and not
    /// hinted, and as the same rules in a small document. The caller's validator, taking the
    /// workers' keys into a table that large, asks for each key's slot a few rows ahead and
    /// looks it up with the hash it kept then (`Validator.takeIn`): a kept hash that was not
    /// the key's would miss the repeated resource and the linkage to the included ones (a
    /// mutation that alters it fails here with a false R23).
    @Test func compoundRulesHoldWithAHintedKeyTable() throws {
        let count = 17_000
        var text = Self.large(count)
        let marker = ",\n " + #"{"type":"a","id":"14990""#
        text.insert(contentsOf: #",{"type":"a","id":"3","attributes":{"again":true}}"#, at: text.range(of: marker)!.lowerBound)
        text = text.replacingOccurrences(of: #"{"type":"b","id":"7","#, with: #"{"type":"b","id":"unreached","#)
        let bytes = Array(text.utf8)
        // As many keys as the document has make a table past the hints' threshold.
        var keys = ResourceKeys()
        for i in 0..<count {
            for t in ["a", "b"] {
                _ = t.utf8CString.withUnsafeBytes { tb in
                    String(i).utf8CString.withUnsafeBytes { ib in
                        keys.intern(type: UnsafeRawBufferPointer(rebasing: tb.dropLast()), id: UnsafeRawBufferPointer(rebasing: ib.dropLast()), isLid: false)
                    }
                }
            }
        }
        let outgrows = keys.keys.outgrowsCache
        #expect(outgrows, "the key table must be past the hints' threshold for this test to hint")

        let one = try Self.validated(bytes, name: "large", workers: 1)
        let two = try Self.validated(bytes, name: "large", workers: 2)
        let r22 = one.filter { $0.rule == .R22 }
        let r23 = one.filter { $0.rule == .R23 }
        #expect(r22.count == 1 && r22.first?.message.contains(#"type "a" and id "3""#) == true, "\(r22)")
        #expect(r23.count == 1 && r23.first?.message.contains("unreached") == true, "\(r23)")
        let same = one == two
        #expect(same, "findings differ (\(one.count) against \(two.count))")

        // Strict flat JSON: the validator's hints chained to the graph's; the first error is
        // the repeated resource, on one reader and on workers.
        var strict = DocumentOptions()
        strict.validation = .strict
        let strictOne = ParallelReaderTests.run([("large", bytes)], format: .json, workers: 1, chunk: 1 << 16, options: strict)
        #expect(strictOne.error?.diagnostic?.rule == .R22, "\(String(describing: strictOne.error))")
        #expect(Self.expectSame("large", bytes, options: strict, format: .json, chunks: [1 << 16]))
    }

    /// Strict mode with `--numbers safe`: a repeated resource found in a later range cuts the
    /// output there, and the count of numbers written as strings is one reader's too (each
    /// range counts from its own first number).
    @Test func aCutOutputCountsItsQuotedNumbers() throws {
        var text = #"{"data":["#
        for i in 0..<40 {
            text += (i > 0 ? "," : "") + #"{"type":"a","id":"\#(i)","attributes":{"n":1234567890123456789012,"m":9007199254740993}}"#
        }
        text += #",{"type":"a","id":"3","attributes":{"again":true}}]}"#
        var options = DocumentOptions()
        options.validation = .strict
        var output = OutputOptions()
        output.numbers = .safe
        func run(workers: Int, batch: Int) -> (String, Int, JSONAPIError?, Bool) {
            var o = options
            o.parse.workers = workers
            let out = ByteWriter()
            let n = Normalizer(format: .ndjson, out: out, output: output, document: o)
            n.tuneWorkers(batchBytes: batch, continuationBytes: batch * 8, decisionBytes: 16)
            do throws(JSONAPIError) {
                try n.read(.bytes(Array(text.utf8), name: "safe"))
                try n.finish()
                return (out.string, n.numbersQuoted, nil, n.readsElementRanges)
            } catch {
                return (out.string, n.numbersQuoted, error, n.readsElementRanges)
            }
        }
        let one = run(workers: 1, batch: 64)
        #expect(one.2?.diagnostic?.rule == .R22)
        #expect(one.1 == 80, "two numbers quoted in each of the 40 lines before the repeated resource")
        for batch in [8, 64, 300] {
            let many = run(workers: 2, batch: batch)
            #expect(many.3, "read by elements")
            #expect(many.0 == one.0 && many.2 == one.2, "batches of \(batch)")
            #expect(many.1 == one.1, "batches of \(batch): \(many.1) numbers quoted, one reader \(one.1)")
        }
    }

    /// An input whose size is known (read whole, or from a regular file) has its last ranges
    /// cut smaller, so that the workers run out of them together; one fed in chunks, whose
    /// size is not known, is cut at the batch size to its end. The output is one reader's
    /// either way.
    @Test func theLastRangesOfAnInputOfKnownSizeAreCutSmaller() {
        var doc = Array(#"{"data":["#.utf8)
        for i in 0..<2000 {
            if i > 0 { doc.append(UInt8(ascii: ",")) }
            doc += Array(#"{"type":"t","id":"\#(i)","attributes":{"s":"a,{]"}}"#.utf8)
        }
        doc += Array("]}".utf8)
        // An element's bytes, about (ids of 1 to 4 digits).
        let element = 64
        let batch = 4096
        func ranges(_ reading: InputReading, workers: Int = 2) -> (sizes: [Int], output: String) {
            var sizes: [Int] = []
            var ends = 0
            let run = ParallelReaderTests.run(
                [("doc", doc)], workers: workers, chunk: 1000, batch: batch, continuation: 2 * batch, decision: 16, reading: reading
            ) {
                $0.didCutRange = { bytes, atEnd in
                    if atEnd { ends += 1 } else { sizes.append(bytes) }
                }
            }
            #expect(run.error == nil, "\(reading)")
            #expect(ends == (workers > 1 ? 1 : 0), "one range ends at the array's end (\(reading))")
            return (sizes, run.output)
        }
        let one = ranges(.fed, workers: 1)
        #expect(one.sizes.isEmpty)
        let fed = ranges(.fed)
        #expect(fed.output == one.output)
        for reading in [InputReading.whole, .files] {
            let known = ranges(reading)
            #expect(known.output == one.output, "\(reading)")
            // The same ranges as the fed input's (each of the batch size) until the last bytes,
            // which go in smaller ranges, the first about half the bytes left (2 workers).
            let (full, tail) = expectCutSmallerAtTheEnd(fed: fed.sizes, known: known.sizes, batch: batch, piece: element, "\(reading)")
            let left = doc.count - full.reduce(0) { $0 + $1 + 1 } - #"{"data":["#.utf8.count
            #expect(tail.first.map { abs($0 - left / 2) <= element } ?? false, "\(reading): \(left) bytes left, \(known.sizes)")
        }
    }

    /// An input of known size (read whole, or from a file) is cut by elements from its first
    /// byte, and the first ranges of a large document go to a worker before the reader has
    /// gathered the bytes it decides on; fed in chunks of unknown size, nothing is cut ahead. A
    /// dump whose first document is a few ranges long but ends within those bytes has what was
    /// cut ahead dropped (its workers with it: one may have met an error in a dropped range) and is read
    /// a batch of whole documents per worker. Output and first error are one reader's.
    @Test func aLargeDocumentsFirstRangesAreReadBeforeTheDecision() {
        func document(_ elements: Int, id: Int = 0) -> [UInt8] {
            var doc = Array(#"{"meta":{"n":\#(id)},"data":["#.utf8)
            for i in 0..<elements {
                if i > 0 { doc.append(UInt8(ascii: ",")) }
                doc += Array(#"{"type":"t","id":"\#(id)-\#(i)","attributes":{"s":"a,{]"}}"#.utf8)
            }
            return doc + Array("]}\n".utf8)
        }
        let batch = 2048
        let decision = 8 * batch
        func read(_ input: [UInt8], _ reading: InputReading) -> (ahead: [Int], drops: Int, run: ParallelReaderTests.Run) {
            var ahead: [Int] = []
            var drops = 0
            let run = ParallelReaderTests.run(
                [("input", input)], workers: 2, chunk: 1000, batch: batch, continuation: 2 * batch, decision: decision, reading: reading
            ) {
                $0.didHandOverAhead = { ahead.append($0) }
                $0.didDropAhead = { drops += 1 }
            }
            return (ahead, drops, run)
        }
        func one(_ input: [UInt8]) -> ParallelReaderTests.Run { ParallelReaderTests.run([("input", input)], workers: 1, chunk: 0) }

        // One document of about 60 KB: ranges from the start, none dropped.
        let large = document(1200)
        #expect(large.count > 3 * decision)
        let oneLarge = one(large)
        let fed = read(large, .fed)
        #expect(fed.ahead.isEmpty && fed.drops == 0 && fed.run.byElements && fed.run.output == oneLarge.output)
        for reading in [InputReading.whole, .files] {
            let r = read(large, reading)
            #expect(r.run.error == nil && r.run.byElements && r.run.output == oneLarge.output, "\(reading)")
            #expect(!r.ahead.isEmpty && r.ahead.allSatisfy { $0 < decision } && r.drops == 0, "\(reading): \(r.ahead)")
        }

        // Documents of about 6 KB (three ranges each), the first broken in its second range
        // or not.
        var dump: [UInt8] = []
        for d in 0..<30 { dump += document(100, id: d) }
        var broken = dump
        let at = 2 * batch + 500
        let colon = broken[at...].firstIndex(of: UInt8(ascii: ":"))!
        broken[colon] = UInt8(ascii: ";")
        for input in [dump, broken] {
            let oneInput = one(input)
            #expect((oneInput.error != nil) == (input == broken))
            for reading in [InputReading.whole, .files] {
                let r = read(input, reading)
                #expect(r.run.error == oneInput.error && r.run.output == oneInput.output, "\(reading)")
                #expect(!r.ahead.isEmpty && r.drops == 1, "\(reading): \(r.ahead), \(r.drops) drops")
                #expect(r.run.byWorkers && !r.run.byElements, "\(reading)")
            }
        }
    }

    /// The element splitter's ways of reading (a byte at a time, SSE2 blocks, AVX2 blocks, the
    /// fastest this processor has: AVX-512 blocks where it has them) find the same places to cut, with the same lines and counts, in JSON
    /// whose strings hold runs of backslashes before quotes and brackets at every offset of a
    /// block, read in pieces of every size from 1 to 300 bytes.
    @Test func theSplitterReadsTheSameEveryWay() throws {
        var seeded = XorShift(seed: 7)
        var documents: [[UInt8]] = [Array(Self.large(60).utf8)]
        for path in Self.corpusFiles("documents") + Self.corpusFiles("valid") {
            documents.append(Array(try Data(contentsOf: corpusURL(path))))
        }
        var escapes = #"{"meta":{"s":"\\\""},"data":["#
        for i in 0..<400 {
            let pad = String(repeating: "x", count: Int(seeded.next() % 70))
            let slashes = String(repeating: "\\", count: Int(seeded.next() % 7))
            // An even run escapes itself, an odd one the quote after it as well.
            let text = slashes.count % 2 == 0 ? pad + slashes + #"\"}]{[,"# : pad + slashes + #""}]{[,"#
            escapes += (i > 0 ? ",\n" : "") + #"{"type":"t","id":"\#(i)","attributes":{"s":"\#(text)","n":[{"a":"\\"}]}}"#
        }
        escapes += #"],"included":[{"type":"t","id":"x","attributes":{"s":"\\"}}]}"#
        documents.append(Array(escapes.utf8))
        var roundsSplit = 0
        for (d, doc) in documents.enumerated() {
            // The generated documents are JSON, so that every way must agree on them.
            if d == 0 || d == documents.count - 1 { #expect(throws: Never.self) { try JSONValue(parsing: doc) } }
            for round in 0..<6 {
                var traces: [[Int]] = []
                for variant in Int32(0)...3 {
                    var pieces = XorShift(seed: UInt64(round * 31 + d + 1))
                    var split = ElementSplitter()
                    var trace: [Int] = []
                    pieces.readInPieces(doc, longest: round % 2 == 0 ? 7 : 300) { piece, at, cutFrom in
                        var used = piece.count
                        switch split.scan(piece, cutFrom: cutFrom, variant: variant) {
                        case nil: break
                        case .open(let cut): (trace, used) = (trace + [1, at + cut], cut)
                        case .next(let cut): (trace, used) = (trace + [2, at + cut, split.element], cut)
                        case .close(let cut): (trace, used) = (trace + [3, at + cut], cut + 1)
                        }
                        trace += [split.offset, split.line, split.lineStart, split.documents]
                        return used
                    }
                    traces.append(trace)
                }
                if traces[0].contains(3) { roundsSplit += 1 } else if d == 0 || d == documents.count - 1 { Issue.record("document \(d): no array was split") }
                #expect(traces[1] == traces[0], "document \(d), round \(round): bytes alone differ")
                #expect(traces[2] == traces[0], "document \(d), round \(round): SSE2 blocks differ")
                #expect(traces[3] == traces[0], "document \(d), round \(round): AVX2 blocks differ")
            }
        }
        // Many corpus documents hold an array to split too.
        #expect(roundsSplit > 6 * 40)
    }

    /// A large document cut short at every byte: the same first error (rule, message,
    /// position, pointer) and the same lines before it.
    @Test func aDocumentCutShortAnywhereFailsTheSameWay() {
        let doc = Array(Self.large(3).utf8)
        for end in stride(from: 17, to: doc.count, by: 3) {
            Self.expectSame("cut at \(end)", Array(doc[..<end]), chunks: [0], workers: [2])
        }
    }
}

/// A small seeded generator (xorshift64): the same pieces every run.
struct XorShift {
    private var state: UInt64
    init(seed: UInt64) { state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }

    /// Reads `input` in pieces of 1 to `longest` bytes drawn from this generator: `body` gets
    /// each piece, its offset, and a cut point drawn at or below its length, and returns how
    /// many of the piece's bytes it used (the next piece starts after them).
    mutating func readInPieces(_ input: [UInt8], longest: Int, _ body: (UnsafeRawBufferPointer, Int, Int) -> Int) {
        input.withUnsafeBytes { all in
            var at = 0
            while at < all.count {
                let length = min(all.count - at, 1 + Int(next() % UInt64(longest)))
                let cut = Int(next() % UInt64(length + 1))
                at += body(UnsafeRawBufferPointer(rebasing: all[at..<(at + length)]), at, cut)
            }
        }
    }
}
