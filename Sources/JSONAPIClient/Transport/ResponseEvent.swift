import Foundation

/// One HTTP response as the client saw it, handed to
/// ``JSONAPIClient/Configuration/observeResponse`` before its body is read (every attempt,
/// retries, each redirect and `304 Not Modified` included).
public struct ResponseEvent: Sendable {
    /// The request's method.
    public var method: String
    /// The URL the response came from (after a redirect, the URL redirected to).
    public var url: URL
    /// The HTTP status.
    public var status: Int
    /// Header names in lower case.
    public var headers: [String: String]
    /// 1 for the first request, 2 for the first retry, …
    public var attempt: Int
    /// Seconds from sending the request to the response's head.
    public var seconds: Double

    /// A response header by name (any case).
    public func header(_ name: String) -> String? { headers[name.lowercased()] }
}
