import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream

/// One request and its response, driven by the session's delegate callbacks. All state is
/// touched on the session's delegate queue only.
///
/// The body goes where the response head says: a success with a JSON:API media type
/// streams into the ``PageSlot`` chunk by chunk (and into the cache when it has an `ETag`
/// and is small); an error status collects the body (bounded) for the error document; any
/// other content type keeps an excerpt and cancels the transfer.
final class Exchange: @unchecked Sendable {
    enum Outcome {
        /// A success; `emptyBody` when no byte reached the slot.
        case success(notModified: Bool)
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
        case transport(URLError)
        case cancelled
    }

    struct Result {
        var outcome: Outcome
        var status: Int?
        var headers: [String: String] = [:]
        var contentType: String?
    }

    private enum Mode { case pending, document, collectError, excerpt, notModified, discard }

    let request: URLRequest
    let method: String
    let attempt: Int
    let slot: PageSlot?
    let cache: ResponseCache?
    let cacheKey: String?
    private var redirects: RedirectRule
    let acceptsPlainJSON: Bool
    let maxErrorBytes: Int
    let observe: (@Sendable (ResponseEvent) -> Void)?

    var task: URLSessionDataTask?
    private var continuation: CheckedContinuation<Result, Never>?
    private var mode = Mode.pending
    private var status: Int?
    private var headers: [String: String] = [:]
    private var contentType: String?
    private var collected: [UInt8] = []
    private var tee: [UInt8]?
    private var etag: String?
    private var failure: Outcome?
    private var cancelled = false
    private var finished = false
    private let started = DispatchTime.now().uptimeNanoseconds

    init(
        request: URLRequest, attempt: Int, slot: PageSlot?, cache: ResponseCache?, cacheKey: String?, redirects: RedirectRule,
        acceptsPlainJSON: Bool, maxErrorBytes: Int, observe: (@Sendable (ResponseEvent) -> Void)?
    ) {
        self.redirects = redirects
        self.request = request
        self.method = request.httpMethod ?? "GET"
        self.attempt = attempt
        self.slot = slot
        self.cache = cache
        self.cacheKey = cacheKey
        self.acceptsPlainJSON = acceptsPlainJSON
        self.maxErrorBytes = maxErrorBytes
        self.observe = observe
    }

    // MARK: Life cycle (delegate queue)

    func start(in session: URLSession, registry: SessionDelegate, continuation: CheckedContinuation<Result, Never>) {
        self.continuation = continuation
        if cancelled {
            finish(.cancelled)
            return
        }
        slot?.restart()
        let task = session.dataTask(with: request)
        self.task = task
        registry.register(task, self)
        task.resume()
    }

    func cancel() {
        cancelled = true
        task?.cancel()
    }

    private func finish(_ outcome: Outcome) {
        guard !finished else { return }
        finished = true
        continuation?.resume(returning: Result(outcome: outcome, status: status, headers: headers, contentType: contentType))
        continuation = nil
    }

    // MARK: Delegate events (delegate queue)

    /// A redirect: the request to send instead (credentials stripped when it leaves the
    /// trusted origin and the policy says so), or `nil` to stop with a ``Outcome/refused(_:)``.
    func redirect(_ response: HTTPURLResponse, to proposed: URLRequest) -> URLRequest? {
        guard failure == nil, !cancelled else { return nil }
        let previous = response.url ?? request.url ?? URL(fileURLWithPath: "/")
        // FoundationNetworking resolves a `Location` without a host (`file:///etc/passwd`)
        // as a path on the same server: judge the header as the server wrote it.
        var asWritten = proposed
        if let location = response.allHeaderFields.first(where: { ($0.key as? String)?.lowercased() == "location" })?.value as? String,
            let written = URL(string: location, relativeTo: previous)?.absoluteURL, written.scheme != nil
        {
            asWritten.url = written
        }
        do {
            if asWritten.url != proposed.url { _ = try redirects.judge(asWritten, from: previous, status: response.statusCode) }
            return try redirects.follow(proposed, from: previous, status: response.statusCode)
        } catch {
            failure = .refused(error)
            return nil
        }
    }

