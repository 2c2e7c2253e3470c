/// What a receiver asks about positions while it handles an event. Two conformers, each kept
/// up to date by the stage that drives the receiver and read by the receiver, which never
/// sees that stage: ``StreamPositions`` (yajl calls the receiver directly) and
/// ``ReplayPositions`` (parsing and building on two threads, events replayed from a tape).
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
