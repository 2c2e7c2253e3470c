import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` on `URLSession`, the default on Apple platforms.
///
/// On Apple platforms a transfer is suspended once ``readAhead`` bytes wait for the
/// consumer, and resumed when it has taken them. On Linux, FoundationNetworking cannot pause
/// a transfer (`suspend()` drops it) nor check a server's key: there the body is read as fast
/// as the server sends it, whatever the consumer's pace, and pinning is refused with an
/// error; use ``CurlTransport`` (the default there).
public final class URLSessionTransport: HTTPTransport {
    /// Body bytes held per exchange before the transfer is suspended (Apple platforms).
    public let readAhead: Int
    private let tls: JSONAPIClient.TLSOptions
    private let session: URLSession
    private let delegate = SessionDelegate()

    /// A transport of its own session: at most `maxConnectionsPerHost` connections to one
    /// host, no cookies, no cache, redirects returned as they are. `tls` must not pin keys
    /// or name other trust anchors (URLSession offers neither here: the first request fails).
    public init(maxConnectionsPerHost: Int = 8, tls: JSONAPIClient.TLSOptions = .init(), readAhead: Int = 256 * 1024) {
        self.readAhead = max(readAhead, 1024)
        self.tls = tls
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        queue.name = "JSONAPIClient.URLSessionTransport"
        let c = URLSessionConfiguration.ephemeral
        c.urlCache = nil
        c.requestCachePolicy = .reloadIgnoringLocalCacheData
        c.httpCookieStorage = nil
        c.httpMaximumConnectionsPerHost = max(maxConnectionsPerHost, 1)
        session = URLSession(configuration: c, delegate: delegate, delegateQueue: queue)
    }

    deinit { session.invalidateAndCancel() }

    /// Sends `request`; returns when the response's head has arrived.
    ///
    /// - Throws: ``TransportError``.
    public func send(_ request: URLRequest, limits: TransportLimits) async throws(TransportError) -> TransportResponse {
        guard tls == JSONAPIClient.TLSOptions() else {
            throw TransportError(.tls, "URLSessionTransport cannot pin public keys or trust another certificate authority here; use CurlTransport")
        }
        var request = request
        request.timeoutInterval = limits.idleTimeout
        let exchange = SessionExchange(readAhead: readAhead)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Result<TransportResponse, TransportError>, Never>) in
                exchange.start(session.dataTask(with: request), head: c, delegate: delegate, deadline: limits.deadline)
            }
        } onCancel: {
            exchange.cancel()
        }
        return try result.get()
    }
}

/// Routes each task's delegate events to its ``SessionExchange``.
final class SessionDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var exchanges: [Int: SessionExchange] = [:]

    func register(_ task: URLSessionTask, _ exchange: SessionExchange) {
        lock.withLock { exchanges[task.taskIdentifier] = exchange }
    }

    private func exchange(_ task: URLSessionTask) -> SessionExchange? {
        lock.withLock { exchanges[task.taskIdentifier] }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        exchange(dataTask)?.receive(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        exchange(dataTask)?.receive(data)
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        // Not followed: the client judges and follows redirects itself.
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: Error?) {
        let exchange = lock.withLock { exchanges.removeValue(forKey: task.taskIdentifier) }
        exchange?.complete(error)
    }
}

/// One exchange of a ``URLSessionTransport``, and its body. Its state is guarded by `lock`;
/// continuations are resumed after it is released.
final class SessionExchange: TransportBody, @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var head: CheckedContinuation<Result<TransportResponse, TransportError>, Never>?
    /// The body, from the delegate to ``next()``; on Linux it cannot pause the task, so it
    /// holds what arrives.
    private var channel: BodyChannel!

    init(readAhead: Int) {
        #if canImport(Darwin)
        channel = BodyChannel(readAhead: readAhead) { [weak self] in self?.lock.withLock { self?.task }?.resume() }
        #else
        channel = BodyChannel(readAhead: .max) {}
        #endif
    }

    func start(
        _ task: URLSessionDataTask, head: CheckedContinuation<Result<TransportResponse, TransportError>, Never>,
        delegate: SessionDelegate, deadline: Double
    ) {
        lock.lock()
        if let failure = channel.stopped {
            lock.unlock()
            head.resume(returning: .failure(failure))
            return
        }
        self.task = task
        self.head = head
        lock.unlock()
        delegate.register(task, self)
        if deadline.isFinite, deadline > 0, deadline < 1e9 {
            DispatchQueue.global().asyncAfter(deadline: .now() + deadline) { [weak self] in
                self?.fail(TransportError(.deadlineExceeded, "the exchange took longer than its deadline of \(deadline) s"))
            }
        }
        task.resume()
    }

    func receive(_ response: URLResponse) {
        guard let http = response as? HTTPURLResponse else {
            fail(TransportError(.other, "not an HTTP response"))
            return
        }
        var headers: [String: String] = [:]
        for (k, v) in http.allHeaderFields {
            if let k = k as? String, let v = v as? String { headers[k] = v }
        }
        let c = lock.withLock {
            defer { head = nil }
            return head
        }
        c?.resume(returning: .success(TransportResponse(status: http.statusCode, headers: headers, body: self)))
    }

    func receive(_ data: Data) {
        let offer = data.withUnsafeBytes { channel.offer($0, canRefuse: false) }
        if offer == .takenFull { lock.withLock { task }?.suspend() }
    }

    func complete(_ error: Error?) {
        var failure: TransportError?
        if let error {
            let e = (error as? URLError) ?? URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
            failure = Self.transportError(e)
        }
        failure = channel.stopped ?? failure
        channel.finish(failure)
        let h = lock.withLock {
            defer { head = nil }
            return head
        }
        h?.resume(returning: .failure(failure ?? TransportError(.other, "no response")))
    }

    func next() async throws(TransportError) -> [UInt8]? { try await channel.next() }

    func cancel() { fail(TransportError(.cancelled, "cancelled")) }

    /// Stops the exchange with `error` (unless it has ended).
    private func fail(_ error: TransportError) {
        guard channel.stop(error) else { return }
        let (task, h) = lock.withLock {
            defer { head = nil }
            return (self.task, head)
        }
        task?.cancel()
        h?.resume(returning: .failure(error))
    }

    static func transportError(_ error: URLError) -> TransportError {
        switch error.code {
        case .timedOut: TransportError(.timedOut, "timed out")
        case .cancelled: TransportError(.cancelled, "cancelled")
        case .cannotConnectToHost: TransportError(.cannotConnect, "connection refused")
        case .networkConnectionLost: TransportError(.connectionLost, "the connection was lost")
        case .cannotFindHost, .dnsLookupFailed: TransportError(.unknownHost, "unknown host")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate, .serverCertificateNotYetValid,
            .serverCertificateHasUnknownRoot:
            TransportError(.tls, "TLS: \(error.localizedDescription)")
        case .badServerResponse: TransportError(.other, "not an HTTP response")
        default: TransportError(.other, error.localizedDescription)
        }
    }
}
