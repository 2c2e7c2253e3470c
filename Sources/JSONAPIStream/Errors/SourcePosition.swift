/// Where something is in an input: an absolute byte offset, and the 1-based line and
/// column it falls on.
///
/// Offsets count bytes from the start of the input (a byte order mark included), whatever
/// the read size. Lines are separated by line feeds (`\n`); columns count bytes, so a
/// column after a non-ASCII character is larger than the number of characters before it.
public struct SourcePosition: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Bytes before the position (from 0).
    public var offset: Int
    /// The line, from 1.
    public var line: Int
    /// The column in bytes, from 1.
    public var column: Int

    /// A position with these coordinates.
    public init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// The first byte of an input.
    public static let start = SourcePosition(offset: 0, line: 1, column: 1)

    public static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool { lhs.offset < rhs.offset }

    /// `LINE:COLUMN`.
    public var description: String { "\(line):\(column)" }
}
