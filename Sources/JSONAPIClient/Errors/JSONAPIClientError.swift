import Foundation
import JSONAPIStream

/// What a request to a JSON:API server can fail with. Cancellation is not one of them: a
/// cancelled task throws `CancellationError`.
public enum JSONAPIClientError: Error, Sendable, CustomStringConvertible {
    /// The server answered with a JSON:API error document (`{"errors":[…]}`).
    case server(ServerError)
    /// The server answered with an HTTP error status and a body that is no JSON:API error
    /// document (an HTML error page, plain text, nothing).
    case http(HTTPFailure)
    /// A success status, but the body is not a JSON:API document: another content type
    /// (`text/html` from a login page or a proxy), or no body where one was expected.
    case notJSONAPI(HTTPFailure)
    /// The response body is not a valid JSON:API document (syntax, a limit, or a rule).
    case invalidDocument(url: URL, error: JSONAPIError)
    /// The consumer failed for another reason than the document (writing its output, a
    /// temporary file for a page fetched ahead).
    case consumer(url: URL, error: JSONAPIError)
    /// No byte arrived for `seconds` (``JSONAPIClient/Configuration/timeout``).
    case timedOut(url: URL, seconds: Double, attempts: Int)
    /// A response took longer than `seconds` in all, however steadily it arrived
    /// (``JSONAPIClient/Configuration/resourceTimeout``, `jsonapi fetch --deadline`).
    case deadlineExceeded(url: URL, seconds: Double, attempts: Int)
    /// The request could not be sent or the connection broke (refused, reset, DNS…).
    case transport(url: URL, message: String, attempts: Int)
    /// A ``ResponseProcessor`` (named `processor`) kept asking for the request again until no
    /// attempt was left.
    case rejected(url: URL, processor: String, reason: String)
    /// A request document was refused before it was sent (rules C01–C03), or a URL could
    /// not be built.
    case invalidRequest(String)
    /// `links.next` led somewhere it should not (a page seen before).
    case pagination(String)
    /// `what` (a redirect, or `links.next` of a page) from `from` to `to` was not followed,
    /// for `reason`: a scheme other than `http`/`https`, a step down from `https` to `http`,
    /// or another origin under ``CrossOriginPolicy/refuse``
    /// (``JSONAPIClient/Configuration/crossOrigin``).
    case refusedLocation(from: URL, to: String, what: String, reason: LocationRefusal)
    /// The cache could not answer a request that only the cache may answer
    /// (``CachePolicy/onlyIfCached``, `jsonapi fetch --cache-policy only-if-cached`): nothing
    /// is stored for it, or what is stored is stale and must be revalidated.
    case notCached(url: URL, reason: String)

    /// The HTTP status of the response, when there was one.
    public var status: Int? {
        switch self {
        case .server(let e): e.status
        case .http(let f), .notJSONAPI(let f): f.status
        default: nil
        }
    }

    /// The error objects of a JSON:API error document (empty for other failures).
    public var errorObjects: [ErrorObject] {
        if case .server(let e) = self { return e.errors }
        return []
    }

    /// The Cursor Pagination profile's errors among ``errorObjects``
    /// (``JSONAPIStream/CursorPaginationError``).
    public var cursorPaginationErrors: [CursorPaginationError] { errorObjects.compactMap(\.cursorPaginationError) }

