import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONAPICommandSupport
import JSONAPILoad
import JSONAPIStream

struct Load: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Load JSON:API documents into SQLite or PostgreSQL: a table per type, with relationships, linkage and documents beside them.",
        discussion: """
            DB is an SQLite file, created when missing, or a PostgreSQL URL \
            (postgresql://USER@HOST:PORT/DATABASE; libpq's PG* variables and ~/.pgpass apply). Each document is loaded in one \
            transaction (--single-transaction: the whole run), so a document that fails half-way \
            leaves nothing of itself. A resource already in the database is merged member by member \
            (--on-duplicate); one whose content is unchanged is not written again, so loading the \
            same documents twice changes nothing. docs/database-loading.md describes the tables.

            With --workers N (2 or more), inputs of many documents are parsed by N workers \
            while the database is written from this thread, in input order, with the same \
            rows, warnings and first error as one reader. The default is one reader (parsing \
            on a second thread): the database's writes take most of a load.
            """)

    @Argument(help: "The database: an SQLite file path, or a postgres:// or postgresql:// URL.")
    var database: String

    @OptionGroup var input: InputOptions
    @OptionGroup var parsing: ParsingOptions
    @OptionGroup var workers: WorkerOptions
    @OptionGroup var reporting: ReportingOptions

    @Option(name: .customLong("on-duplicate"), help: "A resource already loaded: last (newer members win), first (stored members win) or error (refuse one read twice in this run).")
    var onDuplicate: DuplicatePolicy = .last

    @Flag(name: .customLong("single-transaction"), help: "Load everything in one transaction: nothing is kept unless every document loads.")
    var singleTransaction = false

    @Option(name: .customLong("max-columns"), help: "Attribute columns per table; further attributes go to the _overflow JSON column.")
    var maxColumns = 1000

    func validate() throws {
        guard (1...1500).contains(maxColumns) else { throw ValidationError("--max-columns must be between 1 and 1500") }
    }

    func run() throws {
        var options = LoadOptions()
        options.onDuplicate = onDuplicate
        options.singleTransaction = singleTransaction
        options.maxColumns = maxColumns
        let warnings = WarningPrinter(quiet: reporting.quiet)
        let progress = ProgressLine(forced: reporting.progress, quiet: reporting.quiet)
        let sources = input.sources
        let summary: LoadSummary
        do {
            defer { progress.finish() }
            let load = isPostgresURL(database) ? PostgresLoader.load : SQLiteLoader.load
            summary = try load(sources, database, options, warnings.applied(to: workers.applied(to: parsing.documentOptions())), input.chunkSize, warnings.print) { source, bytes, resources in
                progress.totalBytes = source.knownSize
                progress.update(bytes: bytes, resources: resources)
            }
        } catch {
            let code = report(error.withSourceIfMissing(sources.first?.name ?? "-"))
            if error.diagnostic != nil {
                Terminal.standardError(
                    singleTransaction
                        ? "jsonapi: nothing was loaded (--single-transaction)"
                        : "jsonapi: the document with the error was not loaded; the documents before it were")
            }
            throw code
        }
        warnings.summary()
        guard !reporting.quiet else { return }
        Terminal.standardError(
            "jsonapi: loaded \(summary.documents) document\(summary.documents == 1 ? "" : "s") into \(redactedDatabaseName(database)): "
                + "\(summary.resources) resources (\(summary.written) written, \(summary.unchanged) unchanged), \(summary.edges) edge\(summary.edges == 1 ? "" : "s")")
        for (table, n) in summary.resourcesByTable.sorted(by: { $0.key < $1.key }) {
            Terminal.standardError("  \(table): \(n)")
        }
        for w in summary.widened { Terminal.standardError("jsonapi: widened \(w)") }
    }
}
