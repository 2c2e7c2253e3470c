/// The building side of the pipeline: replays tape blocks into a receiver (the document
/// builder), and answers its position questions from the line feeds and token offsets the
/// tape carries.
final class TapeReplayer: SourcePositions {
    /// The concrete (final) builder, not the base class: its event methods are called
    /// directly, not through the class's table.
    let receiver: DocumentBuilder
    var sourceName: String?

    // Line feeds of the bytes the current events come from; older ones are summarised.
    @exclusivity(unchecked) private var newlines: [Int] = []
    @exclusivity(unchecked) private var lines = LineIndex()

    // The event being replayed, for `currentTokenLocation`.
    @exclusivity(unchecked) private var currentKind = TapeKind.null
    @exclusivity(unchecked) private var currentEnd = 0
    @exclusivity(unchecked) private var currentLength = 0
    @exclusivity(unchecked) private var currentStart = 0

    init(receiver: DocumentBuilder) {
        self.receiver = receiver
        receiver.parser = self
        newlines.reserveCapacity(1024)
    }

    /// Positions restart: a new input begins.
    func beginInput(named name: String?) {
        sourceName = name
        newlines.removeAll(keepingCapacity: true)
        lines.reset()
    }

    /// Replays every event of `block`; returns false as soon as the receiver refuses one
    /// (its failure is then in `receiver.failure` or `receiver.thrown`).
    func replay(_ block: TapeBlock) -> Bool {
        block.bytes.withBytes { b in
            guard let p = b.baseAddress else { return true }
            let n = b.count
            var i = 0
            while i < n {
                let kind = TapeKind(rawValue: p.load(fromByteOffset: i, as: UInt8.self)).unsafelyUnwrapped
                if kind == .newlines {
                    let count = Int(p.loadUnaligned(fromByteOffset: i &+ 1, as: UInt32.self))
                    acceptNewlines(p.advanced(by: i &+ 5), count: count)
                    i &+= 5 &+ count &* 8
                    continue
                }
                currentKind = kind
                currentEnd = Int(p.loadUnaligned(fromByteOffset: i &+ 1, as: Int64.self))
                let ok: Bool
                switch kind {
                case .startObject: ok = receiver.receiveStartObject(); i &+= 9
                case .endObject: ok = receiver.receiveEndObject(); i &+= 9
                case .startArray: ok = receiver.receiveStartArray(); i &+= 9
                case .endArray: ok = receiver.receiveEndArray(); i &+= 9
                case .null: ok = receiver.receiveNull(); i &+= 9
                case .trueValue: ok = receiver.receiveBool(true); i &+= 9
                case .falseValue: ok = receiver.receiveBool(false); i &+= 9
                case .key, .escapedKey, .string, .escapedString, .number:
                    let length = Int(p.loadUnaligned(fromByteOffset: i &+ 9, as: UInt32.self))
                    currentLength = length
                    let value = UnsafeRawBufferPointer(start: p.advanced(by: i &+ 13), count: length)
                    i &+= 13 &+ length
                    switch kind {
                    case .key:
                        ok = receiver.receiveKey(value, escaped: false, prefix: Self.prefix(value, p.advanced(by: i), end: p.advanced(by: n)))
                    case .string:
                        ok = receiver.receiveString(value, escaped: false)
                    case .number:
                        ok = receiver.receiveNumber(value)
                    default:
                        currentStart = Int(p.loadUnaligned(fromByteOffset: i, as: Int64.self))
                        i &+= 8
                        ok = kind == .escapedKey
                            ? receiver.receiveKey(value, escaped: true, prefix: JSONEventReceiver.prefix(value))
                            : receiver.receiveString(value, escaped: true)
                    }
                case .newlines:
                    ok = true
                }
                if !ok { return false }
            }
            return true
        }
    }

    /// The first eight bytes of a name in the tape, zero-padded: one load when eight bytes
    /// can be read from there (the tape always has more after a name, but not at its end).
    @inline(__always)
    private static func prefix(_ name: UnsafeRawBufferPointer, _ after: UnsafeRawPointer, end: UnsafeRawPointer) -> UInt64 {
        let n = name.count
        if n >= 8 { return name.loadUnaligned(as: UInt64.self) }
        guard let b = name.baseAddress, b + 8 <= end else { return JSONEventReceiver.prefix(name) }
        // Invariant: [b, b + 8) lies inside the tape block.
        let w = b.loadUnaligned(as: UInt64.self)
        return n == 0 ? 0 : w & (~UInt64(0) &>> (64 &- UInt64(n) &* 8))
    }

    private func acceptNewlines(_ p: UnsafeRawPointer, count: Int) {
        // Every earlier event is done: earlier line feeds are only counted from now on.
        lines.absorb(&newlines)
        for k in 0..<count { newlines.append(Int(p.loadUnaligned(fromByteOffset: k * 8, as: Int64.self))) }
    }

    // MARK: - SourcePositions

    func location(of offset: Int) -> SourcePosition { lines.location(of: offset, newlines: newlines) }

    func currentTokenLocation() -> SourcePosition {
        let start: Int
        switch currentKind {
        case .startObject, .endObject, .startArray, .endArray: start = currentEnd - 1
        case .key, .string: start = currentEnd - currentLength - 2
        case .escapedKey, .escapedString: start = currentStart
        case .number: start = currentEnd - currentLength
        case .trueValue, .null: start = currentEnd - 4
        case .falseValue: start = currentEnd - 5
        case .newlines: start = currentEnd
        }
        return location(of: max(0, start))
    }

    /// Escapes were checked where the source bytes are (the recorder).
    func currentStringToken() -> (UnsafeRawBufferPointer, Int)? { nil }
}
