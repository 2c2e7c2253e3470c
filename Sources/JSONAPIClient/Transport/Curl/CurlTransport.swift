import CCurl
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` on the system's libcurl (the library FoundationNetworking itself
/// wraps on Linux), the default on Linux.
///
/// - **Backpressure**: at most ``Options/readAhead`` bytes of a body are held; past that
///   the transfer is paused (`CURL_WRITEFUNC_PAUSE`) until the consumer takes them, so the
///   server is read only as fast as the body is consumed.
/// - **Time limits**: ``TransportLimits/idleTimeout`` (connecting, and waiting for a byte
///   while not paused) and ``TransportLimits/deadline`` (the whole exchange, paused time
///   included).
/// - **TLS**: normal certificate verification, another trust anchor
///   (``Options/certificateAuthorities``) and public-key pinning
///   (``Options/pinnedPublicKeys``, checked on top of verification, before a byte of the
///   request is sent).
/// - **Connections**: at most ``Options/maxConnectionsPerHost`` exchanges in flight to one
///   origin (more wait their turn, their time limits not yet running) and
///   ``Options/maxConnections`` in all; connections are kept and reused; HTTP/2 where the
///   server offers it over TLS; bodies compressed with gzip, deflate, br or zstd are
///   decompressed.
///
/// All transfers of one transport run on one thread of its own (libcurl's multi interface);
/// the thread ends with the transport.
public final class CurlTransport: HTTPTransport {
    /// How a ``CurlTransport`` connects.
    public struct Options: Sendable {
        /// Exchanges in flight to one origin (scheme, host, port) at most; more wait.
        public var maxConnectionsPerHost = 8
        /// Exchanges in flight in all at most; `0`: no limit but the per-host one.
        public var maxConnections = 0
        /// A PEM file of certificates to trust instead of the system's (a self-signed test
        /// server's certificate, a company CA): curl's `--cacert`.
        public var certificateAuthorities: String?
        /// Public keys to pin, by host name (lower case; `*` for every host): each value is
        /// curl's `--pinnedpubkey` list, `sha256//BASE64` hashes of the SubjectPublicKeyInfo
        /// separated by `;` (put a backup key's hash beside the current one). A server whose
        /// key matches none fails with ``TransportError/Kind/tls`` before any byte of the
        /// request is sent. Only for `https` URLs.
        public var pinnedPublicKeys: [String: String] = [:]
        /// Body bytes held per exchange before the transfer is paused.
        public var readAhead = 256 * 1024
        /// Whether compressed bodies are asked for (`Accept-Encoding` with every encoding
        /// libcurl decodes) when a request does not set `Accept-Encoding` itself.
        public var acceptsCompression = true

        /// The defaults.
        public init() {}
    }

    /// How this transport connects.
    public let options: Options
    private let loop: CurlLoop

    /// A transport with `options`; its thread starts now.
    public init(options: Options = Options()) {
        self.options = options
        loop = CurlLoop(options: options)
    }

    deinit { loop.stop() }

    /// Sends `request`; returns when the response's head has arrived.
    ///
    /// - Throws: ``TransportError``; ``TransportError/Kind/cancelled`` when the calling task
    ///   is cancelled.
    public func send(_ request: URLRequest, limits: TransportLimits) async throws(TransportError) -> TransportResponse {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            throw TransportError(.other, "CurlTransport sends only http and https requests, not \(request.url?.absoluteString ?? "a request without a URL")")
        }
        let transfer = try CurlTransfer(request: request, url: url, limits: limits, options: options, loop: loop)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Result<TransportResponse, TransportError>, Never>) in
                transfer.start(c)
            }
        } onCancel: {
            transfer.cancel()
        }
        return try result.get()
    }
}
