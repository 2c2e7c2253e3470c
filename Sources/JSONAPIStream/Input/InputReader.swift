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

    /// The size in bytes when it is known in advance (regular files, bytes; not a gzip
    /// file, whose decompressed size is not known before the end).
    public var knownSize: Int? {
        if isGzip { return nil }
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
    /// A source that starts with gzip's magic bytes (`1f 8b`) is decompressed as it is read
    /// (several members read as one stream); `body` then gets the decompressed bytes, and
    /// positions in diagnostics count those.
    ///
    /// - Throws: ``JSONAPIError/input(_:)`` when the source cannot be opened or read, or
    ///   its gzip data is invalid or truncated; any error `body` throws.
    public func read(
        chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void
    ) throws(JSONAPIError) {
        let size = max(1, chunkSize)
        // Decided on the first bytes: plain bytes go straight to `body`.
        var gzip: GzipStream? = nil
        var decided = false
        var held: [UInt8] = []
        let name = self.name
        try readRaw(chunkSize: size) { (chunk) throws(JSONAPIError) in
            if let gzip { return try gzip.feed(chunk, body) }
            if decided { return try body(chunk) }
            // The magic is two bytes: a one-byte first read waits for the next.
            if held.isEmpty && chunk.count == 1 && chunk[0] == 0x1F { held = [0x1F]; return }
            decided = true
            let first: [UInt8] = held + Array(chunk.prefix(2 - held.count))
            let isGzip = first.withUnsafeBytes { GzipStream.isGzip($0) }
            if isGzip {
                let g = try GzipStream(name: name, outputSize: size)
                gzip = g
                if !held.isEmpty { try withContiguousBytes(of: held) { (h) throws(JSONAPIError) in try g.feed(h, body) } }
                try g.feed(chunk, body)
            } else {
                if !held.isEmpty { try withContiguousBytes(of: held) { (h) throws(JSONAPIError) in try body(h) } }
                try body(chunk)
            }
        }
        if !decided && !held.isEmpty { try withContiguousBytes(of: held) { (h) throws(JSONAPIError) in try body(h) } }
        try gzip?.finish()
    }

    /// Whether the source starts with gzip's magic bytes (files and bytes; standard input is
    /// not looked at in advance).
    public var isGzip: Bool {
        switch self {
        case .bytes(let b, _): return b.count >= 2 && b[0] == 0x1F && b[1] == 0x8B
        case .standardInput: return false
        case .file(let p):
            let fd = open(p, O_RDONLY)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var magic: (UInt8, UInt8) = (0, 0)
            return withUnsafeMutableBytes(of: &magic) { systemRead(fd, $0.baseAddress!, 2) } == 2 && magic == (0x1F, 0x8B)
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
