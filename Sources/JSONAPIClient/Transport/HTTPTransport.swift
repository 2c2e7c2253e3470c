import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// What sends a client's HTTP requests: one exchange at a time, its response body streamed
/// with backpressure.
///
/// A transport does one exchange per ``send(_:limits:)``: it follows no redirect (a `3xx`
/// comes back as it is; the client follows it under its cross-origin rules), retries nothing
/// and caches nothing. The response's body is read only as fast as ``TransportBody/next()``
/// is called: a transport holds at most a bounded amount of it (``CurlTransport`` pauses
/// the transfer, so a slow consumer slows the server down instead of filling memory).
///
/// The built-in transports:
///
/// | transport | where | backpressure | pinning | deadline |
/// | --- | --- | --- | --- | --- |
/// | ``CurlTransport`` | default on Linux (the system's libcurl) | yes | yes | yes |
/// | ``URLSessionTransport`` | default on Apple platforms | Apple platforms only | no | yes |
/// | ``InMemoryTransport`` | tests | yes | n/a | n/a |
///
/// Set ``JSONAPIClient/Configuration/transport`` to use another one (an app's own HTTP
/// stack, a recording proxy for tests).
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns when the response's head has arrived; its body follows
    /// through ``TransportResponse/body``.
    ///
    /// - Throws: ``TransportError`` (``TransportError/Kind/cancelled`` when the calling task
    ///   is cancelled).
    func send(_ request: URLRequest, limits: TransportLimits) async throws(TransportError) -> TransportResponse
}

/// The time limits of one exchange.
public struct TransportLimits: Sendable, Equatable {
    /// Seconds without a byte from the server (while the consumer is waiting for one) before
    /// the exchange fails with ``TransportError/Kind/timedOut``.
    public var idleTimeout: Double
    /// Seconds the whole exchange may take, from sending the request to the body's last
    /// byte, however steadily it arrives: ``TransportError/Kind/deadlineExceeded`` after.
    public var deadline: Double

    /// Limits of `idleTimeout` and `deadline` seconds.
    public init(idleTimeout: Double, deadline: Double) {
        self.idleTimeout = idleTimeout
        self.deadline = deadline
    }
}

/// A response's head, and its body to read.
public struct TransportResponse: Sendable {
    /// The HTTP status (a `3xx` is not followed).
    public var status: Int
    /// The headers, names in lower case; a name sent more than once has its values joined
    /// with `, `.
    public var headers: [String: String]
    /// The body, read chunk by chunk.
    public var body: any TransportBody

    /// A response of `status` and `headers` (any case) whose body is `body`.
    public init(status: Int, headers: [String: String], body: any TransportBody) {
        self.status = status
        var lower: [String: String] = [:]
        for (name, value) in headers {
            let key = name.lowercased()
            lower[key] = lower[key].map { "\($0), \(value)" } ?? value
        }
        self.headers = lower
        self.body = body
    }
}

/// A response body, read chunk by chunk: the transport reads ahead at most a bounded amount.
public protocol TransportBody: AnyObject, Sendable {
    /// The next bytes of the body (never empty), or `nil` at its end.
    ///
    /// - Throws: ``TransportError``: the connection broke, a limit ran out, or the exchange
    ///   was cancelled.
    func next() async throws(TransportError) -> [UInt8]?
    /// Stops the transfer: the body is not wanted (any more). Later ``next()`` calls throw
    /// ``TransportError/Kind/cancelled``.
    func cancel()
}

/// Why an exchange failed.
public struct TransportError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure the client tells apart.
    public enum Kind: Sendable, Equatable {
        /// No byte for ``TransportLimits/idleTimeout`` seconds.
        case timedOut
        /// The exchange took longer than ``TransportLimits/deadline`` seconds.
        case deadlineExceeded
        /// The host name could not be resolved.
        case unknownHost
        /// The connection was refused, or could not be made.
        case cannotConnect
        /// The TLS handshake failed: the server's certificate is not trusted, or its public
        /// key is not one of the pinned ones.
        case tls
        /// The connection broke, or the body ended before the length the server announced.
        case connectionLost
        /// The exchange was cancelled (the task, or ``TransportBody/cancel()``).
        case cancelled
        /// Anything else (a malformed response, a refused option).
        case other
    }

    /// What went wrong.
    public var kind: Kind
    /// The transport's own words, for people (libcurl's message, URLError's description).
    public var message: String

    /// A failure of `kind`, described by `message`.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
