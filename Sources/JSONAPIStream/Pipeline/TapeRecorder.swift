internal import CPlatform

/// The parsing side of the pipeline: yajl's callbacks append events to a ``TapeBlock``
/// and do nothing else (no bookkeeping: the building side does that when it replays).
///
/// The callbacks are C (`CPlatform/recorder.c`): one event is a few stores, and a Swift
/// callback paid as much again in its thunk, its checks and its register saves. They write
/// into this recorder's tape through ``state``; what is rare comes back here:
/// - escaped strings and names with a `\u` escape: yajl unescapes them and turns unpaired
///   surrogates into other characters (`J03`), so they are checked here, where the source
///   bytes are (other escaped strings are recorded in C, with where they start);
/// - growing the tape (a string longer than a block's spare room);
/// - handing a full block over.
final class TapeRecorder {
    /// The block being filled (its flags); the events go to `tape`, swapped into the block
    /// when it is handed over. Invariant: the pipeline engine's pool owns every block and
    /// outlives the recorder.
    @exclusivity(unchecked) unowned(unsafe) var block: TapeBlock
    /// The events being recorded. Its storage is lent to ``state`` (base, count, capacity),
    /// where the C callbacks append; Swift reaches it only through ``withTape(_:)``.
    @exclusivity(unchecked) private var tape = ByteArena(capacity: TapeBlock.capacity)
    /// yajl's context: what the C callbacks read and write. Allocated for the recorder's life.
    let state: UnsafeMutablePointer<jsonapi_recorder>
    /// Where the stream parser is (for the escape check's source bytes).
    private var positions: StreamPositions?
    let limits: Limits
    /// Hands the block over when it reaches ``TapeBlock/handOverBytes``, even in the middle of
    /// a `yajl_parse` call, so memory stays bounded whatever the read size. Cancels yajl
    /// when the building side has stopped.
    unowned(unsafe) var engine: PipelineEngine? = nil
    /// A failure found here (an unpaired surrogate); the stream parser throws it.
    var failure: (rule: Rule, message: String, offset: Int, inKey: Bool)?

    init(block: TapeBlock, limits: Limits) {
        self.block = block
        self.limits = limits
        state = .allocate(capacity: 1)
        state.initialize(to: jsonapi_recorder())
        state.pointee.limit = TapeBlock.handOverBytes
        state.pointee.max_string_bytes = limits.maxStringBytes
        state.pointee.escaped = { owner, isKey, bytes, count in
            let r = TapeRecorder.unsafeRecorder(owner)
            return r.recordEscaped(UnsafeRawBufferPointer(start: bytes, count: count), key: isKey != 0) ? 1 : 0
        }
        state.pointee.reserve = { owner, need in
            let r = TapeRecorder.unsafeRecorder(owner)
            r.withTape { $0.reserveCapacity($0.count + need) }
            return 1
        }
        state.pointee.hand_over = { owner in
            let r = TapeRecorder.unsafeRecorder(owner)
            return (r.engine?.handOverDuringParse() ?? true) ? 1 : 0
        }
        // Invariant: the state never outlives the recorder (freed in deinit), so the
        // unretained pointer back to it stays valid.
        state.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
        publish()
    }

