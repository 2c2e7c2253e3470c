import Foundation
import Testing

@testable import JSONAPIBenchmarking
@testable import JSONAPIStream

/// The library's default workers for a graph on two cores (`ParseOptions.graphWorkers`):
/// one large document whose size is known as its reading begins (bytes in memory, a regular
/// file) and is at least `ParseOptions.largeInputBytes` is read by two workers, a range of
/// its elements each; anything else (smaller, of unknown size, many documents) by one
/// reader. The graph is the same either way.
@Suite struct GraphWorkersDefaultTests {
    @Test func theRuleAppliesOnTwoCoresWithNoWorkersAsked() {
        let o = ParseOptions()
        #expect(ParseOptions.largeInputBytes == 6 << 20)
        #expect(o.graphWorkers(cores: 2) == (2, 6 << 20))
        // One core, or 3 and more: the usual default (a worker per core from 3), any input.
        for cores in [1, 3, 16] { #expect(o.graphWorkers(cores: cores) == (o.effectiveWorkers, nil)) }
        // Workers asked for, one thread, or one JSON text: as asked, any input.
        var two = o
        two.workers = 2
        #expect(two.graphWorkers(cores: 2) == (2, nil))
        var one = o
        one.workers = 1
        #expect(one.graphWorkers(cores: 2) == (1, nil))
        var sequential = o
        sequential.concurrency = .sequential
        #expect(sequential.graphWorkers(cores: 2) == (1, nil))
        var single = o
        single.multipleDocuments = false
        #expect(single.graphWorkers(cores: 2) == (1, nil))
    }

    /// A generated document just past the size (about 6.5 MB).
    static let large: [UInt8] = try! BenchmarkPass.generatedDocument(resources: 3_700, seed: 3)

    enum Reading { case whole, fed, file }

    /// The flat JSON of `input`'s graph, and whether workers read it, read as `reading` says
    /// by a parser with the defaults of two cores (or `workers`, when given).
    static func flat(_ input: [UInt8], _ reading: Reading, workers: Int? = nil) throws -> (String, Bool) {
        var options = DocumentOptions()
        options.parse.workers = workers
        let parser = GraphParser(options: options, duplicates: .last, cores: 2)
        let graph: Graph
        switch reading {
        case .whole:
            graph = try withContiguousBytes(of: input) { (b) throws(JSONAPIError) in try parser.finish(reading: b) }
        case .fed:
            for start in stride(from: 0, to: input.count, by: 1 << 20) { try parser.feed(input[start..<min(input.count, start + (1 << 20))]) }
            graph = try parser.finish()
        case .file:
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("graph-workers-\(UUID().uuidString).json")
            try Data(input).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            try parser.read(InputSource(path: url.path))
            graph = try parser.finish()
        }
        let out = ByteWriter()
        try FlatJSONWriter(graph: graph, out: out, options: OutputOptions()).write()
        return (out.string, parser.isReadByWorkers)
    }

    @Test func aLargeDocumentOfKnownSizeGoesToTwoWorkers() throws {
        #expect(Self.large.count >= ParseOptions.largeInputBytes)
        let (one, byWorkers) = try Self.flat(Self.large, .whole, workers: 1)
        #expect(!byWorkers)
        #expect(one.count > 1_000_000)
        // In memory and from a regular file: two workers, the same graph.
        for reading in [Reading.whole, .file] {
            let (flat, byWorkers) = try Self.flat(Self.large, reading)
            #expect(byWorkers, "\(reading)")
            #expect(flat == one, "\(reading)")
        }
        // Fed in chunks, its size unknown: one reader.
        let (fed, fedByWorkers) = try Self.flat(Self.large, .fed)
        #expect(!fedByWorkers)
        #expect(fed == one)
        // Through the normalizer's flat JSON too.
        let out = ByteWriter()
        let normalizer = Normalizer(format: .json, out: out, output: OutputOptions(), document: DocumentOptions(), duplicates: .last, cores: 2)
        try withContiguousBytes(of: Self.large) { (b) throws(JSONAPIError) in try normalizer.finish(reading: b, named: nil) }
        #expect(normalizer.isReadByWorkers && normalizer.readsElementRanges)
        #expect(out.string == one)
    }

    @Test func smallDocumentsAndDumpsStayOnOneReader() throws {
        // Smaller than the size: one reader.
        let small = try BenchmarkPass.generatedDocument(resources: 200, seed: 3)
        let (smallOne, _) = try Self.flat(small, .whole, workers: 1)
        let (smallFlat, smallByWorkers) = try Self.flat(small, .whole)
        #expect(!smallByWorkers)
        #expect(smallFlat == smallOne)
        // Many documents past the size: one reader, decided at the first document's end.
        let dump = try BenchmarkPass.generatedDocument(resources: 3_700, seed: 3, documents: 40)
        #expect(dump.count >= ParseOptions.largeInputBytes)
        let (dumpOne, _) = try Self.flat(dump, .whole, workers: 1)
        let (dumpFlat, dumpByWorkers) = try Self.flat(dump, .whole)
        #expect(!dumpByWorkers)
        #expect(dumpFlat == dumpOne)
    }
}
