import Foundation

/// Bodies of responses that carried an `ETag`, for conditional requests: the next GET of
/// the same URL sends `If-None-Match`, and a `304 Not Modified` is answered from here (the
/// stored body goes through the parser as if it had come again).
///
/// Small and bounded: bodies larger than ``maxEntryBytes`` are not kept, and the least
/// recently used entries go once there are more than ``maxEntries`` or their bodies add up
/// to more than ``maxTotalBytes``. Safe to share between tasks and clients.
public final class ResponseCache: @unchecked Sendable {
    /// Responses kept at most (the least recently used goes first).
    public let maxEntries: Int
    /// The largest body kept.
    public let maxEntryBytes: Int
    /// Bytes of bodies kept in all.
    public let maxTotalBytes: Int

    struct Entry {
        var etag: String
        var body: [UInt8]
        var contentType: String?
        var lastUse: UInt64
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]
    private var totalBytes = 0
    private var clock: UInt64 = 0

    /// A cache with these limits.
    public init(maxEntries: Int = 64, maxEntryBytes: Int = 512 * 1024, maxTotalBytes: Int = 8 << 20) {
        self.maxEntries = maxEntries
        self.maxEntryBytes = maxEntryBytes
        self.maxTotalBytes = maxTotalBytes
    }

    /// The number of stored responses.
    public var count: Int { lock.withLock { entries.count } }

    /// Forgets everything.
    public func removeAll() {
        lock.withLock {
            entries.removeAll()
            totalBytes = 0
        }
    }

    func etag(for key: String) -> String? {
        lock.withLock { entries[key]?.etag }
    }

    func entry(for key: String) -> Entry? {
        lock.withLock {
            guard var e = entries[key] else { return nil }
            clock += 1
            e.lastUse = clock
            entries[key] = e
            return e
        }
    }

    func store(_ key: String, etag: String, body: [UInt8], contentType: String?) {
        guard body.count <= maxEntryBytes else { return }
        lock.withLock {
            clock += 1
            if let old = entries[key] { totalBytes -= old.body.count }
            entries[key] = Entry(etag: etag, body: body, contentType: contentType, lastUse: clock)
            totalBytes += body.count
            while entries.count > maxEntries || totalBytes > maxTotalBytes,
                let oldest = entries.min(by: { $0.value.lastUse < $1.value.lastUse })
            {
                totalBytes -= oldest.value.body.count
                entries[oldest.key] = nil
            }
        }
    }

    func remove(_ key: String) {
        lock.withLock {
            if let old = entries.removeValue(forKey: key) { totalBytes -= old.body.count }
        }
    }
}
