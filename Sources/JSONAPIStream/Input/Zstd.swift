internal import CZstd

/// Decompresses a zstd stream as it arrives (RFC 8878), for inputs that start with zstd's
/// magic bytes (`28 b5 2f fd`): several frames one after the other (and skippable frames)
/// read as one stream, as zstd(1) reads them. Memory: the frame's window (zstd's default
/// limit, 128 MiB; a frame that needs more is refused) and one output buffer.
final class ZstdStream {
    private let stream: OpaquePointer
    private let output: UnsafeMutableRawPointer
    private let outputSize: Int
    private let name: String
    /// Compressed bytes consumed so far.
    private var consumed = 0
    /// zstd's hint after the last call: 0 when a frame has just ended.
    private var pending = 0

    init(name: String, outputSize: Int) throws(JSONAPIError) {
        self.name = name
        self.outputSize = max(outputSize, 64 * 1024)
        guard let s = ZSTD_createDStream() else {
            throw JSONAPIError.input("cannot read \(name): zstd could not start")
        }
        stream = s
        _ = ZSTD_initDStream(stream)
        output = UnsafeMutableRawPointer.allocate(byteCount: self.outputSize, alignment: 16)
    }

    deinit {
        ZSTD_freeDStream(stream)
        output.deallocate()
    }

    /// Decompresses `chunk`, calling `body` with each piece of output.
    func feed(_ chunk: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void) throws(JSONAPIError) {
        guard let base = chunk.baseAddress, chunk.count > 0 else { return }
        // Invariant: zstd reads `size - pos` bytes at `src + pos` and writes at most
        // `size - pos` bytes at `dst + pos`, inside the buffers given here.
        var input = ZSTD_inBuffer(src: base, size: chunk.count, pos: 0)
        while true {
            var out = ZSTD_outBuffer(dst: output, size: outputSize, pos: 0)
            let result = ZSTD_decompressStream(stream, &out, &input)
            if ZSTD_isError(result) != 0 {
                let detail = String(cString: ZSTD_getErrorName(result))
                throw JSONAPIError.input("cannot read \(name): invalid zstd data near compressed byte \(consumed + input.pos) (\(detail))")
            }
            pending = result
            if out.pos > 0 { try body(UnsafeRawBufferPointer(start: output, count: out.pos)) }
            // Done with this chunk once it is read and zstd had room to spare (it holds no
            // more output for now).
            if input.pos == input.size && out.pos < out.size { break }
        }
        consumed += chunk.count
    }

    /// Ends the stream: an unfinished frame is an error (a truncated file).
    func finish() throws(JSONAPIError) {
        if pending != 0 {
            throw JSONAPIError.input("cannot read \(name): the zstd stream ends inside a frame (the file is truncated) at compressed byte \(consumed)")
        }
    }
}
