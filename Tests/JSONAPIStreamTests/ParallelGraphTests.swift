import Foundation
import Testing
@testable import JSONAPIStream
import JSONAPIBenchmarking

/// Graphs of many documents built by several workers (``ParseOptions/workers``) must be
/// indistinguishable from one reader's: the same graph (its flat JSON, byte for byte, and its
/// statistics), the same warnings in the same order (duplicates merged across documents
/// among them), the same first error, for any read size, number of workers and duplicate
/// policy. Small batch sizes put the corpus dump through the workers' paths.
struct ParallelGraphTests {
    struct Run: Equatable {
        var flat: String
        var statistics: GraphStatistics?
        var error: JSONAPIError?
        var warnings: [Diagnostic]
        var byWorkers: Bool
        /// The graph's symbols, then its keys (tag and text), in the order it numbers them.
        var numbering: [String] = []
    }

    /// `graph`'s symbols and keys in the order it numbers them: a merge of workers' pieces
    /// takes each piece's tables in whole, in their order, which must be one reader's.
    static func numbering(_ graph: Graph) -> [String] {
        let s = graph.storage
        return (0..<s.symbols.count).map { "symbol \(s.symbols.string(of: UInt32($0)))" }
            + (0..<s.keys.count).map { "key \(s.keys.tag(of: UInt32($0))) \(s.keys.string(of: UInt32($0)))" }
    }

    static func run(
        _ inputs: [(String, [UInt8])], workers: Int, chunk: Int, options: DocumentOptions = DocumentOptions(),
        duplicates: DuplicatePolicy = .last, batch: Int = 900, continuation: Int = 1000, decision: Int = 4000,
        reading: InputReading = .fed
    ) -> Run {
        var o = options
        o.parse.workers = workers
        let parser = GraphParser(options: o, duplicates: duplicates)
        parser.tuneWorkers(batchBytes: batch, continuationBytes: continuation, decisionBytes: decision)
        var warnings: [Diagnostic] = []
        parser.onWarning = { warnings.append($0) }
        var names: [String: String] = [:]
        do throws(JSONAPIError) {
            let graph: Graph
            if case .files = reading {
                // Files read into blocks, as `jsonapi` reads them: batches view the blocks.
                try readFromFiles(inputs, chunk: chunk, names: &names) { (source, size) throws(JSONAPIError) in try parser.read(source, chunkSize: size) }
                graph = try parser.finish()
            } else if case .whole = reading {
                // One input read in place (`finish(reading:)`): batches view its bytes.
                precondition(inputs.count == 1, "one input read whole")
                let (name, bytes) = inputs[0]
                graph = try withContiguousBytes(of: bytes) { (b) throws(JSONAPIError) in
                    try parser.finish(reading: b, named: name, chunkSize: chunk <= 0 ? max(b.count, 1) : chunk)
                }
            } else {
                try readInputs(inputs, chunk: chunk, into: parser)
                graph = try parser.finish()
            }
            let out = ByteWriter()
            try FlatJSONWriter(graph: graph, out: out, options: OutputOptions()).write()
            return Run(
                flat: out.string, statistics: graph.statistics, error: nil, warnings: warnings.map { renamed($0, names) },
                byWorkers: parser.isReadByWorkers, numbering: Self.numbering(graph))
        } catch {
            return Run(
                flat: "", statistics: nil, error: renamed(error, names), warnings: warnings.map { renamed($0, names) },
                byWorkers: parser.isReadByWorkers)
        }
    }

    /// The corpus dump twice, so that every resource of the second half repeats one of the
    /// first (merged across documents, with a warning each).
    static let twice = ParallelReaderTests.dump + ParallelReaderTests.dump