    /// The response head: decides where the body goes.
    func receive(_ response: URLResponse) -> Bool {
        guard let http = response as? HTTPURLResponse else {
            failure = .transport(URLError(.badServerResponse))
            return false
        }
        status = http.statusCode
        for (k, v) in http.allHeaderFields {
            if let k = k as? String, let v = v as? String { headers[k.lowercased()] = v }
        }
        contentType = headers["content-type"]
        observe?(
            ResponseEvent(
                method: method, url: request.url ?? response.url ?? URL(fileURLWithPath: "/"), status: http.statusCode, headers: headers,
                attempt: attempt, seconds: Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9))
        switch http.statusCode {
        case 304 where cacheKey != nil || request.value(forHTTPHeaderField: "If-None-Match") != nil:
            // From the cache (replayed at the end), or to the caller's own validator (no body).
            mode = .notModified
        case 200..<300:
            if slot == nil {
                mode = .discard
            } else if http.statusCode == 204 || isJSONAPI(contentType) {
                mode = .document
                slot?.headers = headers
                if let cache, cacheKey != nil, method == "GET", let tag = headers["etag"] {
                    etag = tag
                    tee = []
                    tee?.reserveCapacity(min(cache.maxEntryBytes, 64 * 1024))
                }
            } else {
                mode = .excerpt
            }
        case 300..<400:
            mode = .excerpt
        default:
            mode = .collectError
        }
        return true
    }

    /// A piece of the body.
    func receive(_ data: Data) {
        guard failure == nil else { return }
        switch mode {
        case .document:
            guard let slot else { return }
            do {
                try withBytes(data) { (b) throws(JSONAPIError) in try slot.receive(b) }
            } catch {
                failure = .invalidDocument(error)
                task?.cancel()
                return
            }
            if tee != nil, let cache {
                if tee!.count + data.count <= cache.maxEntryBytes { tee!.append(contentsOf: data) } else { tee = nil }
            }
        case .collectError:
            if collected.count < maxErrorBytes { collected.append(contentsOf: data.prefix(maxErrorBytes - collected.count)) }
        case .excerpt:
            collected.append(contentsOf: data.prefix(max(0, 512 - collected.count)))
            failure = .notJSONAPI(excerpt: collected)
            task?.cancel()
        case .pending, .notModified, .discard:
            break
        }
    }

    /// The end of the transfer.
    func complete(_ error: Error?) {
        if let failure {
            finish(failure)
            return
        }
        if cancelled {
            finish(.cancelled)
            return
        }
        if let error {
            let urlError = (error as? URLError) ?? URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
            finish(urlError.code == .cancelled ? .cancelled : .transport(urlError))
            return
        }
        switch mode {
        case .document, .discard:
            if let tee, let etag, let cache, let cacheKey { cache.store(cacheKey, etag: etag, body: tee, contentType: contentType) }
            finish(.success(notModified: false))
        case .notModified where cacheKey == nil:
            // The caller's own `If-None-Match`: the caller knows the page; no body.
            finish(.success(notModified: true))
        case .notModified:
            guard let cacheKey, let entry = cache?.entry(for: cacheKey), let slot else {
                finish(.staleCache)
                return
            }
            do {
                try withBytes(entry.body) { (b) throws(JSONAPIError) in try slot.receive(b) }
            } catch {
                finish(.invalidDocument(error))
                return
            }
            contentType = entry.contentType
            finish(.success(notModified: true))
        case .collectError:
            finish(.httpError(body: collected))
        case .excerpt:
            finish(.notJSONAPI(excerpt: collected))
        case .pending:
            finish(.transport(URLError(.badServerResponse)))
        }
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

    mutating func follow(_ proposed: URLRequest, from previous: URL, status: Int) throws(JSONAPIClientError) -> URLRequest {
        if try judge(proposed, from: previous, status: status) == .withoutCredentials { withCredentials = false }
        var request = proposed
        if !withCredentials { CredentialScope.strip(&request, configured: credentialHeaders) }
        return request
    }
}
