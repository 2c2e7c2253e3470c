import ArgumentParser
import Foundation
import JSONAPIClient
import JSONAPICommandSupport
import JSONAPILoad
import JSONAPIStream

/// `jsonapi fetch URL`: a JSON:API endpoint, one page or all of them, streamed into the
/// same writers as `normalize`.
///
/// A program of its own (`jsonapi-fetch`, which `jsonapi fetch` runs): only it links
/// FoundationNetworking (libcurl and its TLS and Kerberos libraries, about 8 MB resident at
/// start), so the other commands, `normalize` among them, stay small.
@main
struct Fetch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jsonapi fetch",
        abstract: "Fetch a JSON:API endpoint (every page with --all-pages) as flat JSON, NDJSON or edge lines, or into a database (--into: SQLite or PostgreSQL, resumable).",
        discussion: """
            Each response body streams into the normalizer as it arrives; with --all-pages, \
            links.next is followed and the pages merge in order. Up to --concurrency pages \
            are requested at once when their addresses can be predicted (page[number] or \
            page[offset] and a links.last); cursor pages are read one by one. 429 and 5xx \
            answers are retried (honouring Retry-After). Exit status: 0 success, 1 an \
            invalid document, 2 usage, HTTP or network errors (a JSON:API error document is \
            printed one error object per line).
            """,
        version: JSONAPIVersion.current)

    @Argument(help: "The endpoint (a collection or one resource).")
    var url: String

    @Option(name: .customLong("include"), help: "Relationship paths to include (comma-separated, repeatable).")
    var include: [String] = []

    @Option(name: .customLong("fields"), help: "A sparse fieldset: TYPE=FIELD,FIELD (repeatable).")
    var fields: [String] = []

    @Option(name: .customLong("filter"), help: "A filter: KEY=VALUE, written filter[KEY]=VALUE; KEY may be FIELD, FIELD.OP or FIELD[OP]; commas separate values (repeatable).")
    var filters: [String] = []

    @Option(name: .customLong("sort"), parsing: .unconditionalSingleValue, help: "Sort fields, -FIELD descending (comma-separated, repeatable).")
    var sort: [String] = []

    @Option(name: .customLong("page-size"), help: "Resources per page (page[size], or page[limit] with --pagination offset).")
    var pageSize: Int?

    @Option(help: "The server's page parameters: number (page[number], page[size]), offset (page[offset], page[limit]) or cursor (page[cursor], page[size]).")
    var pagination: PageStrategy = .number

    @Option(name: .customLong("param"), help: "Another query parameter: NAME=VALUE (repeatable).")
    var parameters: [String] = []

    @Flag(name: .customLong("all-pages"), help: "Follow links.next to the last page.")
    var allPages = false

    @Option(name: .customLong("max-pages"), help: "Stop after N pages, with a warning when links.next leads on (implies --all-pages).")
    var maxPages: Int?

    @Option(name: .customLong("page-limit"), help: "The most pages a crawl may read: reaching it while links.next leads on is an error (exit 2), after writing what was read.")
    var pageLimit = 100_000

    @Option(help: "Requests in flight at most.")
    var concurrency = 4

    @Option(name: .customShort("H"), help: "A request header: 'Name: value' (repeatable). Sent only to the URL's origin (scheme, host, port).")
    var headers: [String] = []

    @Flag(name: .customLong("follow-other-origins"), help: "Follow a redirect or links.next to another origin, without the -H headers and cookies (refused by default).")
    var followOtherOrigins = false

    @Flag(name: .customLong("location-trusted"), help: "Follow a redirect or links.next to another origin and send the -H headers there too, as curl --location-trusted does.")
    var locationTrusted = false

    @Option(help: "Seconds without a byte (connecting, or waiting for the next piece of a response) before a request fails.")
    var timeout: Double = 60

    @Flag(
        name: .shortAndLong,
        help: "Log requests, responses, redirects, retries, cache decisions and pages to standard error (-vv: with the headers, credentials redacted).")
    var verbose: Int

    @Option(help: "Seconds one response may take in all, however steadily it arrives (each attempt has its own).")
    var deadline: Double?

    @Option(name: .customLong("cacert"), help: ArgumentHelp("Trust the certificates in this PEM file instead of the system's, as curl --cacert does.", valueName: "file"))
    var caCertificates: String?

    @Option(
        name: .customLong("pinnedpubkey"),
        help: ArgumentHelp(
            "The server's public key must be one of these, as curl --pinnedpubkey writes them: sha256//BASE64[;sha256//BASE64] (the SHA-256 of the SubjectPublicKeyInfo), checked on top of certificate verification.",
            valueName: "hashes"))
    var pinnedPublicKeys: String?

    @Option(help: "Requests per page at most, retries included.")
    var attempts = 4

    @Flag(name: .customLong("accept-json"), help: "Also read application/json responses as JSON:API documents.")
    var acceptJSON = false

    @Option(
        name: .customLong("into"),
        help: ArgumentHelp(
            "Load every page into this database, an SQLite file or a postgres:// URL (as jsonapi load does), resumably: a crawl that stops continues from the first page not loaded when run again.",
            valueName: "db"))
    var into: String?

    @Flag(help: "With --into: start the crawl over from the first page instead of continuing it.")
    var restart = false

    @OptionGroup var parsing: ParsingOptions
    @OptionGroup var reporting: ReportingOptions

    @OptionGroup var out: NormalizeOutputOptions

    func validate() throws {
        guard let u = URL(string: url), let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https", u.host != nil else {
            throw ValidationError("'\(url)' is not an http or https URL")
        }
        if let pageSize, pageSize < 1 { throw ValidationError("--page-size must be at least 1") }
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1") }
        if pageLimit < 1 { throw ValidationError("--page-limit must be at least 1") }
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        guard attempts >= 1 else { throw ValidationError("--attempts must be at least 1") }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
        if let deadline, !(deadline > 0) { throw ValidationError("--deadline must be positive") }
        if let caCertificates, !FileManager.default.isReadableFile(atPath: caCertificates) {
            throw ValidationError("--cacert: cannot read '\(caCertificates)'")
        }
        if let pins = pinnedPublicKeys {
            let hashes = pins.split(separator: ";", omittingEmptySubsequences: false)
            for hash in hashes where !hash.hasPrefix("sha256//") || Data(base64Encoded: String(hash.dropFirst(8)))?.count != 32 {
                throw ValidationError("--pinnedpubkey takes sha256//BASE64 hashes of 32 bytes separated by ';', not '\(hash)'")
            }
            if URL(string: url)?.scheme?.lowercased() != "https" { throw ValidationError("--pinnedpubkey applies to https URLs") }
        }
        try out.check(splitting: false)
        if into != nil {
            if out.output != nil || out.format != nil || out.hash || out.resourcesOnly || !out.types.isEmpty || !out.keepFields.isEmpty || out.numbers != nil {
                throw ValidationError("--into loads a database: -o, --format, --hash, --resources-only, --type, --keep-fields and --numbers do not apply")
            }
        } else if restart {
            throw ValidationError("--restart applies to --into")
        }
        _ = try query()
        _ = try headerFields()
    }

    /// The query the options describe.
    func query() throws -> JSONAPIQuery {
        var q = JSONAPIQuery().including(include.flatMap(Self.list))
        for f in fields {
            guard let (type, names) = Self.pair(f, "=") else { throw ValidationError("--fields takes TYPE=FIELD,FIELD, not '\(f)'") }
            q.setFields(type, Self.list(names))
        }
        for f in filters {
            guard let (key, value) = Self.pair(f, "=") else { throw ValidationError("--filter takes KEY=VALUE, not '\(f)'") }
            q = q.filter(Self.filter(key, values: Self.list(value)))
        }
        q.sort = sort.flatMap(Self.list)
        if let pageSize { q.page = .first(pagination, size: pageSize) }
        for p in parameters {
            guard let (name, value) = Self.pair(p, "=") else { throw ValidationError("--param takes NAME=VALUE, not '\(p)'") }
            q = q.parameter(name, value)
        }
        return q
    }

    func headerFields() throws -> [String: String] {
        var out: [String: String] = [:]
        for h in headers {
            guard let (name, value) = Self.pair(h, ":"), !name.contains(" ") else {
                throw ValidationError("-H takes 'Name: value', not '\(h)'")
            }
            out[name] = value.trimmingCharacters(in: .whitespaces)
        }
        return out
    }

    static func main() { runAsTool() }

    func run() throws {
        if let into { return try crawl(into: into) }
        let warnings = WarningPrinter(quiet: reporting.quiet)
        let file: OutputFile
        do { file = try OutputFile(path: out.output) } catch { throw report(error) }
        let normalizer = out.normalizer(writingTo: file, document: parsing.documentOptions())
        normalizer.onDiagnostic = { warnings.print($0) }

        let client = try makeClient()
        let first = try query().applied(to: URL(string: url)!)
        let following = pageFollowing
        let progress = FetchProgressLine(forced: reporting.progress, quiet: reporting.quiet || verbose > 0)
        // Whole pages reach the output as they end: nothing read is held back until the crawl ends.
        let bound = Unchecked(PageFlushingConsumer(normalizer: normalizer, writer: file.writer, flushes: out.outputFormat != .json))

        let outcome = Self.wait {
            try await client.fetch(first, pages: following, into: bound.value) { progress.update($0) }
        }
        progress.finish()
        do {
            let fetched = try outcome.get()
            try normalizer.finish()
            try file.commit()
            warnings.summary()
            out.reportQuotedNumbers(of: normalizer, quiet: reporting.quiet)
            try checkLimits(fetched)
        } catch let code as ExitCode {
            throw code
        } catch {
            file.abandon()
            warnings.summary()
            throw Self.reportFailure(error, recordsWritten: out.recordsWritten(by: normalizer, to: file))
        }
    }

    /// The crawl's limits: an error at the page limit, a warning at --max-pages.
    func checkLimits(_ fetched: FetchReport) throws {
        if fetched.truncated && fetched.pages >= pageLimit && (maxPages ?? .max) > pageLimit {
            Terminal.standardError(
                "jsonapi: error: stopped at the page limit, \(pageLimit) page\(pageLimit == 1 ? "" : "s"), while links.next "
                    + "leads on (what was read is written); --page-limit N raises it, --max-pages N stops there on purpose")
            throw ExitCode(2)
        }
        if fetched.truncated && !reporting.quiet {
            Terminal.standardError("jsonapi: warning: stopped after \(fetched.pages) page\(fetched.pages == 1 ? "" : "s") (--max-pages); links.next leads on")
        }
    }

    var pageFollowing: PageFollowing {
        allPages || maxPages != nil
            ? PageFollowing.all(maxPages: min(maxPages ?? .max, pageLimit), concurrency: concurrency)
            : PageFollowing.first
    }

    /// The client the options describe.
    func makeClient() throws -> JSONAPIClient {
        var configuration = JSONAPIClient.Configuration()
        configuration.headers = try headerFields()
        configuration.timeout = timeout
        if verbose > 0 { configuration.logger = StandardErrorLog.logger(verbosity: verbose) }
        if let deadline { configuration.resourceTimeout = deadline }
        configuration.tls.certificateAuthorities = caCertificates
        if let pinnedPublicKeys { configuration.tls.pinnedPublicKeys = ["*": pinnedPublicKeys] }
        configuration.retry.maxAttempts = attempts
        configuration.acceptsPlainJSON = acceptJSON
        configuration.cache = nil
        configuration.maxConnectionsPerHost = concurrency
        configuration.crossOrigin = locationTrusted ? .followWithCredentials : followOtherOrigins ? .followWithoutCredentials : .refuse
        guard let endpoint = URL(string: url) else { throw ValidationError("'\(url)' is not a URL") }
        return JSONAPIClient(baseURL: endpoint, configuration: configuration)
    }

    /// `--into DB`: every page loaded into the database in its own transaction, with the
    /// crawl's place (`_crawls`), so that the same command continues where a stopped one left.
    func crawl(into database: String) throws {
        let warnings = WarningPrinter(quiet: reporting.quiet)
        let client = try makeClient()
        let first = try query().applied(to: URL(string: url)!)
        let loader: any DatabaseLoader
        let state: CrawlState
        do {
            loader = try openDatabaseLoader(database)
            state = try loader.beginCrawl(endpoint: first, restart: restart)
        } catch {
            throw report(error)
        }
        var start = first
        if !restart, !state.isComplete, let next = state.next, let resume = URL(string: next) {
            start = resume
            if !reporting.quiet {
                Terminal.standardError("jsonapi: continuing the crawl of \(state.endpoint) after \(state.pages) page\(state.pages == 1 ? "" : "s"), at \(next)")
            }
        }
        let consumer = Unchecked(LoadingConsumer(loader: loader, options: parsing.documentOptions(), revalidates: !restart))
        consumer.value.stream.onDiagnostic = { warnings.print($0) }
        let progress = FetchProgressLine(forced: reporting.progress, quiet: reporting.quiet || verbose > 0)
        let following = pageFollowing
        let from = start
        let outcome = Self.wait {
            try await client.fetch(from, pages: following, into: consumer.value) { progress.update($0) }
        }
        progress.finish()
        do {
            let fetched = try outcome.get()
            try consumer.value.stream.finish()
            let summary = try loader.finish()
            warnings.summary()
            if !reporting.quiet {
                let unchanged = fetched.notModified > 0 ? " (\(fetched.notModified) unchanged since they were loaded: 304 to their ETags)" : ""
                Terminal.standardError(
                    "jsonapi: loaded \(fetched.pages) page\(fetched.pages == 1 ? "" : "s")\(unchanged) into \(redactedDatabaseName(database)): "
                        + "\(summary.resources) resources (\(summary.written) written, \(summary.unchanged) unchanged), \(summary.edges) edge\(summary.edges == 1 ? "" : "s")"
                        + (fetched.truncated ? "; the crawl goes on from there when run again" : "; the crawl is complete"))
            }
            try checkLimits(fetched)
        } catch let code as ExitCode {
            throw code
        } catch {
            consumer.value.stream.abandon()
            loader.abandon()
            warnings.summary()
            let code = Self.reportFailure(error, recordsWritten: nil)
            Terminal.standardError("jsonapi: the pages loaded before the error stay; the same command continues from the page that failed")
            throw code
        }
    }

    /// Prints a failure and returns its exit code: 1 for an invalid document, 2 for the rest.
    static func reportFailure(_ error: Error, recordsWritten: Int?) -> ExitCode {
        let suffix = recordsWritten.map { "; \($0) record\($0 == 1 ? " was" : "s were") written before the error" } ?? ""
        switch error {
        case let e as JSONAPIError:
            return report(e, recordsWritten: recordsWritten)
        case JSONAPIClientError.invalidDocument(let url, let e), JSONAPIClientError.consumer(let url, let e):
            return report(e.withSourceIfMissing(url.absoluteString), recordsWritten: recordsWritten)
        case JSONAPIClientError.refusedLocation(let from, let to, let what, let reason):
            var hint = ""
            if case .otherOrigin = reason {
                hint = " (--follow-other-origins follows it without the -H headers, --location-trusted sends them there too)"
            }
            Terminal.standardError("jsonapi: error: not following \(to) from \(from.absoluteString): \(what) \(reason)\(hint)\(suffix)")
            return ExitCode(2)
        case JSONAPIClientError.server(let e):
            Terminal.standardError("jsonapi: error: HTTP \(e.status) from \(e.method) \(e.url.absoluteString)\(e.attempts > 1 ? " after \(e.attempts) attempts" : "")\(suffix)")
            for object in e.errors { Terminal.standardError("jsonapi: error: \(object)") }
            return ExitCode(2)
        default:
            Terminal.standardError("jsonapi: error: \(error)\(suffix)")
            return ExitCode(2)
        }
    }

    /// Runs `operation` on the concurrency runtime and blocks this thread until it ends.
    static func wait<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) -> Result<T, Error> {
        let box = Unchecked<Result<T, Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.value = .success(try await operation()) } catch { box.value = .failure(error) }
            done.signal()
        }
        done.wait()
        return box.value ?? .failure(CancellationError())
    }

    // MARK: Option parsing

    static func list(_ text: String) -> [String] {
        text.split(separator: ",", omittingEmptySubsequences: true).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func pair(_ text: String, _ separator: Character) -> (String, String)? {
        guard let i = text.firstIndex(of: separator), i != text.startIndex else { return nil }
        return (String(text[..<i]), String(text[text.index(after: i)...]))
    }

    /// `FIELD[OP]` becomes field and operator; `FIELD` and `FIELD.OP` stay one name.
    static func filter(_ key: String, values: [String]) -> Filter {
        if key.hasSuffix("]"), let open = key.firstIndex(of: "["), open != key.startIndex {
            let op = key[key.index(after: open)..<key.index(before: key.endIndex)]
            if !op.isEmpty && !op.contains("[") { return Filter(String(key[..<open]), op: String(op), values) }
        }
        return Filter(key, values)
    }
}

/// A value used by one side at a time (the normalizer: by the fetch while it runs, by this
/// thread after it has ended).
final class Unchecked<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

extension PageStrategy: ExpressibleByArgument {}
