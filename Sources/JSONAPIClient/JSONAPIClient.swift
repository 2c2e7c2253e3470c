import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream

/// A client of a JSON:API server: fetches documents (one page, or every page of a
/// collection) straight into the streaming parsers, and sends create, update and delete
/// requests built by the encoding layer.
///
/// ```swift
/// let client = JSONAPIClient(baseURL: URL(string: "https://api.example.com/")!)
/// let query = JSONAPIQuery().including("author").fields("articles", "title", "author")
///     .page(.number(1, size: 100))
/// let graph = try await client.graph("articles", query: query, pages: .all())
/// for article in graph.primary { print(article.attributes["title"]?.string ?? "") }
/// ```
///
/// Bodies are never held whole: each chunk the ``HTTPTransport`` hands over is fed to the
/// parser before the next is asked for, so a slow consumer slows the transfer down (pages
/// fetched ahead of their turn wait in a bounded buffer). Requests are
/// retried as ``RetryPolicy`` says; cancelling the calling task cancels the request.
public final class JSONAPIClient: Sendable {
    /// The URL that resource paths (`articles`, `articles/1`) are resolved against.
    public let baseURL: URL
    /// Headers, timeouts, retries, caching and the origin policy of every request.
    public let configuration: Configuration
    let transport: RequestSender
    /// What ``load(type:id:query:)`` has loaded.
    let identities: IdentityCache

    /// A client of the API at `baseURL`, whose origin the configured headers are sent to.
    public init(baseURL: URL, configuration: Configuration = Configuration()) {
        self.baseURL = baseURL
        self.configuration = configuration
        transport = RequestSender(configuration: configuration)
        identities = IdentityCache(limit: configuration.identityCacheLimit)
    }

    // MARK: The request queue

    /// Holds requests not yet started (retries included) until ``resume()``; requests in
    /// flight go on. For an app that knows it is offline.
    public func pause() { transport.requests.pause() }

    /// Starts the requests held by ``pause()``, highest task priority first.
    public func resume() { transport.requests.resume() }

    /// Whether ``pause()`` holds new requests.
    public var isPaused: Bool { transport.requests.isPaused }

    /// Requests in flight, and waiting for a place (``Configuration/maxRequestsInFlight``,
    /// ``Configuration/maxConnectionsPerHost``, ``pause()``).
    public var queuedRequests: (inFlight: Int, waiting: Int) { transport.requests.counts }

    // MARK: URLs

    /// `path` (relative, like `articles` or `articles/1`, or absolute) resolved against the
    /// base URL, with `query` appended.
    public func url(_ path: String, query: JSONAPIQuery = JSONAPIQuery()) throws(JSONAPIClientError) -> URL {
        var base = baseURL
        if !base.absoluteString.hasSuffix("/") { base = URL(string: base.absoluteString + "/") ?? base }
        guard let url = URL(string: path, relativeTo: base)?.absoluteURL else {
            throw JSONAPIClientError.invalidRequest("cannot make a URL of \(path) against \(baseURL.absoluteString)")
        }
        return query.applied(to: url)
    }

    /// The URL of a resource collection (`type`) or of one resource (`type` and `id`), as
    /// ``Configuration/resourcePath`` says.
    public func url(type: String, id: String? = nil, query: JSONAPIQuery = JSONAPIQuery()) throws(JSONAPIClientError) -> URL {
        try url(configuration.resourcePath(type, id), query: query)
    }

    // MARK: Reading

    /// Fetches `path` (one page, or every page as `pages` says) into a new graph.
    ///
    /// - Throws: ``JSONAPIClientError``, or `CancellationError`.
    public func graph(
        _ path: String, query: JSONAPIQuery = JSONAPIQuery(), pages: PageFollowing = .first,
        options: DocumentOptions? = nil
    ) async throws -> Graph {
        try await graph(at: url(path, query: query), pages: pages, options: options)
    }

    /// Fetches the document at `url` (and the pages after it, as `pages` says) into a new
    /// graph. Primary data keeps page order.
    ///
    /// - Throws: ``JSONAPIClientError``, or `CancellationError`.
    public func graph(at url: URL, pages: PageFollowing = .first, options: DocumentOptions? = nil) async throws -> Graph {
        let parser = GraphParser(options: options ?? configuration.documentOptions)
        let box = ConsumerBox(parser, progress: nil)
        _ = try await crawl(from: url, pages: pages, box: box)
        let bound = QueueBound(value: parser)
        return try await transport.consume(url) { () throws(JSONAPIError) in try bound.value.finish() }
    }

    /// Fetches the document at `url` (and the pages after it, as `pages` says) into
    /// `consumer`: a ``JSONAPIStream/GraphParser``, a ``JSONAPIStream/Normalizer`` writing
    /// NDJSON as the pages stream, or any ``DocumentConsumer``. The consumer is not finished
    /// here: call its `finish()` afterwards.
    ///
    /// `progress` is called on an internal queue as bytes arrive and as pages end: keep it
    /// short.
    ///
    /// - Throws: ``JSONAPIClientError``, or `CancellationError`.
    public func fetch(
        _ url: URL, pages: PageFollowing = .first, into consumer: some DocumentConsumer,
        progress: (@Sendable (FetchProgress) -> Void)? = nil
    ) async throws -> FetchReport {
        try await crawl(from: url, pages: pages, box: ConsumerBox(consumer, progress: progress))
    }

    private func crawl(from url: URL, pages: PageFollowing, box: ConsumerBox) async throws -> FetchReport {
        let crawler = PageCrawler(transport: transport, following: pages, consumer: box) { url in
            Self.request(url, method: "GET", body: nil)
        }
        return try await crawler.run(from: url)
    }

    /// One resource (`GET /type/id`), as the primary resource of a graph that also holds
    /// the `include`d ones. Answered from the cache when the server says `304 Not Modified`.
    ///
    /// - Throws: ``JSONAPIClientError`` (a missing resource is `.server` with status 404),
    ///   or `CancellationError`.
    public func resource(type: String, id: String, query: JSONAPIQuery = JSONAPIQuery()) async throws -> Resource {
        let url = try url(type: type, id: id, query: query)
        let graph = try await graph(at: url)
        guard let resource = graph.primary.first else {
            throw JSONAPIClientError.notJSONAPI(
                HTTPFailure(
                    status: 200, method: "GET", url: url, contentType: "application/vnd.api+json",
                    excerpt: "the document has no primary resource", attempts: 1))
        }
        return resource
    }

    static func request(_ url: URL, method: String, body: [UInt8]?) -> URLRequest {
        var r = URLRequest(url: url)
        r.httpMethod = method
        if let body {
            r.httpBody = Data(body)
            r.setValue("application/vnd.api+json", forHTTPHeaderField: "Content-Type")
        }
        return r
    }
}
