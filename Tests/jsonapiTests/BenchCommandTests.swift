import Foundation
import JSONAPIStream
import JSONAPIBenchmarking
import Testing

/// `jsonapi bench` as a user runs it: every pass runs in its own process and reports
/// figures (their values depend on the machine; only their presence and sanity are checked).
@Suite(.serialized)
struct BenchCommandTests {
    @Test func everyPassReportsFiguresOnAGeneratedDocument() throws {
        let passes = BenchmarkPass.standard.map(\.rawValue)
        let r = try run(["bench", "--resources", "20", "--runs", "1", "--quiet", "--format", "json", "--passes", passes.joined(separator: ",")])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try JSONValue(parsing: Array(r.stdout))
        let input = try #require(report["inputs"]?.arrayValue?.first)
        #expect(input["bytes"]?.numberValue?.int64Value ?? 0 > 30_000)
        let results = try #require(input["passes"]?.arrayValue)
        #expect(results.compactMap { $0["pass"]?.stringValue } == passes)
        for pass in results {
            let name = pass["pass"]?.stringValue ?? "?"
            #expect(pass["error"] == nil, "\(name): \(pass["error"]?.stringValue ?? "")")
            #expect((pass["megabytesPerSecond"]?.numberValue?.doubleValue ?? 0) > 0, "\(name)")
            #expect((pass["peakResidentBytes"]?.numberValue?.doubleValue ?? 0) > 1_000_000, "\(name)")
            #expect(pass["medianPageFaults"]?.numberValue?.doubleValue.map { $0 >= 0 } == true, "\(name)")
        }
        // The floor is its own reference.
        #expect(results.first?["throughputRatio"]?.numberValue?.doubleValue == 1)
        // The machine's level 2 cache, as the library reads it (absent where the system does
        // not say).
        let l2 = report["machine"]?["level2CacheBytes"]?.numberValue?.int64Value
        #expect(l2 == (ParseOptions.level2CacheBytes > 0 ? Int64(ParseOptions.level2CacheBytes) : nil))
    }

    @Test func aPassThatCannotReadTheDocumentSaysWhyAndTheOthersStillRun() throws {
        let r = try run(["bench", "Corpus/documents/spec-compound.json", "--runs", "1", "--quiet", "--format", "json", "--passes", "graph,jsondecoder"])
        #expect(r.status == 0, "\(r.stderr)")
        let results = try #require(JSONValue(parsing: Array(r.stdout))["inputs"]?.arrayValue?.first?["passes"]?.arrayValue)
        #expect(results.map { $0["pass"]?.stringValue } == ["yajl", "graph", "jsondecoder"])
        #expect(results[1]["error"] == nil)
        #expect(results[2]["error"]?.stringValue?.contains("keyNotFound") == true)
    }

