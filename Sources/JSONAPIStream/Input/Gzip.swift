internal import CZlib

/// Inflates a gzip stream as it arrives (RFC 1952), for inputs that start with gzip's magic
/// bytes (`1f 8b`): several members one after the other (`cat a.gz b.gz`, `pigz`) read as
/// one stream, as gzip(1) reads them. Memory: zlib's window (32 KiB) and one output buffer.
///
/// Positions in diagnostics count decompressed bytes; errors in the compressed data name the
/// compressed byte offset.
final class GzipStream {
    private var stream = z_stream()
    private let output: UnsafeMutableRawPointer
    private let outputSize: Int
    private let name: String
    /// Compressed bytes consumed so far.
    private var consumed = 0
    /// Whether a member is open (its header seen, its end not yet).
    private var inMember = false
    private var initialized = false

    init(name: String, outputSize: Int) throws(JSONAPIError) {
        self.name = name
        self.outputSize = max(outputSize, 64 * 1024)
        output = UnsafeMutableRawPointer.allocate(byteCount: self.outputSize, alignment: 16)
        // 16 + MAX_WBITS: a gzip wrapper (header and CRC-32 checked), the largest window.
        let status = inflateInit2_(&stream, 16 + MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            output.deallocate()
            throw JSONAPIError.input("cannot read \(name): zlib could not start (\(status))")
        }
        initialized = true
    }

    deinit {
        if initialized { inflateEnd(&stream) }
        output.deallocate()
    }

    /// Inflates `chunk` (compressed bytes), calling `body` with each piece of output.
    func feed(_ chunk: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void) throws(JSONAPIError) {
        guard let base = chunk.baseAddress, chunk.count > 0 else { return }
        var offset = 0
        // zlib may hold output it had no room for once the input is used up: drain it.
        var draining = false
        while offset < chunk.count || draining {
            if !inMember {
                // A new member must start here: only gzip members may follow one another.
                let rest = UnsafeRawBufferPointer(rebasing: chunk[offset...])
                let isMember = rest.count >= 2 ? Compression.detect(Array(rest.prefix(2))) == .gzip : rest[0] == Compression.gzipMagic[0]
                if !isMember {
                    throw JSONAPIError.input("cannot read \(name): data after the end of the gzip stream at compressed byte \(consumed + offset)")
                }
                if consumed + offset > 0 { inflateReset(&stream) }
                inMember = true
            }
            // Invariant: zlib reads `avail_in` bytes from `next_in` and writes at most
            // `avail_out` bytes at `next_out`; both stay inside the buffers given here.
            let available = min(chunk.count - offset, Int(UInt32.max))
            stream.next_in = UnsafeMutablePointer(mutating: (base + offset).assumingMemoryBound(to: Bytef.self))
            stream.avail_in = UInt32(available)
            stream.next_out = output.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = UInt32(outputSize)
            let status = inflate(&stream, Z_NO_FLUSH)
            let used = available - Int(stream.avail_in)
            let produced = outputSize - Int(stream.avail_out)
            offset += used
            if produced > 0 { try body(UnsafeRawBufferPointer(start: output, count: produced)) }
            draining = status == Z_OK && produced == outputSize
            switch status {
            case Z_OK:
                continue
            case Z_STREAM_END:
                inMember = false
            case Z_BUF_ERROR where used == 0 && produced == 0:
                // Nothing more without more input.
                consumed += offset
                return
            default:
                let detail = stream.msg.map { String(cString: $0) } ?? "error \(status)"
                throw JSONAPIError.input("cannot read \(name): invalid gzip data near compressed byte \(consumed + offset) (\(detail))")
            }
        }
        consumed += chunk.count
    }

    /// Ends the stream: an unfinished member is an error (a truncated file).
    func finish() throws(JSONAPIError) {
        if inMember {
            throw JSONAPIError.input("cannot read \(name): the gzip stream ends inside a member (the file is truncated) at compressed byte \(consumed)")
        }
    }
}
