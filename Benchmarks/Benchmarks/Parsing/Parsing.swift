// The parsing suites: every pass of `jsonapi bench` (BenchmarkPass, in the library, so the
// command, these suites and Scripts/callgrind.sh run the same code) over generated documents
// of about 1, 16 and 128 MB, plus attribute access and typed decoding alone over a graph
// built in setup.
//
// Names are `<pass>_<size>`, without spaces or `/`, so that filters, baselines and threshold
// files work. Inputs are built in `setup` (not measured); each iteration's result goes to
// `blackHole`. Throughput is the custom metric `bytesPerSecond` (input bytes over the
// iteration's wall-clock time); allocation counts are gated by the committed thresholds in
// `Thresholds/` (see Benchmarks/README.md).

import Benchmark
import Foundation
import JSONAPIStream
import JSONAPIBenchmarking

/// Input bytes per second of one iteration.
var bytesPerSecond: BenchmarkMetric { .custom("bytesPerSecond", polarity: .prefersLarger, useScalingFactor: false) }

/// The generated documents: primary resources for about 1, 16 and 128 MB.
var sizes: [(label: String, resources: Int, maxIterations: Int, maxSeconds: Int64, timeUnits: BenchmarkTimeUnits)] {
    [
        ("1MB", 600, 1_000, 2, .microseconds),
        ("16MB", 9_000, 40, 3, .milliseconds),
        ("128MB", 73_000, 8, 6, .milliseconds),
    ]
}

/// The benchmarked passes and their names in this suite.
var passes: [(name: String, pass: BenchmarkPass)] {
    [
        ("yajl", .bareYajl),
        ("syntax", .syntax),
        ("graph", .graph),
        ("decode", .decode),
        ("decodeConcurrent", .decodeConcurrent),
        ("decodePrimary", .decodePrimary),
        ("decodePrimaryConcurrent", .decodePrimaryConcurrent),
        ("readPrimary", .readPrimary),
        ("readPrimaryConcurrent", .readPrimaryConcurrent),
        ("encode", .encode),
        ("ndjson", .ndjson),
        ("flatJSON", .flatJSON),
        ("validate", .validate),
        ("JSONDecoder", .jsonDecoder),
        ("JSONDecoderGeneric", .jsonDecoderGeneric),
    ]
}

/// The dumps for the workers' suites: pages of a crawl, one per line (`jsonapi generate
/// --documents`), about 30 articles each, of about 16 and 128 MB.
var dumpSizes: [(label: String, resources: Int, documents: Int, maxIterations: Int, maxSeconds: Int64)] {
    [
        ("16MB", 9_000, 300, 40, 4),
        ("128MB", 73_000, 2_400, 8, 8),
    ]
}

/// The passes that read inputs of many documents on workers, and their names.
var workerPasses: [(name: String, pass: BenchmarkPass)] {
    [("ndjson", .ndjson), ("graph", .graph), ("flatJSON", .flatJSON), ("validate", .validate)]
}

/// Allocation counts are exact for a given document when `mallocCountTotal` is the only
/// metric (the resident-memory sampler allocates on its own thread, adding a few): so the
/// thresholds are written and checked with `--metric mallocCountTotal`, and a change of more
/// than 1 % either way fails `thresholds check` (exit 2: worse, 4: better; then update them).
var allocationThresholds: [BenchmarkMetric: BenchmarkThresholds] {
    [.mallocCountTotal: BenchmarkThresholds(relative: [.p90: 1.0])]
}

