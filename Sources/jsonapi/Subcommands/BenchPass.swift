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
import Dispatch
import JSONAPICommandSupport
import JSONAPIStream
import JSONAPIBenchmarking

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

    @Option(help: "Workers for inputs of many documents (default: as normalize).")
    var workers: Int?

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
        options.parse.workers = workers
        let before = ResidentMemory.current
        var seconds: [Double] = []
        var cpuSeconds: [Double] = []
        var callerCPUSeconds: [Double] = []
        var pageFaults: [Int] = []
        var result = 0
        var repeats = 1
        func reply(_ error: String?) -> String {
            BenchChild.Reply(
                pass: pass.rawValue, bytes: input.count, seconds: seconds, cpuSeconds: cpuSeconds, callerCPUSeconds: callerCPUSeconds, pageFaults: pageFaults, repeats: repeats,
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
            // A pass that goes over the input several times at once (the bare yajl copies) is
            // timed per input.
            let inputs = repeats * pass.copies(options: options)
            let per = Double(inputs)
            for _ in 0..<max(0, runs) {
                let usage = ProcessUsage.now
                // The reading thread's own time: less what it spent as a worker.
                let callerCPU = ThreadProcessorTime.asReader
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<repeats { result &+= try pass.run(input, chunkSize: chunkSize, options: options) }
                seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 / per)
                callerCPUSeconds.append((ThreadProcessorTime.asReader - callerCPU) / per)
                let after = ProcessUsage.now
                cpuSeconds.append((after.cpuSeconds - usage.cpuSeconds) / per)
                pageFaults.append((after.pageFaults - usage.pageFaults) / inputs)
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
        let bytes = [UInt8](uninitializedCount: size) { buffer, count in
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
