import ArgumentParser
import JSONAPICommandSupport
import JSONAPIStream

struct Normalize: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "normalize",
        abstract: "Turn JSON:API documents into flat JSON, NDJSON, edge lines, or one table per resource type.",
        discussion: """
            json: one flat object (resources by type and id). ndjson: one line per resource, \
            then one line per document; streams in bounded memory. edges: one line per \
            relationship linkage entry. Several files, and several documents per input, merge.

            Inputs of many documents are read on --workers workers (by default one per core \
            with 3 or more cores; with 2, uncompressed files of 3 MiB or more are read by two \
            workers when they hold one large document, and ndjson and edges from 32 MiB when \
            they hold many), with the same output, \
            warnings and first error as one: for \
            json each worker builds part of the graph, merged in input order; ndjson and edges \
            are written by the workers, but not with --on-duplicate first|error or \
            --max-resources, which need every document in one place. The flat object of json \
            is written on every core (the same bytes).

            --split-by-type DIR: one table per resource type (DIR/TYPE.ndjson or .csv, every \
            row with the same columns), _documents, _relationships and _edges tables, and \
            _schema.json with each column's type; numbers are safe unless --numbers exact. \
            DIR must not exist or be empty (--force replaces it); it appears only once complete. \
            Inputs of many documents, and one large document (a range of its elements per \
            worker), are read on --workers workers as above: the caller \
            numbers the rows and settles the columns in input order.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var parsing: ParsingOptions
    @OptionGroup var workers: WorkerOptions
    @OptionGroup var reporting: ReportingOptions

    @OptionGroup var out: NormalizeOutputOptions

    @Option(name: .customLong("split-by-type"), help: ArgumentHelp("Write one table per resource type into this directory.", valueName: "dir"))
    var splitByType: String?

    @Flag(help: "With --split-by-type: replace the directory when it is not empty.")
    var force = false

    @Flag(name: .customLong("keep-partial"), help: "With --split-by-type: when the input fails, keep the whole rows read before the error.")
    var keepPartial = false

    func validate() throws {
        try out.check(splitting: splitByType != nil)
        if splitByType == nil && (force || keepPartial) {
            throw ValidationError("--force and --keep-partial apply to --split-by-type")
        }
    }

    func run() throws {
        if let directory = splitByType { return try split(into: directory) }
        let warnings = WarningPrinter(quiet: reporting.quiet)
        let file: OutputFile
        do { file = try OutputFile(path: out.output) } catch { throw report(error) }
        let document =
            out.outputFormat == .json
            ? workers.applied(to: parsing.documentOptions()) : workers.applied(toLinesOf: parsing.documentOptions(), sources: input.sources)
        let normalizer = out.normalizer(writingTo: file, document: warnings.applied(to: document))
        normalizer.onDiagnostic = warnings.handler
        let progress = ProgressLine(forced: reporting.progress, quiet: reporting.quiet)
        do {
            try readInputs(progress, read: normalizer.read, resources: { normalizer.resourcesRead })
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

    /// Reads every input with a reader's `read` (files into blocks its workers read in place),
    /// updating the progress line.
    private func readInputs(
        _ progress: ProgressLine, read: (InputSource, Int, ((Int) -> Void)?) throws(JSONAPIError) -> Void, resources: @escaping () -> Int
    ) throws(JSONAPIError) {
        for source in input.sources {
            progress.totalBytes = source.knownSize
            try read(source, input.chunkSize) { progress.update(bytes: $0, resources: resources()) }
        }
    }

    /// `--split-by-type DIR`.
    private func split(into path: String) throws {
        let warnings = WarningPrinter(quiet: reporting.quiet)
        let directory: OutputDirectory
        let splitter: TableSplitter
        do { directory = try OutputDirectory(path: path, force: force) } catch { throw report(error) }
        do {
            splitter = try TableSplitter(
                directory: directory.temporaryPath, format: out.tableFormat, output: out.tableOptions(),
                document: warnings.applied(to: workers.applied(to: parsing.documentOptions())), duplicates: out.onDuplicate)
        } catch {
            directory.abandon()
            throw report(error)
        }
        splitter.onDiagnostic = warnings.handler
        let progress = ProgressLine(forced: reporting.progress, quiet: reporting.quiet)
        do {
            try readInputs(progress, read: splitter.read, resources: { splitter.resourcesRead })
            let tables = try splitter.finish()
            progress.finish()
            try directory.commit()
            warnings.summary()
            out.reportQuotedNumbers(splitter.numbersQuoted, quiet: reporting.quiet)
            if !reporting.quiet {
                let types = tables.filter { $0.type != nil }
                Terminal.standardError("jsonapi: \(types.count) type table\(types.count == 1 ? "" : "s") (\(types.reduce(0) { $0 + $1.rows }) rows) written to \(path)")
            }
        } catch {
            progress.finish()
            var kept: [TableSummary]? = nil
            if keepPartial {
                do {
                    kept = try splitter.finishAfterFailure()
                    try directory.commit()
                } catch let second {
                    kept = nil
                    directory.abandon()
                    Terminal.standardError("jsonapi: could not keep the partial output: \(second.description)")
                }
            } else {
                splitter.abandon()
                directory.abandon()
            }
            warnings.summary()
            if let kept {
                let counts = kept.map { "\($0.file) \($0.rows)" }.joined(separator: ", ")
                Terminal.standardError("jsonapi: kept the whole rows read before the error in \(path) (rows: \(counts))")
            }
            throw report(error.withSourceIfMissing(input.sources.first?.name ?? "-"))
        }
    }
}
