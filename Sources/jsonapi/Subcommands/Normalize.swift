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

    @OptionGroup var out: NormalizeOutputOptions

    func run() throws {
        let warnings = WarningPrinter(quiet: reporting.quiet)
        let file: OutputFile
        do { file = try OutputFile(path: out.output) } catch { throw report(error) }
        let normalizer = out.normalizer(writingTo: file, document: parsing.documentOptions())
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
            out.reportQuotedNumbers(of: normalizer, quiet: reporting.quiet)
        } catch {
            progress.finish()
            file.abandon()
            warnings.summary()
            throw report(error.withSourceIfMissing(input.sources.first?.name ?? "-"), recordsWritten: out.recordsWritten(by: normalizer, to: file))
        }
    }
}
