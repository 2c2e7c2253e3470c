import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` that answers from memory, for tests: each request goes to a handler
/// that returns a ``Reply``; its body is handed out one chunk per ``TransportBody/next()``,
/// so a test sees how far a consumer has read.
///
/// ```swift
/// let transport = InMemoryTransport { request in
///     .init(status: 200, headers: ["Content-Type": "application/vnd.api+json"],
///           body: Array(#"{"data":[]}"#.utf8))
/// }
/// var configuration = JSONAPIClient.Configuration()
/// configuration.transport = transport
/// ```
public final class InMemoryTransport: HTTPTransport, @unchecked Sendable {
    /// A response: status, headers, the body in chunks, and how it ends.
    public struct Reply: Sendable {
        /// The HTTP status.
        public var status: Int
        /// The headers (any case).
        public var headers: [String: String]
        /// The body, one element per ``TransportBody/next()``.
        public var chunks: [[UInt8]]
        /// Thrown after the last chunk instead of ending the body (a broken connection).
        public var failure: TransportError?

        /// A reply whose body is `body` cut into chunks of `chunkSize` bytes.
        public init(status: Int, headers: [String: String] = [:], body: [UInt8] = [], chunkSize: Int = 16 * 1024, failure: TransportError? = nil) {
            self.status = status
            self.headers = headers
            let size = max(chunkSize, 1)
            chunks = stride(from: 0, to: body.count, by: size).map { Array(body[$0..<min($0 + size, body.count)]) }
            self.failure = failure
        }

        /// A reply whose body is `chunks`, handed out as they are.
        public init(status: Int, headers: [String: String] = [:], chunks: [[UInt8]], failure: TransportError? = nil) {
            self.status = status
            self.headers = headers
            self.chunks = chunks.filter { !$0.isEmpty }
            self.failure = failure
        }
    }

    private let handler: @Sendable (URLRequest) async throws -> Reply
    private let lock = NSLock()
    private var sent: [URLRequest] = []
    private var taken = 0

    /// A transport whose replies come from `handler`. A ``TransportError`` it throws fails
    /// the exchange as it says; any other error fails it as ``TransportError/Kind/other``.
    public init(_ handler: @escaping @Sendable (URLRequest) async throws -> Reply) {
        self.handler = handler
    }

    /// The requests sent so far, in order.
    public var requests: [URLRequest] { lock.withLock { sent } }

    /// Body chunks handed out so far, over all replies.
    public var chunksTaken: Int { lock.withLock { taken } }

    /// Sends `request` to the handler.
    ///
    /// - Throws: the handler's ``TransportError``, or ``TransportError/Kind/cancelled``.
    public func send(_ request: URLRequest, limits: TransportLimits) async throws(TransportError) -> TransportResponse {
        lock.withLock { sent.append(request) }
        if Task.isCancelled { throw TransportError(.cancelled, "cancelled") }
        let reply: Reply
        do {
            reply = try await handler(request)
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError(.other, "\(error)")
        }
        return TransportResponse(status: reply.status, headers: reply.headers, body: Body(reply, transport: self))
    }

    fileprivate func tookChunk() { lock.withLock { taken += 1 } }

    private final class Body: TransportBody, @unchecked Sendable {
        private let lock = NSLock()
        private var chunks: ArraySlice<[UInt8]>
        private let failure: TransportError?
        private var cancelled = false
        private weak var transport: InMemoryTransport?

        init(_ reply: Reply, transport: InMemoryTransport) {
            chunks = reply.chunks[...]
            failure = reply.failure
            self.transport = transport
        }

        func next() async throws(TransportError) -> [UInt8]? {
            let (stopped, chunk) = lock.withLock { (cancelled, chunks.popFirst()) }
            if stopped || Task.isCancelled { throw TransportError(.cancelled, "cancelled") }
            if let chunk {
                transport?.tookChunk()
                return chunk
            }
            if let failure { throw failure }
            return nil
        }

        func cancel() { lock.withLock { cancelled = true } }
    }
}
