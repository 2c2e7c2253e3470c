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
import JSONAPILoad
import JSONAPIStream

struct Denormalize: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "denormalize",
        abstract:
            "Turn normalize output (flat JSON, NDJSON, or a --split-by-type directory) or a database jsonapi load wrote (an SQLite file or a postgres:// URL) back into one JSON:API compound document.",
        discussion: """
            Resources merge as when reading documents (the later member wins). Without --include, \
            every resource that is not primary data goes into included; with it, only those the \
            paths reach from primary data (each resource once). The limits (--max-depth and the \
            others) are those of the documents the records came from, as normalize took them: a \
            record may nest two levels deeper than its document, and is read with that allowance.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var reporting: ReportingOptions
    @OptionGroup var workers: WorkerOptions
    @OptionGroup var limits: LimitOptions

    @Option(help: "Relationship paths to include, comma-separated (e.g. comments.author,tags).")
    var include: String?

    @Option(name: .customLong("fields"), help: "A sparse fieldset, TYPE=FIELD,FIELD (repeatable).")
    var fields: [String] = []

    @Option(help: "Rewrite attribute, relationship and meta names: as-is, camel, snake or kebab.")
    var keys: KeyFormat = .asIs

    @Option(
        name: .customLong("extension"),
        help: "Namespace of an extension the documents applied without saying so in jsonapi.ext (repeatable): --extension atomic puts atomic:results back together.")
    var extensions: [String] = []

    @Option(name: .shortAndLong, help: "Write to FILE (through a temporary file renamed on success).")
    var output: String?

    func run() throws {
        var options: DocumentEncodingOptions
        do {
            options = try DocumentEncodingOptions(include: include, fields: fields)
        } catch {
            throw ValidationError(error.description)
        }
        options.keys = keys
        let file: OutputFile
        do { file = try OutputFile(path: output) } catch { throw report(error) }
        var documentOptions = workers.applied(to: limits.applied(to: .default))
        documentOptions.extensions = Set(extensions)
        let denormalizer = Denormalizer(options: documentOptions)
        do {
            for source in input.sources {
                if isPostgresURL(source.name) {
                    try PostgresReader.read(url: source.name, into: denormalizer)
                } else if source.name != "-", isDirectory(source.name) {
                    try denormalizer.read(tables: source.name)
                } else if source.name != "-", SQLiteReader.isSQLiteFile(source.name) {
                    try SQLiteReader.read(database: source.name, into: denormalizer)
                } else {
                    try denormalizer.read(source, chunkSize: input.chunkSize)
                }
            }
            try denormalizer.write(to: file.writer, options: options)
            try file.commit()
        } catch {
            file.abandon()
            // An include path that names no relationship is the caller's to fix, like a
            // malformed fieldset.
            if case .misuse(let message) = error, message.hasPrefix("include path") { throw ValidationError(message) }
            throw report(error.withSourceIfMissing(input.sources.first?.name ?? "-"))
        }
    }
}

/// Whether `path` names a directory (following symbolic links).
private func isDirectory(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
}
