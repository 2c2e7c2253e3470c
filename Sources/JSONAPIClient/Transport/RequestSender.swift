import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Logging

/// Sends a client's requests over its ``HTTPTransport`` and streams their bodies: retries
/// with backoff, `Retry-After`, redirects under the cross-origin rules, conditional
/// requests, cancellation, and the mapping of failures to ``JSONAPIClientError``.
final class RequestSender: Sendable {
    let configuration: JSONAPIClient.Configuration
    let transport: any HTTPTransport
    /// A serial queue: every slot and consumer is used on it, one chunk at a time.
    let queue: OperationQueue
    /// Which requests may start (limits, pause, priorities).
    let requests: RequestQueue

    init(configuration: JSONAPIClient.Configuration) {
        self.configuration = configuration
        transport = configuration.transport ?? JSONAPIClient.defaultTransport(configuration)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "JSONAPIClient.consumers"
        self.queue = queue
        requests = RequestQueue(maxInFlight: configuration.maxRequestsInFlight, maxPerOrigin: configuration.maxConnectionsPerHost)
    }

    var limits: TransportLimits {
        TransportLimits(idleTimeout: configuration.timeout, deadline: configuration.resourceTimeout)
    }

    /// Runs `body` (a consumer's work on the body of `url`) on the queue.
    func consume<T: Sendable>(_ url: URL, _ body: @escaping @Sendable () throws(JSONAPIError) -> T) async throws(JSONAPIClientError) -> T {
        do { return try await onQueue(body) } catch { throw JSONAPIClientError.consuming(error, url: url) }
    }

