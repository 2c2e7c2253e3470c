/// The parsing side of the pipeline: yajl's callbacks append events to a ``TapeBlock``
/// and do nothing else (no bookkeeping: the building side does that when it replays).
///
/// Escapes are the exception: yajl unescapes strings and turns unpaired surrogates into
/// other characters (`J03`), so escaped strings are checked here, where the source bytes are.
final class TapeRecorder {
    /// The block being filled (its flags); the events go to `tape`, swapped into the block
    /// when it is handed over. Invariant: the pipeline engine's pool owns every block and
    /// outlives the recorder.
    @exclusivity(unchecked) unowned(unsafe) var block: TapeBlock
    /// The events being recorded (owned here, so appending touches no other object).
    @exclusivity(unchecked) var tape = ByteArena(capacity: TapeBlock.capacity)
    /// Absolute offset of the buffer inside `yajl_parse`.
    @exclusivity(unchecked) var feedingBase = 0
    @exclusivity(unchecked) var sourceStart = UnsafeRawPointer(bitPattern: 1)!
    @exclusivity(unchecked) var sourceEnd = UnsafeRawPointer(bitPattern: 1)!
    /// During `yajl_complete_parse` offsets are the end of the input.
    @exclusivity(unchecked) var completing = false
    @exclusivity(unchecked) var inputEnd = 0
    /// The yajl handle (opaque), for token offsets. Set by the stream parser that owns both.
    @exclusivity(unchecked) var handle: OpaquePointer? = nil
    unowned(unsafe) var parser: JSONStreamParser? = nil
    let limits: Limits
    /// Hands the block over when it reaches `blockLimit` bytes, even in the middle of a
    /// `yajl_parse` call, so memory stays bounded whatever the read size. Returns false when
    /// the building side has stopped (yajl is then cancelled).
    unowned(unsafe) var engine: PipelineEngine? = nil
    let blockLimit = TapeBlock.handOverBytes
    /// A failure found here (an unpaired surrogate); the stream parser throws it.
    var failure: (rule: Rule, message: String, offset: Int, inKey: Bool)?

    init(block: TapeBlock, limits: Limits) {
        self.block = block
        self.limits = limits
    }

    @inline(__always)
    private func end() -> Int64 {
        Int64(completing ? inputEnd : feedingBase &+ YajlParser.bytesConsumed(handle.unsafelyUnwrapped))
    }

    @inline(__always)
    private func simple(_ kind: TapeKind) -> Bool {
        let p = tape.reserveTail(9)
        p.storeBytes(of: kind.rawValue, as: UInt8.self)
        p.storeBytes(of: end(), toByteOffset: 1, as: Int64.self)
        return true
    }

    /// The end of a token whose text lies in the source buffer, from where that text ends
    /// (`closing` is 1 for a string's closing quote, 0 for a number): what yajl's byte count
    /// says, without asking it.
    @inline(__always)
    private func end(after value: UnsafeRawBufferPointer, closing: Int) -> Int64 {
        let e = Int64(feedingBase &+ (value.baseAddress.unsafelyUnwrapped + value.count - sourceStart) &+ closing)
        assert(e == end(), "token end from its text differs from yajl's byte count")
        return e
    }

    @inline(__always)
    private func withBytes(_ kind: TapeKind, _ value: UnsafeRawBufferPointer, start: Int64?, end tokenEnd: Int64? = nil) -> Bool {
        let n = value.count
        let extra = start == nil ? 0 : 8
        let e = tokenEnd ?? end()
        let p = tape.reserveTail(13 &+ n &+ extra)
        p.storeBytes(of: kind.rawValue, as: UInt8.self)
        p.storeBytes(of: e, toByteOffset: 1, as: Int64.self)
        p.storeBytes(of: UInt32(truncatingIfNeeded: n), toByteOffset: 9, as: UInt32.self)
        if n > 0 { copyBytes(to: p + 13, from: value.baseAddress.unsafelyUnwrapped, count: n) }
        if let start { p.storeBytes(of: start, toByteOffset: 13 &+ n, as: Int64.self) }
        if tape.count >= blockLimit { return engine?.handOverDuringParse() ?? true }
        return true
    }

    @inline(__always)
    private func isFromSource(_ p: UnsafeRawBufferPointer) -> Bool {
        guard let b = p.baseAddress else { return true }
        return b >= sourceStart && b < sourceEnd || (p.count == 0 && b == sourceEnd)
    }

    // Inlined into yajl's callbacks (their only callers): one call per event, not two.
    @inline(__always) func recordStartObject() -> Bool { simple(.startObject) }
    @inline(__always) func recordEndObject() -> Bool { simple(.endObject) }
    @inline(__always) func recordStartArray() -> Bool { simple(.startArray) }
    @inline(__always) func recordEndArray() -> Bool { simple(.endArray) }
    @inline(__always) func recordNull() -> Bool { simple(.null) }
    @inline(__always) func recordBool(_ v: Bool) -> Bool { simple(v ? .trueValue : .falseValue) }

    @inline(__always)
    func recordNumber(_ text: UnsafeRawBufferPointer) -> Bool {
        // While completing, a number at the end of the input may be in yajl's own buffer.
        if !completing && isFromSource(text) { return withBytes(.number, text, start: nil, end: end(after: text, closing: 0)) }
        return withBytes(.number, text, start: nil)
    }

    @inline(__always)
    func recordString(_ value: UnsafeRawBufferPointer) -> Bool {
        if isFromSource(value) { return withBytes(.string, value, start: nil, end: end(after: value, closing: 1)) }
        guard let start = checkEscapes(key: false) else { return false }
        return withBytes(.escapedString, value, start: Int64(start))
    }

    @inline(__always)
    func recordKey(_ name: UnsafeRawBufferPointer) -> Bool {
        if isFromSource(name) { return withBytes(.key, name, start: nil, end: end(after: name, closing: 1)) }
        guard let start = checkEscapes(key: true) else { return false }
        return withBytes(.escapedKey, name, start: Int64(start))
    }

    /// Checks the escapes of the string token being reported; returns its start offset.
    @inline(never)
    private func checkEscapes(key: Bool) -> Int? {
        guard let (token, offset) = parser?.currentStringToken() else { return Int(end()) }
        var scanner = LexicalScanner(limits: limits)
        do throws(LexicalScanner.Failure) {
            try scanner.scan(token, base: offset)
            return offset
        } catch {
            failure = (error.rule, error.message, error.offset, key)
            return nil
        }
    }

    /// Line feeds of the bytes about to be parsed.
    func recordNewlines(_ offsets: ArraySlice<Int>) {
        guard !offsets.isEmpty else { return }
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
