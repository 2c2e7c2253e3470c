/// Where a value the builder does not interpret goes once it is recorded.
enum RawTarget: UInt8 {
    /// Nowhere: a value of the wrong shape, skipped (its bytes are given back).
    case discard
    case documentMeta, documentLinks, documentJSONAPI, documentErrors, documentExtra
    case resourceAttributes, resourceLinks, resourceMeta, resourceExtra
    case relationshipLinks, relationshipMeta, relationshipExtra
    case identifierMeta, identifierExtra
    /// A result's `meta` and other members (Atomic Operations).
    case resultMeta, resultExtra

    /// An unknown member, kept as `"name":value`.
    @inline(__always)
    var isExtra: Bool {
        self == .documentExtra || self == .resourceExtra || self == .relationshipExtra || self == .identifierExtra || self == .resultExtra
    }

    /// A value stored as it is, whose repeated member names may stay
    /// (``DuplicateMemberPolicy/allowInValues``): everything but links, `jsonapi` and errors,
    /// which the rules read.
    var isStoredAsIs: Bool {
        switch self {
        case .documentLinks, .documentJSONAPI, .documentErrors, .resourceLinks, .relationshipLinks: false
        default: true
        }
    }
}

/// Writes one value the builder does not interpret (attributes, meta, links, `jsonapi`,
/// errors, unknown members) as minified JSON into the value store, event by event, and says
/// where it ends. While a value is being recorded (``isActive``) every event goes here; the
/// builder's own state machine resumes when its last container closes (or at once for a
/// scalar).
///
/// It writes and counts only: the rule checks on the value (``ValueChecker``) and where the
/// finished span goes (``target``) are the builder's.
struct RawValueRecorder {
    /// Whether a value is being recorded.
    private(set) var isActive = false
    /// Open containers of the value being recorded.
    private(set) var depth = 0
    /// Where the value goes.
    private(set) var target = RawTarget.discard
    /// Whether the value's member names are checked (``DocumentBuilder/checkKey(_:)``).
    var checksNames = false
    /// Whether the value checker follows this value's events: every checked value but a
    /// resource's attributes, which are any JSON (only their names are checked).
    var checksValues = false
    /// Whether the next value or member needs a comma before it.
    private var needsComma = false
    /// Where the value starts in the store.
    private var start = 0

    /// Starts recording a value for `target` at the end of `store`; the current event is
    /// its first.
    @inline(__always)
    mutating func begin(_ target: RawTarget, store: borrowing ByteArena) {
        isActive = true
        depth = 0
        needsComma = false
        self.target = target
        checksNames = false
        checksValues = false
        start = store.count
    }

    /// Ends the value: its span in `store` (after which the store is as it was for
    /// ``RawTarget/discard``, whose bytes are dropped).
    @inline(__always)
    mutating func finish(store: inout ByteArena) -> ValueSpan {
        isActive = false
        checksNames = false
        checksValues = false
        if target == .discard {
            store.truncate(to: start)
            return ValueSpan(start: start, count: 0)
        }
        return ValueSpan(start: start, count: store.count &- start)
    }

    /// Whether the value is complete (its outermost container closed, or it was a scalar).
    var isComplete: Bool { depth == 0 }

    @inline(__always)
    private mutating func separate(_ store: inout ByteArena) {
        if needsComma { store.append(UInt8(ascii: ",")) }
    }

    @inline(__always)
    mutating func startContainer(_ open: UInt8, store: inout ByteArena) {
        separate(&store)
        store.append(open)
        needsComma = false
        depth &+= 1
    }

    @inline(__always)
    mutating func endContainer(_ close: UInt8, store: inout ByteArena) {
        store.append(close)
        needsComma = true
        depth &-= 1
    }

    /// A member name: `"name":`.
    @inline(__always)
    mutating func key(_ name: UnsafeRawBufferPointer, escaped: Bool, store: inout ByteArena) {
        separate(&store)
        Self.appendQuoted(name, escaped: escaped, to: &store)
        store.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A string value, quoted (escaped again when yajl unescaped it).
    @inline(__always)
    mutating func string(_ value: UnsafeRawBufferPointer, escaped: Bool, store: inout ByteArena) {
        separate(&store)
        Self.appendQuoted(value, escaped: escaped, to: &store)
        needsComma = true
    }

    /// A number's text, or `true`, `false`, `null`.
    @inline(__always)
    mutating func literal(_ text: UnsafeRawBufferPointer, store: inout ByteArena) {
        separate(&store)
        store.append(text)
        needsComma = true
    }

    /// A value written by the caller (a scalar outside a recorded value): what follows it
    /// needs a comma.
    @inline(__always)
    mutating func wroteValue() { needsComma = true }

    /// `bytes` between quotes: as they are when they came straight from the input (they are
    /// valid JSON string content), escaped when yajl unescaped them.
    @inline(__always)
    static func appendQuoted(_ bytes: UnsafeRawBufferPointer, escaped: Bool, to store: inout ByteArena) {
        if escaped {
            JSONEscaping.appendQuoted(bytes, to: &store)
            return
        }
        let n = bytes.count
        let p = store.reserveTail(n &+ 2)
        p.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
        if n > 0 { copyBytes(to: p + 1, from: bytes.baseAddress.unsafelyUnwrapped, count: n) }
        p.storeBytes(of: UInt8(ascii: "\""), toByteOffset: n &+ 1, as: UInt8.self)
    }
}
