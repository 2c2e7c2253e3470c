#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A buffered writer to a file descriptor, or into memory.
///
/// Writers append whole records to ``buffer`` and call ``endRecord()``; the buffer is
/// written out only at record boundaries, so whatever reaches the destination is whole lines
/// even when a later record fails.
public final class ByteWriter {
    enum Destination {
        case fd(Int32)
        case memory
    }

    @exclusivity(unchecked) var buffer: ByteArena
    private let destination: Destination
    private let flushThreshold: Int
    /// Records written out (or completed, for memory writers).
    @exclusivity(unchecked) public private(set) var recordsCompleted = 0
    /// Bytes handed to the destination.
    @exclusivity(unchecked) public private(set) var bytesWritten = 0

    /// `--numbers safe`: numbers a double would change are written as strings of their
    /// text (``SafeNumbers``), record by record, as records end or the buffer is written.
    var quotesUnsafeNumbers = false
    /// Numbers written as strings so far.
    public private(set) var numbersQuoted = 0
    /// Bytes of the buffer already checked for unsafe numbers.
    private var checkedUpTo = 0
    private var rewritten = ByteArena(capacity: 16)

    /// A writer to `fd` (not closed by the writer).
    public init(fd: Int32, bufferSize: Int = 256 * 1024) {
        destination = .fd(fd)
        flushThreshold = bufferSize
        buffer = ByteArena(capacity: bufferSize + 4096)
    }

    /// A writer that keeps everything in memory (``bytes``).
    public init() {
        destination = .memory
        flushThreshold = .max
        buffer = ByteArena(capacity: 64 * 1024)
    }

    /// Everything written so far (memory writers).
    public var bytes: [UInt8] {
        settleNumbers()
        return buffer.array(0..<buffer.count)
    }
    /// Everything written so far, as text (memory writers).
    public var string: String {
        settleNumbers()
        return buffer.string(0..<buffer.count)
    }

    /// Applies ``quotesUnsafeNumbers`` to what was written since the last time (whole
    /// records, or whole entries of the flat object: never part of a token).
    /// Whether what is being written may hold a number to quote: the writers clear it for
    /// records whose input had none (``NumberAlarm``), which are then not scanned.
    var mayHoldUnsafeNumbers = true

    @inline(__always)
    func settleNumbers() {
        if quotesUnsafeNumbers && buffer.count > checkedUpTo { settleNumbersNow() }
    }

    /// Whether everything written so far has had its numbers settled (``settleNumbers()``).
    var numbersSettled: Bool { !quotesUnsafeNumbers || checkedUpTo == buffer.count }

    @inline(never)
    private func settleNumbersNow() {
        if !mayHoldUnsafeNumbers {
            checkedUpTo = buffer.count
            return
        }
        let start = checkedUpTo
        let quoted = buffer.withBytes { all in
            SafeNumbers.quoteUnsafe(UnsafeRawBufferPointer(rebasing: all[start...]), into: &rewritten)
        }
        if quoted > 0 {
            buffer.truncate(to: start)
            rewritten.withBytes { buffer.append($0) }
            numbersQuoted += quoted
        }
        checkedUpTo = buffer.count
    }

    @inline(__always)
    /// Writes the bytes of `s`.
    public func write(_ s: StaticString) { buffer.append(s) }
    @inline(__always)
    func write(_ b: UnsafeRawBufferPointer) { buffer.append(b) }
    @inline(__always)
    package func write(byte: UInt8) { buffer.append(byte) }
    /// `s` as a quoted JSON string, minimally escaped.
    package func writeQuoted(_ s: String) {
        var s = s
        s.withUTF8 { JSONEscaping.appendQuoted(UnsafeRawBufferPointer($0), to: &buffer) }
    }
    /// Disfavoured, so that string literals take the `StaticString` path (no bridging, no
    /// reference counting).
    @_disfavoredOverload
    public func write(_ s: String) {
        var s = s
        s.withUTF8 { buffer.append(UnsafeRawBufferPointer($0)) }
    }

