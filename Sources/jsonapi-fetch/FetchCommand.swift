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
        commandName: "jsonapi fetch", abstract: FetchOptions.abstract, discussion: FetchOptions.discussion,
        version: JSONAPIVersion.current)

    @OptionGroup var options: FetchOptions

    func validate() throws { _ = try options.query() }

    static func main() { runAsTool() }

    func run() throws { try options.run() }
}

extension FetchOptions {

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
        if let pageSize { q.page = .first(PageStrategy(rawValue: pagination.rawValue) ?? .number, size: pageSize) }
        for p in parameters {
            guard let (name, value) = Self.pair(p, "=") else { throw ValidationError("--param takes NAME=VALUE, not '\(p)'") }
            q = q.parameter(name, value)
        }
        return q
    }

    func run() throws {
        if let into { return try crawl(into: into) }
        let warnings = WarningPrinter(quiet: reporting.quiet)
        let file: OutputFile
        do { file = try OutputFile(path: out.output) } catch { throw report(error) }
        let normalizer = out.normalizer(writingTo: file, document: warnings.applied(to: parsing.documentOptions()))
        normalizer.onDiagnostic = warnings.handler

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
            ? PageFollowing.all(maxPages: min(maxPages ?? .max, pageLimit), concurrency: concurrency, backwards: backwards)
            : PageFollowing.first
    }

    /// The client the options describe.
    func makeClient() throws -> JSONAPIClient {
        var configuration = JSONAPIClient.Configuration()
        configuration.headers = try headerFields()
        configuration.timeout = timeout
        if verbose > 0 || !reporting.quiet { configuration.logger = StandardErrorLog.logger(verbosity: verbose) }
        if let deadline { configuration.resourceTimeout = deadline }
        configuration.tls.certificateAuthorities = caCertificates
        if let pinnedPublicKeys { configuration.tls.pinnedPublicKeys = ["*": pinnedPublicKeys] }
        configuration.retry.maxAttempts = attempts
        configuration.acceptsPlainJSON = acceptJSON
        configuration.cache = nil
        if let cacheDirectory {
            do {
                configuration.cache = try ResponseCache(directory: URL(fileURLWithPath: cacheDirectory), maxBytes: cacheSize << 20)
            } catch {
                throw ValidationError("--cache: cannot use '\(cacheDirectory)' as a cache directory: \(error.localizedDescription)")
            }
            switch cachePolicy {
            case .use: configuration.cachePolicy = cacheLifetime.map { .lifetime($0) } ?? .useCache
            case .bypass: configuration.cachePolicy = .bypassCache
            case .onlyIfCached: configuration.cachePolicy = .onlyIfCached
            }
        }
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
        let consumer = Unchecked(LoadingConsumer(loader: loader, options: warnings.applied(to: parsing.documentOptions()), revalidates: !restart))
        consumer.value.stream.onDiagnostic = warnings.handler
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
                let cached = fetched.fromCache > 0 ? " (\(fetched.fromCache) answered by the cache)" : ""
                Terminal.standardError(
                    "jsonapi: loaded \(fetched.pages) page\(fetched.pages == 1 ? "" : "s")\(unchanged)\(cached) into \(redactedDatabaseName(database)): "
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
