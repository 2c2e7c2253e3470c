import ArgumentParser
import Foundation
import JSONAPICommandSupport
import JSONAPIStream
import JSONAPIBenchmarking

/// `jsonapi bench`: every pass over the same bytes, each in its own child process, as a
/// fraction of yajl's own scan.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure the passes over your documents (or a generated one) against bare yajl and Foundation.",
        discussion: """
            Every pass reads the same bytes from memory in the same chunks. Passes: \
            \(BenchmarkPass.allCases.filter { $0 != .none }.map(\.rawValue).joined(separator: ", ")). \
            yajl (yajl's own scan with no-op callbacks) is the floor, and every figure is also \
            given as a ratio to it. JSONDecoder typed decodes into Codable types written for the \
            generated documents (it fails on other documents); JSONDecoder generic into generic \
            JSON:API Codable types that fit any document. With no FILE, a document from \
            `jsonapi generate --resources 9000` (about 16 MB) is used; in generated documents the \
            one number Foundation refuses (1e400) is written 1e300, for every pass.

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

    @Argument(help: "Documents to measure, each on its own (no standard input).")
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

    @Option(help: "text or json.")
    var format: BenchFormat = .text

    @Flag(name: .shortAndLong, help: "No progress lines on standard error.")
    var quiet = false

    enum BenchFormat: String, ExpressibleByArgument { case text, json }

    func validate() throws {
        guard runs >= 1 else { throw ValidationError("--runs must be at least 1") }
        guard rounds >= 1 else { throw ValidationError("--rounds must be at least 1") }
        guard chunkSize >= 1 else { throw ValidationError("--chunk-size must be at least 1") }
        guard generated.allSatisfy({ $0 >= 1 }) else { throw ValidationError("--resources must be at least 1") }
        guard !files.contains("-") else { throw ValidationError("bench reads files, not standard input") }
        _ = try selectedPasses()
    }

    func selectedPasses() throws -> [BenchmarkPass] {
        var list: [BenchmarkPass] = [.bareYajl]
        for name in passes.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
            guard let pass = BenchmarkPass(rawValue: name) else {
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
                let bytes = try BenchmarkPass.generatedDocument(resources: n, seed: seed)
                guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                    throw JSONAPIError.input("cannot write \(path)")
                }
            } catch {
                throw report(error)
            }
            inputs.append(BenchInput(name: "generated (\(n) resources, seed \(seed))", path: path, temporary: true))
        }

        // Check each input once (and count its resources) before timing anything.
        for i in inputs.indices {
            progress("checking \(inputs[i].name)")
            do {
                inputs[i].bytes = InputSource.file(inputs[i].path).knownSize ?? 0
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
                for pass in passes {
                    let label = rounds > 1 ? " (round \(round + 1) of \(rounds))" : ""
                    progress("\(inputs[i].name): \(pass.rawValue)\(label)")
                    let outcome = BenchChild.run(executable: executable, pass: pass, path: inputs[i].path, runs: runs, chunkSize: chunkSize, concurrency: concurrency)
                    inputs[i].outcomes[pass, default: BenchOutcome()].merge(outcome)
                }
            }
        }

        var machine = BenchMachine.current
        machine.loadAverage = [loadBefore, BenchMachine.loadAverage].compactMap { $0 }
        let report = BenchReport(machine: machine, runs: runs, rounds: rounds, chunkSize: chunkSize, concurrency: concurrency, inputs: inputs, passes: passes)
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
        return Bundle.main.executablePath ?? CommandLine.arguments[0]
    }
}

/// `jsonapi bench-pass` (hidden): one pass over one file, in its own process, for `bench`.
/// Prints one JSON object: the run times, the pass's result, the resident size before the
/// first run and the peak.
struct BenchPass: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-pass",
        abstract: "Run one benchmark pass over one file and print its timings as JSON (used by bench and Scripts/callgrind.sh).",
        shouldDisplay: false)

    @Option(help: "The pass.")
    var pass: String

    @Option(help: "Timed runs.")
    var runs = 5

    @Option(help: "Untimed runs first.")
    var warmup = 1

    @Option(name: .customLong("chunk-size"), help: "Chunk size the pass feeds.")
    var chunkSize = 1 << 20

    @Option(help: "automatic, sequential or pipelined.")
    var concurrency: ParseConcurrency = .automatic

    @Option(name: .customLong("min-run-seconds"), help: "Repeat the pass within a timed run until the run takes this long (measured on the last warm-up run; none without warm-up).")
    var minRunSeconds = 0.02

    @Argument(help: "The document.")
    var file: String

    func run() throws {
        guard let pass = BenchmarkPass(rawValue: pass) else {
            throw ValidationError("unknown pass '\(self.pass)'")
        }
        let input: [UInt8]
        do {
            input = try BenchPass.readWhole(file)
        } catch {
            throw report(error)
        }
        var options = DocumentOptions()
        options.parse.concurrency = concurrency
        let before = ResidentMemory.current
        var seconds: [Double] = []
        var cpuSeconds: [Double] = []
        var result = 0
        var repeats = 1
        func reply(_ error: String?) -> String {
            BenchChild.Reply(
                pass: pass.rawValue, bytes: input.count, seconds: seconds, cpuSeconds: cpuSeconds, repeats: repeats,
                result: result, residentBeforeRuns: before, peakResident: ResidentMemory.peak, error: error
            ).encoded
        }
        do {
            // Warm up; a document so small that one pass takes less than --min-run-seconds is
            // passed over several times per timed run (and the run's time divided).
            for _ in 0..<max(0, warmup) {
                let start = DispatchTime.now().uptimeNanoseconds
                result &+= try pass.run(input, chunkSize: chunkSize, options: options)
                let once = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                repeats = once >= minRunSeconds ? 1 : min(1_000_000, Int((minRunSeconds / max(once, 1e-7)).rounded(.up)))
            }
            for _ in 0..<max(0, runs) {
                let cpu = ProcessorTime.now
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<repeats { result &+= try pass.run(input, chunkSize: chunkSize, options: options) }
                seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / Double(repeats))
                cpuSeconds.append((ProcessorTime.now - cpu) / Double(repeats))
            }
        } catch {
            try? Terminal.standardOutput(reply((error as? JSONAPIError).map { "\($0)" } ?? "\(error)"))
            throw ExitCode(1)
        }
        do { try Terminal.standardOutput(reply(nil)) } catch { throw report(error) }
    }

    /// The whole file in one array, read straight into it (no second copy, so the resident
    /// size before the runs is the runtime plus the input).
    static func readWhole(_ path: String) throws(JSONAPIError) -> [UInt8] {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw JSONAPIError.input("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw JSONAPIError.input("cannot read \(path)") }
        let size = Int(st.st_size)
        var failure: String?
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            count = 0
            while count < size {
                let n = read(fd, buffer.baseAddress! + count, size - count)
                if n < 0, errno == EINTR { continue }
                if n < 0 { failure = String(cString: strerror(errno)); break }
                if n == 0 { break }
                count += n
            }
        }
        if let failure { throw JSONAPIError.input("cannot read \(path): \(failure)") }
        return bytes
    }
}

/// The resident set size of this process.
enum ResidentMemory {
    /// Now, in bytes.
    static var current: Int { procStatus("VmRSS:") ?? 0 }

    /// The high-water mark since this process image started, in bytes.
    static var peak: Int {
        if let hwm = procStatus("VmHWM:") { return hwm }
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Int(usage.ru_maxrss) * 1024
        #else
        getrusage(RUSAGE_SELF, &usage)
        return Int(usage.ru_maxrss)
        #endif
    }

    /// A `kB` line of `/proc/self/status`, in bytes (nil where there is no /proc).
    private static func procStatus(_ key: String) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix(key) {
            let digits = line.dropFirst(key.count).filter(\.isNumber)
            return Int(digits).map { $0 * 1024 }
        }
        return nil
    }
}

/// Processor time of this process: user and system, all threads.
enum ProcessorTime {
    static var now: Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}

/// Starting `jsonapi bench-pass` and reading its reply.
enum BenchChild {
    struct Reply: Codable {
        var pass: String
        var bytes: Int
        var seconds: [Double]
        /// Processor time per run (user and system, all threads).
        var cpuSeconds: [Double]
        /// Passes per timed run (more than 1 for small documents).
        var repeats: Int
        var result: Int
        var residentBeforeRuns: Int
        var peakResident: Int
        var error: String?

        var encoded: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
        }
    }

    static func run(executable: String, pass: BenchmarkPass, path: String, runs: Int, chunkSize: Int, concurrency: ParseConcurrency) -> BenchOutcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "bench-pass", "--pass", pass.rawValue, "--runs", String(runs), "--warmup", "1",
            "--chunk-size", String(chunkSize), "--concurrency", concurrency.rawValue, path,
        ]
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        do {
            try process.run()
        } catch {
            return BenchOutcome(error: "cannot start \(executable): \(error)")
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let reply = try? JSONDecoder().decode(Reply.self, from: data) else {
            let why = errors.split(separator: "\n").first.map(String.init) ?? "exit status \(process.terminationStatus)"
            return BenchOutcome(error: why)
        }
        var outcome = BenchOutcome()
        outcome.seconds = reply.seconds
        outcome.cpuSeconds = reply.cpuSeconds
        outcome.residentBeforeRuns = reply.residentBeforeRuns
        outcome.peakResident = reply.peakResident
        outcome.error = reply.error
        return outcome
    }
}

/// What one pass gave on one input (pooled over rounds).
struct BenchOutcome {
    var seconds: [Double] = []
    var cpuSeconds: [Double] = []
    var residentBeforeRuns = 0
    var peakResident = 0
    var error: String?

    init(error: String? = nil) { self.error = error }

    mutating func merge(_ other: BenchOutcome) {
        seconds += other.seconds
        cpuSeconds += other.cpuSeconds
        peakResident = max(peakResident, other.peakResident)
        residentBeforeRuns = residentBeforeRuns == 0 ? other.residentBeforeRuns : min(residentBeforeRuns, other.residentBeforeRuns)
        if error == nil { error = other.error }
    }

    var median: Double? { error == nil ? Self.median(seconds) : nil }
    var cpuMedian: Double? { error == nil ? Self.median(cpuSeconds) : nil }

    static func median(_ values: [Double]) -> Double? {
        guard !values.isEmpty else { return nil }
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}

struct BenchInput {
    var name: String
    var path: String
    var temporary: Bool
    var bytes = 0
    var resources = 0
    var outcomes: [BenchmarkPass: BenchOutcome] = [:]
}

/// Where the figures came from.
struct BenchMachine: Codable {
    var cpu: String
    var logicalCores: Int
    var memoryBytes: UInt64
    var os: String
    var jsonapi: String
    /// The 1-minute load average when the measurements started and when they ended: other
    /// processes on the machine slow the passes (not their instruction counts).
    var loadAverage: [Double] = []

    /// The 1-minute load average (nil where there is no /proc/loadavg).
    static var loadAverage: Double? {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return nil }
        return text.split(separator: " ").first.flatMap { Double($0) }
    }

    static var current: BenchMachine {
        var cpu = "unknown"
        if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let colon = line.firstIndex(of: ":") {
            cpu = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return BenchMachine(
            cpu: cpu, logicalCores: ProcessInfo.processInfo.activeProcessorCount,
            memoryBytes: ProcessInfo.processInfo.physicalMemory,
            os: ProcessInfo.processInfo.operatingSystemVersionString, jsonapi: JSONAPIVersion.current)
    }
}

/// The table and the JSON document `bench` prints.
struct BenchReport {
    var machine: BenchMachine
    var runs: Int
    var rounds: Int
    var chunkSize: Int
    var concurrency: ParseConcurrency
    var inputs: [BenchInput]
    var passes: [BenchmarkPass]

    struct Row: Codable {
        var pass: String
        var title: String
        var runs: Int
        var medianSeconds: Double?
        var minSeconds: Double?
        var megabytesPerSecond: Double?
        var resourcesPerSecond: Double?
        var throughputRatio: Double?
        var medianCPUSeconds: Double?
        var cpuRatio: Double?
        var peakResidentBytes: Int?
        var peakRatio: Double?
        var aboveInputBytes: Int?
        var error: String?
    }

    struct InputReport: Codable {
        var name: String
        var file: String?
        var bytes: Int
        var resources: Int
        var passes: [Row]
    }

    struct Document: Codable {
        var machine: BenchMachine
        var runs: Int
        var rounds: Int
        var warmupRuns: Int
        var chunkSize: Int
        var concurrency: String
        var statistic: String
        var inputs: [InputReport]
    }

    func rows(_ input: BenchInput) -> [Row] {
        let floor = input.outcomes[.bareYajl]
        let floorSeconds = floor?.median
        let floorPeak = floor?.peakResident ?? 0
        return passes.map { pass in
            let o = input.outcomes[pass] ?? BenchOutcome(error: "not run")
            var row = Row(pass: pass.rawValue, title: pass.title, runs: o.seconds.count, error: o.error)
            if let median = o.median {
                row.medianSeconds = median
                row.minSeconds = o.seconds.min()
                row.megabytesPerSecond = Double(input.bytes) / median / 1e6
                row.resourcesPerSecond = Double(input.resources) / median
                if let floorSeconds { row.throughputRatio = floorSeconds / median }
            }
            if let cpu = o.cpuMedian, cpu > 0 {
                row.medianCPUSeconds = cpu
                if let floorCPU = floor?.cpuMedian { row.cpuRatio = floorCPU / cpu }
            }
            if o.peakResident > 0 {
                row.peakResidentBytes = o.peakResident
                row.aboveInputBytes = max(0, o.peakResident - o.residentBeforeRuns)
                if floorPeak > 0 { row.peakRatio = Double(o.peakResident) / Double(floorPeak) }
            }
            return row
        }
    }

    var json: String {
        let document = Document(
            machine: machine, runs: runs, rounds: rounds, warmupRuns: 1, chunkSize: chunkSize, concurrency: concurrency.rawValue, statistic: "median",
            inputs: inputs.map { InputReport(name: $0.name, file: $0.temporary ? nil : $0.path, bytes: $0.bytes, resources: $0.resources, passes: rows($0)) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: (try? encoder.encode(document)) ?? Data(), as: UTF8.self)
    }

    var text: String {
        var lines: [String] = []
        let load = machine.loadAverage.isEmpty ? "" : "; load average " + machine.loadAverage.map { String(format: "%.1f", $0) }.joined(separator: " → ")
        lines.append("\(machine.cpu), \(machine.logicalCores) cores, \(machine.memoryBytes >> 30) GiB; jsonapi \(machine.jsonapi)\(load)")
        // The pass column fits the longest title of any table, so that all tables line up.
        let titleWidth = max(34, inputs.flatMap { rows($0) }.map { $0.title.count + 1 }.max() ?? 0)
        for input in inputs {
            lines.append("")
            let size = input.bytes >= 100_000 ? String(format: "%.1f MB", Double(input.bytes) / 1e6) : String(format: "%.1f kB", Double(input.bytes) / 1e3)
            lines.append("\(input.name): \(size), \(grouped(input.resources)) resources")
            let widths = [titleWidth, 8, 8, 11, 13, 12, 8, 13]
            lines.append(cells(["pass", "MB/s", "× yajl", "CPU × yajl", "resources/s", "peak RSS", "× yajl", "above input"], widths))
            for row in rows(input) {
                if let error = row.error {
                    let short = error.count > 90 ? String(error.prefix(89)) + "…" : error
                    lines.append(cells([row.title, "failed: \(short)"], [titleWidth, 0]))
                    continue
                }
                lines.append(cells([
                    row.title,
                    row.megabytesPerSecond.map { String(format: "%.1f", $0) } ?? "-",
                    row.throughputRatio.map { String(format: "%.2f", $0) } ?? "-",
                    row.cpuRatio.map { String(format: "%.2f", $0) } ?? "-",
                    row.resourcesPerSecond.map { grouped(Int($0.rounded())) } ?? "-",
                    row.peakResidentBytes.map(mebibytes) ?? "-",
                    row.peakRatio.map { String(format: "%.2f", $0) } ?? "-",
                    row.aboveInputBytes.map(mebibytes) ?? "-",
                ], widths))
            }
        }
        lines.append("")
        lines.append("median of \(runs * rounds) runs after a warm-up run, each pass in its own process; concurrency \(concurrency.rawValue); MB = 10^6 bytes, MiB = 2^20")
        return lines.joined(separator: "\n")
    }

    private func cells(_ values: [String], _ widths: [Int]) -> String {
        var line = ""
        for (i, v) in values.enumerated() {
            let w = i < widths.count ? widths[i] : 0
            if i == 0 {
                line += v.count >= w ? v + " " : v + String(repeating: " ", count: w - v.count)
            } else {
                line += v.count >= w ? " " + v : String(repeating: " ", count: w - v.count) + v
            }
        }
        return line
    }

    private func mebibytes(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

    private func grouped(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.reversed().enumerated() {
            if i > 0, i % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return String(out.reversed())
    }
}

// If the shared options gain a --concurrency option, this conformance moves to InputOptions.swift.
extension ParseConcurrency: ExpressibleByArgument {}
