import ArgumentParser
import Foundation
import JSONAPIStream

/// A development timing loop (hidden); `jsonapi bench` is the user-facing comparison.
struct QuickBench: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "quickbench", shouldDisplay: false)
    @Argument var file: String
    @Option var runs = 5
    @Option var validation: ValidationMode = .lenient
    @Option var only: String? = nil

    func run() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        var options = DocumentOptions()
        options.validation = validation
        try bytes.withUnsafeBytes { b in
            func time(_ name: String, _ body: () throws -> Void) rethrows -> Double {
                var ts: [Double] = []
                for _ in 0..<runs {
                    let t0 = DispatchTime.now().uptimeNanoseconds
                    try body()
                    ts.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
                }
                ts.sort()
                let med = ts[ts.count / 2]
                print(name, String(format: "median %.3f s  %.1f MB/s   min %.3f s  %.1f MB/s", med, Double(b.count) / med / 1e6, ts[0], Double(b.count) / ts[0] / 1e6))
                return ts[0]
            }
            switch only {
            case "graph": for _ in 0..<runs { _ = try BenchmarkPasses.graph(b, options: options) }; return
            case "yajl": for _ in 0..<runs { BenchmarkPasses.bareYajl(b) }; return
            case "scan": for _ in 0..<runs { BenchmarkPasses.scanOnly(b) }; return
            case "syntax": for _ in 0..<runs { try BenchmarkPasses.syntaxOnly(b) }; return
            case "none": return
            default: break
            }
            let floor = try time("bare yajl") { BenchmarkPasses.bareYajl(b) }
            let scan = try time("scan only") { BenchmarkPasses.scanOnly(b) }
            let syn = try time("syntax   ") { try BenchmarkPasses.syntaxOnly(b) }
            let g = try time("graph    ") { _ = try BenchmarkPasses.graph(b, options: options) }
            print(String(format: "ratios (min): scan %.2f syntax %.2f graph %.2f", floor / scan, floor / syn, floor / g))
        }
    }
}
