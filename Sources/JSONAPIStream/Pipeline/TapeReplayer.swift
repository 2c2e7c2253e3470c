/// The building side of the pipeline: replays tape blocks into a receiver (the document
/// builder), keeping the ``ReplayPositions`` the receiver asks: the line feeds and token
/// offsets the tape carries.
final class TapeReplayer {
    /// The concrete (final) builder, not the base class: its event methods are called
    /// directly, not through the class's table.
    let receiver: DocumentBuilder
    let positions = ReplayPositions()

    init(receiver: DocumentBuilder) {
        self.receiver = receiver
        receiver.positions = positions
    }

    /// Positions restart: a new input begins.
    func beginInput(named name: String?) { positions.beginInput(named: name) }

    /// Replays every event of `block`; returns false as soon as the receiver refuses one
    /// (its failure is then in `receiver.failure` or `receiver.thrown`).
    func replay(_ block: TapeBlock) -> Bool {
        // Held in a local: the loop writes it once per event.
        let positions = self.positions
        return block.bytes.withBytes { b in
            guard let p = b.baseAddress else { return true }
            let n = b.count
            var i = 0
            while i < n {
                let kind = TapeKind(rawValue: p.load(fromByteOffset: i, as: UInt8.self)).unsafelyUnwrapped
                if kind == .newlines {
                    let count = Int(p.loadUnaligned(fromByteOffset: i &+ 1, as: UInt32.self))
                    positions.acceptNewlines(p.advanced(by: i &+ 5), count: count)
                    i &+= 5 &+ count &* 8
                    continue
                }
                positions.currentKind = kind
                positions.currentEnd = Int(p.loadUnaligned(fromByteOffset: i &+ 1, as: Int64.self))
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
                    positions.currentLength = length
                    let value = UnsafeRawBufferPointer(start: p.advanced(by: i &+ 13), count: length)
                    i &+= 13 &+ length
                    switch kind {
                    case .key:
                        ok = receiver.receiveMemberName(value, escaped: false, prefix: ShortName.prefix(value, readableUpTo: p.advanced(by: n)))
                    case .string:
                        ok = receiver.receiveString(value, escaped: false)
                    case .number:
                        ok = receiver.receiveNumber(value)
                    default:
                        positions.currentStart = Int(p.loadUnaligned(fromByteOffset: i, as: Int64.self))
                        i &+= 8
                        ok =
                            kind == .escapedKey
                            ? receiver.receiveMemberName(value, escaped: true, prefix: ShortName.prefix(value))
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

}
