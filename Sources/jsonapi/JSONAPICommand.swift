import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONAPICommandSupport

@main
struct JSONAPICommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jsonapi",
        abstract: "Read JSON:API documents as a stream: normalize, validate, measure.",
        discussion: """
            Exit status: 0 success, 1 invalid input (JSON syntax, a limit, or in --strict a \
            JSON:API rule), 2 usage or I/O error.
            """,
        version: JSONAPIVersion.current,
        subcommands: [Normalize.self, Load.self, Fetch.self, Denormalize.self, Validate.self, Stats.self, Generate.self, Bench.self, BenchPass.self]
    )

    static func main() { runAsTool() }
}
