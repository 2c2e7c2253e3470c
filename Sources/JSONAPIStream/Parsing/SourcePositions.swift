/// What a receiver asks about positions while it handles an event: the stream parser in
/// sequential mode, the tape replayer when parsing and building run on two threads.
protocol SourcePositions: AnyObject {
    /// The input's name for diagnostics.
    var sourceName: String? { get }
    /// Line and column of an absolute offset at or after the bytes being reported.
    func location(of offset: Int) -> SourcePosition
    /// The location of the first byte of the token being reported.
    func currentTokenLocation() -> SourcePosition
    /// The source bytes of the string token being reported (with quotes) and their offset;
    /// `nil` when escapes need no further check (the producer already checked them).
    func currentStringToken() -> (UnsafeRawBufferPointer, Int)?
}
