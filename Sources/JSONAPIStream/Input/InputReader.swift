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

    /// The size in bytes when it is known in advance (regular files, bytes).
    public var knownSize: Int? {
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
    /// - Throws: ``JSONAPIError/input(_:)`` when the source cannot be opened or read; any
    ///   error `body` throws.
    public func read(
        chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void
    ) throws(JSONAPIError) {
        let size = max(1, chunkSize)
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
