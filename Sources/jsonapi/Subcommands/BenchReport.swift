import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONAPICommandSupport
import JSONAPIStream
import JSONAPIBenchmarking

/// What one pass gave on one input (pooled over rounds).
struct BenchOutcome {
    var seconds: [Double] = []
    var cpuSeconds: [Double] = []
    /// The calling thread's part of `cpuSeconds` (less the batches it read as a worker), run
    /// by run.
    var callerCPUSeconds: [Double] = []
    /// Page faults per run (all threads; empty when no run finished).
    var pageFaults: [Int] = []
    var residentBeforeRuns = 0
    var peakResident = 0
    var error: String?

    init(error: String? = nil) { self.error = error }

    mutating func merge(_ other: BenchOutcome) {
        seconds += other.seconds
        cpuSeconds += other.cpuSeconds
        callerCPUSeconds += other.callerCPUSeconds
        pageFaults += other.pageFaults
        peakResident = max(peakResident, other.peakResident)
        residentBeforeRuns = residentBeforeRuns == 0 ? other.residentBeforeRuns : min(residentBeforeRuns, other.residentBeforeRuns)
        if error == nil { error = other.error }
    }

    var median: Double? { error == nil ? Self.median(seconds) : nil }
    var cpuMedian: Double? { error == nil ? Self.median(cpuSeconds) : nil }
    /// The calling thread's share of the processor time over all runs (nil without it).
    var callerShare: Double? {
        let total = cpuSeconds.reduce(0, +)
        guard error == nil, callerCPUSeconds.count == cpuSeconds.count, total > 0 else { return nil }
        return min(1, callerCPUSeconds.reduce(0, +) / total)
    }

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
    var outcomes: [BenchCase: BenchOutcome] = [:]
}

/// One pass with one number of workers (`nil`: the default).
struct BenchCase: Hashable {
    var pass: BenchmarkPass
    var workers: Int?
}

