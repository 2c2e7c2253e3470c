#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Bytes kept in memory up to a limit, then in an unlinked temporary file: how a streaming
/// writer holds a document's primary linkage (which grows with the number of primary
/// resources) without letting memory grow with the input.
final class SpillBuffer {
    @exclusivity(unchecked) private var memory = ByteArena(capacity: 4096)
    private let limit: Int
    @exclusivity(unchecked) private var file: UnsafeMutablePointer<FILE>?
    @exclusivity(unchecked) private(set) var count = 0

    init(memoryLimit: Int = 1 << 20) { limit = memoryLimit }

    deinit { if let file { fclose(file) } }

    var isEmpty: Bool { count == 0 }

    func append(_ bytes: UnsafeRawBufferPointer) throws(JSONAPIError) {
        count += bytes.count
        if file == nil && memory.count + bytes.count <= limit {
            memory.append(bytes)
            return
        }
        try write(bytes, to: spilled())
    }

    /// Appends a primary resource's identifier, `{"type":…,"id":…,"lid":…}`, after a comma
    /// when `comma`, written where it goes while the bytes are in memory (a primary resource
    /// of a large `data` array each has one); once they are in the file, `memory` is the
    /// identifier's scratch space.
    func appendIdentifier(type: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer?, lid: UnsafeRawBufferPointer?, comma: Bool) throws(JSONAPIError) {
        // The most it can take: every byte escaped as `\u00XX`, and the fixed text.
        let most = 6 * (type.count + (id?.count ?? 0) + (lid?.count ?? 0)) + 32
        let file = self.file != nil || memory.count + most > limit ? try spilled() : nil
        let before = memory.count
        if comma { memory.append(UInt8(ascii: ",")) }
        JSONEscaping.appendIdentifier(type: type, id: id, lid: lid, to: &memory)
        count += memory.count - before
        guard let file else { return }
        try memory.withBytes { (b) throws(JSONAPIError) in try write(b, to: file) }
        memory.removeAll()
    }

    /// The file, made when the bytes first go past the limit and given those held so far.
    private func spilled() throws(JSONAPIError) -> UnsafeMutablePointer<FILE> {
        if let file { return file }
        guard let f = tmpfile() else { throw JSONAPIError.input("cannot create a temporary file: \(String(cString: strerror(errno)))") }
        file = f
        try memory.withBytes { (b) throws(JSONAPIError) in try write(b, to: f) }
        memory.removeAll()
        memory.shrinkToFit()
        return f
    }

    private func write(_ b: UnsafeRawBufferPointer, to f: UnsafeMutablePointer<FILE>) throws(JSONAPIError) {
        guard b.count > 0 else { return }
        if fwrite(b.baseAddress, 1, b.count, f) != b.count {
            throw JSONAPIError.input("cannot write a temporary file: \(String(cString: strerror(errno)))")
        }
    }

    /// The largest piece ``drain(_:)`` passes.
    static let drainPiece = 64 * 1024

    /// Passes everything held, in order, to `body` in pieces of at most ``drainPiece``, then
    /// empties the buffer.
    func drain(_ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void) throws(JSONAPIError) {
        defer {
            memory.removeAll()
            count = 0
            if let f = file { fclose(f); file = nil }
        }
        guard let f = file else {
            try memory.withBytes { (b) throws(JSONAPIError) in
                var at = 0
                while at < b.count {
                    let end = min(b.count, at + Self.drainPiece)
                    try body(UnsafeRawBufferPointer(rebasing: b[at..<end]))
                    at = end
                }
            }
            return
        }
        fflush(f)
        rewind(f)
        // Small pieces: the writer they go to flushes between them, so draining adds little
        // to the process's peak (a 1 MiB piece, and the writer's buffer grown to take it, had
        // been the peak of a whole NDJSON run).
        let size = Self.drainPiece
        let chunk = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 16)
        defer { chunk.deallocate() }
        while true {
            let n = fread(chunk, 1, size, f)
            if n > 0 { try body(UnsafeRawBufferPointer(start: chunk, count: n)) }
            if n < size { break }
        }
    }
}
