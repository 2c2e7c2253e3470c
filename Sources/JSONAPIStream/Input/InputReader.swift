#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where input bytes come from: a file, standard input, or bytes already in memory.
public enum InputSource: Sendable, Hashable, CustomStringConvertible {
    case file(String)
    case standardInput
    case bytes([UInt8], name: String)

    /// `-` and the empty string mean standard input.
    public init(path: String) {
        self = path == "-" || path.isEmpty ? .standardInput : .file(path)
    }

    /// The name used in diagnostics: the path, `-` for standard input.
    public var name: String {
        switch self {
        case .file(let p): p
        case .standardInput: "-"
        case .bytes(_, let name): name
        }
    }

    public var description: String { name }

    /// The size in bytes when it is known in advance (regular files, bytes; not a
    /// compressed file, whose decompressed size is not known before the end).
    public var knownSize: Int? {
        if compression != .none { return nil }
        switch self {
        case .file(let p):
            var st = stat()
            guard stat(p, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
            return Int(st.st_size)
        case .standardInput: return nil
        case .bytes(let b, _): return b.count
        }
    }

    /// Reads the source in chunks of `chunkSize` bytes, calling `body` with each.
    ///
    /// A source that starts with gzip's magic bytes (`1f 8b`) or zstd's (`28 b5 2f fd`) is
    /// decompressed as it is read (several members or frames read as one stream); `body`
    /// then gets the decompressed bytes, and positions in diagnostics count those.
    ///
    /// - Throws: ``JSONAPIError/input(_:)`` when the source cannot be opened or read, or
    ///   its compressed data is invalid or truncated; any error `body` throws.
    public func read(
        chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void
    ) throws(JSONAPIError) {
        let size = max(1, chunkSize)
        // Decided on the first bytes (held until there are enough to tell): plain bytes go
        // straight to `body`.
        var decoder: Decompressor? = nil
        var decided = false
        var held: [UInt8] = []
        let name = self.name
        func start(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
            decided = true
            let first = held + Array(chunk.prefix(4))
            switch Compression.detect(first) {
            case .gzip: decoder = .gzip(try GzipStream(name: name, outputSize: size))
            case .zstd: decoder = .zstd(try ZstdStream(name: name, outputSize: size))
            case .none, .undecided: break
            }
            if !held.isEmpty { try withContiguousBytes(of: held) { (h) throws(JSONAPIError) in try pass(h) } }
            held = []
            try pass(chunk)
        }
        func pass(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
            switch decoder {
            case .gzip(let g)?: try g.feed(chunk, body)
            case .zstd(let z)?: try z.feed(chunk, body)
            case nil: try body(chunk)
            }
        }
        try readRaw(chunkSize: size) { (chunk) throws(JSONAPIError) in
            if decided { return try pass(chunk) }
            let first = held + Array(chunk.prefix(4))
            if Compression.detect(first) == .undecided {
                held = first  // fewer than 4 bytes so far, all a magic's prefix
                return
            }
            try start(chunk)
        }
        if !decided && !held.isEmpty {
            decided = true
            try withContiguousBytes(of: held) { (h) throws(JSONAPIError) in try body(h) }
        }
        switch decoder {
        case .gzip(let g)?: try g.finish()
        case .zstd(let z)?: try z.finish()
        case nil: break
        }
    }

    /// How the source is compressed (files and bytes; standard input is not looked at in
    /// advance).
    public var compression: Compression {
        switch self {
        case .bytes(let b, _): return Compression.detect(Array(b.prefix(4))).known
        case .standardInput: return .none
        case .file(let p):
            let fd = open(p, O_RDONLY)
            guard fd >= 0 else { return .none }
            defer { close(fd) }
            var magic = [UInt8](repeating: 0, count: 4)
            let n = magic.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress!, 4) }
            return Compression.detect(Array(magic.prefix(max(n, 0)))).known
        }
    }

    /// The bytes as stored, in chunks of at most `size`.
    private func readRaw(
        chunkSize size: Int, _ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void
    ) throws(JSONAPIError) {
        switch self {
        case .bytes(let b, _):
            try withContiguousBytes(of: b) { (all) throws(JSONAPIError) in
                var i = 0
                while i < all.count {
                    let end = min(i + size, all.count)
                    try body(UnsafeRawBufferPointer(rebasing: all[i..<end]))
                    i = end
                }
            }
        case .standardInput:
            try Self.read(fd: 0, name: "standard input", chunkSize: size, body)
        case .file(let path):
            let fd = open(path, O_RDONLY)
            guard fd >= 0 else { throw JSONAPIError.input("cannot open \(path): \(String(cString: strerror(errno)))") }
            defer { close(fd) }
            var st = stat()
            if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
                throw JSONAPIError.input("\(path) is a directory")
            }
            try Self.read(fd: fd, name: path, chunkSize: size, body)
        }
    }

    private static func read(
        fd: Int32, name: String, chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void
    ) throws(JSONAPIError) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let n = systemRead(fd, buffer, chunkSize)
            if n < 0 {
                if errno == EINTR { continue }
                throw JSONAPIError.input("cannot read \(name): \(String(cString: strerror(errno)))")
            }
            if n == 0 { return }
            try body(UnsafeRawBufferPointer(start: buffer, count: n))
        }
    }
}

@inline(__always)
private func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.read(fd, buffer, count)
    #elseif canImport(Musl)
    return Musl.read(fd, buffer, count)
    #else
    return Darwin.read(fd, buffer, count)
    #endif
}

/// How an input is compressed, told by its first bytes.
public enum Compression: Sendable, Hashable {
    case none, gzip, zstd
    /// Too few bytes to tell (all of them a magic's start).
    case undecided

    /// The bytes a gzip member and a zstd frame start with.
    static let gzipMagic: [UInt8] = [0x1F, 0x8B]
    static let zstdMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]

    static func detect(_ first: [UInt8]) -> Compression {
        let gzip = gzipMagic, zstd = zstdMagic
        if first.count >= 2 && Array(first.prefix(2)) == gzip { return .gzip }
        if first.count >= 4 && Array(first.prefix(4)) == zstd { return .zstd }
        if first.count < 2 && gzip.starts(with: first) { return .undecided }
        if first.count < 4 && zstd.starts(with: first) { return .undecided }
        return .none
    }

    /// `.undecided` (a source shorter than a magic) is not compressed.
    var known: Compression { self == .undecided ? .none : self }
}

private enum Decompressor {
    case gzip(GzipStream)
    case zstd(ZstdStream)
}
