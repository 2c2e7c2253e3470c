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
        switch self {
        case .file(let p):
            guard let size = Self.regularFileSize(p), Self.compression(ofRegularFile: p) == .none else { return nil }
            return size
        case .standardInput: return nil
        case .bytes(let b, _): return compression == .none ? b.count : nil
        }
    }

    /// The size of the regular file at `path`; nil for anything else (a pipe, a device, a
    /// socket), which must not be opened or read before its turn.
    package static func regularFileSize(_ path: String) -> Int? {
        var st = stat()
        guard stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(st.st_size)
    }

    /// The largest read: a `chunkSize` above it reads this much at a time (the result is the
    /// same for any read size; `read(2)` itself returns at most about 2 GiB).
    public static let maxChunkSize = 1 << 30

    /// Whether the source is bytes in memory (``bytes(_:name:)``).
    var isInMemory: Bool {
        if case .bytes = self { return true }
        return false
    }

    /// The read size for a `chunkSize` asked: from 1 to ``maxChunkSize``.
    package static func readSize(_ chunkSize: Int) -> Int { min(max(1, chunkSize), maxChunkSize) }

    /// Calls `body` with the source's bytes when they are in memory already and need no
    /// decompressing (``bytes(_:name:)``), else with `nil`; the view is valid only inside `body`.
    package func withBytesInMemory<R>(_ body: (UnsafeRawBufferPointer?) throws(JSONAPIError) -> R) throws(JSONAPIError) -> R {
        if case .bytes(let b, _) = self, compression == .none {
            return try withContiguousBytes(of: b) { (view) throws(JSONAPIError) -> R in try body(view) }
        }
        return try body(nil)
    }

    /// Reads the source in chunks of `chunkSize` bytes (at most ``maxChunkSize``), calling
    /// `body` with each.
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
        let puller = InputPuller(self, chunkSize: chunkSize)
        while try puller.step(body) {}
    }

    /// How the source is compressed (regular files and bytes; standard input, pipes and
    /// devices are not looked at in advance: opening a FIFO waits for its writer, and its
    /// first bytes, once read, are gone. Their reading still decompresses what it finds).
    public var compression: Compression {
        switch self {
        case .bytes(let b, _): return Compression.detect(Array(b.prefix(4))).known
        case .standardInput: return .none
        case .file(let p): return Self.regularFileSize(p) == nil ? .none : Self.compression(ofRegularFile: p)
        }
    }

    /// The compression the first bytes of the file at `path` say, which the caller has found
    /// to be a regular file (`O_NONBLOCK`, should it have become a FIFO since).
    private static func compression(ofRegularFile path: String) -> Compression {
        let fd = open(path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return .none }
        defer { close(fd) }
        var magic = [UInt8](repeating: 0, count: 4)
        let n = magic.withUnsafeMutableBytes { systemRead(fd, $0.baseAddress!, 4) }
        return Compression.detect(Array(magic.prefix(max(n, 0)))).known
    }
}

@inline(__always)
func systemRead(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
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

enum Decompressor {
    case gzip(GzipStream)
    case zstd(ZstdStream)
}
