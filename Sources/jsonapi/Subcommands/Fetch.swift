import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONAPICommandSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `jsonapi fetch …` checks its options (the same ``FetchOptions`` as the program's) and runs
/// `jsonapi-fetch …`, the program installed next to this one.
///
/// Fetching links FoundationNetworking (libcurl with its TLS, Kerberos and LDAP libraries),
/// which costs every process that loads it about 8 MB of resident memory and start-up time.
/// Keeping it in a program of its own keeps `normalize` (32 MB for any input size) and the
/// other commands free of it.
struct Fetch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch", abstract: FetchOptions.abstract, discussion: FetchOptions.discussion)

    /// Parsed here for the checks, shell completion and `--help`; the fetch itself gets the
    /// arguments as they were written.
    @OptionGroup var options: FetchOptions

    func run() throws {
        let program = try Self.fetchProgram()
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + Self.passedArguments()).map { strdup($0) }
        argv.append(nil)
        execv(program, argv)
        // Only reached when the program could not be started.
        Terminal.standardError("jsonapi: error: cannot run \(program): \(String(cString: strerror(errno)))")
        throw ExitCode(2)
    }

    /// The arguments after `fetch`, as written.
    static func passedArguments() -> [String] {
        let all = CommandLine.arguments.dropFirst()
        guard let at = all.firstIndex(of: "fetch") else { return Array(all) }
        return Array(all[all.index(after: at)...])
    }

    /// `jsonapi-fetch` in the folder of the running `jsonapi` (its real path, links followed).
    static func fetchProgram() throws -> String {
        let me =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().path
        let candidate = URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent("jsonapi-fetch").path
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            Terminal.standardError("jsonapi: error: jsonapi fetch needs the jsonapi-fetch program next to \(me) (swift build --product jsonapi-fetch)")
            throw ExitCode(2)
        }
        return candidate
    }
}