    /// Runs `body` on the queue and returns its result.
    func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws(JSONAPIError) -> T) async throws(JSONAPIError) -> T {
        let result: Result<T, JSONAPIError> = await withCheckedContinuation { c in
            queue.addOperation {
                do throws(JSONAPIError) { c.resume(returning: .success(try body())) } catch { c.resume(returning: .failure(error)) }
            }
        }
        return try result.get()
    }

    /// Runs `body` on the queue.
    func onQueue(_ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            queue.addOperation {
                body()
                c.resume()
            }
        }
    }

    /// What a request came back with.
    struct Response: Sendable {
        var status: Int
        var headers: [String: String]
        var notModified: Bool
        /// Answered by the cache without a request.
        var fromCache = false
        /// The body's copy for the cache: ``CacheWriter/keep(logger:)`` once the document
        /// has ended well (a body cut short or refused by the parser is not kept).
        var cacheWriter: CacheWriter? = nil
        var attempts: Int
    }

    /// Sends `request` until it succeeds, fails for good, or runs out of attempts; a
    /// success's body has gone to `slot`.
    ///
    /// Credentials (the configured headers, `Authorization`, cookies) go only to `home`
    /// (the origin of the request's own URL when `nil`); a request to another origin, or a
    /// redirect to one, goes as ``JSONAPIClient/Configuration/crossOrigin`` says. `linkedFrom`
    /// and `what` name where the URL came from for the error (`links.next of page 3`).
    ///
    /// - Throws: ``JSONAPIClientError``, or `CancellationError` when the task is cancelled.
    func send(
        _ request: URLRequest, slot: PageSlot?, conditional: Bool, counter: RequestCounter? = nil,
        home: Origin? = nil, linkedFrom: URL? = nil, what: String = "the request"
    ) async throws -> Response {
        let method = request.httpMethod ?? "GET"
        let url = request.url ?? URL(fileURLWithPath: "/")
        let home = home ?? Origin(url)
        let scope = try CredentialScope.decide(
            target: url, previous: linkedFrom ?? url, home: home, policy: configuration.crossOrigin, what: what)
        let policy = configuration.retry
        // A request with its own `If-None-Match` (a crawl revalidating a stored page) does not
        // use the cache: a `304` then means "the page the caller stored".
        let cacheKey =
            conditional && method == "GET" && request.value(forHTTPHeaderField: "If-None-Match") == nil ? self.cacheKey(request) : nil
        var useCache = cacheKey != nil
        var attempt = 0
        while true {
            attempt += 1
            try Task.checkCancellation()
            var r = request
            r.timeoutInterval = configuration.timeout
            if scope == .withCredentials {
                for (name, value) in configuration.headers where r.value(forHTTPHeaderField: name) == nil {
                    r.setValue(value, forHTTPHeaderField: name)
                }
                configuration.methodDefaults[method.uppercased()]?.apply(to: &r)
                configuration.defaults.apply(to: &r)
            }
            // The client's own `Accept` is the last default: an `Accept` in the configured
            // headers or defaults replaces it.
            if r.value(forHTTPHeaderField: "Accept") == nil { r.setValue(configuration.acceptHeader, forHTTPHeaderField: "Accept") }
            for preparer in configuration.requestPreparers { try await preparer.prepare(&r) }
            if let prepare = configuration.prepareRequest { try await prepare(&r) }
            if scope == .withoutCredentials {
                CredentialScope.strip(&r, configured: configuration.headers.keys)
            }
            var cacheUse: CacheUse?
            if useCache, let cache = configuration.cache, let cacheKey {
                switch try await consult(cache, key: cacheKey, request: &r, slot: slot, url: url) {
                case .served(let response): return response
                case .send(let use): cacheUse = use
                }
            }
            counter?.increment()
            var exchange = Exchange(
                request: r, attempt: attempt, slot: slot, cache: cacheUse,
                redirects: RedirectRule(
                    home: home, policy: configuration.crossOrigin, credentialHeaders: Array(configuration.headers.keys),
                    withCredentials: scope == .withCredentials),
                acceptsPlainJSON: configuration.acceptsPlainJSON, maxErrorBytes: configuration.maxErrorBodyBytes,
                observe: configuration.observeResponse, processors: configuration.responseProcessors, logger: configuration.logger)
            let origin = Origin(url)?.description ?? ""
            try await requests.acquire(origin)
            let result = await exchange.run(transport, limits: limits, sender: self)
            requests.release(origin)
            try Task.checkCancellation()
            let fed = slot == nil ? false : await fedConsumer(slot)
            let status = result.status ?? 0
            let at = result.url ?? url
            let failure: JSONAPIClientError
            var wait: Double?
            switch result.outcome {
            case .success(let notModified, let writer):
                invalidateCache(after: request)
                return Response(status: status, headers: result.headers, notModified: notModified, cacheWriter: writer, attempts: attempt)
            case .cancelled:
                throw CancellationError()
            case .staleCache:
                useCache = false
                continue
            case .invalidDocument(let error):
                throw JSONAPIClientError.consuming(error, url: url)
            case .refused(let error):
                throw error
            case .rejected(let error):
                throw error
            case .processorRetry(let name, let after):
                failure = .rejected(url: at, processor: name, reason: "asked for a retry \(attempt) time\(attempt == 1 ? "" : "s"); no attempt left")
                wait = after
            case .notJSONAPI(let excerpt):
                throw JSONAPIClientError.notJSONAPI(
                    HTTPFailure(
                        status: status, method: method, url: at, contentType: result.contentType,
                        excerpt: String(decoding: excerpt, as: UTF8.self), attempts: attempt))
            case .httpError(let body):
                failure = Self.httpFailure(status: status, method: method, url: at, body: body, contentType: result.contentType, attempts: attempt)
                guard policy.retries(status: status, method: method) else { throw failure }
                if let value = result.headers["retry-after"], let seconds = RetryAfter.seconds(value) {
                    guard seconds <= policy.maxRetryAfter else {
                        throw failure.refusingRetryAfter(seconds, limit: policy.maxRetryAfter)
                    }
                    wait = seconds
                }
            case .transport(let error):
                if fed, error.kind == .connectionLost, let slot {
                    // Part of the body reached the parser before the connection broke: the
                    // document is cut short, the same answer as a body that ends early on a
                    // cleanly closed connection (where no transport error is seen).
                    configuration.logger.debug("the connection broke after part of the body of \(at.absoluteString): \(error.message)")
                    do {
                        _ = try await onQueue { () throws(JSONAPIError) in try slot.finish() }
                    } catch {
                        throw JSONAPIClientError.consuming(error, url: at)
                    }
                }
                switch error.kind {
                case .timedOut: failure = .timedOut(url: at, seconds: configuration.timeout, attempts: attempt)
                case .deadlineExceeded: failure = .deadlineExceeded(url: at, seconds: configuration.resourceTimeout, attempts: attempt)
                default: failure = .transport(url: at, message: error.message, attempts: attempt)
                }
                guard policy.retriesTransport(method: method) else { throw failure }
            }
            guard attempt < policy.maxAttempts, !fed else { throw failure }
            let delay = wait ?? policy.backoff(afterAttempt: attempt)
            configuration.logger.notice(
                "retrying \(method) \(url.absoluteString) in \(RequestLog.seconds(delay)) s (attempt \(attempt + 1) of \(policy.maxAttempts))",
                metadata: ["after": "\(failure)"])
            if delay > 0 { try await Task.sleep(nanoseconds: UInt64(delay * 1e9)) }
        }
    }

    private func fedConsumer(_ slot: PageSlot?) async -> Bool {
        guard let slot else { return false }
        return (try? await onQueue { slot.fedConsumer }) ?? true
    }

    static func httpFailure(status: Int, method: String, url: URL, body: [UInt8], contentType: String?, attempts: Int) -> JSONAPIClientError {
        let media = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        if media == "application/vnd.api+json" || media == "application/json", let errors = ErrorObject.parseDocument(body) {
            return .server(ServerError(status: status, method: method, url: url, errors: errors, attempts: attempts))
        }
        return .http(
            HTTPFailure(
                status: status, method: method, url: url, contentType: contentType,
                excerpt: String(decoding: body.prefix(512), as: UTF8.self), attempts: attempts))
    }
}

/// Counts requests sent (for reports), from any task.
final class RequestCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func increment() { lock.withLock { n += 1 } }
    var value: Int { lock.withLock { n } }
}
