import ArgumentParser
import Foundation

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
        subcommands: [Normalize.self, Fetch.self, Denormalize.self, Validate.self, Stats.self, Generate.self, Bench.self, BenchPass.self]
    )

    /// Runs the command; usage errors exit with 2 (not ArgumentParser's 64).
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            let exitCode = Self.exitCode(for: error)
            if exitCode == .success {
                Self.exit(withError: error)
            }
            Terminal.standardError(Self.fullMessage(for: error))
            Foundation.exit(2)
        }
    }
}