    /// Marks the end of a record (a line); writes the buffer out when it is full.
    @inline(__always)
    public func endRecord() throws(JSONAPIError) {
        recordsCompleted &+= 1
        settleNumbers()
        try flushIfFull()
    }

    /// Writes the buffer out when it is full, within a record (flat JSON is one record).
    @inline(__always)
    func flushIfFull() throws(JSONAPIError) {
        if buffer.count >= flushThreshold { try flush() }
    }

    /// Writes the buffer out first when `count` more bytes would take it past its usual size
    /// (a long record written in pieces, which would otherwise grow the buffer to hold it).
    @inline(__always)
    func makeRoom(for count: Int) throws(JSONAPIError) {
        if buffer.count > 0 && buffer.count + count > flushThreshold { try flush() }
    }

    /// The position a record started at, to drop it again with ``discard(from:)``.
    var mark: Int { buffer.count }

    /// Drops what was written after `mark` (a record that failed half-way).
    func discard(from mark: Int) {
        if mark <= buffer.count { buffer.truncate(to: mark) }
        checkedUpTo = min(checkedUpTo, buffer.count)
    }

    /// Writes out everything buffered.
    public func flush() throws(JSONAPIError) {
        guard case .fd(let fd) = destination, buffer.count > 0 else { return }
        settleNumbers()
        let total = buffer.count
        try buffer.withBytes { (all) throws(JSONAPIError) in try writeAll(fd, all, path: "output") }
        bytesWritten += total
        buffer.removeAll()
        checkedUpTo = 0
        // A buffer that grew for one long record goes back to its usual size.
        buffer.giveBack(ifAbove: 16 * (flushThreshold + 4096), to: flushThreshold + 4096)
    }

    /// Moves everything written so far (numbers settled) into `arena`, which must be empty;
    /// the writer goes on with an empty buffer (a worker's output, handed over).
    func take(into arena: inout ByteArena) {
        settleNumbers()
        // The next batch's output is about as large: room for it from the start.
        var next = ByteArena(capacity: max(64 * 1024, buffer.count + buffer.count / 8))
        swap(&buffer, &next)
        swap(&arena, &next)
        checkedUpTo = 0
    }

    /// Appends `count` whole records another writer wrote and settled (``take(into:)``),
    /// `quoted` numbers among them; writes the buffer out when it is full.
    func appendRecords(_ records: borrowing ByteArena, count: Int, quoted: Int) throws(JSONAPIError) {
        settleNumbers()
        if case .fd(let fd) = destination, records.count >= flushThreshold / 4 {
            // Large: written out as it is, after what is buffered, without a copy.
            try flush()
            try records.withBytes { (all) throws(JSONAPIError) in try writeAll(fd, all, path: "output") }
            bytesWritten += records.count
        } else {
            records.withBytes { buffer.append($0) }
            checkedUpTo = buffer.count
        }
        recordsCompleted &+= count
        numbersQuoted += quoted
        try flushIfFull()
    }

    /// Drops everything buffered, giving back what one long record made the buffer grow to
    /// (the dry runs that check a record before writing it).
    func discardAll() {
        buffer.removeAll()
        checkedUpTo = 0
        buffer.giveBack(ifAbove: 4 << 20, to: 64 * 1024)
    }
}

/// Writes all of `b` to `fd` (again after a short write or an interruption).
package func writeAll(_ fd: Int32, _ b: UnsafeRawBufferPointer, path: String) throws(JSONAPIError) {
    var offset = 0
    while offset < b.count {
        let n = systemWrite(fd, b.baseAddress! + offset, b.count - offset)
        if n < 0 {
            if errno == EINTR { continue }
            throw JSONAPIError.input("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        offset += n
    }
}

@inline(__always)
private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, p, n)
    #elseif canImport(Musl)
    return Musl.write(fd, p, n)
    #else
    return Darwin.write(fd, p, n)
    #endif
}
