import Foundation
import Testing
@testable import JSONAPIStream

/// ``DocumentStream`` into your own sinks with ``ParseOptions/workers``: the workers parse, the
/// caller's thread replays what they built into the sinks (``DraftTape``). The sinks must not
/// tell the difference: the same calls in the same order, each view with the same parts, the
/// warnings in the same places among them, the same first error, for any read size and number
/// of workers.
struct DocumentStreamWorkersTests {
    /// Logs every call a stream makes, with everything a view shows, and the warnings among them.
    final class Log: StreamSink {
        var lines: [String] = []
        /// Throws after this many resources (a sink's own failure).
        var failAfter: Int?
        var resources = 0

        func resource(_ r: ResourceView) throws(JSONAPIError) {
            if let failAfter, resources == failAfter { throw JSONAPIError.input("the sink stops at \(failAfter)") }
            resources += 1
            lines.append(
                "R doc=\(r.documentIndex) src=\(r.source ?? "-") \(r.identifier) primary=\(r.isPrimary) at=\(r.position) \(r.pointer) "
                    + "rels=\(r.relationships.map { "\($0.name):\($0.kind):\($0.targets):\(String(describing: $0.links)):\(String(describing: $0.meta))" }) "
                    + r.jsonText)
        }

        func document(_ d: DocumentView) throws(JSONAPIError) {
            lines.append(
                "D \(d.index) src=\(d.source ?? "-") at=\(d.position) \(d.primaryShape) meta=\(String(describing: d.meta)) links=\(String(describing: d.links)) "
                    + "jsonapi=\(String(describing: d.jsonapi)) errors=\(String(describing: d.errors)) other=\(d.otherMembers.map { "\($0.name)=\($0.value)" })")
        }
    }

    struct Run: Equatable {
        var lines: [String]
        var error: JSONAPIError?
        var byWorkers: Bool
        var resourcesRead: Int
        var bytesRead: Int
    }

    static func run(
        _ inputs: [(String, [UInt8])], workers: Int?, chunk: Int, options: DocumentOptions = DocumentOptions(), failAfter: Int? = nil,
        keyed: Bool = false
    ) -> Run {
        var o = options
        o.parse.workers = workers
        let log = Log()
        log.failAfter = failAfter
        let s = keyed ? DocumentStream(options: o, keyedSinks: [log]) : DocumentStream(options: o, sinks: [log])
        s.tuneWorkers(batchBytes: 900, continuationBytes: 2500, decisionBytes: 4000)
        s.onDiagnostic = { d in log.lines.append("W \(d)") }
        var inputsBegun = 0
        s.onInputBegin = {
            inputsBegun += 1
            log.lines.append("I \(inputsBegun)")
        }
        var failure: JSONAPIError? = nil
        do throws(JSONAPIError) {
            try readInputs(inputs, chunk: chunk, into: s)
            try s.finish()
        } catch {
            failure = error
            s.abandon()
        }
        return Run(lines: log.lines, error: failure, byWorkers: s.isReadByWorkers, resourcesRead: s.resourcesRead, bytesRead: s.bytesRead)
    }

