import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream

/// The cache's part in one request: the entry it maps to and the stored response it
/// revalidates.
struct CacheUse: Sendable {
    let cache: ResponseCache
    let key: String
    let id: String
    let partition: String
    let policy: CachePolicy
    /// The stored response the request revalidates (it carries its validators).
    var candidate: ResponseCache.Head?
}

extension RequestSender {
    enum CacheAnswer {
        /// The cache answered; the body went to the slot.
        case served(Response)
        /// The request goes to the server, using the cache as said.
        case send(CacheUse)
    }

    /// The key `request` is cached under; `nil` when it is not cached.
    func cacheKey(_ request: URLRequest) -> String? {
        guard configuration.cache != nil, let url = request.url else { return nil }
        if let custom = configuration.cacheKey { return custom(request) }
        return url.absoluteString
    }

    /// Asks the cache about `request` (as it will be sent: its credentials and `Vary`
    /// headers decide): a fresh entry answers (its body goes to `slot`); a stale one with a
    /// validator adds `If-None-Match`/`If-Modified-Since` to `request`.
    ///
    /// - Throws: ``JSONAPIClientError/notCached(url:reason:)`` under
    ///   ``CachePolicy/onlyIfCached`` when the cache cannot answer; the parser's error when
    ///   the stored body is refused.
    func consult(_ cache: ResponseCache, key: String, request: inout URLRequest, slot: PageSlot?, url: URL) async throws -> CacheAnswer {
        let policy = (JSONAPIClient.cachePolicyOverride ?? configuration.cachePolicy).refined(by: request)
        let partition: String
        let id: String
        do {
            partition = try ResponseCache.partition(of: request, configured: configuration.headers.keys)
            id = try ResponseCache.id(key: key, partition: partition)
        } catch {
            throw JSONAPIClientError.invalidRequest("the response cache cannot name its entries: \(error.description)")
        }
        var use = CacheUse(cache: cache, key: key, id: id, partition: partition, policy: policy, candidate: nil)
        let logger = configuration.logger
        var refusal = "no response is stored for it"
        if policy != .bypassCache, let head = cache.lookup(id, request: request) {
            let freshness = cache.freshness(head, lifetime: policy.lifetime)
            let ages = "age \(RequestLog.seconds(freshness.age)) s of \(RequestLog.seconds(freshness.lifetime)) s"
            if freshness.isFresh || (policy == .onlyIfCached && !freshness.mustRevalidate) {
                if let body = cache.body(id, head: head) {
                    logger.debug("cache: \(freshness.isFresh ? "fresh" : "stale (only-if-cached)") hit for \(key), \(ages), \(head.size) bytes")
                    do {
                        try await replay(body, headers: head.headers, into: slot)
                    } catch {
                        switch error {
                        case .document(let e): throw JSONAPIClientError.consuming(e, url: url)
                        case .read(let e): throw JSONAPIClientError.transport(url: url, message: e.message, attempts: 0)
                        }
                    }
                    return .served(Response(status: head.status, headers: head.headers, notModified: false, fromCache: true, attempts: 0))
                }
                refusal = "the stored response is gone"
            } else if policy == .onlyIfCached {
                refusal = "the stored response is stale (\(ages)) and must be revalidated"
            } else if head.headers["etag"] != nil || head.headers["last-modified"] != nil {
                if let etag = head.headers["etag"] { request.setValue(etag, forHTTPHeaderField: "If-None-Match") }
                if let modified = head.headers["last-modified"] { request.setValue(modified, forHTTPHeaderField: "If-Modified-Since") }
                use.candidate = head
                logger.debug("cache: revalidating \(key) (\(ages))", metadata: head.headers["etag"].map { ["etag": "\($0)"] })
            }
        }
        if policy == .onlyIfCached {
            throw JSONAPIClientError.notCached(url: url, reason: refusal)
        }
        return .send(use)
    }

    /// Why a stored body could not be replayed.
    enum ReplayFailure: Error {
        /// The parser refused it.
        case document(JSONAPIError)
        /// Its file could not be read.
        case read(TransportError)
    }

    /// Feeds a stored body to `slot`, as if it had come from the server.
    func replay(_ body: StoredBody, headers: [String: String], into slot: PageSlot?) async throws(ReplayFailure) {
        guard let slot else { return }
        await onQueue {
            slot.restart()
            slot.headers = headers
        }
        while true {
            let chunk: [UInt8]?
            do { chunk = try body.next() } catch { throw .read(error) }
            guard let chunk else { return }
            do {
                try await onQueue { () throws(JSONAPIError) in try withBytes(chunk) { (b) throws(JSONAPIError) in try slot.receive(b) } }
            } catch {
                throw .document(error)
            }
            if let pacing = JSONAPIClient.pacing { await pacing.waitForRoom() }
        }
    }

    /// After a successful `POST`, `PATCH`, `PUT` or `DELETE` of `request`'s URL, the cached
    /// responses of a `GET` of it are not to be trusted (RFC 9111 §4.4).
    func invalidateCache(after request: URLRequest) {
        guard let cache = configuration.cache, let method = request.httpMethod?.uppercased(), method != "GET", method != "HEAD" else { return }
        var get = request
        get.httpMethod = "GET"
        get.httpBody = nil
        guard let key = cacheKey(get) else { return }
        cache.invalidate(key: key)
        configuration.logger.debug("cache: \(method) \(key) succeeded; its stored responses are forgotten")
    }
}
