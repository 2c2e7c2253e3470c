import ArgumentParser
import JSONAPICommandSupport
import JSONAPIStream
import JSONAPIBenchmarking

struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Write a large deterministic JSON:API compound document (or a dump of many) to standard output.",
        discussion: "The same arguments give the same bytes. About 1.7 KB per resource with the defaults. --documents N writes N pages of a crawl, one per line.")

    @Option(help: "Primary resources (articles).")
    var resources: Int

    @Option(help: "Seed of the deterministic generator.")
    var seed: UInt64 = 1

    @Option(name: .customLong("included-per-resource"), help: "Included comments per article.")
    var includedPerResource = 2

    @Flag(help: "Indent the output.")
    var pretty = false

    @Option(help: "Write this many documents, one per line, as the pages of a crawl (the resources shared out in order).")
    var documents = 1

    func validate() throws {
        guard resources >= 0 else { throw ValidationError("--resources must not be negative") }
        guard includedPerResource >= 0 else { throw ValidationError("--included-per-resource must not be negative") }
        guard documents >= 1 else { throw ValidationError("--documents must be at least 1") }
        if documents > 1 && pretty { throw ValidationError("--pretty writes one document over many lines; it cannot go with --documents") }
    }

    func run() throws {
        let out = ByteWriter(fd: 1)
        do {
            try DocumentGenerator(resources: resources, seed: seed, includedPerResource: includedPerResource, pretty: pretty, documents: documents).write(to: out)
        } catch {
            throw report(error)
        }
    }
}