/// Where the figures came from.
struct BenchMachine: Codable {
    var cpu: String
    var logicalCores: Int
    /// A core's level 2 cache as the system reports it (absent when it does not): the key
    /// tables ask for their slots ahead past half of it, and VMs that differ in it differ in
    /// a graph's speed.
    var level2CacheBytes: Int?
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
            let colon = line.firstIndex(of: ":")
        {
            cpu = line[line.index(after: colon)...].trimmingWhitespace()
        }
        let l2 = ParseOptions.level2CacheBytes
        return BenchMachine(
            cpu: cpu, logicalCores: ProcessInfo.processInfo.activeProcessorCount, level2CacheBytes: l2 > 0 ? l2 : nil,
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
    /// `--workers` values (empty: the default).
    var workers: [Int] = []

    /// What runs, in order: every pass once per `workers` value (the yajl floor once, as
    /// workers do not change it; the copies of bare yajl at once for each value of 2 or more).
    static func cases(passes: [BenchmarkPass], workers: [Int]) -> [BenchCase] {
        let settings: [Int?] = workers.isEmpty ? [nil] : workers.map { $0 }
        return passes.flatMap { pass -> [BenchCase] in
            switch pass {
            case .bareYajl: return [BenchCase(pass: pass, workers: settings[0])]
            case .bareYajlEveryCore:
                let many = settings.filter { ($0 ?? 2) >= 2 }
                return (many.isEmpty ? [settings[0]] : many).map { BenchCase(pass: pass, workers: $0) }
            default: return settings.map { BenchCase(pass: pass, workers: $0) }
            }
        }
    }

    /// Whether a pass is one of the bare yajl references (the floor, its copies at once),
    /// which have no scaling or reading thread of their own.
    static func isReference(_ pass: BenchmarkPass) -> Bool { pass == .bareYajl || pass == .bareYajlEveryCore }

    var inputs: [BenchInput]
    var passes: [BenchmarkPass]

    struct Row: Codable {
        var pass: String
        /// The workers it ran with (`nil`: the default).
        var workers: Int?
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
        /// Throughput relative to the same pass with the fewest workers asked for (`--workers`
        /// given more than once): the scaling.
        var scaling: Double?
        /// With 2 or more workers: the share of the processor time the thread that reads the
        /// input takes (splitting it, merging the workers' pieces, writing their output). With
        /// N workers that thread is the limit once the workers' part divided by N is smaller.
        var callerShare: Double?
        /// Page faults per run (per input for the copies of bare yajl), all threads (median), as `getrusage` counts them (the faults
        /// that trap and the pages `madvise(MADV_POPULATE_WRITE)` fills): a run that writes
        /// memory the process has not written before faults once per page (or huge page), and
        /// the kernel zeroes each; a run that reuses its memory hardly faults.
        var medianPageFaults: Double?
        /// The throughput as a fraction of the machine's ceiling with as many workers: bare
        /// yajl run once per worker at once (``BenchmarkPass/bareYajlEveryCore``), when it ran.
        /// A pass that runs yajl over every byte cannot pass 1.
        var ceilingShare: Double?
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
        /// The `--workers` values, comma-separated, or "default".
        var workers: String
        var statistic: String
        var inputs: [InputReport]
    }

    func rows(_ input: BenchInput) -> [Row] {
        let cases = Self.cases(passes: passes, workers: workers)
        let floor = cases.first { $0.pass == .bareYajl }.flatMap { input.outcomes[$0] }
        let floorSeconds = floor?.median
        let floorPeak = floor?.peakResident ?? 0
        let fewest = workers.min()
        return cases.map { run in
            let o = input.outcomes[run] ?? BenchOutcome(error: "not run")
            let title =
                run.pass == .bareYajlEveryCore
                ? "bare yajl, \(BenchmarkPass.copies(workers: run.workers)) copies at once"
                : workers.count > 1 && run.pass != .bareYajl ? "\(run.pass.title), \(run.workers!) worker\(run.workers == 1 ? "" : "s")" : run.pass.title
            var row = Row(pass: run.pass.rawValue, workers: run.workers, title: title, runs: o.seconds.count, error: o.error)
            if let median = o.median {
                row.medianSeconds = median
                row.minSeconds = o.seconds.min()
                row.megabytesPerSecond = Double(input.bytes) / median / 1e6
                row.resourcesPerSecond = Double(input.resources) / median
                if let floorSeconds { row.throughputRatio = floorSeconds / median }
                if workers.count > 1, !Self.isReference(run.pass), let fewest, let base = input.outcomes[BenchCase(pass: run.pass, workers: fewest)]?.median {
                    row.scaling = base / median
                }
                if !Self.isReference(run.pass), let ceiling = input.outcomes[BenchCase(pass: .bareYajlEveryCore, workers: run.workers)]?.median,
                    BenchmarkPass.copies(workers: run.workers) >= 2
                {
                    row.ceilingShare = ceiling / median
                }
            }
            if let w = run.workers, w >= 2, !Self.isReference(run.pass) { row.callerShare = o.callerShare }
            if o.error == nil, !o.pageFaults.isEmpty { row.medianPageFaults = BenchOutcome.median(o.pageFaults.map(Double.init)) }
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
            machine: machine, runs: runs, rounds: rounds, warmupRuns: 1, chunkSize: chunkSize, concurrency: concurrency.rawValue,
            workers: workers.isEmpty ? "default" : workers.map(String.init).joined(separator: ","), statistic: "median",
            inputs: inputs.map { InputReport(name: $0.name, file: $0.temporary ? nil : $0.path, bytes: $0.bytes, resources: $0.resources, passes: rows($0)) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: (try? encoder.encode(document)) ?? Data(), as: UTF8.self)
    }

    var text: String {
        var lines: [String] = []
        let load = machine.loadAverage.isEmpty ? "" : "; load average " + machine.loadAverage.map { cFormat("%.1f", $0) }.joined(separator: " → ")
        let l2 = machine.level2CacheBytes.map { ", L2 \($0 >> 10) KiB a core" } ?? ""
        lines.append("\(machine.cpu), \(machine.logicalCores) cores\(l2), \(machine.memoryBytes >> 30) GiB; jsonapi \(machine.jsonapi)\(load)")
        // The pass column fits the longest title of any table, so that all tables line up.
        let titleWidth = max(34, inputs.flatMap { rows($0) }.map { $0.title.count + 1 }.max() ?? 0)
        for input in inputs {
            lines.append("")
            let size = input.bytes >= 100_000 ? cFormat("%.1f MB", Double(input.bytes) / 1e6) : cFormat("%.1f kB", Double(input.bytes) / 1e3)
            lines.append("\(input.name): \(size), \(grouped(input.resources)) resources")
            let widths = [titleWidth, 8, 8, 11, 13, 12, 8, 13]
            lines.append(cells(["pass", "MB/s", "× yajl", "CPU × yajl", "resources/s", "peak RSS", "× yajl", "above input"], widths))
            let inputRows = rows(input)
            // Errors too long for the table's line, given in full after it.
            var longErrors: [(title: String, error: String)] = []
            for row in inputRows {
                if let error = row.error {
                    let short = error.count > 90 ? String(error.prefix(89)) + "…" : error
                    if short != error { longErrors.append((row.title, error)) }
                    lines.append(cells([row.title, "failed: \(short)"], [titleWidth, 0]))
                    continue
                }
                lines.append(
                    cells(
                        [
                            row.title,
                            row.megabytesPerSecond.map { cFormat("%.1f", $0) } ?? "-",
                            row.throughputRatio.map { cFormat("%.2f", $0) } ?? "-",
                            row.cpuRatio.map { cFormat("%.2f", $0) } ?? "-",
                            row.resourcesPerSecond.map { grouped(Int($0.rounded())) } ?? "-",
                            row.peakResidentBytes.map(mebibytes) ?? "-",
                            row.peakRatio.map { cFormat("%.2f", $0) } ?? "-",
                            row.aboveInputBytes.map(mebibytes) ?? "-",
                        ], widths))
            }
            for (title, error) in longErrors { lines.append("\(title) failed: \(error)") }
            // The scaling: each pass's throughput with more workers over its throughput with
            // the fewest.
            if let fewest = workers.min(), workers.count > 1 {
                let scaled = inputRows.filter { $0.scaling != nil && $0.workers != fewest }
                if !scaled.isEmpty {
                    let parts = scaled.map { "\($0.pass) \(cFormat("%.2f", $0.scaling!))× with \($0.workers!)" }
                    lines.append("scaling over \(fewest) worker\(fewest == 1 ? "" : "s"): " + parts.joined(separator: ", "))
                }
            }
            // The machine's ceiling: bare yajl once per worker at once, and each pass's share of it.
            for ceiling in inputRows where ceiling.pass == BenchmarkPass.bareYajlEveryCore.rawValue {
                guard let ratio = ceiling.throughputRatio else { continue }
                let n = BenchmarkPass.copies(workers: ceiling.workers)
                guard n >= 2 else { continue }
                // Copies past the cores take turns: the most they can run at is one per core.
                let perfect = min(n, machine.logicalCores)
                let shares = inputRows.filter { $0.workers == ceiling.workers && $0.ceilingShare != nil }
                    .map { "\($0.pass) \(cFormat("%.2f", $0.ceilingShare!))" }
                lines.append(
                    "the machine's ceiling: \(n) bare yajl passes at once run at \(cFormat("%.2f", ratio))× one alone (\(perfect).00 if they did not slow one another)"
                        + (shares.isEmpty ? "" : "; the passes with \(n) workers, as a share of it: " + shares.joined(separator: ", ")))
            }
            // The reading thread's share with workers: past (1 - share) / share workers it is
            // the limit, whatever the number of cores.
            let shared = inputRows.filter { $0.callerShare != nil }
            if !shared.isEmpty {
                let parts = shared.map { row in
                    let share = row.callerShare!
                    let bound = share > 0 ? cFormat("%.1f", (1 - share) / share) : "-"
                    return "\(row.pass) \(cFormat("%.1f", share * 100)) % with \(row.workers!) (limit from about \(bound) workers)"
                }
                lines.append("reading thread's share of the processor time: " + parts.joined(separator: ", "))
            }
        }
        lines.append("")
        let workersText = workers.isEmpty ? "default" : workers.map(String.init).joined(separator: ", ")
        lines.append(
            "median of \(runs * rounds) runs after a warm-up run, each pass in its own process; concurrency \(concurrency.rawValue); workers \(workersText); MB = 10^6 bytes, MiB = 2^20"
        )
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

    private func mebibytes(_ bytes: Int) -> String { cFormat("%.1f MiB", Double(bytes) / 1_048_576) }

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