    static func expectSame(_ many: Run, _ one: Run, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(many.error == one.error, "\(what): \(String(describing: many.error)) vs \(String(describing: one.error))", sourceLocation: sourceLocation)
        #expect(many.lines.count == one.lines.count, "\(what): \(many.lines.count) calls vs \(one.lines.count)", sourceLocation: sourceLocation)
        if let i = zip(many.lines, one.lines).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
            Issue.record("\(what): call \(i) differs:\n\(many.lines[i])\n\(one.lines[i])", sourceLocation: sourceLocation)
        }
        if many.error == nil {
            #expect(many.resourcesRead == one.resourcesRead, "\(what): resources read", sourceLocation: sourceLocation)
            #expect(many.bytesRead == one.bytesRead, "\(what): bytes read", sourceLocation: sourceLocation)
        }
    }

    @Test func manyDocumentsGiveTheSameCalls() {
        let input = [("dump", ParallelReaderTests.dump)]
        // Without `workers`, one reader whatever the cores: each resource is handed over as
        // soon as its bytes are parsed, not a batch later.
        let one = Self.run(input, workers: nil, chunk: 0)
        #expect(one.error == nil)
        #expect(!one.byWorkers)
        #expect(one.lines.filter { $0.hasPrefix("R ") }.count > 100)
        #expect(one.lines.filter { $0.hasPrefix("D ") }.count > 50)
        #expect(one.lines.contains { $0.hasPrefix("W ") }, "the corpus has warnings")
        // One worker is one reader.
        Self.expectSame(Self.run(input, workers: 1, chunk: 0), one, "1 worker")
        for workers in [2, 3] {
            for chunk in [0, 7, 4096] {
                let many = Self.run(input, workers: workers, chunk: chunk)
                #expect(many.byWorkers, "\(workers) workers, read size \(chunk)")
                Self.expectSame(many, one, "\(workers) workers, read size \(chunk)")
            }
        }
    }

    @Test func severalInputsAreBegunInOrderAndNamed() {
        let inputs = ParallelReaderTests.threeInputs
        let one = Self.run(inputs, workers: 1, chunk: 0)
        #expect(one.lines.filter { $0.hasPrefix("I ") } == ["I 1", "I 2", "I 3"])
        #expect(one.lines.contains { $0.contains("src=b.json") })
        for chunk in [0, 13] {
            let many = Self.run(inputs, workers: 2, chunk: chunk)
            #expect(many.byWorkers)
            Self.expectSame(many, one, "2 workers, read size \(chunk)")
        }
    }

    /// Each invalid fixture in the middle of the dump, in strict mode: the same calls before
    /// the same first error; keyed sinks (the loader's) too.
    @Test(arguments: CorpusTests.manifest("invalid").map(\.0))
    func anInvalidDocumentAmongManyFailsTheSameWay(_ name: String) throws {
        let (o, input) = try ParallelReaderTests.amongMany(invalid: name)
        for keyed in [false, true] {
            let one = Self.run(input, workers: 1, chunk: 0, options: o, keyed: keyed)
            if !name.hasPrefix("N") { #expect(one.error != nil, "\(name) fails") }
            for (workers, chunk) in [(2, 0), (3, 11)] {
                let many = Self.run(input, workers: workers, chunk: chunk, options: o, keyed: keyed)
                Self.expectSame(many, one, "\(name), keyed \(keyed), \(workers) workers")
            }
        }
    }

    /// With workers the sinks are called on the thread that feeds (what the workers built is
    /// replayed there), one call at a time; keeping each document's top level
    /// (`recordsTopLevel`, as the crawler does) keeps one reader, with the same last document.
    @Test func sinksAreCalledOnTheFeedingThreadAndTopLevelsKeepOneReader() throws {
        final class Threads: StreamSink {
            var threads: Set<ObjectIdentifier> = []
            func resource(_ r: ResourceView) throws(JSONAPIError) { threads.insert(ObjectIdentifier(Thread.current)) }
        }
        var o = DocumentOptions()
        o.parse.workers = 2
        let threads = Threads()
        let s = DocumentStream(options: o, sinks: [threads])
        s.tuneWorkers(batchBytes: 900, continuationBytes: 2500, decisionBytes: 4000)
        try readInputs([("dump", ParallelReaderTests.dump)], chunk: 4096, into: s)
        try s.finish()
        #expect(s.isReadByWorkers)
        #expect(threads.threads == [ObjectIdentifier(Thread.current)])

        func last(workers: Int) throws -> (DocumentTopLevel?, Bool) {
            var o = DocumentOptions()
            o.parse.workers = workers
            let s = DocumentStream(options: o, sinks: [Log()])
            s.tuneWorkers(batchBytes: 900, continuationBytes: 2500, decisionBytes: 4000)
            s.recordsTopLevel = true
            try readInputs([("dump", ParallelReaderTests.dump)], chunk: 0, into: s)
            return (s.lastDocument, s.isReadByWorkers)
        }
        let (one, _) = try last(workers: 1)
        let (many, byWorkers) = try last(workers: 2)
        #expect(one != nil)
        #expect(many == one)
        #expect(!byWorkers)
    }

    /// A sink that throws stops the read there: the same calls before, its error after.
    @Test func aSinkThatThrowsStopsTheWorkers() {
        let input = [("dump", ParallelReaderTests.dump)]
        for stop in [0, 1, 57, 140] {
            let one = Self.run(input, workers: 1, chunk: 0, failAfter: stop)
            #expect(one.error == .input("the sink stops at \(stop)"))
            #expect(one.lines.filter { $0.hasPrefix("R ") }.count == stop)
            let many = Self.run(input, workers: 2, chunk: 100, failAfter: stop)
            Self.expectSame(many, one, "stop at \(stop)")
        }
    }
}
