/// What a receiver asks about positions while it handles an event. Two subclasses, each kept
/// up to date by the stage that drives the receiver and read by the receiver, which never
/// sees that stage: ``StreamPositions`` (yajl calls the receiver directly) and
/// ``ReplayPositions`` (parsing and building on two threads, events replayed from a tape).
///
/// A class rather than a protocol so that the receiver can hold it `Unmanaged` and ask it
/// for every resource's position without retaining it (an existential held `unowned(unsafe)`
/// was retained and released around each call).
class SourcePositions {
    /// The input's name for diagnostics.
    final var sourceName: String?

    /// Line and column of an absolute offset at or after the bytes being reported.
    func location(of offset: Int) -> SourcePosition { preconditionFailure("a subclass answers") }
    /// The location of the first byte of the token being reported.
    func currentTokenLocation() -> SourcePosition { preconditionFailure("a subclass answers") }
    /// The source bytes of the string token being reported (with quotes) and their offset;
    /// `nil` when escapes need no further check (the producer already checked them: the tape's
    /// recorder, for ``ReplayPositions``, which keeps this answer).
    func currentStringToken() -> (UnsafeRawBufferPointer, Int)? { nil }
}
