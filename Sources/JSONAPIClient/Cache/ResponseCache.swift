import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream

/// Responses kept for reuse, as a private HTTP cache (RFC 9111) would: a fresh response
/// (`Cache-Control: max-age`, `Expires`, or a lifetime of yours) answers a `GET` without a
/// request; a stale one is revalidated (`If-None-Match`, `If-Modified-Since`) and a
/// `304 Not Modified` is answered with the stored body.
///
/// - Entries are found by the request's cache key (its URL, or
///   ``JSONAPIClient/Configuration/cacheKey``), the values of the request headers the
///   response's `Vary` names, and the request's credentials: a response to a request with an
///   `Authorization`, a cookie or a configured header is only ever served to a request with
///   the same ones.
/// - Not stored: `Cache-Control: no-store` (response or request), `Vary: *`, statuses other
///   than 200, responses reached through a redirect, and responses with neither a
///   validator nor a freshness lifetime (nothing could reuse them).
/// - Bounded: a body is copied into the cache as it streams to the parser, and dropped
///   from the cache (not from the parser) once it grows past ``maxEntryBytes``; the least
///   recently used entries go once the bodies add up to more than ``maxBytes`` or there are
///   more than ``maxEntries``.
/// - In memory, or in a directory (``init(directory:maxBytes:maxEntryBytes:maxEntries:defaultLifetime:)``),
///   where entries outlive the process (`jsonapi fetch --cache DIR`): files readable by
///   their owner only, named by the SHA-256 of key and credentials (never the credentials
///   themselves).
///
/// Safe to share between tasks and clients.
public final class ResponseCache: @unchecked Sendable {
    /// Bytes of bodies kept in all.
    public let maxBytes: Int
    /// The largest body kept.
    public let maxEntryBytes: Int
    /// Responses kept at most.
    public let maxEntries: Int
    /// Seconds a response that says nothing of its freshness (no `max-age`, no `Expires`)
    /// stays fresh; `0` (the default): it is revalidated every time.
    public let defaultLifetime: Double
    /// Where the entries are kept; `nil`: in memory.
    public let directory: URL?

    /// What is kept of a response, besides its body.
    struct Head: Codable, Sendable {
        /// The cache key (the URL by default).
        var key: String
        /// The SHA-256 of the request's credentials; empty when it had none.
        var partition: String
        var status: Int
        /// The response's headers, lower-case names, without `Set-Cookie` and hop-by-hop ones.
        var headers: [String: String]
        /// The request's values of the headers `Vary` names (`nil`: absent).
        var vary: [String: String?]
        /// When the response arrived (seconds since 1970).
        var storedAt: Double
        /// The body's length.
        var size: Int
    }

    private let lock = NSLock()
    private var index: [String: Head] = [:]
    /// The entry ids of each key (one per credentials partition), for invalidation.
    private var idsByKey: [String: Set<String>] = [:]
    private var order = LRUOrder()
    private var bodies: [String: [UInt8]] = [:]
    private var total = 0
    /// The clock (seconds since 1970); tests move it.
    var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    /// A cache in memory. `maxEntryBytes` is a quarter of `maxBytes` when not given.
    public convenience init(maxBytes: Int = 32 << 20, maxEntryBytes: Int? = nil, maxEntries: Int = 4096, defaultLifetime: Double = 0) {
        self.init(maxBytes: maxBytes, maxEntryBytes: maxEntryBytes, maxEntries: maxEntries, defaultLifetime: defaultLifetime, directory: nil)
    }

    /// A cache in `directory` (created, readable by its owner only, when missing), with what
    /// an earlier process left there. `maxEntryBytes` is a quarter of `maxBytes` when not
    /// given.
    ///
    /// - Throws: `CocoaError` when the directory cannot be created or read.
    public convenience init(
        directory: URL, maxBytes: Int = 1 << 30, maxEntryBytes: Int? = nil, maxEntries: Int = 100_000, defaultLifetime: Double = 0
    ) throws {
        self.init(maxBytes: maxBytes, maxEntryBytes: maxEntryBytes, maxEntries: maxEntries, defaultLifetime: defaultLifetime, directory: directory)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try scan(directory)
    }

    private init(maxBytes: Int, maxEntryBytes: Int?, maxEntries: Int, defaultLifetime: Double, directory: URL?) {
        self.maxBytes = max(0, maxBytes)
        self.maxEntryBytes = min(self.maxBytes, maxEntryBytes ?? self.maxBytes / 4)
        self.maxEntries = max(0, maxEntries)
        self.defaultLifetime = defaultLifetime
        self.directory = directory
    }

