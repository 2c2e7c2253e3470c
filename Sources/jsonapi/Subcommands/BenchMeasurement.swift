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

/// The resident set size of this process.
enum ResidentMemory {
    /// Now, in bytes.
    static var current: Int { procStatus("VmRSS:") ?? 0 }

    /// The high-water mark since this process image started, in bytes.
    static var peak: Int {
        if let hwm = procStatus("VmHWM:") { return hwm }
        #if os(Linux)
        return Int(selfUsage().ru_maxrss) * 1024  // kilobytes on Linux
        #else
        return Int(selfUsage().ru_maxrss)
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

/// Processor time and page faults of this process, read together (one `getrusage`).
struct ProcessUsage {
    /// User and system processor time so far, all threads, in seconds.
    var cpuSeconds: Double
    /// Page faults so far (minor and major, all threads).
    var pageFaults: Int

    static var now: ProcessUsage {
        let usage = selfUsage()
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return ProcessUsage(cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime), pageFaults: Int(usage.ru_minflt) + Int(usage.ru_majflt))
    }
}

/// `getrusage` of this process: the one place the bench reads it.
private func selfUsage() -> rusage {
    var usage = rusage()
    #if os(Linux)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    return usage
}

/// Starting `jsonapi bench-pass` and reading its reply.
enum BenchChild {
    struct Reply: Codable {
        var pass: String
        var bytes: Int
        var seconds: [Double]
        /// Processor time per run (user and system, all threads).
        var cpuSeconds: [Double]
        /// Processor time per run of the thread that runs the pass (the one that reads the
        /// input, splits it for workers and merges what they give back), less the time it
        /// spent reading batches as one of the workers itself.
        var callerCPUSeconds: [Double]
        /// Page faults per run (all threads): a run that maps fresh memory faults on each page
        /// it first writes.
        var pageFaults: [Int]
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

    static func run(executable: String, pass: BenchmarkPass, path: String, runs: Int, chunkSize: Int, concurrency: ParseConcurrency, workers: Int? = nil) -> BenchOutcome {
        let arguments =
            [
                "bench-pass", "--pass", pass.rawValue, "--runs", String(runs), "--warmup", "1",
                "--chunk-size", String(chunkSize), "--concurrency", concurrency.rawValue,
            ] + (workers.map { ["--workers", String($0)] } ?? []) + [path]
        let child: ChildProcess.Outcome
        do {
            child = try ChildProcess.run(executable, arguments)
        } catch {
            return BenchOutcome(error: "cannot start \(executable): \(error)")
        }
        guard let reply = try? JSONDecoder().decode(Reply.self, from: Data(child.standardOutput)) else {
            let errors = String(decoding: child.standardError, as: UTF8.self)
            let why = errors.split(separator: "\n").first.map(String.init) ?? "exit status \(child.status)"
            return BenchOutcome(error: why)
        }
        var outcome = BenchOutcome()
        outcome.seconds = reply.seconds
        outcome.cpuSeconds = reply.cpuSeconds
        outcome.callerCPUSeconds = reply.callerCPUSeconds
        outcome.pageFaults = reply.pageFaults
        outcome.residentBeforeRuns = reply.residentBeforeRuns
        outcome.peakResident = reply.peakResident
        outcome.error = reply.error
        return outcome
    }
}
