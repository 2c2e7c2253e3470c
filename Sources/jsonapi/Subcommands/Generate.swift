import ArgumentParser
import JSONAPICommandSupport
import JSONAPIStream
import JSONAPIBenchmarking

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a large deterministic JSON:API compound document to standard output.",
        discussion: "The same arguments give the same bytes. About 1.7 KB per resource with the defaults.")

    @Option(help: "Primary resources (articles).")
    var resources: Int

    @Option(help: "Seed of the deterministic generator.")
    var seed: UInt64 = 1

    @Option(name: .customLong("included-per-resource"), help: "Included comments per article.")
    var includedPerResource = 2

    @Flag(help: "Indent the output.")
    var pretty = false

    func validate() throws {
        guard resources >= 0 else { throw ValidationError("--resources must not be negative") }
        guard includedPerResource >= 0 else { throw ValidationError("--included-per-resource must not be negative") }
    }

    func run() throws {
        let out = ByteWriter(fd: 1)
        do {
            try DocumentGenerator(resources: resources, seed: seed, includedPerResource: includedPerResource, pretty: pretty).write(to: out)
        } catch {
            throw report(error)
        }
    }
}
