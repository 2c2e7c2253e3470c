import ArgumentParser
import Foundation
import JSONAPICommandSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `jsonapi fetch …` runs `jsonapi-fetch …`, the program installed next to this one.
///
/// Fetching links FoundationNetworking (libcurl with its TLS, Kerberos and LDAP libraries),
/// which costs every process that loads it about 8 MB of resident memory and start-up time.
/// Keeping it in a program of its own keeps `normalize` (32 MB for any input size) and the
/// other commands free of it.
struct Fetch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Fetch a JSON:API endpoint (every page with --all-pages) as flat JSON, NDJSON or edge lines, or into an SQLite database (--into, resumable).",
        discussion: "Runs jsonapi-fetch, installed next to jsonapi; `jsonapi fetch --help` lists its options.",
        helpNames: [])

    @Argument(parsing: .captureForPassthrough, help: "The endpoint and the options of jsonapi-fetch.")
    var arguments: [String] = []

    func run() throws {
        let program = try Self.fetchProgram()
        var argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) }
        argv.append(nil)
        execv(program, argv)
        // Only reached when the program could not be started.
        Terminal.standardError("jsonapi: error: cannot run \(program): \(String(cString: strerror(errno)))")
        throw ExitCode(2)
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
