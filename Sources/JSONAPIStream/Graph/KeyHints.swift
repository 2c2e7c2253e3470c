/// Tells a graph's key table, ahead of time, which keys are about to be looked up.
///
/// A large document's key table is megabytes (about 12 MiB for 128 MB of input), so the
/// slot a resource's key hashes to is usually not in cache, and the lookup at the end of the
/// resource's object waited for memory: `perf` put most of `GraphSink.resource`'s time on that
/// one load. The builder knows a resource's key as soon as it has read its `type` and `id`,
/// and an identifier's when its object closes; it passes them here, which asks for the slot's
/// cache line (``ByteInterner/prefetch(_:tag:)``) and returns at once. By the time the sink
/// looks the key up, the attributes and relationships in between have been read and the
/// line is there.
///
/// Hints change nothing but timing: a type the graph has not interned yet gives no hint
/// (interning it here would number the symbols in another order), and a table that grows
/// in between only makes the hint useless.
final class KeyHints {
    /// The storage whose key table is hinted: a graph worker's sink moves to a fresh storage
    /// at each piece (``retarget(_:)``). Held unmanaged (no reference count), so that a hint
    /// costs no reference counting. Invariant: the sink that owns these hints owns that
    /// storage too (a ``GraphSink`` its own, a ``GraphPieceSink`` its current collector's,
    /// which it retargets the hints from before letting it go), and the builder hints only
    /// from within the sink's stream, so the storage outlives every hint.
    private var storage: Unmanaged<GraphStorage>
    /// Type names to their symbols in `storage`, for the few types a document has.
    private var types = SymbolCache()

    init(storage: GraphStorage) { self.storage = .passUnretained(storage) }

    func retarget(_ storage: GraphStorage) {
        self.storage = .passUnretained(storage)
        types = SymbolCache()
    }

    @inline(__always)
    func hint(type: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer) {
        // A table that fits in cache needs no hints: the hashing would be all they do.
        guard storage._withUnsafeGuaranteedRef({ $0.keys.outgrowsCache }) else { return }
        guard let t = types.lookUp(type) ?? knownType(type) else { return }
        storage._withUnsafeGuaranteedRef { $0.keys.prefetch(id, tag: $0.idTag(t)) }
    }

    /// A type's symbol when the graph has it (remembered for next time), else `nil`.
    @inline(never)
    private func knownType(_ type: UnsafeRawBufferPointer) -> UInt32? {
        guard let t = storage._withUnsafeGuaranteedRef({ $0.symbols.find(type) }) else { return nil }
        types.remember(type, t)
        return t
    }
}