    /// A file from `jsonapi generate` keeps the one number a Double cannot hold (1e400): the
    /// typed passes fail on it, and the text report, whose table cuts a long error short,
    /// gives the whole error after the table, reason and place included.
    @Test func aFailureTooLongForTheTableFollowsItInFull() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let generated = try run(["generate", "--resources", "20"])
        #expect(generated.status == 0)
        #expect(generated.out.contains("1e400"))
        let file = dir.appendingPathComponent("doc.json")
        try Data(generated.stdout).write(to: file)
        let r = try run(["bench", file.path, "--runs", "1", "--quiet", "--passes", "graph,decode-primary"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.out.split(separator: "\n").map(String.init)
        let cut = try #require(lines.firstIndex { $0.hasPrefix("graph + typed decoding, primary only") && $0.hasSuffix("…") })
        #expect(lines.contains { $0.hasPrefix("graph ") && !$0.contains("failed") })
        let full = try #require(lines.firstIndex { $0.hasPrefix("graph + typed decoding, primary only failed: ") })
        #expect(full > cut)
        #expect(lines[full].contains("found number 1e400, which does not fit in Double"), "\(lines[full])")
        #expect(lines[full].contains("/attributes/score"), "\(lines[full])")
    }

    /// The command links FoundationEssentials only: Foundation's untyped reader is measured by
    /// the benchmark package, and asking the command for it says so.
    @Test func theJSONSerializationPassSaysWhereItWent() throws {
        let r = try run(["bench", "--resources", "20", "--runs", "1", "--quiet", "--passes", "jsonserialization"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("benchmark package") && r.stderr.contains("JSONSerialization_16MB"), "\(r.stderr)")
    }

    /// A generated dump measured with 1 and 2 workers: the floor once, every other pass once per
    /// value, each row saying its workers; the report says them too.
    @Test func aDumpIsMeasuredOncePerWorkersValue() throws {
        let r = try run([
            "bench", "--resources", "3000", "--documents", "100", "--workers", "1", "--workers", "2", "--runs", "1", "--quiet",
            "--format", "json", "--passes", "ndjson,validate,tables",
        ])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try JSONValue(parsing: Array(r.stdout))
        #expect(report["workers"]?.stringValue == "1,2")
        let input = try #require(report["inputs"]?.arrayValue?.first)
        #expect(input["name"]?.stringValue?.contains("100 documents") == true)
        let rows = try #require(input["passes"]?.arrayValue)
        #expect(
            rows.map { "\($0["pass"]?.stringValue ?? "?") \($0["workers"]?.numberValue?.int64Value ?? 0)" } == [
                "yajl 1", "yajl-every-core 2", "ndjson 1", "ndjson 2", "validate 1", "validate 2", "tables 1", "tables 2",
            ])
        #expect(rows.allSatisfy { $0["error"] == nil && ($0["megabytesPerSecond"]?.numberValue?.doubleValue ?? 0) > 0 })
        #expect(rows[3]["title"]?.stringValue == "NDJSON to /dev/null, 2 workers")
        // The scaling: each pass's throughput over its own with the fewest workers (1 with 1).
        func number(_ row: JSONValue, _ key: String) -> Double? { row[key]?.numberValue?.doubleValue }
        #expect(rows[0]["scaling"] == nil)
        // The machine's ceiling with 2 workers (added since a value is 2): bare yajl twice at
        // once, no scaling or reading thread of its own; each 2-worker pass is also a share of
        // it (its ratio to the floor over the ceiling's), a 1-worker pass is not.
        #expect(rows[1]["title"]?.stringValue == "bare yajl, 2 copies at once")
        #expect(rows[1]["scaling"] == nil && rows[1]["callerShare"] == nil && rows[1]["ceilingShare"] == nil)
        let ceiling = try #require(number(rows[1], "throughputRatio"))
        for (one, two) in [(2, 3), (4, 5), (6, 7)] {
            #expect(rows[one]["ceilingShare"] == nil)
            let share = try #require(number(rows[two], "ceilingShare"), "\(rows[two])")
            #expect(abs(share - number(rows[two], "throughputRatio")! / ceiling) < 1e-9)
        }
        for (one, two) in [(2, 3), (4, 5), (6, 7)] {
            #expect(number(rows[one], "scaling") == 1)
            let expected = number(rows[one], "medianSeconds")! / number(rows[two], "medianSeconds")!
            #expect(abs(number(rows[two], "scaling")! - expected) < 1e-9)
        }
        // The reading thread's share of the processor time, on rows with 2 or more workers: a
        // fraction, more than nothing (it splits the dump and writes out what the workers
        // wrote) and less than all (the workers parse).
        for (one, two) in [(2, 3), (4, 5), (6, 7)] {
            #expect(rows[one]["callerShare"] == nil)
            let share = number(rows[two], "callerShare")
            #expect(share.map { $0 > 0 && $0 < 1 } == true, "\(rows[two])")
        }
        let text = try run([
            "bench", "--resources", "3000", "--documents", "100", "--workers", "1", "--workers", "2", "--runs", "1", "--quiet", "--passes", "ndjson",
        ])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.out.contains("scaling over 1 worker: ndjson "), "\(text.out)")
        #expect(text.out.contains("× with 2"), "\(text.out)")
        #expect(text.out.contains("reading thread's share of the processor time: ndjson "), "\(text.out)")
        #expect(text.out.contains("% with 2 (limit from about "), "\(text.out)")
        #expect(text.out.contains("the machine's ceiling: 2 bare yajl passes at once run at "), "\(text.out)")
        #expect(text.out.contains("the passes with 2 workers, as a share of it: ndjson "), "\(text.out)")
        let zero = try run(["bench", "--workers", "0"])
        #expect(zero.status == 2 && zero.stderr.contains("--workers must be from 1 to 256"))
    }

