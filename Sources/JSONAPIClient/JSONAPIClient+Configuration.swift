import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Logging

extension JSONAPIClient {
    /// How a client sends requests and reads responses.
    public struct Configuration: Sendable {
        /// Seconds without a byte (connecting, or waiting for the next piece of a response)
        /// before a request fails with ``JSONAPIClientError/timedOut(url:seconds:attempts:)``
        /// (then retried as ``retry`` says).
        public var timeout: Double = 60
        /// Seconds one response may take, from sending its request to its body's last byte,
        /// however steadily it arrives (time a slow consumer keeps the transfer paused
        /// counts too): ``JSONAPIClientError/deadlineExceeded(url:seconds:attempts:)`` after.
        /// Each attempt has its own.
        public var resourceTimeout: Double = 7 * 24 * 3600
        /// What sends the requests; `nil`: ``JSONAPIClient/defaultTransport(_:)``
        /// (``CurlTransport`` on Linux, ``URLSessionTransport`` on Apple platforms), built
        /// from ``maxConnectionsPerHost`` and ``tls``.
        public var transport: (any HTTPTransport)?
        /// Trust anchors and pinned public keys for the default transport.
        public var tls = TLSOptions()
        /// When and how often a failed request is tried again.
        public var retry = RetryPolicy()
        /// Headers sent with every request (before ``requestPreparers`` and ``prepareRequest``
        /// run; an `Accept` here replaces the client's own). They are
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
        /// Steps every request goes through, in order, before ``prepareRequest`` (every
        /// attempt; a thrown error fails the call with that error). The cache is asked after
        /// them (the credentials and `Vary` headers they set choose the entry): they do not
        /// see the validators it adds.
        public var requestPreparers: [RequestPreparer] = []
        /// Steps every final response goes through, in order, before its body is read: each
        /// can change it, have it asked for again, or refuse it with an error of yours.
        public var responseProcessors: [ResponseProcessor] = []
        /// Headers and query parameters every request to the call's origin gets when it does
        /// not have them already (after ``headers``).
        public var defaults = RequestDefaults()
        /// Defaults by method (`GET`, `POST`, `PATCH`, `DELETE`), applied before ``defaults``.
        public var methodDefaults: [String: RequestDefaults] = [:]
        /// Where the client says what it does, through swift-log: each request (`debug`; its
        /// headers at `trace`, credentials redacted), response and redirect (`debug`), cache
        /// decision (`debug`), retry (`notice`), page of a crawl (`info`) and what looks
        /// wrong but is not an error (`warning`: a server that ignored a client-generated
        /// id). By default a logger that drops everything.
        public var logger = Logger(label: "JSONAPIClient", factory: { _ in SwiftLogNoOpLogHandler() })
        /// Called with each response's head (every attempt), on an internal queue: keep it
        /// short.
        public var observeResponse: (@Sendable (ResponseEvent) -> Void)?
        /// Resources ``JSONAPIClient/load(type:id:query:)`` keeps at most; `0`: none.
        public var identityCacheLimit = 1000
        /// Responses kept for reuse (fresh hits without a request, revalidation with
        /// `If-None-Match`); `nil`: none. By default 32 MiB in memory; a
        /// ``ResponseCache/init(directory:maxBytes:maxEntryBytes:maxEntries:defaultLifetime:)``
        /// keeps them on disk.
        public var cache: ResponseCache? = ResponseCache()
        /// How requests use ``cache`` (``JSONAPIClient/withCachePolicy(_:_:)`` overrides it
        /// for the calls in a closure).
        public var cachePolicy = CachePolicy.useCache
        /// The key a `GET` is cached under; `nil` from it: not cached. By default its URL.
        /// Leave out what does not change the response (a tracing parameter), or add what
        /// does and is not in the URL.
        public var cacheKey: (@Sendable (URLRequest) -> String?)?
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
        /// Requests in flight to one origin at most (more wait in the client's queue), and the
        /// default transport's connections to one host.
        public var maxConnectionsPerHost = 8
        /// Requests in flight at most, to all origins (more wait in the client's queue,
        /// started by the priority of the task that made them).
        public var maxRequestsInFlight = 64

        /// The defaults.
        public init() {}

        var acceptHeader: String {
            acceptsPlainJSON ? "application/vnd.api+json, application/json;q=0.5" : "application/vnd.api+json"
        }
    }
}

extension JSONAPIClient {
    /// How the default transport verifies servers, on top of normal certificate verification.
    public struct TLSOptions: Sendable, Equatable {
        /// A PEM file of certificates to trust instead of the system's (curl's `--cacert`).
        public var certificateAuthorities: String?
        /// Public keys to pin, by host name (`*`: every host), as curl's `--pinnedpubkey`
        /// writes them: `sha256//BASE64` hashes of the SubjectPublicKeyInfo, separated by
        /// `;`. Needs ``CurlTransport``.
        public var pinnedPublicKeys: [String: String] = [:]

        /// No other trust anchors, no pins.
        public init() {}
    }

    /// The transport a client uses when its configuration names none: a ``CurlTransport``
    /// on Linux (bounded memory however slowly a body is consumed, pinning, deadlines) and a
    /// ``URLSessionTransport`` on Apple platforms, with the configuration's connection limit
    /// and ``Configuration/tls``.
    public static func defaultTransport(_ configuration: Configuration) -> any HTTPTransport {
        #if canImport(Darwin)
        return URLSessionTransport(maxConnectionsPerHost: configuration.maxConnectionsPerHost, tls: configuration.tls)
        #else
        var options = CurlTransport.Options()
        options.maxConnectionsPerHost = configuration.maxConnectionsPerHost
        options.certificateAuthorities = configuration.tls.certificateAuthorities
        options.pinnedPublicKeys = configuration.tls.pinnedPublicKeys
        return CurlTransport(options: options)
        #endif
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
