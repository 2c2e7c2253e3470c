import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import JSONAPICommandSupport
import JSONAPIStream

struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Count resources per type, relationships per name with fan-out, dangling and unreachable linkage.",
        discussion: """
            Inputs of many documents are read on --workers workers (as normalize), each \
            building part of the graph, merged in input order: the same counts and warnings.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var parsing: ParsingOptions
    @OptionGroup var workers: WorkerOptions
    @OptionGroup var reporting: ReportingOptions

    @Option(help: "text or json.")
    var format: StatsFormat = .text

    enum StatsFormat: String, ExpressibleByArgument { case text, json }

    func run() throws {
        let warnings = WarningPrinter(quiet: reporting.quiet)
        let parser = GraphParser(options: warnings.applied(to: workers.applied(to: parsing.documentOptions())))
        parser.onWarning = warnings.handler
        let progress = ProgressLine(forced: reporting.progress, quiet: reporting.quiet)
        let start = DispatchTime.now().uptimeNanoseconds
        let graph: Graph
        do {
            for source in input.sources {
                progress.totalBytes = source.knownSize
                try parser.read(source, chunkSize: input.chunkSize) { progress.update(bytes: $0, resources: 0) }
            }
            graph = try parser.finish()
        } catch {
            progress.finish()
            throw report(error.withSourceIfMissing(input.sources.first?.name ?? "-"))
        }
        progress.finish()
        warnings.summary()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        let stats = graph.statistics
        switch format {
        case .json:
            struct Output: Encodable {
                var statistics: GraphStatistics
                var seconds: Double
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let data = try encoder.encode(Output(statistics: stats, seconds: (seconds * 1000).rounded() / 1000))
            do { try Terminal.standardOutput(String(decoding: data, as: UTF8.self)) } catch { throw report(error) }
        case .text:
            do { try Terminal.standardOutput(StatsTable.render(stats, seconds: seconds)) } catch { throw report(error) }
        }
    }
}

enum StatsTable {
    static func render(_ s: GraphStatistics, seconds: Double) -> String {
        var lines: [String] = []
        lines.append("documents \(s.documents), resources \(s.resources), \(cFormat("%.1f", Double(s.inputBytes) / 1e6)) MB in \(cFormat("%.3f", seconds)) s")
        lines.append("")
        lines.append(row(["type", "resources", "primary", "included"], [24, 10, 10, 10]))
        for t in s.types {
            lines.append(row([t.type, "\(t.resources)", "\(t.primary)", "\(t.included)"], [24, 10, 10, 10]))
        }
        lines.append("")
        lines.append(row(["relationship", "objects", "edges", "no data", "fan-out min", "median", "max"], [24, 9, 9, 9, 12, 8, 8]))
        for r in s.relationships {
            lines.append(row([r.name, "\(r.relationships)", "\(r.linkage)", "\(r.withoutData)", "\(r.fanOutMin)", cFormat("%g", r.fanOutMedian), "\(r.fanOutMax)"], [24, 9, 9, 9, 12, 8, 8]))
        }
        lines.append("")
        lines.append("dangling linkage (target not included): \(s.danglingLinkage)")
        lines.append("included resources nothing reaches:     \(s.unreachableIncluded)")
        lines.append("duplicates merged:                      \(s.duplicates)")
        lines.append("warnings:                               \(s.warnings)")
        return lines.joined(separator: "\n")
    }

    private static func row(_ cells: [String], _ widths: [Int]) -> String {
        var out = ""
        for (i, c) in cells.enumerated() {
            let w = widths[i]
            if i == 0 { out += c + String(repeating: " ", count: max(0, w - c.count)) } else { out += String(repeating: " ", count: max(1, w - c.count)) + c }
        }
        return out
    }
}
