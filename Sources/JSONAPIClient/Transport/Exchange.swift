import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Logging

/// One attempt at a request: its redirects (each judged by the cross-origin rules), its
/// response and its body, over an ``HTTPTransport``.
///
/// The body goes where the response head says: a success with a JSON:API media type
/// streams into the ``PageSlot`` chunk by chunk, on the sender's queue (and into the cache
/// when it may be stored, as long as it stays within the cache's bound); an error status
/// collects the body (bounded) for the error document; any other content type keeps an
/// excerpt and stops the transfer. A chunk
/// is asked of the transport only once the one before has been consumed: that is the
/// backpressure.
struct Exchange {
    enum Outcome {
        /// A success; `notModified` when answered by a `304`. `cacheWriter` holds the body's
        /// copy for the cache, kept once the document has ended well.
        case success(notModified: Bool, cacheWriter: CacheWriter? = nil)
        /// An HTTP error status and its (bounded) body.
        case httpError(body: [UInt8])
        /// A success with another content type, or an unexpected redirect status.
        case notJSONAPI(excerpt: [UInt8])
        /// The body was refused by the parser.
        case invalidDocument(JSONAPIError)
        /// A `304` for a response no longer cached: ask again without `If-None-Match`.
        case staleCache
        /// A redirect the cross-origin rules do not follow.
        case refused(JSONAPIClientError)
        /// A response processor refused the response with this error (the user's own).
        case rejected(any Error)
        /// A response processor asked for the request again.
        case processorRetry(processor: String, after: Double?)
        case transport(TransportError)
        case cancelled
    }

    struct Result {
        var outcome: Outcome
        var status: Int?
        var headers: [String: String] = [:]
        var contentType: String?
        /// The URL of the last response (after redirects).
        var url: URL?
    }

    private enum Mode { case document, collectError, excerpt, notModified, discard }

    /// The most redirects one request follows.
    static let maxRedirects = 20

    let request: URLRequest
    let attempt: Int
    let slot: PageSlot?
    /// The cache's part in the request; `nil`: the cache is not used.
    let cache: CacheUse?
    var redirects: RedirectRule
    let acceptsPlainJSON: Bool
    let maxErrorBytes: Int
    let observe: (@Sendable (ResponseEvent) -> Void)?
    let processors: [ResponseProcessor]
    let logger: Logger

