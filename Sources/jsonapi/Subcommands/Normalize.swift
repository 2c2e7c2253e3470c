import ArgumentParser
import JSONAPICommandSupport
import JSONAPIStream

struct Normalize: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn JSON:API documents into flat JSON, NDJSON or edge lines.",
        discussion: """
            json: one flat object (resources by type and id). ndjson: one line per resource, \
            then one line per document; streams in bounded memory. edges: one line per \
            relationship linkage entry. Several files, and several documents per input, merge.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var parsing: ParsingOptions
    @OptionGroup var reporting: ReportingOptions

    @Option(help: "json, ndjson or edges.")
    var format: OutputFormat = .json

    @Option(help: "Rewrite attribute, relationship and meta names: as-is, camel, snake or kebab.")
    var keys: KeyFormat = .asIs

    @Flag(help: "Add a stable content hash (SHA-256 of the canonical form) to each NDJSON resource line.")
    var hash = false

    @Flag(name: .customLong("resources-only"), help: "NDJSON: write no document lines.")
    var resourcesOnly = false

    @Option(name: .customLong("on-duplicate"), help: "The same resource twice: last (merge, later wins), first, or error.")
    var onDuplicate: DuplicatePolicy = .last

    @Option(name: .shortAndLong, help: "Write to FILE (through a temporary file renamed on success).")
    var output: String?

    func validate() throws {
        if hash && format != .ndjson { throw ValidationError("--hash applies to --format ndjson") }
        if resourcesOnly && format != .ndjson { throw ValidationError("--resources-only applies to --format ndjson") }
    }

    func run() throws {
        let warnings = WarningPrinter(quiet: reporting.quiet)
        let file: OutputFile
        do { file = try OutputFile(path: output) } catch { throw report(error) }
        var options = OutputOptions()
        options.keys = keys
        options.hash = hash
        options.resourcesOnly = resourcesOnly
        let normalizer = Normalizer(
            format: format, out: file.writer, output: options,
            document: parsing.documentOptions(), duplicates: onDuplicate)
        normalizer.onDiagnostic = { warnings.print($0) }
        let progress = ProgressLine(forced: reporting.progress, quiet: reporting.quiet)
        do {
            for source in input.sources {
                progress.totalBytes = source.knownSize
                try normalizer.beginInput(named: source.name)
                let base = normalizer.bytesRead
                try source.read(chunkSize: input.chunkSize) { (chunk) throws(JSONAPIError) in
                    try normalizer.feed(chunk)
                    progress.update(bytes: normalizer.bytesRead - base, resources: normalizer.resourcesRead)
                }
                try normalizer.endInput()
            }
            try normalizer.finish()
            progress.finish()
            try file.commit()
            warnings.summary()
        } catch {
            progress.finish()
            file.abandon()
            warnings.summary()
            let written = file.isStandardOutput && format != .json ? normalizer.recordsWritten : nil
            throw report(error.withSourceIfMissing(input.sources.first?.name ?? "-"), recordsWritten: written)
        }
    }
}