    /// The number of stored responses.
    public var count: Int { lock.withLock { index.count } }

    /// Bytes of bodies stored.
    public var totalBytes: Int { lock.withLock { total } }

    /// Forgets everything (and deletes the files of a cache in a directory).
    public func removeAll() {
        let ids = lock.withLock { () -> [String] in
            defer {
                index.removeAll()
                idsByKey.removeAll()
                bodies.removeAll()
                order = LRUOrder()
                total = 0
            }
            return Array(index.keys)
        }
        for id in ids { deleteFiles(id) }
    }

    // MARK: Lookup

    /// The entry id of `key` for requests with credentials `partition`.
    static func id(key: String, partition: String) throws(JSONAPIError) -> String {
        var text = partition + "\n" + key
        let hasher = try SHA256Hasher()
        return text.withUTF8 { hasher.hex(UnsafeRawBufferPointer($0)) }
    }

    /// The fingerprint of the credentials `request` carries (the headers
    /// ``CredentialScope/credentialNames(configured:)`` names, the ones stripped on the way to
    /// another origin): empty when it carries none.
    static func partition(of request: URLRequest, configured: some Sequence<String>) throws(JSONAPIError) -> String {
        var text = ""
        for name in CredentialScope.credentialNames(configured: configured).sorted() {
            if let value = request.value(forHTTPHeaderField: name) { text += "\(name): \(value)\n" }
        }
        if text.isEmpty { return "" }
        let hasher = try SHA256Hasher()
        return text.withUTF8 { hasher.hex(UnsafeRawBufferPointer($0)) }
    }

    /// The entry `id`, when its `Vary` headers match `request`'s.
    func lookup(_ id: String, request: URLRequest) -> Head? {
        lock.withLock {
            guard let head = index[id] else { return nil }
            for (name, value) in head.vary where request.value(forHTTPHeaderField: name) != value { return nil }
            order.touch(id)
            return head
        }
    }

    /// The freshness of `head` now.
    func freshness(_ head: Head, lifetime: Double?) -> Freshness {
        Freshness(headers: head.headers, storedAt: head.storedAt, now: now(), defaultLifetime: defaultLifetime, lifetime: lifetime)
    }

    /// The stored body of `head`, to read; `nil` when it is gone (another process's cache
    /// evicted it).
    func body(_ id: String, head: Head) -> StoredBody? {
        if directory == nil {
            guard let bytes = lock.withLock({ bodies[id] }) else { return nil }
            return StoredBody(bytes: bytes)
        }
        guard let body = StoredBody(path: path(id, "body"), size: head.size) else {
            remove(id)
            return nil
        }
        return body
    }

    // MARK: Storing

    /// Why a response cannot be stored, or `nil` when it can.
    func refusal(status: Int, headers: [String: String], request: URLRequest, redirected: Bool, lifetime: Double?) -> String? {
        if redirected { return "reached through a redirect" }
        if status != 200 { return "HTTP \(status)" }
        let control = CacheControl(headers["cache-control"])
        if control.has("no-store") { return "Cache-Control: no-store" }
        if CacheControl(request.value(forHTTPHeaderField: "Cache-Control")).has("no-store") { return "the request's Cache-Control: no-store" }
        if Self.varyNames(headers).contains("*") { return "Vary: *" }
        let validator = headers["etag"] != nil || headers["last-modified"] != nil
        let t = now()
        let fresh = Freshness(headers: headers, storedAt: t, now: t, defaultLifetime: defaultLifetime, lifetime: lifetime).lifetime > 0
        if !validator && !fresh { return "neither a validator (ETag, Last-Modified) nor a freshness lifetime" }
        return nil
    }

    /// A writer for a response to `request` (status and headers of the response) stored as
    /// `id`; its body follows chunk by chunk.
    func writer(_ id: String, key: String, partition: String, status: Int, headers: [String: String], request: URLRequest) -> CacheWriter {
        var vary: [String: String?] = [:]
        for name in Self.varyNames(headers) { vary[name] = request.value(forHTTPHeaderField: name) }
        let head = Head(
            key: key, partition: partition, status: status, headers: Self.storable(headers), vary: vary, storedAt: now(), size: 0)
        return CacheWriter(cache: self, id: id, head: head, file: directory.map { _ in path(id, "tmp-\(UUID().uuidString)") })
    }