    /// Sends the request through `transport`, following redirects, and reads the body;
    /// `sender` runs the slot's work on its queue.
    mutating func run(_ transport: any HTTPTransport, limits: TransportLimits, sender: RequestSender) async -> Result {
        var request = request
        var hops = 0
        if let slot { await sender.onQueue { slot.restart() } }
        while true {
            let started = DispatchTime.now().uptimeNanoseconds
            let url = request.url ?? URL(fileURLWithPath: "/")
            let method = request.httpMethod ?? "GET"
            let response: TransportResponse
            logger.debug("\(method) \(url.absoluteString)", metadata: attempt > 1 ? ["attempt": "\(attempt)"] : nil)
            if logger.logLevel <= .trace {
                logger.trace(
                    "request headers", metadata: ["headers": RequestLog.headers(request.allHTTPHeaderFields ?? [:], configured: redirects.credentialHeaders)])
            }
            do {
                response = try await transport.send(request, limits: limits)
            } catch {
                return Result(outcome: error.kind == .cancelled ? .cancelled : .transport(error), url: url)
            }
            var result = Result(outcome: .cancelled, status: response.status, headers: response.headers, contentType: response.headers["content-type"], url: url)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            logger.debug("HTTP \(response.status) from \(method) \(url.absoluteString) in \(RequestLog.seconds(seconds)) s")
            if logger.logLevel <= .trace {
                logger.trace("response headers", metadata: ["headers": RequestLog.headers(response.headers, configured: redirects.credentialHeaders)])
            }
            observe?(
                ResponseEvent(
                    method: method, url: url, status: response.status, headers: response.headers, attempt: attempt, seconds: seconds))
            if [301, 302, 303, 307, 308].contains(response.status), let location = response.headers["location"] {
                response.body.cancel()
                hops += 1
                guard hops <= Self.maxRedirects else {
                    result.outcome = .transport(TransportError(.other, "more than \(Self.maxRedirects) redirects"))
                    return result
                }
                do {
                    request = try redirects.follow(request, to: location, from: url, status: response.status)
                } catch {
                    result.outcome = .refused(error)
                    return result
                }
                logger.debug(
                    "following the \(response.status) redirect to \(request.url?.absoluteString ?? location)",
                    metadata: redirects.withCredentials ? nil : ["credentials": "stripped"])
                continue
            }
            var processed = response
            for processor in processors {
                let action: ResponseAction
                do {
                    action = try await processor.process(processed, request)
                } catch {
                    action = .reject(error)
                }
                switch action {
                case .proceed(let changed):
                    processed = changed
                    continue
                case .retry(let after):
                    logger.debug("response processor \(processor.name) asks for \(method) \(url.absoluteString) again")
                    processed.body.cancel()
                    result.outcome = .processorRetry(processor: processor.name, after: after)
                case .reject(let error):
                    logger.debug("response processor \(processor.name) refused \(method) \(url.absoluteString): \(error)")
                    processed.body.cancel()
                    result.outcome = .rejected(error)
                }
                return result
            }
            result.status = processed.status
            result.headers = processed.headers
            result.contentType = processed.headers["content-type"]
            result.outcome = await read(processed, method: method, sender: sender, contentType: result.contentType, redirected: hops > 0)
            return result
        }
    }

    /// Reads the body of the final response where its head says it goes.
    private func read(_ response: TransportResponse, method: String, sender: RequestSender, contentType: String?, redirected: Bool) async -> Outcome {
        let body = response.body
        let mode: Mode
        var writer: CacheWriter?
        switch response.status {
        case 304 where cache?.candidate != nil || request.value(forHTTPHeaderField: "If-None-Match") != nil:
            // From the cache (replayed at the end), or to the caller's own validator (no body).
            mode = .notModified
        case 200..<300:
            if slot == nil {
                mode = .discard
            } else if response.status == 204 || isJSONAPI(contentType) {
                mode = .document
                if let slot {
                    let headers = response.headers
                    await sender.onQueue { slot.headers = headers }
                }
                if let cache, method == "GET" {
                    writer = storing(response, in: cache, redirected: redirected)
                }
            } else {
                mode = .excerpt
            }
        case 300..<400:
            mode = .excerpt
        default:
            mode = .collectError
        }
        var collected: [UInt8] = []
        while true {
            let chunk: [UInt8]?
            do {
                chunk = try await body.next()
            } catch {
                return error.kind == .cancelled ? .cancelled : .transport(error)
            }
            guard let chunk else { break }
            switch mode {
            case .document:
                guard let slot else { break }
                do {
                    try await sender.onQueue { () throws(JSONAPIError) in try withBytes(chunk) { (b) throws(JSONAPIError) in try slot.receive(b) } }
                } catch {
                    body.cancel()
                    return .invalidDocument(error)
                }
                // A stream read by a loop that fell behind: the body waits (the transfer
                // pauses) until the loop has taken what was parsed.
                if let pacing = JSONAPIClient.pacing { await pacing.waitForRoom() }
                writer?.append(chunk)
            case .collectError:
                collected.append(contentsOf: chunk.prefix(maxErrorBytes - collected.count))
                if collected.count >= maxErrorBytes {
                    body.cancel()
                    return .httpError(body: collected)
                }
            case .excerpt:
                collected.append(contentsOf: chunk.prefix(max(0, 512 - collected.count)))
                body.cancel()
                return .notJSONAPI(excerpt: collected)
            case .notModified, .discard:
                break
            }
        }
        switch mode {
        case .document, .discard:
            return .success(notModified: false, cacheWriter: writer)
        case .notModified where cache?.candidate == nil:
            // The caller's own `If-None-Match`: the caller knows the page; no body.
            return .success(notModified: true)
        case .notModified:
            guard let cache, let candidate = cache.candidate, let stored = cache.cache.body(cache.id, head: candidate) else {
                logger.debug("cache: 304 for a response no longer stored; asking again without validators")
                return .staleCache
            }
            cache.cache.refresh(cache.id, with: response.headers)
            logger.debug("cache: 304 Not Modified, answered with the \(candidate.size) stored bytes of \(cache.key)")
            do {
                try await sender.replay(stored, headers: candidate.headers, into: slot)
            } catch {
                switch error {
                case .document(let e): return .invalidDocument(e)
                case .read(let e): return .transport(e)
                }
            }
            return .success(notModified: true)
        case .collectError:
            return .httpError(body: collected)
        case .excerpt:
            return .notJSONAPI(excerpt: collected)
        }
    }

