/// Tells a graph's key table, ahead of time, which keys are about to be looked up.
///
/// A large document's key table is megabytes (about 12 MiB for 128 MB of input), so the
/// slot a resource's key hashes to is usually not in cache, and the lookup at the end of the
/// resource's object waited for memory: `perf` put most of `GraphSink.resource`'s time on that
/// one load. The builder knows a resource's key as soon as it has read its `type` and `id`,
/// and an identifier's when its object closes; it passes them here, and the sink asks for the
/// slot's cache line (``GraphSink/hintKey(type:id:)``) and returns at once. By the time the
/// sink looks the key up, the attributes and relationships in between have been read and the
/// line is there.
///
/// Hints change nothing but timing: a type the sink has not interned yet gives no hint
/// (interning it here would number the symbols in another order), and a table that grows
/// in between only makes the hint useless.
final class KeyHints {
    /// The sink whose key table is hinted: a graph worker's sink moves to a fresh collector
    /// at each piece (``retarget(_:)``). Held unmanaged (no reference count), so that a hint
    /// costs no reference counting. Invariant: the sink that owns these hints is that sink
    /// (a ``GraphSink``) or holds it (a ``GraphPieceSink``, its current collector, which it
    /// retargets the hints from before letting it go), and the builder hints only from within
    /// the owner's stream, so the hinted sink outlives every hint.
    private var sink: Unmanaged<GraphSink>

    init(sink: GraphSink) { self.sink = .passUnretained(sink) }

    func retarget(_ sink: GraphSink) { self.sink = .passUnretained(sink) }

    @inline(__always)
    func hint(type: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer) {
        sink._withUnsafeGuaranteedRef { $0.hintKey(type: type, id: id) }
    }
}
