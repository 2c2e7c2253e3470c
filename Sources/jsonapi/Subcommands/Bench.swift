import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import JSONAPICommandSupport
import JSONAPIStream
import JSONAPIBenchmarking

/// `jsonapi bench`: every pass over the same bytes, each in its own child process, as a
/// fraction of yajl's own scan.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the passes over your documents (or a generated one) against bare yajl and Foundation.",
        discussion: """
            Every pass reads the same bytes from memory in the same chunks. Passes: \
            \(BenchmarkPass.allCases.filter { $0 != .none }.map(\.rawValue).joined(separator: ", ")). \
            yajl (yajl's own scan with no-op callbacks) is the floor, and every figure is also \
            given as a ratio to it. yajl-every-core (added whenever a --workers value is 2 or \
            more) runs bare yajl over the whole input once per worker, all at once, and is timed \
            per input: its ratio to yajl is the machine's own scaling of the bare parser, which \
            no pass on that many workers can pass (on a VM whose busy cores slow one another it \
            is well under the number of cores), and each pass is also given as a share of it. \
            JSONDecoder typed decodes into Codable types written for the \
            generated documents (it fails on other documents); JSONDecoder generic into generic \
            JSON:API Codable types that fit any document. With no FILE, a document from \
            `jsonapi generate --resources 9000` (about 16 MB) is used; in generated documents the \
            one number Foundation refuses (1e400) is written 1e300, for every pass (a file \
            from `jsonapi generate` keeps 1e400, which the typed passes refuse as a Double: \
            they fail, and the report says why). A failure too long for its line of the table \
            follows the table in full.

            Each pass runs in its own child process of this binary (the hidden command \
            `jsonapi bench-pass`), which reads the input into memory, runs the pass once to warm \
            up and then --runs times (passing over a document several times per run when one \
            pass takes under 20 ms); the figure is the median run, by the wall clock. 'CPU × \
            yajl' compares processor time instead (user and system, all threads, from \
            getrusage): it differs from the wall-clock ratio when a pass builds on a second \
            thread (see --concurrency). Peak memory is that \
            process's high-water resident set size (VmHWM from /proc/self/status on Linux, \
            ru_maxrss elsewhere): it includes the runtime and the input held in memory; \
            'above input' subtracts the resident size just before the first run. MB = 10^6 \
            bytes, MiB = 2^20.
            """)

    @Argument(help: "Documents to measure, each on its own: regular, uncompressed files (no standard input, pipe or .gz).")
    var files: [String] = []

    @Option(name: .customLong("resources"), help: "Measure a generated document with this many primary resources (repeatable; 600 ≈ 1 MB, 9000 ≈ 16 MB, 73000 ≈ 128 MB).")
    var generated: [Int] = []

    @Option(help: "Seed of the generated documents.")
    var seed: UInt64 = 1

    @Option(help: "Passes to run, comma-separated (yajl is always added, as the floor).")
    var passes: String = BenchmarkPass.standard.map(\.rawValue).joined(separator: ",")

    @Option(help: "Timed runs per pass, after one warm-up run.")
    var runs = 5

    @Option(help: "Run all passes this many times over, interleaved, and pool the runs (steadier figures on a busy machine).")
    var rounds = 1

    @Option(name: .customLong("chunk-size"), help: "Chunk size the passes feed.")
    var chunkSize = 1 << 20

    @Option(help: "Threads for the library's passes: automatic (what the other commands do: a second thread builds when the first read is 64 KiB or more), sequential or pipelined.")
    var concurrency: ParseConcurrency = .automatic

    @Option(
        help:
            "Workers for inputs of many documents, such as a dump from --documents (repeatable: every pass runs once per value, e.g. --workers 1 --workers 2, and the report gives each pass's scaling over the fewest and, with 2 or more, the share of the processor time the thread that reads the input takes; default: as normalize, one per core with 3 or more cores, else one reader). NDJSON, graph, flat JSON and validate use them; NDJSON, graph and flat JSON also on one large document, a range of its elements per worker."
    )
    var workers: [Int] = []

    @Option(help: "Generated inputs as a dump of this many documents, one per line (the pages of a crawl), instead of one document.")
    var documents = 1

    @Option(help: "text or json.")
    var format: BenchFormat = .text

    @Flag(name: .shortAndLong, help: "No progress lines on standard error.")
    var quiet = false

    enum BenchFormat: String, ExpressibleByArgument { case text, json }

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        try InputOptions.check(chunkSize: chunkSize)
        for w in workers { try WorkerOptions.check(workers: w) }
        guard documents >= 1 else { throw ValidationError("--documents must be at least 1") }
        guard generated.allSatisfy({ $0 >= 1 }) else { throw ValidationError("--resources must be at least 1") }
        guard !files.contains("-") else { throw ValidationError("bench reads files, not standard input") }
        _ = try selectedPasses()
    }

    func selectedPasses() throws -> [BenchmarkPass] {
        var list: [BenchmarkPass] = [.bareYajl]
        // With 2 or more workers, the machine's own scaling of the bare parser, next to the floor.
        if workers.contains(where: { $0 >= 2 }) { list.append(.bareYajlEveryCore) }
        for name in passes.split(separator: ",").map({ $0.trimmingWhitespace() }) where !name.isEmpty {
            guard let pass = BenchmarkPass(rawValue: name) else {
                if name == "jsonserialization" {
                    // The command links FoundationEssentials only, which has no JSONSerialization.
                    throw ValidationError("the jsonserialization pass is in the benchmark package only (Benchmarks/: JSONSerialization_16MB and _128MB); this command does not link Foundation")
                }
                throw ValidationError("unknown pass '\(name)'; passes: \(BenchmarkPass.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if !list.contains(pass) { list.append(pass) }
        }
        return list
    }

    func run() throws {
        let passes = try selectedPasses()
        var inputs: [BenchInput] = files.map { BenchInput(name: $0, path: $0, temporary: false) }
        let sizes = generated.isEmpty && files.isEmpty ? [9000] : generated
        defer { for input in inputs where input.temporary { unlink(input.path) } }
        for n in sizes {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-bench-\(getpid())-\(n).json").path
            do throws(JSONAPIError) {
                let bytes = try BenchmarkPass.generatedDocument(resources: n, seed: seed, documents: documents)
                guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                    throw JSONAPIError.input("cannot write \(path)")
                }
            } catch {
                throw report(error)
            }
            let shape = documents > 1 ? ", \(documents) documents" : ""
            inputs.append(BenchInput(name: "generated (\(n) resources\(shape), seed \(seed))", path: path, temporary: true))
        }

        // Check each input once (and count its resources) before timing anything.
        for i in inputs.indices {
            progress("checking \(inputs[i].name)")
            do throws(JSONAPIError) {
                // Each pass reads the file whole, in its own process, once per run: a pipe
                // can be read only once (and a shell's <(...) is not open in the passes), and
                // a compressed file would be measured as its compressed bytes.
                guard let size = InputSource.file(inputs[i].path).knownSize else {
                    throw JSONAPIError.input(
                        "bench measures regular, uncompressed files (each pass reads the file whole, in its own process, once per run); decompress it or save it to a file first")
                }
                inputs[i].bytes = size
                let devNull = open("/dev/null", O_WRONLY)
                defer { close(devNull) }
                let normalizer = Normalizer(format: .ndjson, out: ByteWriter(fd: devNull))
                try normalizer.read(.file(inputs[i].path), chunkSize: chunkSize)
                try normalizer.finish()
                inputs[i].resources = normalizer.resourcesRead
            } catch {
                throw report(error.withSourceIfMissing(inputs[i].name))
            }
        }

        let executable = Bench.executablePath()
        let loadBefore = BenchMachine.loadAverage
        for round in 0..<rounds {
            for i in inputs.indices {
                for run in BenchReport.cases(passes: passes, workers: workers) {
                    let label = rounds > 1 ? " (round \(round + 1) of \(rounds))" : ""
                    let with = run.workers.map { ", \($0) workers" } ?? ""
                    progress("\(inputs[i].name): \(run.pass.rawValue)\(with)\(label)")
                    let outcome = BenchChild.run(
                        executable: executable, pass: run.pass, path: inputs[i].path, runs: runs, chunkSize: chunkSize, concurrency: concurrency,
                        workers: run.workers)
                    inputs[i].outcomes[run, default: BenchOutcome()].merge(outcome)
                }
            }
        }

        var machine = BenchMachine.current
        machine.loadAverage = [loadBefore, BenchMachine.loadAverage].compactMap { $0 }
        let report = BenchReport(machine: machine, runs: runs, rounds: rounds, chunkSize: chunkSize, concurrency: concurrency, workers: workers, inputs: inputs, passes: passes)
        do {
            switch format {
            case .text: try Terminal.standardOutput(report.text)
            case .json: try Terminal.standardOutput(report.json)
            }
        } catch {
            throw JSONAPICommandSupport.report(error)
        }
    }

    private func progress(_ line: String) {
        if !quiet { Terminal.standardError("jsonapi bench: \(line)") }
    }

    /// This binary, to start the child processes with.
    static func executablePath() -> String {
        #if os(Linux)
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return path }
        #endif
        return CommandLine.arguments[0]
    }
}

extension ParseConcurrency: ExpressibleByArgument {}