/// Timed with its own clock around exactly the pass, so that `bytesPerSecond` is the pass's.
@inline(__always)
func timed(_ benchmark: Benchmark, bytes: Int, _ body: () throws -> Int) rethrows {
    let start = DispatchTime.now().uptimeNanoseconds
    blackHole(try body())
    let nanoseconds = max(1, DispatchTime.now().uptimeNanoseconds - start)
    benchmark.measurement(bytesPerSecond, Int(Double(bytes) * 1e9 / Double(nanoseconds)))
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .cpuTotal, .mallocCountTotal, .peakMemoryResident, .peakMemoryResidentDelta, bytesPerSecond],
        timeUnits: .milliseconds,
        warmupIterations: 1,
        thresholds: allocationThresholds
    )

    for size in sizes {
        let configuration = Benchmark.Configuration(
            metrics: Benchmark.defaultConfiguration.metrics,
            timeUnits: size.timeUnits,
            warmupIterations: 1,
            maxDuration: .seconds(size.maxSeconds),
            maxIterations: size.maxIterations,
            thresholds: allocationThresholds
        )

        for (name, pass) in passes {
            Benchmark("\(name)_\(size.label)", configuration: configuration) { benchmark, input in
                try timed(benchmark, bytes: input.count) { try pass.run(input) }
            } setup: {
                try BenchmarkPass.generatedDocument(resources: size.resources)
            }
        }
        // Foundation's untyped reader, here only: `jsonapi bench` and its passes link
        // FoundationEssentials, which has no `JSONSerialization`.
        Benchmark("JSONSerialization_\(size.label)", configuration: configuration) { benchmark, input in
            try timed(benchmark, bytes: input.count) { try serializationResources(input) }
        } setup: {
            try BenchmarkPass.generatedDocument(resources: size.resources)
        }

        // Reading every value of a graph that setup built: type, id, each attribute as a
        // Swift value, each relationship's linkage (BenchmarkPasses.readAll).
        Benchmark("attributes_\(size.label)", configuration: configuration) { benchmark, graph in
            timed(benchmark, bytes: graph.inputBytes) { BenchmarkPasses.readAll(graph) }
        } setup: {
            let input = try BenchmarkPass.generatedDocument(resources: size.resources)
            return try input.withUnsafeBytes { try BenchmarkPasses.graph($0) }
        }

        // Writing a graph that setup built back as one compound document (to /dev/null):
        // compare with ndjson_, which must not be faster (issue: encoding at least at the
        // speed of NDJSON normalizing).
        Benchmark("encodeOnly_\(size.label)", configuration: configuration) { benchmark, graph in
            try timed(benchmark, bytes: graph.inputBytes) { try BenchmarkPasses.encode(graph) }
        } setup: {
            let input = try BenchmarkPass.generatedDocument(resources: size.resources)
            return try input.withUnsafeBytes { try BenchmarkPasses.graph($0) }
        }

        // One attribute of every resource of a graph that setup built (BenchmarkPasses.readOne):
        // compare with decodeOnly_ (issue: reading one attribute of every resource costs a
        // small fraction of decoding them all).
        Benchmark("readOneOnly_\(size.label)", configuration: configuration) { benchmark, graph in
            timed(benchmark, bytes: graph.inputBytes) { BenchmarkPasses.readOne(graph) }
        } setup: {
            let input = try BenchmarkPass.generatedDocument(resources: size.resources)
            return try input.withUnsafeBytes { try BenchmarkPasses.graph($0) }
        }

        // Typed decoding alone: every resource of a graph that setup built, into models that
        // hold what Foundation's typed peer holds (BenchmarkPasses.decodeAll).
        Benchmark("decodeOnly_\(size.label)", configuration: configuration) { benchmark, graph in
            try timed(benchmark, bytes: graph.inputBytes) { try BenchmarkPasses.decodeAll(graph) }
        } setup: {
            let input = try BenchmarkPass.generatedDocument(resources: size.resources)
            return try input.withUnsafeBytes { try BenchmarkPasses.graph($0) }
        }

        // The same on every core (Graph.decodeConcurrently).
        Benchmark("decodeConcurrentOnly_\(size.label)", configuration: configuration) { benchmark, graph in
            try timed(benchmark, bytes: graph.inputBytes) { try BenchmarkPasses.decodeAllConcurrently(graph) }
        } setup: {
            let input = try BenchmarkPass.generatedDocument(resources: size.resources)
            return try input.withUnsafeBytes { try BenchmarkPasses.graph($0) }
        }

        // The primary data alone, read by JSONAPIReadable models, on one thread and on every
        // core: the decoding half of readPrimary_ and readPrimaryConcurrent_.
        for concurrently in [false, true] {
            Benchmark("readPrimary\(concurrently ? "Concurrent" : "")Only_\(size.label)", configuration: configuration) { benchmark, graph in
                try timed(benchmark, bytes: graph.inputBytes) { try BenchmarkPasses.readPrimary(graph, concurrently: concurrently) }
            } setup: {
                let input = try BenchmarkPass.generatedDocument(resources: size.resources)
                return try input.withUnsafeBytes { try BenchmarkPasses.graph($0) }
            }
        }
    }

    // Many documents: the dump read by one reader and by 2 workers (`ParseOptions.workers`),
    // with bare yajl over the same bytes as the floor. Workers' batches are cut by bytes, not
    // by timing; but one reader's two threads allocate tape blocks as far as the parsing
    // thread runs ahead (117 and 120 of them in two runs): 5 % either way, still far below
    // what an allocation per document or resource would add.
    for size in dumpSizes {
        let configuration = Benchmark.Configuration(
            metrics: Benchmark.defaultConfiguration.metrics,
            timeUnits: .milliseconds,
            warmupIterations: 1,
            maxDuration: .seconds(size.maxSeconds),
            maxIterations: size.maxIterations,
            thresholds: [.mallocCountTotal: BenchmarkThresholds(relative: [.p90: 5.0])]
        )
        Benchmark("yajlDump_\(size.label)", configuration: configuration) { benchmark, input in
            try timed(benchmark, bytes: input.count) { try BenchmarkPass.bareYajl.run(input) }
        } setup: {
            try BenchmarkPass.generatedDocument(resources: size.resources, documents: size.documents)
        }
        // (Tables too: each run writes them into a new temporary directory.)
        for (name, pass) in workerPasses + [("tables", .tables)] {
            for workers in [1, 2] {
                var options = DocumentOptions.default
                options.parse.workers = workers
                Benchmark("\(name)Dump_\(workers)w_\(size.label)", configuration: configuration) { benchmark, input in
                    try timed(benchmark, bytes: input.count) { try pass.run(input, options: options) }
                } setup: {
                    try BenchmarkPass.generatedDocument(resources: size.resources, documents: size.documents)
                }
            }
        }
    }

    // One large document on 2 workers, a range of its elements each (`<pass>_<size>` is the
    // same document on one reader; validate checks the compound rules from what the ranges
    // gather). Ranges are cut by bytes, so the counts are stable.
    for size in sizes where size.label != "1MB" {
        let configuration = Benchmark.Configuration(
            metrics: Benchmark.defaultConfiguration.metrics,
            timeUnits: .milliseconds,
            warmupIterations: 1,
            maxDuration: .seconds(size.maxSeconds + 2),
            maxIterations: size.maxIterations,
            thresholds: [.mallocCountTotal: BenchmarkThresholds(relative: [.p90: 5.0])]
        )
        for (name, pass) in workerPasses {
            var options = DocumentOptions.default
            options.parse.workers = 2
            Benchmark("\(name)Elements_2w_\(size.label)", configuration: configuration) { benchmark, input in
                try timed(benchmark, bytes: input.count) { try pass.run(input, options: options) }
            } setup: {
                try BenchmarkPass.generatedDocument(resources: size.resources)
            }
        }
    }
}

/// `JSONSerialization` into `[String: Any]`; the resources it holds.
func serializationResources(_ bytes: [UInt8]) throws -> Int {
    guard let top = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
        throw BenchmarkPassError("the top level is not an object")
    }
    let primary = (top["data"] as? [Any])?.count ?? (top["data"] is [String: Any] ? 1 : 0)
    return primary + ((top["included"] as? [Any])?.count ?? 0)
}
