import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream

extension JSONAPIClient {
    /// How a client sends requests and reads responses.
    public struct Configuration: Sendable {
        /// Seconds without a byte before a request fails with
        /// ``JSONAPIClientError/timedOut(url:seconds:attempts:)`` (then retried as
        /// ``retry`` says).
        public var timeout: Double = 60
        /// Seconds a whole response may take, however steadily it arrives.
        public var resourceTimeout: Double = 7 * 24 * 3600
        /// When and how often a failed request is tried again.
        public var retry = RetryPolicy()
        /// Headers sent with every request (before ``prepareRequest`` runs). They are
        /// credentials as far as ``crossOrigin`` is concerned: by default they go only to
        /// the origin of the URL a call was given (a crawl's first page).
        public var headers: [String: String] = [:]
        /// What happens when a redirect or a `links.next` leads to another origin (scheme,
        /// host, port) than the URL a call was given: refused by default. Only `http` and
        /// `https` are ever followed, and never from `https` down to `http`.
        public var crossOrigin = CrossOriginPolicy.refuse
        /// Called before each request is sent (every attempt): add authentication, sign it,
        /// log it. A thrown error fails the call.
        public var prepareRequest: (@Sendable (inout URLRequest) async throws -> Void)?
        /// Called with each response's head (every attempt), on an internal queue: keep it
        /// short.
        public var observeResponse: (@Sendable (ResponseEvent) -> Void)?
        /// Bodies kept for conditional requests (`If-None-Match`); `nil`: none.
        public var cache: ResponseCache? = ResponseCache()
        /// Whether a success served as `application/json` is read as a JSON:API document
        /// (by default only `application/vnd.api+json` is).
        public var acceptsPlainJSON = false
        /// The path of a collection (`id == nil`) or of one resource, relative to the base
        /// URL. By default `TYPE` and `TYPE/ID`, each percent-encoded as a path segment.
        public var resourcePath: @Sendable (_ type: String, _ id: String?) -> String = { type, id in
            let t = pathSegment(type)
            return id.map { "\(t)/\(pathSegment($0))" } ?? t
        }
        /// How response documents are read into graphs (limits, strictness).
        public var documentOptions = DocumentOptions.default
        /// The most bytes of an error response kept for its error document.
        public var maxErrorBodyBytes = 1 << 20
        /// Connections to one host at most (and so requests in flight).
        public var maxConnectionsPerHost = 8

        /// The defaults.
        public init() {}

        var acceptHeader: String {
            acceptsPlainJSON ? "application/vnd.api+json, application/json;q=0.5" : "application/vnd.api+json"
        }
    }
}

/// `text` percent-encoded as one path segment (RFC 3986 pchar).
func pathSegment(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: pathSegmentAllowed) ?? text
}

private let pathSegmentAllowed: CharacterSet = {
    var set = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
    set.insert(charactersIn: "!$&'()*+,;=:@")
    return set
}()
