/// Tells a graph's key table (or a validator's, ``Validator/hintKey(type:id:)``), ahead of
/// time, which keys are about to be looked up.
///
/// A large document's key table is megabytes (about 8 MiB for 128 MB of input), so the
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
/// in between only makes the hint useless. The builder gives none until a hinted table has
/// outgrown the caches (``want()``).
final class KeyHints {
    /// The sink whose key table is hinted: a graph worker's sink moves to a fresh collector
    /// at each piece (``retarget(_:)``). Held unmanaged (no reference count), so that a hint
    /// costs no reference counting. Invariant: the sink that owns these hints is that sink
    /// (a ``GraphSink``) or holds it (a ``GraphPieceSink``, its current collector, which it
    /// retargets the hints from before letting it go), and the builder hints only from within
    /// the owner's stream, so the hinted sink outlives every hint.
    private var sink: Unmanaged<GraphSink>?
    /// Or the validator whose resource keys are hinted (R22 and R23 look up every resource's
    /// and identifier's key). Invariant: the validator owns these hints; the same as above.
    private var validator: Unmanaged<Validator>?
    /// Another sink's hints, told the same keys: when a validator and a graph read one stream
    /// (``SinkGroup``), both tables are hinted. Unmanaged; invariant: the group holds both
    /// sinks, so both hints live as long as the builder that holds this one.
    private var also: Unmanaged<KeyHints>?

    /// Whether a table these hints reach has outgrown the caches (``want()``). Until then
    /// the builder gives no hints at all: each costs it about 60 instructions, for nothing
    /// while a table fits in cache (every document of a few megabytes or less).
    private var isWanted = false

    init(sink: GraphSink) { self.sink = .passUnretained(sink) }

    init(validator: Validator) { self.validator = .passUnretained(validator) }

    func retarget(_ sink: GraphSink) { self.sink = .passUnretained(sink) }

    /// Called by the hinted sink once its table is past the size the caches keep.
    func want() { isWanted = true }

    /// Whether the builder should hint: a table these hints or their chain reach wants them.
    @inline(__always)
    var wanted: Bool {
        if isWanted { return true }
        var next = also
        while let n = next {
            if n._withUnsafeGuaranteedRef({ $0.isWanted }) { return true }
            next = n._withUnsafeGuaranteedRef { $0.also }
        }
        return false
    }

    /// Makes `other` hinted with every key these hints get (see ``also``), at the end of the
    /// chain. Hints already in the chain, or whose own chain leads here, are left out: each
    /// table is hinted once per key, and a hint never loops.
    func chain(_ other: KeyHints) {
        guard !reaches(other), !other.reaches(self) else { return }
        var last = self
        while let next = last.also?.takeUnretainedValue() { last = next }
        last.also = .passUnretained(other)
    }

    /// Whether `hints` is this object or in its chain.
    func reaches(_ hints: KeyHints) -> Bool {
        var current: KeyHints? = self
        while let c = current {
            if c === hints { return true }
            current = c.also?.takeUnretainedValue()
        }
        return false
    }

    @inline(__always)
    func hint(type: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer) {
        if let sink {
            sink._withUnsafeGuaranteedRef { $0.hintKey(type: type, id: id) }
        } else if let validator {
            validator._withUnsafeGuaranteedRef { $0.hintKey(type: type, id: id) }
        }
        if let also { also._withUnsafeGuaranteedRef { $0.hint(type: type, id: id) } }
    }
}