    public var description: String {
        switch self {
        case .server(let e): return e.description
        case .http(let f): return "HTTP \(f.status) from \(f.method) \(f.url.absoluteString)\(f.attemptsText)\(f.excerptText)\(retryAfterText(f.retryAfter))"
        case .notJSONAPI(let f):
            let type = f.contentType.map { "a \($0) response" } ?? "a response without a content type"
            return "\(f.method) \(f.url.absoluteString) gave \(type) (HTTP \(f.status)), not a JSON:API document (application/vnd.api+json)\(f.excerptText)"
        case .invalidDocument(let url, let error):
            return error.withSourceIfMissing(url.absoluteString).diagnostic?.compilerStyle ?? "\(url.absoluteString): \(error)"
        case .consumer(let url, let error): return "while reading \(url.absoluteString): \(error.description)"
        case .timedOut(let url, let seconds, let attempts):
            return "no response from \(url.absoluteString) for \(Self.format(seconds)) s (timed out\(attempts > 1 ? " after \(attempts) attempts" : ""))"
        case .deadlineExceeded(let url, let seconds, let attempts):
            return "\(url.absoluteString) took longer than the deadline of \(Self.format(seconds)) s\(attempts > 1 ? " (after \(attempts) attempts)" : "")"
        case .transport(let url, let message, let attempts):
            return "cannot reach \(url.absoluteString): \(message)\(attempts > 1 ? " (after \(attempts) attempts)" : "")"
        case .rejected(let url, let processor, let reason): return "\(url.absoluteString): the response processor \(processor) \(reason)"
        case .invalidRequest(let m): return "invalid request: \(m)"
        case .notCached(let url, let reason): return "\(url.absoluteString) is not answered from the cache (only-if-cached): \(reason)"
        case .pagination(let m): return "pagination: \(m)"
        case .refusedLocation(let from, let to, let what, let reason):
            var text = "not following \(to) from \(from.absoluteString): \(what) \(reason)"
            if case .otherOrigin = reason { text += "; the client's crossOrigin policy refuses it" }
            return text
        }
    }

    /// A consumer's failure on the body of `url`.
    static func consuming(_ error: JSONAPIError, url: URL) -> JSONAPIClientError {
        switch error {
        case .syntax, .document: .invalidDocument(url: url, error: error)
        case .input, .misuse: .consumer(url: url, error: error)
        }
    }

    /// This failure, noting that the server asked to retry after `seconds`, more than
    /// `limit` (``RetryPolicy/maxRetryAfter``) allows.
    func refusingRetryAfter(_ seconds: Double, limit: Double) -> JSONAPIClientError {
        switch self {
        case .server(var e):
            e.retryAfter = seconds
            e.maxRetryAfter = limit
            return .server(e)
        case .http(var f):
            f.retryAfter = seconds
            f.maxRetryAfter = limit
            return .http(f)
        default: return self
        }
    }

    private func retryAfterText(_ seconds: Double?) -> String {
        guard let seconds, case .http(let f) = self else { return "" }
        return Self.retryAfterNote(seconds, limit: f.maxRetryAfter)
    }

    static func retryAfterNote(_ seconds: Double, limit: Double) -> String {
        "; not retried: the server asked to wait \(format(seconds)) s (Retry-After), more than the \(format(limit)) s allowed (RetryPolicy.maxRetryAfter)"
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.1f", seconds)
    }
}

/// A JSON:API error document received with an HTTP error status.
public struct ServerError: Sendable, CustomStringConvertible {
    /// The HTTP status of the response.
    public var status: Int
    /// The request's method.
    public var method: String
    /// The URL the response came from.
    public var url: URL
    /// The error objects, in document order.
    public var errors: [ErrorObject]
    /// Requests made, retries included.
    public var attempts: Int
    /// The wait the server asked for (`Retry-After`, in seconds) when it was longer than
    /// ``RetryPolicy/maxRetryAfter`` allows, so that no retry was made.
    public var retryAfter: Double?
    var maxRetryAfter: Double = 0

    public var description: String {
        let list = errors.map(\.description).joined(separator: "; ")
        let note = retryAfter.map { JSONAPIClientError.retryAfterNote($0, limit: maxRetryAfter) } ?? ""
        return "HTTP \(status) from \(method) \(url.absoluteString)\(attempts > 1 ? " after \(attempts) attempts" : ""): \(list)\(note)"
    }
}

/// An HTTP response that is not what was asked for.
public struct HTTPFailure: Sendable {
    /// The HTTP status of the response.
    public var status: Int
    /// The request's method.
    public var method: String
    /// The URL the response came from.
    public var url: URL
    /// The response's `Content-Type`, when it had one.
    public var contentType: String?
    /// The start of the body (at most 512 bytes), for the message.
    public var excerpt: String
    /// Requests made, retries included.
    public var attempts: Int
    /// The wait the server asked for (`Retry-After`, in seconds) when it was longer than
    /// ``RetryPolicy/maxRetryAfter`` allows, so that no retry was made.
    public var retryAfter: Double?
    var maxRetryAfter: Double = 0

    var attemptsText: String { attempts > 1 ? " after \(attempts) attempts" : "" }

    var excerptText: String {
        let oneLine = excerpt.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
        return oneLine.isEmpty ? "" : ": \(oneLine.prefix(200))"
    }
}