    /// The recorder behind the C state's `owner` pointer. Unsafe: valid only while the
    /// recorder lives, which the state's lifetime guarantees (see `init`).
    @inline(__always)
    private static func unsafeRecorder(_ owner: UnsafeMutableRawPointer?) -> TapeRecorder {
        Unmanaged<TapeRecorder>.fromOpaque(owner.unsafelyUnwrapped).takeUnretainedValue()
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// The tape's storage, as the C side sees it after Swift changed it.
    @inline(__always)
    private func publish() {
        state.pointee.base = tape.base.assumingMemoryBound(to: UInt8.self)
        state.pointee.count = tape.count
        state.pointee.capacity = tape.capacity
    }

    /// Swift's access to the tape: takes in what the C side appended, and gives the storage
    /// back (it may have grown or been swapped) afterwards.
    @inline(__always)
    func withTape<R>(_ body: (inout ByteArena) -> R) -> R {
        tape.adoptCount(state.pointee.count)
        let r = body(&tape)
        publish()
        return r
    }

    /// Bytes of events recorded in the current block.
    var recordedBytes: Int { state.pointee.count }

    /// Moves the recorded events into `b` (the block being handed over); the block's old,
    /// empty arena takes their place.
    func moveEvents(into b: TapeBlock) {
        withTape { tape in
            b.bytes.removeAll()
            swap(&b.bytes, &tape)
        }
    }

    func discardEvents() { withTape { $0.removeAll() } }

    /// A string or member name that yajl unescaped (or gathered in its own buffer) and that
    /// the C side left for the full check.
    private func recordEscaped(_ value: UnsafeRawBufferPointer, key: Bool) -> Bool {
        guard let start = checkEscapes(key: key) else { return false }
        let bytes = value.baseAddress?.assumingMemoryBound(to: UInt8.self)
        return jsonapi_record_escaped_event(state, key ? 1 : 0, bytes, value.count, Int64(start)) != 0
    }

    /// Checks the escapes of the string token being reported; returns its start offset.
    @inline(never)
    private func checkEscapes(key: Bool) -> Int? {
        guard let (token, offset) = positions?.currentStringToken() else { return Int(jsonapi_recorder_token_end(state)) }
        if let error = LexicalScanner.checkEscapedString(token, base: offset, limits: limits) {
            failure = (error.rule, error.message, error.offset, key)
            return nil
        }
        return offset
    }

    /// Line feeds of the bytes about to be parsed.
    private func recordNewlines(_ offsets: ArraySlice<Int>) {
        guard !offsets.isEmpty else { return }
        withTape { tape in
            let p = tape.reserveTail(5 + offsets.count * 8)
            p.storeBytes(of: TapeKind.newlines.rawValue, as: UInt8.self)
            p.storeBytes(of: UInt32(offsets.count), toByteOffset: 1, as: UInt32.self)
            var k = 5
            for o in offsets {
                p.storeBytes(of: Int64(o), toByteOffset: k, as: Int64.self)
                k += 8
            }
        }
    }
}

extension TapeRecorder: EventOutlet {
    func makeYajl(multipleValues: Bool) -> YajlParser {
        let yajl = YajlParser(recorder: self, multipleValues: multipleValues)
        // The C callbacks ask this handle for token offsets; the parser that asked for it
        // keeps it (and this recorder) alive while it parses.
        state.pointee.yajl = yajl.opaqueHandle
        return yajl
    }

    func attach(_ positions: StreamPositions) { self.positions = positions }

    func detach(_ positions: StreamPositions) {
        if self.positions === positions { self.positions = nil }
    }

    /// The buffer inside `yajl_parse`, as the stream parser hands it over, and the line
    /// feeds up to its end, for the positions the building side computes.
    func willParse(_ piece: UnsafeRawBufferPointer, base: Int, newlines: [Int]) {
        let start = piece.baseAddress.unsafelyUnwrapped.assumingMemoryBound(to: UInt8.self)
        state.pointee.source_start = UnsafePointer(start)
        state.pointee.source_end = UnsafePointer(start + piece.count)
        state.pointee.feeding_base = Int64(base)
        let end = base + piece.count
        var k = 0
        while k < newlines.count && newlines[k] < end { k += 1 }
        recordNewlines(newlines[..<k])
    }

    /// During `yajl_complete_parse` every token ends at `inputEnd`.
    func setCompleting(_ on: Bool, inputEnd: Int) {
        state.pointee.completing = on ? 1 : 0
        state.pointee.input_end = Int64(inputEnd)
    }

    /// The nesting depth is followed by the building side.
    var openDepth: Int? { nil }

    /// The building side has not had the events yet: it completes pointers.
    func pointer(for request: PointerRequest) -> String? { nil }

    /// An escape check's failure: the building side has not had the bad string, which is the
    /// next value (or, for a member name, in the innermost object), as the sequential
    /// receiver reports it.
    var reportedFailure: OutletFailure? {
        failure.map { .located($0.rule, $0.message, offset: $0.offset, request: $0.inKey ? .container : .nextValue) }
    }

    /// The end is checked by the building side, when it replays the input's last block.
    func endOfInput() -> Bool { true }
}
