import Foundation
import JSONAPIStream

/// The body of a page fetched ahead of its turn: in memory up to ``memoryLimit`` bytes, the
/// rest in an unlinked temporary file, so that pages fetched ahead cost bounded memory
/// whatever their size. Used on the sender's queue only.
final class PageBuffer {
    let memoryLimit: Int
    private var memory: [UInt8] = []
    private var fd: Int32 = -1
    private var fileBytes = 0

    init(memoryLimit: Int = 1 << 20) { self.memoryLimit = memoryLimit }

    deinit { if fd >= 0 { close(fd) } }

    var count: Int { memory.count + fileBytes }

    func append(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        if fd < 0 && memory.count + chunk.count <= memoryLimit {
            memory.append(contentsOf: chunk)
            return
        }
        try spill(chunk)
    }

    /// Hands the bytes over in order, in pieces of at most 256 KiB, and empties the buffer.
    func drain(into feed: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void) throws(JSONAPIError) {
        defer { removeAll() }
        if !memory.isEmpty {
            try withBytes(memory) { (b) throws(JSONAPIError) in try feed(b) }
        }
        guard fd >= 0, fileBytes > 0 else { return }
        var piece = [UInt8](repeating: 0, count: 256 * 1024)
        var offset = 0
        while offset < fileBytes {
            let n = piece.withUnsafeMutableBytes { pread(fd, $0.baseAddress, min($0.count, fileBytes - offset), off_t(offset)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw JSONAPIError.input("cannot read a buffered page back: \(String(cString: strerror(errno)))") }
            try withBytes(piece) { (b) throws(JSONAPIError) in try feed(UnsafeRawBufferPointer(rebasing: b[0..<n])) }
            offset += n
        }
    }

    func removeAll() {
        memory.removeAll(keepingCapacity: false)
        if fd >= 0 {
            close(fd)
            fd = -1
        }
        fileBytes = 0
    }

    @inline(never)
    private func spill(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        if fd < 0 {
            var template = Array((NSTemporaryDirectory() + "/jsonapi-page-XXXXXX").utf8CString)
            fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
            guard fd >= 0 else { throw JSONAPIError.input("cannot create a temporary file for a page: \(String(cString: strerror(errno)))") }
            template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
        }
        var offset = 0
        while offset < chunk.count {
            let n = write(fd, chunk.baseAddress! + offset, chunk.count - offset)
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw JSONAPIError.input("cannot buffer a page: \(String(cString: strerror(errno)))") }
            offset += n
        }
        fileBytes += chunk.count
    }
}
