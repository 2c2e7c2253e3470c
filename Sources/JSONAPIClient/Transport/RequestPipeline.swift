import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A step every request goes through before it is sent (every attempt): add authentication,
/// sign it, set a header. Preparers run in the order of
/// ``JSONAPIClient/Configuration/requestPreparers``, after the configured headers and
/// ``RequestDefaults`` are in; a thrown error fails the call with that error.
public struct RequestPreparer: Sendable {
    /// A name, for the log.
    public var name: String
    let prepare: @Sendable (inout URLRequest) async throws -> Void

    /// A preparer named `name` that changes the request with `prepare`.
    public init(_ name: String, _ prepare: @escaping @Sendable (inout URLRequest) async throws -> Void) {
        self.name = name
        self.prepare = prepare
    }

    /// `Authorization: Bearer TOKEN`, the token asked for on each request (so a refreshed
    /// token is used from the next request on).
    public static func bearerToken(_ token: @escaping @Sendable () async throws -> String) -> RequestPreparer {
        RequestPreparer("bearer token") { request in
            request.setValue("Bearer \(try await token())", forHTTPHeaderField: "Authorization")
        }
    }
}

/// What a ``ResponseProcessor`` makes of a response.
public enum ResponseAction: Sendable {
    /// Go on with this response: the one received, or a changed one (another status or
    /// headers, or a body that wraps the original one).
    case proceed(TransportResponse)
    /// Ask again, after `after` seconds (or the retry policy's backoff when `nil`). Counts
    /// as an attempt; when none is left the call fails with
    /// ``JSONAPIClientError/rejected(url:processor:reason:)``.
    case retry(after: Double?)
    /// Fail the call with `error`, thrown as it is.
    case reject(any Error)
}

/// A step every final response (redirects followed) goes through before its body is read:
/// look at it, change it, have it asked for again, or refuse it with an error of your own.
/// Processors run in the order of ``JSONAPIClient/Configuration/responseProcessors``, each on
/// what the one before returned; the first that does not proceed decides. A thrown error is
/// the same as ``ResponseAction/reject(_:)``.
///
/// ```swift
/// // A gateway that answers 200 with {"maintenance": true} while it is down.
/// configuration.responseProcessors.append(ResponseProcessor("maintenance") { response, _ in
///     response.headers["x-maintenance"] == "1" ? .retry(after: 30) : .proceed(response)
/// })
/// ```
public struct ResponseProcessor: Sendable {
    /// A name, for the log and for the error when it runs out of retries.
    public var name: String
    let process: @Sendable (TransportResponse, URLRequest) async throws -> ResponseAction

    /// A processor named `name`: `process` gets the response and the request that was sent.
    public init(_ name: String, _ process: @escaping @Sendable (_ response: TransportResponse, _ request: URLRequest) async throws -> ResponseAction) {
        self.name = name
        self.process = process
    }
}

/// Headers and query parameters added to requests that do not have them already, on the
/// way to the origin the call started from (like ``JSONAPIClient/Configuration/headers``,
/// they may carry an API key: they do not go to other origins).
public struct RequestDefaults: Sendable, Equatable {
    /// Headers, by name (any case).
    public var headers: [String: String] = [:]
    /// Query parameters, in order, added when the URL has no parameter of that name.
    public var queryItems: [QueryItem] = []

    /// Defaults of `headers` and `queryItems`.
    public init(headers: [String: String] = [:], queryItems: [QueryItem] = []) {
        self.headers = headers
        self.queryItems = queryItems
    }

    /// `request` with what it lacks of these defaults.
    func apply(to request: inout URLRequest) {
        for (name, value) in headers where request.value(forHTTPHeaderField: name) == nil {
            request.setValue(value, forHTTPHeaderField: name)
        }
        guard !queryItems.isEmpty, let url = request.url, var parts = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return }
        let present = Set((parts.queryItems ?? []).map(\.name))
        let added = queryItems.filter { !present.contains($0.name) }
        guard !added.isEmpty else { return }
        let extra = added.map(\.encoded).joined(separator: "&")
        parts.percentEncodedQuery = parts.percentEncodedQuery.map { $0.isEmpty ? extra : "\($0)&\(extra)" } ?? extra
        request.url = parts.url ?? url
    }
}