    /// The machine's ceiling: bare yajl over the whole input once per worker, all at once,
    /// timed per input. Without a count, one copy per usable core; a document yajl rejects
    /// is an error, as for the floor.
    @Test func bareYajlOnEveryCoreRunsACopyPerWorker() throws {
        let input = try BenchmarkPass.generatedDocument(resources: 20)
        var options = DocumentOptions()
        options.parse.workers = 3
        #expect(BenchmarkPass.bareYajlEveryCore.copies(options: options) == 3)
        #expect(try BenchmarkPass.bareYajlEveryCore.run(input, options: options) == 3)
        #expect(BenchmarkPass.bareYajlEveryCore.copies() == ParseOptions.usableCores)
        #expect(BenchmarkPass.graph.copies(options: options) == 1)
        #expect(throws: BenchmarkPassError.self) { try BenchmarkPass.bareYajlEveryCore.run(Array(input.dropLast(3)), options: options) }
        // No ceiling unless a run has 2 workers or more.
        let r = try run(["bench", "--resources", "20", "--runs", "1", "--quiet", "--format", "json", "--passes", "ndjson", "--workers", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try #require(JSONValue(parsing: Array(r.stdout))["inputs"]?.arrayValue?.first?["passes"]?.arrayValue)
        #expect(rows.map { $0["pass"]?.stringValue } == ["yajl", "ndjson"])
        // More copies than cores take turns: the ceiling they could reach is one per core.
        let four = try run(["bench", "--resources", "20", "--runs", "1", "--quiet", "--passes", "yajl-every-core", "--workers", "4"])
        #expect(four.status == 0, "\(four.stderr)")
        let cores = ProcessInfo.processInfo.activeProcessorCount
        #expect(four.out.contains("4 bare yajl passes at once run at "), "\(four.out)")
        #expect(four.out.contains("one alone (\(min(4, cores)).00 if they did not slow one another)"), "\(four.out)")
    }

    /// Page faults are counted per run: a process's first graph writes memory it never wrote
    /// (its value store, its tables), one fault per page at least, where bare yajl over the
    /// same bytes in the same kind of process writes almost none.
    @Test func aRunThatWritesFreshMemoryCountsItsPageFaults() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let generated = try run(["generate", "--resources", "3000"])
        #expect(generated.status == 0)
        let file = dir.appendingPathComponent("doc.json")
        try Data(generated.stdout).write(to: file)
        func faults(_ pass: String) throws -> [Int] {
            let r = try run(["bench-pass", "--pass", pass, "--runs", "1", "--warmup", "0", "--min-run-seconds", "0", file.path])
            #expect(r.status == 0, "\(r.stderr)")
            let reply = try JSONValue(parsing: Array(r.stdout))
            return reply["pageFaults"]?.arrayValue?.compactMap { $0.numberValue?.int64Value }.map(Int.init) ?? []
        }
        let graph = try faults("graph")
        let yajl = try faults("yajl")
        #expect(graph.count == 1 && yajl.count == 1)
        // About 5 MB of input: a graph of it writes megabytes of tables in 4 KiB pages.
        #expect((graph.first ?? 0) > 200, "\(graph)")
        #expect((graph.first ?? 0) > 4 * (yajl.first ?? .max), "graph \(graph), yajl \(yajl)")
    }

    @Test func usageErrors() throws {
        let unknown = try run(["bench", "--passes", "nope"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("nope"), "\(unknown.stderr)")
        let missing = try run(["bench", "no-such-file.json", "--runs", "1"])
        #expect(missing.status == 2, "\(missing.stderr)")
        // A compressed file, a FIFO (as a shell's <(...) is): every pass would fail to read
        // them (each reads the file whole, in its own process), so bench refuses them at
        // once, without opening them, and says why. (Standard input is refused as usage.)
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let gz = dir.appendingPathComponent("doc.json.gz")
        try (Data([0x1F, 0x8B]) + Data(count: 100)).write(to: gz)
        let fifo = dir.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        for input in [gz.path, fifo] {
            let refused = try run(["bench", input, "--runs", "1", "--passes", "ndjson"])
            #expect(refused.status == 2, "\(input): \(refused.stderr)")
            #expect(refused.stderr.contains("bench measures regular, uncompressed files"), "\(input): \(refused.stderr)")
            #expect(refused.stdout.isEmpty, "\(input): a report was written")
        }
        let pass = try run(["bench-pass", "--pass", "nope", "Corpus/documents/spec-compound.json"])
        #expect(pass.status == 2)
    }
}