    /// A writer copying the body of `response` into the cache, or `nil` (and why, in the
    /// log) when the response may not be stored.
    private func storing(_ response: TransportResponse, in cache: CacheUse, redirected: Bool) -> CacheWriter? {
        if let refusal = cache.cache.refusal(
            status: response.status, headers: response.headers, request: request, redirected: redirected, lifetime: cache.policy.lifetime)
        {
            logger.debug("cache: not storing \(cache.key): \(refusal)")
            return nil
        }
        return cache.cache.writer(
            cache.id, key: cache.key, partition: cache.partition, status: response.status, headers: response.headers, request: request)
    }

    private func isJSONAPI(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let media = contentType.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return media == "application/vnd.api+json" || (acceptsPlainJSON && media == "application/json")
    }
}

/// How an exchange follows redirects: only to `http`/`https`, never from `https` down to
/// `http`, and to another origin than `home` only as the policy says. Once the credentials
/// have been stripped they stay stripped for the rest of the chain.
struct RedirectRule: Sendable {
    var home: Origin?
    var policy: CrossOriginPolicy
    /// The configured header names (stripped with the ones that always carry credentials).
    var credentialHeaders: [String]
    var withCredentials: Bool

    /// How the redirect to `proposed` would go out, or the refusal.
    func judge(_ proposed: URLRequest, from previous: URL, status: Int) throws(JSONAPIClientError) -> CredentialScope {
        guard let target = proposed.url else { return withCredentials ? .withCredentials : .withoutCredentials }
        return try CredentialScope.decide(
            target: target, previous: previous, home: home, policy: policy, what: "a redirect (HTTP \(status))")
    }

    /// The request to send for a redirect (`status`, `Location: location`) of `request`
    /// from `previous`: judged against the rules, credentials stripped once the chain has
    /// left the trusted origin, and turned into a `GET` without a body where HTTP says so
    /// (`303`; `301` and `302` after a `POST`).
    mutating func follow(_ request: URLRequest, to location: String, from previous: URL, status: Int) throws(JSONAPIClientError) -> URLRequest {
        guard let target = URL(string: location, relativeTo: previous)?.absoluteURL, target.scheme != nil else {
            throw JSONAPIClientError.refusedLocation(from: previous, to: location, what: "a redirect (HTTP \(status))", reason: .scheme(nil))
        }
        var proposed = request
        proposed.url = target
        let method = request.httpMethod?.uppercased() ?? "GET"
        if (status == 303 && method != "HEAD") || ((status == 301 || status == 302) && method == "POST") {
            proposed.httpMethod = "GET"
            proposed.httpBody = nil
            proposed.setValue(nil, forHTTPHeaderField: "Content-Type")
            proposed.setValue(nil, forHTTPHeaderField: "Content-Length")
        }
        if try judge(proposed, from: previous, status: status) == .withoutCredentials { withCredentials = false }
        if !withCredentials { CredentialScope.strip(&proposed, configured: credentialHeaders) }
        return proposed
    }
}
