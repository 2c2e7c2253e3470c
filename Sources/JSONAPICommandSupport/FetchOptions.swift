import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The options of `jsonapi fetch`, shared by the `jsonapi-fetch` program (which runs the
/// fetch) and the `jsonapi fetch` subcommand (which checks them, offers them to shell
/// completion and help, and runs `jsonapi-fetch` with them), so both know every option.
package struct FetchOptions: ParsableArguments {
    package init() {}

    /// The command's abstract.
    package static let abstract =
        "Fetch a JSON:API endpoint (every page with --all-pages) as flat JSON, NDJSON or edge lines, or into a database (--into: SQLite or PostgreSQL, resumable)."

    /// The command's discussion.
    package static let discussion = """
        Each response body streams into the normalizer as it arrives (parsed while it \
        downloads, one page at a time: normalize's --workers does not apply); with --all-pages, \
        links.next is followed and the pages merge in order. Up to --concurrency pages \
        are requested at once when their addresses can be predicted (page[number] or \
        page[offset] and a links.last); cursor pages are read one by one. 429 and 5xx \
        answers are retried (honouring Retry-After). Exit status: 0 success, 1 an \
        invalid document, 2 usage, HTTP or network errors (a JSON:API error document is \
        printed one error object per line).
        """

    @Argument(help: "The endpoint (a collection or one resource).")
    package var url: String

    @Option(name: .customLong("include"), help: "Relationship paths to include (comma-separated, repeatable).")
    package var include: [String] = []

    @Option(name: .customLong("fields"), help: "A sparse fieldset: TYPE=FIELD,FIELD (repeatable).")
    package var fields: [String] = []

    @Option(name: .customLong("filter"), help: "A filter: KEY=VALUE, written filter[KEY]=VALUE; KEY may be FIELD, FIELD.OP or FIELD[OP]; commas separate values (repeatable).")
    package var filters: [String] = []

    @Option(name: .customLong("sort"), parsing: .unconditionalSingleValue, help: "Sort fields, -FIELD descending (comma-separated, repeatable).")
    package var sort: [String] = []

    @Option(name: .customLong("page-size"), help: "Resources per page (page[size], or page[limit] with --pagination offset).")
    package var pageSize: Int?

    @Option(
        help:
            "The server's page parameters: number (page[number], page[size]), offset (page[offset], page[limit]), cursor (page[cursor], page[size]) or cursor-profile (the Cursor Pagination profile: page[size], then page[after] or page[before] from the links)."
    )
    package var pagination: FetchPagination = .number

    @Option(name: .customLong("param"), help: "Another query parameter: NAME=VALUE (repeatable).")
    package var parameters: [String] = []

    @Flag(name: .customLong("all-pages"), help: "Follow links.next to the last page.")
    package var allPages = false

    @Option(name: .customLong("max-pages"), help: "Stop after N pages, with a warning when links.next leads on (implies --all-pages).")
    package var maxPages: Int?

    @Flag(help: "Follow links.prev instead of links.next (a cursor-paginated collection read backwards from a page[before]).")
    package var backwards = false

    @Option(name: .customLong("page-limit"), help: "The most pages a crawl may read: reaching it while links.next leads on is an error (exit 2), after writing what was read.")
    package var pageLimit = 100_000

    @Option(help: "Requests in flight at most.")
    package var concurrency = 4

    @Option(name: .customShort("H"), help: "A request header: 'Name: value' (repeatable). Sent only to the URL's origin (scheme, host, port).")
    package var headers: [String] = []

    @Flag(name: .customLong("follow-other-origins"), help: "Follow a redirect or links.next to another origin, without the -H headers and cookies (refused by default).")
    package var followOtherOrigins = false

    @Flag(name: .customLong("location-trusted"), help: "Follow a redirect or links.next to another origin and send the -H headers there too, as curl --location-trusted does.")
    package var locationTrusted = false

    @Option(help: "Seconds without a byte (connecting, or waiting for the next piece of a response) before a request fails.")
    package var timeout: Double = 60

    @Flag(
        name: .shortAndLong,
        help: "Log requests, responses, redirects, retries, cache decisions and pages to standard error (-vv: with the headers, credentials redacted).")
    package var verbose: Int

    @Option(help: "Seconds one response may take in all, however steadily it arrives (each attempt has its own).")
    package var deadline: Double?

    @Option(name: .customLong("cacert"), help: ArgumentHelp("Trust the certificates in this PEM file instead of the system's, as curl --cacert does.", valueName: "file"))
    package var caCertificates: String?

    @Option(
        name: .customLong("pinnedpubkey"),
        help: ArgumentHelp(
            "The server's public key must be one of these, as curl --pinnedpubkey writes them: sha256//BASE64[;sha256//BASE64] (the SHA-256 of the SubjectPublicKeyInfo), checked on top of certificate verification.",
            valueName: "hashes"))
    package var pinnedPublicKeys: String?

    @Option(help: "Requests per page at most, retries included.")
    package var attempts = 4

    @Option(
        name: .customLong("cache"),
        help: ArgumentHelp(
            "Keep responses in this directory and reuse them as HTTP caching allows: fresh ones (Cache-Control: max-age, Expires) without a request, stale ones revalidated with their ETag or Last-Modified. Kept apart by credentials (-H Authorization, cookies) and Vary.",
            valueName: "dir"))
    package var cacheDirectory: String?

    @Option(name: .customLong("cache-policy"), help: "With --cache: use it (default), bypass it (ask the server; store the answer), or only-if-cached (no request; an error for a page not stored).")
    package var cachePolicy: FetchCachePolicy = .use

    @Option(
        name: .customLong("cache-lifetime"),
        help: ArgumentHelp("With --cache: a stored response this many seconds old or younger is fresh, whatever its headers say.", valueName: "seconds"))
    package var cacheLifetime: Double?

    @Option(name: .customLong("cache-size"), help: ArgumentHelp("With --cache: MiB the directory holds at most (the least recently used go first).", valueName: "MiB"))
    package var cacheSize = 1024

    @Flag(name: .customLong("accept-json"), help: "Also read application/json responses as JSON:API documents.")
    package var acceptJSON = false

    @Option(
        name: .customLong("into"),
        help: ArgumentHelp(
            "Load every page into this database, an SQLite file or a postgres:// URL (as jsonapi load does), resumably: a crawl that stops continues from the first page not loaded when run again.",
            valueName: "db"))
    package var into: String?

    @Flag(help: "With --into: start the crawl over from the first page instead of continuing it.")
    package var restart = false

    @OptionGroup package var parsing: ParsingOptions
    @OptionGroup package var reporting: ReportingOptions

    @OptionGroup package var out: NormalizeOutputOptions

    package func validate() throws {
        guard let u = URL(string: url), let scheme = u.scheme?.lowercased(), scheme == "http" || scheme == "https", u.host != nil else {
            throw ValidationError("'\(url)' is not an http or https URL")
        }
        if let pageSize, pageSize < 1 { throw ValidationError("--page-size must be at least 1") }
        if let maxPages, maxPages < 1 { throw ValidationError("--max-pages must be at least 1") }
        if pageLimit < 1 { throw ValidationError("--page-limit must be at least 1") }
        if backwards && !allPages && maxPages == nil { throw ValidationError("--backwards goes with --all-pages or --max-pages") }
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
        if cacheDirectory == nil && (cachePolicy != .use || cacheLifetime != nil) {
            throw ValidationError("--cache-policy and --cache-lifetime apply to --cache DIR")
        }
        if let cacheLifetime {
            guard cacheLifetime >= 0 else { throw ValidationError("--cache-lifetime must not be negative") }
            guard cachePolicy == .use else { throw ValidationError("--cache-lifetime goes with --cache-policy use") }
        }
        guard cacheSize >= 1 else { throw ValidationError("--cache-size must be at least 1 (MiB)") }
        try out.check(splitting: false)
        if into != nil {
            if out.output != nil || out.format != nil || out.hash || out.resourcesOnly || !out.types.isEmpty || !out.keepFields.isEmpty || out.numbers != nil {
                throw ValidationError("--into loads a database: -o, --format, --hash, --resources-only, --type, --keep-fields and --numbers do not apply")
            }
        } else if restart {
            throw ValidationError("--restart applies to --into")
        }
        _ = try headerFields()
        for f in fields where Self.pair(f, "=") == nil { throw ValidationError("--fields takes TYPE=FIELD,FIELD, not '\(f)'") }
        for f in filters where Self.pair(f, "=") == nil { throw ValidationError("--filter takes KEY=VALUE, not '\(f)'") }
        for p in parameters where Self.pair(p, "=") == nil { throw ValidationError("--param takes NAME=VALUE, not '\(p)'") }
    }

    package func headerFields() throws -> [String: String] {
        var out: [String: String] = [:]
        for h in headers {
            guard let (name, value) = Self.pair(h, ":"), !name.contains(" ") else {
                throw ValidationError("-H takes 'Name: value', not '\(h)'")
            }
            out[name] = value.trimmingWhitespace()
        }
        return out
    }

    package static func list(_ text: String) -> [String] {
        text.split(separator: ",", omittingEmptySubsequences: true).map { $0.trimmingWhitespace() }
    }

    package static func pair(_ text: String, _ separator: Character) -> (String, String)? {
        guard let i = text.firstIndex(of: separator), i != text.startIndex else { return nil }
        return (String(text[..<i]), String(text[text.index(after: i)...]))
    }

    /// `FIELD[OP]` becomes field and operator; `FIELD` and `FIELD.OP` stay one name.
}

/// How `--cache` is used (`--cache-policy`).
package enum FetchCachePolicy: String, CaseIterable, ExpressibleByArgument, Sendable {
    case use, bypass
    case onlyIfCached = "only-if-cached"
}

/// The server's page parameters (`--pagination`).
package enum FetchPagination: String, CaseIterable, ExpressibleByArgument, Sendable {
    case number, offset, cursor
    case cursorProfile = "cursor-profile"
}
