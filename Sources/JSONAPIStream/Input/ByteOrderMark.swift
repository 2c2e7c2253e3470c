/// The first bytes of an input, held until it is known whether they start with a UTF-8
/// byte order mark (`EF BB BF`), which a read may split. What to do with a mark (refuse it,
/// `J10`, or skip it) is the caller's policy (``ParseOptions/byteOrderMark``).
struct ByteOrderMarkCheck {
    /// Bytes received while the question is open (at most two).
    private var held: [UInt8] = []
    private(set) var isSettled = false

    /// The input began before these bytes (a worker's segment after its start): there is no
    /// mark to look for.
    mutating func settleWithoutMark() {
        precondition(held.isEmpty, "no byte was taken")
        isSettled = true
    }

    /// Bytes held back so far.
    var heldCount: Int { held.count }

    private static let mark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Takes the next read (`atEnd`: there is no more). Once the question is settled, calls
    /// `body` once with whether the input starts with a mark and the bytes after it (held
    /// bytes included; possibly none); until then, holds the bytes.
    mutating func take(
        _ chunk: UnsafeRawBufferPointer, atEnd: Bool,
        _ body: (_ hasMark: Bool, _ rest: UnsafeRawBufferPointer) throws(JSONAPIError) -> Void
    ) throws(JSONAPIError) {
        precondition(!isSettled, "the byte order mark question is settled once")
        if held.isEmpty && chunk.count >= 3 {
            // The usual first read: settled from the read itself, without copying it.
            isSettled = true
            let hasMark = chunk[0] == 0xEF && chunk[1] == 0xBB && chunk[2] == 0xBF
            return try body(hasMark, hasMark ? UnsafeRawBufferPointer(rebasing: chunk[3...]) : chunk)
        }
        held.append(contentsOf: chunk)
        let n = min(held.count, 3)
        let couldBeMark = held[..<n].elementsEqual(Self.mark[..<n])
        if couldBeMark && held.count < 3 && !atEnd { return }
        isSettled = true
        let rest = held
        held = []
        let hasMark = couldBeMark && rest.count >= 3
        try withContiguousBytes(of: rest) { (b) throws(JSONAPIError) in
            try body(hasMark, hasMark ? UnsafeRawBufferPointer(rebasing: b[3...]) : b)
        }
    }
}