    @Test func manyDocumentsGiveTheSameGraphWarningsAndOrder() {
        let one = Self.run([("dump", Self.twice)], workers: 1, chunk: 0)
        #expect(one.error == nil)
        #expect(!one.byWorkers)
        #expect(one.flat.count > 4_000)
        #expect(one.warnings.contains { $0.rule == .N01 }, "resources repeated across documents are merged with a warning")
        #expect(one.statistics?.duplicates ?? 0 > 100)
        for workers in [2, 3] {
            // (Read whole: the batches view the input rather than copy it.)
            // (Read from files: into blocks that the batches view.)
            let reads: [(Int, InputReading)] = [(0, .fed), (7, .fed), (4096, .fed), (0, .whole), (4096, .whole), (0, .files), (7, .files), (4096, .files)]
            for (chunk, reading) in reads {
                let many = Self.run([("dump", Self.twice)], workers: workers, chunk: chunk, reading: reading)
                let what = "\(workers) workers, read size \(chunk)\(reading)"
                #expect(many.byWorkers, "\(what)")
                #expect(many.flat == one.flat, "\(what): graph differs")
                #expect(many.numbering == one.numbering, "\(what): symbols or keys numbered otherwise")
                #expect(many.statistics == one.statistics, "\(what): statistics differ")
                #expect(many.warnings == one.warnings, "\(what): warnings differ")
                #expect(many.error == nil)
            }
        }
    }

    /// A worker's piece notes where each resource's values lie in its store
    /// (``GraphStorage/valueRegions``), so that the merge copies them at once and moves the
    /// spans: the regions follow one another in the store, each holds every value of its
    /// resource (attributes, links, meta, its relationships' and identifiers' values, its
    /// unknown members), and the graph merged by regions is the graph merged value by value,
    /// and one reader's, under every duplicate policy that merges.
    @Test(arguments: [DuplicatePolicy.last, .first])
    func aPieceIsMergedAResourceAtATime(_ policy: DuplicatePolicy) throws {
        var options = DocumentOptions()
        options.parse.multipleDocuments = true
        let o = options.forWorker
        let collector = GraphPieceSink(options: o, policy: policy, numberAlarm: nil)
        let stream = DocumentStream(options: o, sink: collector)
        try stream.feed(Self.twice)
        try stream.endInput()
        let piece = collector.takePiece(values: stream.reader.takeValueStore(sizedAlike: true))
        let s = piece.storage
        #expect(s.resources.count > 100)
        #expect(s.valueRegions.count == s.resources.count)
        var end = 0
        for i in 0..<s.valueRegions.count {
            let region = s.valueRegions[i]
            #expect(region.start >= end && region.start <= region.end && region.end <= s.values.count, "resource \(i)")
            end = region.end
            let r = s.resources[i]
            var spans = [r.attributes, r.links, r.meta].map { s.span($0) }
            for k in Int(r.relationshipStart)..<Int(r.relationshipStart + r.relationshipCount) {
                let rel = s.relationships[k]
                spans += [s.span(rel.links), s.span(rel.meta)]
                for t in Int(rel.targetStart)..<Int(rel.targetStart + rel.targetCount) { spans.append(s.span(s.linkage[t].meta)) }
            }
            for span in spans where !span.isNone {
                #expect(span.start >= region.start && span.start + span.count <= region.end, "resource \(i): a value outside its region")
            }
        }
        // Merged by regions, then the same piece without them (value by value).
        func merged() throws -> String {
            let sink = GraphSink(options: options, policy: policy)
            var values = ByteArena(capacity: 16)
            try sink.append(piece, store: &values, documentBase: 0)
            return try GraphMergingTests.flat(sink.graph(values: values, inputBytes: 0, shrink: false))
        }
        let byRegions = try merged()
        s.valueRegions = RecordTable()
        let byValues = try merged()
        #expect(byRegions == byValues)
        let parser = GraphParser(options: options, duplicates: policy)
        try readInputs([("dump", Self.twice)], chunk: 0, into: parser)
        #expect(byRegions == (try GraphMergingTests.flat(parser.finish())))
    }

