/// A JSON value in a graph's value store, decoded only when read.
///
/// Reading a member (`value["title"]`) walks the stored minified JSON without decoding
/// anything else; a string without escapes becomes a `String` by a single copy; numbers stay
/// text until an accessor converts them.
public struct LazyValue: Sendable, CustomStringConvertible {
    enum Backing: @unchecked Sendable {
        case stored(GraphStorage, ValueSpan)
        case detached(JSONValue)
    }

    let backing: Backing
    /// Where the value is in its document (`/errors/0`), when that is known: decoding errors
    /// name places from there, and members and elements extend it.
    let pointer: String?

    init(storage: GraphStorage, span: ValueSpan, pointer: String? = nil) {
        backing = .stored(storage, span)
        self.pointer = pointer
    }

    init(detached value: JSONValue, pointer: String? = nil) {
        backing = .detached(value)
        self.pointer = pointer
    }

    /// The pointer of member `name` or element `index`, when this value's is known.
    private func pointer(to name: String) -> String? {
        pointer.map { $0 + "/" + escapePointerToken(name) }
    }

    private func pointer(to index: Int) -> String? { pointer.map { $0 + "/" + String(index) } }

    /// `"name":value` spans of unknown members.
    static func member(storage: GraphStorage, span: ValueSpan) -> (name: String, value: LazyValue) {
        let b = storage.values.bytes(in: span.range)
        let nameEnd = StoredJSON.skipString(b, at: 0)
        let name = StoredJSON.decodeString(b, 0..<nameEnd)
        return (name, LazyValue(storage: storage, span: ValueSpan(start: span.start + nameEnd + 1, count: span.count - nameEnd - 1)))
    }

    /// The JSON type of a value.
    public enum Kind: String, Sendable { case null, bool, number, string, array, object }

    /// Its JSON type (from its first byte, without decoding).
    public var kind: Kind {
        switch backing {
        case .detached(let v):
            switch v {
            case .null: return .null
            case .bool: return .bool
            case .number: return .number
            case .string: return .string
            case .array: return .array
            case .object: return .object
            }
        case .stored(let s, let span):
            switch s.values[span.start] {
            case UInt8(ascii: "\""): return .string
            case UInt8(ascii: "{"): return .object
            case UInt8(ascii: "["): return .array
            case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
            case UInt8(ascii: "n"): return .null
            default: return .number
            }
        }
    }

    /// The whole value decoded.
    public var jsonValue: JSONValue {
        switch backing {
        case .detached(let v): return v
        case .stored(let s, let span): return StoredJSON.decode(s.values.bytes(in: 0..<s.values.count), span.range)
        }
    }

    /// The value as minified JSON, exactly as stored (numbers as in the input).
    public var jsonText: String {
        switch backing {
        case .detached(let v): return v.jsonText
        case .stored(let s, let span): return s.values.string(span.range)
        }
    }

    public var description: String { jsonText }

    /// Whether it is `null`.
    public var isNull: Bool { kind == .null }

    /// The string, decoded, when it is one.
    public var string: String? {
        switch backing {
        case .detached(let v): return v.stringValue
        case .stored(let s, let span):
            guard s.values[span.start] == UInt8(ascii: "\"") else { return nil }
            return StoredJSON.decodeString(s.values.bytes(in: 0..<s.values.count), span.range)
        }
    }

    /// The boolean, when it is one.
    public var bool: Bool? {
        switch kind {
        case .bool: return jsonText == "true"
        default: return nil
        }
    }

    /// The number, as its exact source text with converting accessors.
    public var number: JSONNumber? {
        guard kind == .number else { return nil }
        return JSONNumber(uncheckedText: jsonText)
    }

    /// The member named `key` of an object (names compare byte for byte).
    public subscript(key: String) -> LazyValue? {
        switch backing {
        case .detached(let v): return v[key].map { LazyValue(detached: $0, pointer: pointer(to: key)) }
        case .stored(let s, let span):
            let childPointer = pointer(to: key)
            var key = key
            return key.withUTF8 { raw -> LazyValue? in
                let all = s.values.bytes(in: 0..<s.values.count)
                var found: Range<Int>? = nil
                let untilLast = s.namesMayRepeat
                StoredJSON.forEachMember(all, span.range) { name, value in
                    guard StoredJSON.nameEquals(all, name, UnsafeRawBufferPointer(raw)) else { return true }
                    found = value
                    return untilLast  // the last one wins when names repeat
                }
                return found.map { LazyValue(storage: s, span: ValueSpan(start: $0.lowerBound, count: $0.count), pointer: childPointer) }
            }
        }
    }

    /// The element at `index` of an array.
    public subscript(index: Int) -> LazyValue? {
        let e = elements
        return e.indices.contains(index) ? e[index] : nil
    }

    /// The elements of an array (empty for other kinds).
    public var elements: [LazyValue] {
        switch backing {
        case .detached(let v):
            return (v.arrayValue ?? []).enumerated().map { LazyValue(detached: $0.element, pointer: pointer(to: $0.offset)) }
        case .stored(let s, let span):
            let all = s.values.bytes(in: 0..<s.values.count)
            return StoredJSON.elements(all, span.range).enumerated().map {
                LazyValue(storage: s, span: ValueSpan(start: $0.element.lowerBound, count: $0.element.count), pointer: pointer(to: $0.offset))
            }
        }
    }

    /// The members of an object, in order (empty for other kinds).
    public var members: [(name: String, value: LazyValue)] {
        switch backing {
        case .detached(let v): return (v.objectValue?.members ?? []).map { ($0.key, LazyValue(detached: $0.value, pointer: pointer(to: $0.key))) }
        case .stored(let s, let span):
            let all = s.values.bytes(in: 0..<s.values.count)
            return StoredJSON.members(all, span.range).map {
                let name = StoredJSON.decodeString(all, $0.name)
                return (name, LazyValue(storage: s, span: ValueSpan(start: $0.value.lowerBound, count: $0.value.count), pointer: pointer(to: name)))
            }
        }
    }

    /// Member names of an object, in order.
    public var keys: [String] { members.map(\.name) }
}
