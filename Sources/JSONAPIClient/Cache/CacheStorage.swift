import Foundation
import JSONAPIStream
import Logging

/// A response body being copied into the cache as it streams: in memory, or into a file of
/// the cache's directory. Used by one exchange at a time.
final class CacheWriter: @unchecked Sendable {
    private enum State {
        case copying
        /// Given up (too large, a write failed, the body was not wanted), for this reason.
        case givenUp(String)
        case kept
    }

    private let cache: ResponseCache
    private let id: String
    private var head: ResponseCache.Head
    private var bytes: [UInt8] = []
    private let file: String?
    private var fd: Int32 = -1
    private var state = State.copying

    init(cache: ResponseCache, id: String, head: ResponseCache.Head, file: String?) {
        self.cache = cache
        self.id = id
        self.head = head
        self.file = file
        if let file {
            fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 { giveUp("cannot create \(file): \(String(cString: strerror(errno)))") }
        }
    }

    /// A copy neither kept nor given up (its exchange failed) goes.
    deinit { giveUp("the body did not end well") }

    /// Copies `chunk`; gives up once the body is larger than the cache keeps.
    func append(_ chunk: [UInt8]) {
        guard case .copying = state else { return }
        guard head.size + chunk.count <= cache.maxEntryBytes else {
            giveUp("larger than \(cache.maxEntryBytes) bytes")
            return
        }
        head.size += chunk.count
        guard let file else {
            bytes.append(contentsOf: chunk)
            return
        }
        let failure = chunk.withUnsafeBytes { b -> JSONAPIError? in
            do throws(JSONAPIError) {
                try writeAll(fd, b, path: file)
                return nil
            } catch {
                return error
            }
        }
        if let failure { giveUp(failure.description) }
    }

    /// Keeps the body, once the document it holds has ended well, and says so in the log.
    func keep(logger: Logger) {
        switch state {
        case .kept:
            return
        case .givenUp(let reason):
            logger.debug("cache: not storing \(head.key): \(reason)")
        case .copying:
            state = .kept
            closeFile()
            cache.commit(head, id: id, bytes: file == nil ? bytes : nil, file: file)
            bytes = []
            logger.debug("cache: stored \(head.size) bytes of \(head.key)")
        }
    }

    private func giveUp(_ reason: String) {
        guard case .copying = state else { return }
        state = .givenUp(reason)
        bytes = []
        closeFile()
        if let file { unlink(file) }
    }

    private func closeFile() {
        if fd >= 0 {
            close(fd)
            fd = -1
        }
    }
}

/// A stored body, read chunk by chunk: the bytes of a cache in memory, or an open file (a
/// file opened stays readable if another process evicts it meanwhile).
final class StoredBody: @unchecked Sendable {
    private var bytes: [UInt8]?
    private var fd: Int32 = -1
    private var left = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    /// The file at `path`, when it holds `size` bytes.
    init?(path: String, size: Int) {
        fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, Int(info.st_size) == size else {
            close(fd)
            return nil
        }
        left = size
    }

    deinit { if fd >= 0 { close(fd) } }

    /// The next bytes (at most 256 KiB from a file), or `nil` at the end.
    func next() throws(TransportError) -> [UInt8]? {
        if let b = bytes {
            bytes = nil
            return b.isEmpty ? nil : b
        }
        guard fd >= 0, left > 0 else { return nil }
        let want = min(left, 256 * 1024)
        var failed: Int32 = 0
        let chunk = [UInt8](unsafeUninitializedCapacity: want) { buffer, count in
            var n = 0
            while n < want {
                let r = read(fd, buffer.baseAddress! + n, want - n)
                if r < 0 && errno == EINTR { continue }
                guard r > 0 else {
                    failed = r == 0 ? EIO : errno
                    break
                }
                n += r
            }
            count = n
        }
        guard failed == 0 else { throw TransportError(.other, "reading the cache failed: \(String(cString: strerror(failed)))") }
        left -= chunk.count
        return chunk
    }
}

/// Least-recently-used order of entry ids: every operation in constant time.
struct LRUOrder {
    private var links: [String: (older: String?, newer: String?)] = [:]
    private(set) var oldest: String?
    private var newest: String?

    /// Makes `id` the most recently used.
    mutating func touch(_ id: String) {
        if newest == id { return }
        remove(id)
        links[id] = (newest, nil)
        if let n = newest { links[n]?.newer = id }
        newest = id
        if oldest == nil { oldest = id }
    }

    mutating func remove(_ id: String) {
        guard let link = links.removeValue(forKey: id) else { return }
        if let o = link.older { links[o]?.newer = link.newer } else { oldest = link.newer }
        if let n = link.newer { links[n]?.older = link.older } else { newest = link.older }
    }
}