    /// Keeps what `writer` wrote, then evicts the least recently used entries over the
    /// bounds.
    func commit(_ head: Head, id: String, bytes: [UInt8]?, file: String?) {
        if let file {
            guard writeHead(head, id: id), rename(file, path(id, "body")) == 0 else {
                unlink(file)
                return
            }
        }
        let evicted = lock.withLock { () -> [String] in
            if let old = index[id] { total -= old.size }
            index[id] = head
            idsByKey[head.key, default: []].insert(id)
            if let bytes { bodies[id] = bytes }
            total += head.size
            order.touch(id)
            var evicted: [String] = []
            while total > maxBytes || index.count > maxEntries, let oldest = order.oldest, oldest != id {
                evicted.append(oldest)
                dropLocked(oldest)
            }
            return evicted
        }
        for id in evicted { deleteFiles(id) }
    }

    /// Replaces the stored headers of `id` with those of a `304` that revalidated it
    /// (RFC 9111 §4.3.4), and restarts its age.
    func refresh(_ id: String, with headers: [String: String]) {
        let updated = lock.withLock { () -> Head? in
            guard var head = index[id] else { return nil }
            for (name, value) in Self.storable(headers) where name != "content-length" && name != "content-type" {
                head.headers[name] = value
            }
            head.storedAt = now()
            index[id] = head
            return head
        }
        if let updated, directory != nil { _ = writeHead(updated, id: id) }
    }

    /// Forgets entry `id`.
    func remove(_ id: String) {
        let removed = lock.withLock { () -> Bool in
            guard index[id] != nil else { return false }
            dropLocked(id)
            return true
        }
        if removed { deleteFiles(id) }
    }

    /// Forgets every entry of `key`, whatever the credentials (RFC 9111 §4.4: after a
    /// successful `POST`, `PATCH`, `PUT` or `DELETE` of the same URL).
    func invalidate(key: String) {
        let ids = lock.withLock { () -> Set<String> in
            let ids = idsByKey[key] ?? []
            for id in ids { dropLocked(id) }
            return ids
        }
        for id in ids { deleteFiles(id) }
    }

    private func dropLocked(_ id: String) {
        if let old = index.removeValue(forKey: id) {
            total -= old.size
            idsByKey[old.key]?.remove(id)
            if idsByKey[old.key]?.isEmpty == true { idsByKey[old.key] = nil }
        }
        bodies[id] = nil
        order.remove(id)
    }

    static func varyNames(_ headers: [String: String]) -> [String] {
        (headers["vary"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    /// The headers worth keeping: not `Set-Cookie`, not those of one connection.
    static func storable(_ headers: [String: String]) -> [String: String] {
        headers.filter { !["set-cookie", "connection", "keep-alive", "transfer-encoding", "proxy-connection", "upgrade", "trailer"].contains($0.key) }
    }

    // MARK: Files

    func path(_ id: String, _ suffix: String) -> String {
        directory!.appendingPathComponent("\(id).\(suffix)").path
    }

    private func writeHead(_ head: Head, id: String) -> Bool {
        guard let data = try? JSONEncoder().encode(head) else { return false }
        let temporary = path(id, "head-\(UUID().uuidString)")
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else { return false }
        guard rename(temporary, path(id, "head")) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }

    private func deleteFiles(_ id: String) {
        guard directory != nil else { return }
        unlink(path(id, "head"))
        unlink(path(id, "body"))
    }

    /// Reads the heads left in `directory`: entries whose body is missing or of another
    /// length are deleted, and so are pieces of writes an hour old (a process that stopped
    /// while storing).
    private func scan(_ directory: URL) throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        var heads: [(String, Head)] = []
        let decoder = JSONDecoder()
        for name in names {
            let full = directory.appendingPathComponent(name).path
            if name.hasSuffix(".head") {
                let id = String(name.dropLast(5))
                guard let data = FileManager.default.contents(atPath: full), let head = try? decoder.decode(Head.self, from: data),
                    let attributes = try? FileManager.default.attributesOfItem(atPath: path(id, "body")),
                    (attributes[.size] as? NSNumber)?.intValue == head.size
                else {
                    deleteFiles(id)
                    continue
                }
                heads.append((id, head))
            } else if name.contains(".tmp-") || name.contains(".head-") {
                let modified = (try? FileManager.default.attributesOfItem(atPath: full))?[.modificationDate] as? Date
                if let modified, modified.timeIntervalSinceNow < -3600 { unlink(full) }
            }
        }
        heads.sort { $0.1.storedAt < $1.1.storedAt }
        for (id, head) in heads { commit(head, id: id, bytes: nil, file: nil) }
    }
}
