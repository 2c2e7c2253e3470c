import Foundation
import Testing

@testable import JSONAPIBenchmarking
@testable import JSONAPIStream

/// The library's default workers on two cores (`ParseOptions.largeDocumentWorkers`): one
/// large document whose size is known as its reading begins (bytes in memory, a regular
/// file) and is at least `ParseOptions.largeInputBytes` is read by two workers, a range of
/// its elements each, for a graph, NDJSON and edges; anything else (smaller, of unknown size,
/// many documents) by one reader. The result is the same either way.
@Suite struct LargeDocumentWorkersDefaultTests {
    @Test func theRuleAppliesOnTwoCoresWithNoWorkersAsked() {
        let o = ParseOptions()
        #expect(ParseOptions.largeInputBytes == 3 << 20)
        #expect(o.largeDocumentWorkers(cores: 2) == (2, 3 << 20))
        // One core, or 3 and more: the usual default (a worker per core from 3), any input.
        for cores in [1, 3, 16] { #expect(o.largeDocumentWorkers(cores: cores) == (o.effectiveWorkers, nil)) }
        // Workers asked for, one thread, or one JSON text: as asked, any input.
        var two = o
        two.workers = 2
        #expect(two.largeDocumentWorkers(cores: 2) == (2, nil))
        var one = o
        one.workers = 1
        #expect(one.largeDocumentWorkers(cores: 2) == (1, nil))
        var sequential = o
        sequential.concurrency = .sequential
        #expect(sequential.largeDocumentWorkers(cores: 2) == (1, nil))
        var single = o
        single.multipleDocuments = false
        #expect(single.largeDocumentWorkers(cores: 2) == (1, nil))
    }

    /// A generated document past the size (about 6.5 MB).
    static let large: [UInt8] = try! BenchmarkPass.generatedDocument(resources: 3_700, seed: 3)

    enum Reading { case whole, fed, file }

    /// The flat JSON of the graph of `inputs` (one, but from files), and whether workers read
    /// it, read as `reading` says by a parser with the defaults of two cores (or `workers`,
    /// when given).
    static func flat(_ inputs: [UInt8]..., reading: Reading, workers: Int? = nil) throws -> (String, Bool) {
        var options = DocumentOptions()
        options.parse.workers = workers
        let parser = GraphParser(options: options, duplicates: .last, cores: 2)
        let graph: Graph
        switch reading {
        case .whole:
            precondition(inputs.count == 1, "one input read whole")
            graph = try withContiguousBytes(of: inputs[0]) { (b) throws(JSONAPIError) in try parser.finish(reading: b) }
        case .fed:
            precondition(inputs.count == 1, "one input fed")
            for start in stride(from: 0, to: inputs[0].count, by: 1 << 20) { try parser.feed(inputs[0][start..<min(inputs[0].count, start + (1 << 20))]) }
            graph = try parser.finish()
        case .file:
            // Each a regular file, read in turn (its size known as its reading begins).
            var names: [String: String] = [:]
            try readFromFiles(inputs.map { ("input", $0) }, chunk: 1 << 20, names: &names) { (source, size) throws(JSONAPIError) in
                try parser.read(source, chunkSize: size)
            }
            graph = try parser.finish()
        }
        let out = ByteWriter()
        try FlatJSONWriter(graph: graph, out: out, options: OutputOptions()).write()
        return (out.string, parser.isReadByWorkers)
    }

    @Test func aLargeDocumentOfKnownSizeGoesToTwoWorkers() throws {
        #expect(Self.large.count >= ParseOptions.largeInputBytes)
        let (one, byWorkers) = try Self.flat(Self.large, reading: .whole, workers: 1)
        #expect(!byWorkers)
        #expect(one.count > 1_000_000)
        // In memory and from a regular file: two workers, the same graph.
        for reading in [Reading.whole, .file] {
            let (flat, byWorkers) = try Self.flat(Self.large, reading: reading)
            #expect(byWorkers, "\(reading)")
            #expect(flat == one, "\(reading)")
        }
        // Fed in chunks, its size unknown: one reader.
        let (fed, fedByWorkers) = try Self.flat(Self.large, reading: .fed)
        #expect(!fedByWorkers)
        #expect(fed == one)
        // Through the normalizer's flat JSON too.
        let (flat, flatByWorkers) = try Self.normalize(Self.large, format: .json)
        #expect(flatByWorkers)
        #expect(flat == one)
    }

    /// `format` of `input` read whole by a normalizer with the defaults of two cores (or
    /// `workers`), and whether workers read it.
    static func normalize(
        _ input: [UInt8], format: OutputFormat, workers: Int? = nil, duplicates: DuplicatePolicy = .last
    ) throws -> (String, Bool) {
        var options = DocumentOptions()
        options.parse.workers = workers
        let out = ByteWriter()
        let normalizer = Normalizer(format: format, out: out, output: OutputOptions(), document: options, duplicates: duplicates, cores: 2)
        try withContiguousBytes(of: input) { (b) throws(JSONAPIError) in try normalizer.finish(reading: b, named: nil) }
        #expect(normalizer.isReadByWorkers == normalizer.readsElementRanges)
        return (out.string, normalizer.isReadByWorkers)
    }

    @Test(arguments: [OutputFormat.ndjson, .edges])
    func linesOfALargeDocumentGoToTwoWorkers(format: OutputFormat) throws {
        let (one, _) = try Self.normalize(Self.large, format: format, workers: 1)
        let (lines, byWorkers) = try Self.normalize(Self.large, format: format)
        #expect(byWorkers)
        #expect(lines == one)
        // A policy that needs every document in one place keeps one reader.
        let (first, firstByWorkers) = try Self.normalize(Self.large, format: format, duplicates: .first)
        #expect(!firstByWorkers)
        #expect(first == one)
    }

    @Test func aLargeDocumentIsValidatedAsByOneReader() throws {
        // (With the real cores: on two, read by two workers.) The same findings as one reader.
        var text = String(decoding: Self.large, as: UTF8.self)
        text = text.replacingOccurrences(of: #""title""#, with: #""ti+tle""#)
        let bytes = Array(text.utf8)
        func findings(workers: Int?) throws -> [String] {
            var options = DocumentOptions()
            options.parse.workers = workers
            let findings = try DocumentValidator(options: options).validate(.bytes(bytes, name: "large"))
            return findings.map { "\($0.rule) \($0.pointer) \($0.location.offset)" }
        }
        let one = try findings(workers: 1)
        #expect(one.count > 1_000)
        #expect(try findings(workers: nil) == one)
    }

    @Test func theFirstInputDecidesForTheInputsAfterIt() throws {
        let small = try BenchmarkPass.generatedDocument(resources: 200, seed: 4)
        // A large first input: workers, for the small one after it too.
        let (largeFirst, largeFirstByWorkers) = try Self.flat(Self.large, small, reading: .file)
        #expect(largeFirstByWorkers)
        #expect(try Self.flat(Self.large, small, reading: .file, workers: 1).0 == largeFirst)
        // A small first input: one reader, for the large one after it too.
        let (smallFirst, smallFirstByWorkers) = try Self.flat(small, Self.large, reading: .file)
        #expect(!smallFirstByWorkers)
        #expect(try Self.flat(small, Self.large, reading: .file, workers: 1).0 == smallFirst)
        // An input begun by name (its size unknown), then fed: one reader.
        let parser = GraphParser(options: DocumentOptions(), duplicates: .last, cores: 2)
        try parser.beginInput(named: "fed")
        try parser.feed(Self.large)
        _ = try parser.finish()
        #expect(!parser.isReadByWorkers)
    }

    @Test func smallDocumentsAndDumpsStayOnOneReader() throws {
        // Smaller than the size: one reader.
        let small = try BenchmarkPass.generatedDocument(resources: 200, seed: 3)
        let (smallOne, _) = try Self.flat(small, reading: .whole, workers: 1)
        let (smallFlat, smallByWorkers) = try Self.flat(small, reading: .whole)
        #expect(!smallByWorkers)
        #expect(smallFlat == smallOne)
        // Many documents past the size: one reader, decided at the first document's end.
        let dump = try BenchmarkPass.generatedDocument(resources: 3_700, seed: 3, documents: 40)
        #expect(dump.count >= ParseOptions.largeInputBytes)
        let (dumpOne, _) = try Self.flat(dump, reading: .whole, workers: 1)
        let (dumpFlat, dumpByWorkers) = try Self.flat(dump, reading: .whole)
        #expect(!dumpByWorkers)
        #expect(dumpFlat == dumpOne)
    }
}