    @Test(arguments: [DuplicatePolicy.first, .error])
    func everyDuplicatePolicyMergesOrStopsAsOneReaderDoes(_ policy: DuplicatePolicy) {
        let one = Self.run([("dump", Self.twice)], workers: 1, chunk: 0, duplicates: policy)
        let many = Self.run([("dump", Self.twice)], workers: 2, chunk: 0, duplicates: policy)
        if policy == .error { #expect(one.error != nil, "the second half repeats the first") }
        #expect(many.byWorkers)
        #expect(
            many == Run(flat: one.flat, statistics: one.statistics, error: one.error, warnings: one.warnings, byWorkers: true, numbering: one.numbering))
    }

    @Test func theResourceLimitStopsAtTheSameResource() {
        var o = DocumentOptions()
        o.parse.limits.maxResources = 40
        let one = Self.run([("dump", Self.twice)], workers: 1, chunk: 0, options: o)
        #expect(one.error?.diagnostic?.rule == .J12, "\(String(describing: one.error)), \(String(describing: one.statistics?.resources))")
        let many = Self.run([("dump", Self.twice)], workers: 2, chunk: 0, options: o)
        #expect(many.error == one.error)
        #expect(many.warnings == one.warnings)
    }

    @Test func severalInputsNameWhereARepeatedResourceWasFirst() {
        let inputs = ParallelReaderTests.threeInputs
        let one = Self.run(inputs, workers: 1, chunk: 0)
        #expect(one.error == nil)
        // Resources of c.json repeat those of a.json: their warnings say so.
        #expect(one.warnings.contains { $0.source == "c.json" && $0.message.contains("a.json:") })
        for chunk in [0, 13] {
            let many = Self.run(inputs, workers: 2, chunk: chunk)
            #expect(
                many == Run(flat: one.flat, statistics: one.statistics, error: nil, warnings: one.warnings, byWorkers: true, numbering: one.numbering))
        }
    }

    /// Each invalid fixture in the middle of the dump: the same first error at the same
    /// place, after the same warnings (the graph is not returned).
    @Test(arguments: CorpusTests.manifest("invalid").map(\.0))
    func anInvalidDocumentAmongManyFailsTheSameWay(_ name: String) throws {
        let (o, input) = try ParallelReaderTests.amongMany(invalid: name)
        let one = Self.run(input, workers: 1, chunk: 0, options: o)
        for (workers, chunk) in [(2, 0), (3, 11)] {
            let many = Self.run(input, workers: workers, chunk: chunk, options: o)
            #expect(many.error == one.error, "\(name), \(workers) workers: \(String(describing: many.error)) vs \(String(describing: one.error))")
            #expect(many.flat == one.flat, "\(name), \(workers) workers: graph differs")
            #expect(many.warnings == one.warnings, "\(name), \(workers) workers: warnings differ")
        }
    }

    @Test func longDocumentsInPiecesAndTopLevelRecordingGiveTheSameGraph() {
        var big = Array(#"{"data":["#.utf8)
        for i in 0..<400 {
            if i > 0 { big.append(UInt8(ascii: ",")) }
            big += Array(#"{"type":"t","id":"\#(i % 300)","attributes":{"s":"{[\"]}","n":\#(i)}}"#.utf8)
        }
        big += Array("]}\n".utf8)
        let one = Self.run([("big", big + big)], workers: 1, chunk: 0)
        #expect(one.error == nil && one.warnings.count > 100)
        // Two documents, each handed over in pieces (continuation batches) to one worker.
        let pieces = Self.run([("big", big + big)], workers: 2, chunk: 0, batch: 300, continuation: 1000, decision: big.count + 1000)
        #expect(
            pieces == Run(flat: one.flat, statistics: one.statistics, error: nil, warnings: one.warnings, byWorkers: true, numbering: one.numbering))
        // Recording each document's top level needs one reader.
        var o = DocumentOptions()
        o.parse.workers = 2
        let parser = GraphParser(options: o)
        parser.tuneWorkers(batchBytes: 900, continuationBytes: 2500, decisionBytes: 4000)
        parser.recordsTopLevel = true
        #expect(throws: Never.self) { try parser.feed(Self.twice) }
        #expect(!parser.isReadByWorkers)
    }

    /// `normalize --format json` (flat JSON, from a graph) on workers: the same bytes and
    /// warnings, with every duplicate policy and with `--numbers safe`.
    /// The builder hints each resource key to the graph's key table once the table is larger
    /// than the caches (``KeyHints``); a worker's piece has a small table of its own, and the
    /// merge of pieces into a table that large asks for each key's slot a few resources ahead
    /// and looks the key up with the hash it kept then (`GraphSink.warm`). One reader over
    /// more than 33,000 resources and linkage to them (the table past the threshold) must give the graph
    /// the workers give, warnings and all: a kept hash that was not the key's would miss the
    /// resources already there (a mutation that alters it gives 80 more resources).
    @Test func keyHintsToALargeKeyTableLeaveTheGraphAsItIs() throws {
        let writer = ByteWriter()
        try DocumentGenerator(resources: 12_000, seed: 5, documents: 20).write(to: writer)
        let dump = Array(writer.string.utf8)
        let graph = try Graph(bytes: dump)
        let keys = graph.storage.keys.count
        let outgrows = graph.storage.keys.outgrowsCache
        #expect(keys > 33_000)
        #expect(outgrows, "the key table must be past the hints' threshold for this test to hint")
        let one = Self.run([("big", dump)], workers: 1, chunk: 65_537, batch: 1 << 20, continuation: 1 << 20, decision: 1 << 20)
        let two = Self.run([("big", dump)], workers: 2, chunk: 0, batch: 1 << 20, continuation: 1 << 20, decision: 1 << 20)
        #expect(one.error == nil && !one.byWorkers)
        #expect(two.byWorkers)
        #expect(one.statistics?.resources ?? 0 > 33_000)
        #expect(one.statistics?.duplicates ?? 0 > 0, "included resources repeat across the documents")
        // Compared as booleans: a difference would print megabytes.
        let sameGraph = two.flat == one.flat
        let sameWarnings = two.warnings == one.warnings
        #expect(sameGraph, "graph differs")
        #expect(two.statistics == one.statistics)
        #expect(two.numbering == one.numbering, "symbols or keys numbered otherwise")
        #expect(sameWarnings, "warnings differ (\(two.warnings.count) against \(one.warnings.count))")
    }

    /// One large document read by elements on 2 workers, whose merge (and whose validator's
    /// taking in of the workers' keys) fills a key table past the caches, asking for each
    /// key's slot ahead: resources with an id, with a lid only and with both, linkage by id
    /// and by lid (to resources before and after), a resource repeated by its id and one by
    /// its lid. The graph (its flat JSON and statistics, which count linkage that resolves to
    /// nothing, and the order it numbers its symbols and keys in) and the warnings must be one
    /// reader's, and `validate`'s findings too. A lid hashed under its type's id tag, or any
    /// kept hash that is not the key's, misses the key already there.
    @Test func aWarmedMergeResolvesIDsAndLidsAsOneReader() throws {
        let count = 16_000
        func a(_ i: Int) -> String {
            let identity = i % 7 == 0 ? #""lid":"l\#(i)""# : i % 3 == 0 ? #""id":"\#(i)","lid":"l\#(i)""# : #""id":"\#(i)""#
            let peer = (i * 13) % count / 7 * 7
            return #"{"type":"a",\#(identity),"attributes":{"n":\#(i)},"relationships":{"r":{"data":[{"type":"b","id":"\#(i)"}]},"#
                + #""peer":{"data":{"type":"a","lid":"l\#(peer)"}}}}"#
        }
        func b(_ i: Int) -> String { #"{"type":"b","id":"\#(i)","attributes":{"s":"x\#(i)"}}"# }
        var text = #"{"data":["# + (0..<count).map(a).joined(separator: ",")
        text += #",{"type":"a","lid":"l7","attributes":{"again":true}}"#
        text += #"],"included":["# + (0..<count).map(b).joined(separator: ",")
        text += "," + stride(from: 0, to: count, by: 500).map { #"{"type":"b","id":"\#($0)","attributes":{"s":"again"}}"# }.joined(separator: ",")
        text += "]}"
        let bytes = Array(text.utf8)
        let one = Self.run([("lids", bytes)], workers: 1, chunk: 0, batch: 1 << 16, continuation: 1 << 18, decision: 1 << 16)
        let two = Self.run([("lids", bytes)], workers: 2, chunk: 65_537, batch: 1 << 16, continuation: 1 << 18, decision: 1 << 16)
        #expect(one.error == nil && !one.byWorkers)
        #expect(two.byWorkers)
        let graph = try Graph(bytes: bytes)
        let outgrows = graph.storage.keys.outgrowsCache
        #expect(outgrows, "the key table must be past the warming threshold for this test to warm")
        #expect(one.statistics?.danglingLinkage == 0, "every lid and id linked to is in the document")
        #expect(one.statistics?.duplicates == 1 + count / 500)
        let sameGraph = two.flat == one.flat
        let sameWarnings = two.warnings == one.warnings
        #expect(sameGraph, "graph differs")
        #expect(two.statistics == one.statistics)
        #expect(two.numbering == one.numbering, "symbols or keys numbered otherwise")
        #expect(sameWarnings, "warnings differ (\(two.warnings.count) against \(one.warnings.count))")

        let validatedOne = try ElementRangeTests.validated(bytes, name: "lids", workers: 1)
        let validatedTwo = try ElementRangeTests.validated(bytes, name: "lids", workers: 2)
        #expect(validatedOne.contains { $0.rule == .R22 }, "the repeated resources")
        let sameFindings = validatedTwo == validatedOne
        #expect(sameFindings, "findings differ (\(validatedTwo.count) against \(validatedOne.count))")
    }

    @Test func flatJSONOnWorkersGivesTheSameBytes() throws {
        func normalize(_ duplicates: DuplicatePolicy, numbers: NumberPolicy, workers: Int) -> (String, [Diagnostic], JSONAPIError?, Bool) {
            var o = DocumentOptions()
            o.parse.workers = workers
            var output = OutputOptions()
            output.numbers = numbers
            let out = ByteWriter()
            let n = Normalizer(format: .json, out: out, output: output, document: o, duplicates: duplicates)
            n.tuneWorkers(batchBytes: 900, continuationBytes: 2500, decisionBytes: 4000)
            var warnings: [Diagnostic] = []
            n.onDiagnostic = { warnings.append($0) }
            do throws(JSONAPIError) {
                try n.read(.bytes(Self.twice, name: "dump"), chunkSize: 1000)
                try n.finish()
                return (out.string, warnings, nil, n.isReadByWorkers)
            } catch {
                return (out.string, warnings, error, n.isReadByWorkers)
            }
        }
        for (duplicates, numbers) in [(DuplicatePolicy.last, NumberPolicy.exact), (.first, .safe), (.error, .exact)] {
            let one = normalize(duplicates, numbers: numbers, workers: 1)
            let two = normalize(duplicates, numbers: numbers, workers: 2)
            #expect(!one.3 && two.3, "\(duplicates) \(numbers)")
            #expect(two.0 == one.0, "\(duplicates) \(numbers): bytes differ")
            #expect(two.1 == one.1, "\(duplicates) \(numbers): warnings differ")
            #expect(two.2 == one.2)
            if duplicates != .error { #expect(one.0.count > 4_000) }
        }
    }
}
