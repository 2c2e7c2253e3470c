import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How a request uses the client's ``ResponseCache``:
/// ``JSONAPIClient/Configuration/cachePolicy`` for every request, or
/// ``JSONAPIClient/withCachePolicy(_:_:)`` for the calls made in a closure. A request's own
/// `Cache-Control` (set by a ``RequestPreparer``) counts too: `no-cache` bypasses the cache,
/// `no-store` bypasses it and stores nothing, `only-if-cached` asks only the cache.
public enum CachePolicy: Sendable, Equatable {
    /// A fresh stored response answers without a request; a stale one is revalidated; new
    /// responses are stored (the default).
    case useCache
    /// The stored response is not used: the request goes to the server without
    /// validators. The new response is stored.
    case bypassCache
    /// Only the cache answers, fresh or stale, without a request; a response that is not
    /// stored (or stale and marked `must-revalidate` or `no-cache`) fails the call with
    /// ``JSONAPIClientError/notCached(url:reason:)``.
    case onlyIfCached
    /// As ``useCache``, but a stored response is fresh for this many seconds after the
    /// server generated it, whatever its headers say (`no-store` still stores nothing).
    case lifetime(Double)

    /// The policy a request's own `Cache-Control` asks for, on top of this one.
    func refined(by request: URLRequest) -> CachePolicy {
        let control = CacheControl(request.value(forHTTPHeaderField: "Cache-Control"))
        if control.has("only-if-cached") { return .onlyIfCached }
        if control.has("no-cache") || control.has("no-store") || control.seconds("max-age") == 0 { return .bypassCache }
        return self
    }

    var lifetime: Double? {
        if case .lifetime(let seconds) = self { return seconds }
        return nil
    }
}

extension JSONAPIClient {
    @TaskLocal static var cachePolicyOverride: CachePolicy?

    /// Runs `body` with the calls it makes (of any client, in this task and the tasks it
    /// creates) using the cache as `policy` says, instead of their configuration's
    /// ``Configuration/cachePolicy``.
    ///
    /// ```swift
    /// let fresh = try await JSONAPIClient.withCachePolicy(.bypassCache) {
    ///     try await client.graph("articles")
    /// }
    /// ```
    public static func withCachePolicy<T>(_ policy: CachePolicy, _ body: () async throws -> T) async rethrows -> T {
        try await $cachePolicyOverride.withValue(policy) { try await body() }
    }
}
