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
    private let readAhead: Int
    private let lock = NSLock()
    private var task: URLSessionDataTask?
    private var head: CheckedContinuation<Result<TransportResponse, TransportError>, Never>?
    private var waiter: CheckedContinuation<Result<[UInt8]?, TransportError>, Never>?
    private var buffer: [UInt8] = []
    private var suspended = false
    private var ending: Result<[UInt8]?, TransportError>?
    private var failure: TransportError?

    init(readAhead: Int) { self.readAhead = readAhead }

    func start(
        _ task: URLSessionDataTask, head: CheckedContinuation<Result<TransportResponse, TransportError>, Never>,
        delegate: SessionDelegate, deadline: Double
    ) {
        lock.lock()
        if let failure {
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
        lock.lock()
        guard failure == nil else { return lock.unlock() }
        if let c = waiter {
            waiter = nil
            lock.unlock()
            c.resume(returning: .success([UInt8](data)))
            return
        }
        buffer.append(contentsOf: data)
        #if canImport(Darwin)
        if buffer.count >= readAhead && !suspended {
            suspended = true
            task?.suspend()
        }
        #endif
        lock.unlock()
    }

    func complete(_ error: Error?) {
        var outcome: Result<[UInt8]?, TransportError> = .success(nil)
        if let error {
            let e = (error as? URLError) ?? URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
            outcome = .failure(Self.transportError(e))
        }
        lock.lock()
        if let failure { outcome = .failure(failure) }
        ending = outcome
        let h = head
        head = nil
        let w = buffer.isEmpty ? waiter : nil
        if w != nil { waiter = nil }
        lock.unlock()
        if case .failure(let e) = outcome { h?.resume(returning: .failure(e)) } else { h?.resume(returning: .failure(TransportError(.other, "no response"))) }
        w?.resume(returning: outcome)
    }

    func next() async throws(TransportError) -> [UInt8]? {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Result<[UInt8]?, TransportError>, Never>) in
                lock.lock()
                if !buffer.isEmpty {
                    let chunk = buffer
                    buffer = []
                    let resume = suspended
                    suspended = false
                    let task = task
                    lock.unlock()
                    if resume { task?.resume() }
                    c.resume(returning: .success(chunk))
                } else if let ending {
                    lock.unlock()
                    c.resume(returning: ending)
                } else if let failure {
                    lock.unlock()
                    c.resume(returning: .failure(failure))
                } else {
                    waiter = c
                    lock.unlock()
                }
            }
        } onCancel: {
            cancel()
        }
        return try result.get()
    }

    func cancel() { fail(TransportError(.cancelled, "cancelled")) }

    /// Stops the exchange with `error` (unless it has ended).
    private func fail(_ error: TransportError) {
        lock.lock()
        guard failure == nil, ending == nil else { return lock.unlock() }
        failure = error
        let task = task
        let h = head
        head = nil
        let w = waiter
        waiter = nil
        buffer = []
        lock.unlock()
        task?.cancel()
        h?.resume(returning: .failure(error))
        w?.resume(returning: .failure(error))
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
