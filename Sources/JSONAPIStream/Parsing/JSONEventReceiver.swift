#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The receiver of JSON events, between yajl and a handler.
///
/// The `receive…` entry points (called by the yajl trampolines) keep what every handler
/// needs, then call the overridable `on…` method:
/// - nesting depth and its limit (`J05`), member name length (`J06`);
/// - member names of every open object, to refuse duplicates (`J11`);
/// - the path of open containers, for JSON pointers in diagnostics;
/// - whether a string came straight from the input (no escapes) or was unescaped by yajl.
///
/// A handler fails a parse by calling ``fail(_:_:at:)`` and returning `false`; the stored
/// diagnostic then wins over yajl's status.
class JSONEventReceiver {
    struct Level {
        var isObject: Bool
        /// Members (objects) or elements (arrays) seen so far.
        var count: Int32
        /// Index in `keyEntries` of this container's first member name.
        var firstKey: Int32
        /// Index in `keyTables` of this object's hash table, or -1 while it has few members.
        var table: Int32
    }

    struct KeyEntry {
        var start: Int
        var length: Int32
        var prefix: UInt64
    }

    // Set by the stream parser around each `yajl_parse`: the bytes being parsed.
    @exclusivity(unchecked) final var sourceStart = UnsafeRawPointer(bitPattern: 1)!
    @exclusivity(unchecked) final var sourceEnd = UnsafeRawPointer(bitPattern: 1)!

    @exclusivity(unchecked) final var depth = 0
    @exclusivity(unchecked) final var levels: [Level] = []
    @exclusivity(unchecked) final var keyEntries: [KeyEntry] = []
    @exclusivity(unchecked) final var keyBytes = ByteArena(capacity: 4096)
    @exclusivity(unchecked) final var keyTables: [[Int32]] = []

    final let maxDepth: Int
    final let maxKeyBytes: Int
    final let duplicatePolicy: DuplicateMemberPolicy

    /// The first failure a handler reported; it wins over yajl's own status.
    @exclusivity(unchecked) final var failure: Diagnostic?
    /// An error a handler's consumer threw (an output error), rethrown as it is.
    @exclusivity(unchecked) final var thrown: JSONAPIError?
    /// Positions and input names come from the stream parser that owns this receiver.
    unowned(unsafe) final var parser: JSONStreamParser? = nil

    init(options: ParseOptions) {
        maxDepth = options.limits.maxDepth
        maxKeyBytes = options.limits.maxKeyBytes
        duplicatePolicy = options.duplicateMembers
        levels.reserveCapacity(64)
        keyEntries.reserveCapacity(256)
    }

    // MARK: - Overridable events

    func onStartObject() -> Bool { true }
    func onKey(_ name: UnsafeRawBufferPointer, escaped: Bool) -> Bool { true }
    func onEndObject() -> Bool { true }
    func onStartArray() -> Bool { true }
    func onEndArray() -> Bool { true }
    func onString(_ value: UnsafeRawBufferPointer, escaped: Bool) -> Bool { true }
    func onNumber(_ text: UnsafeRawBufferPointer) -> Bool { true }
    func onBool(_ value: Bool) -> Bool { true }
    func onNull() -> Bool { true }
    /// Under ``DuplicateMemberPolicy/allowInValues``: whether the current object is a value
    /// the handler stores without interpreting (so a repeated name may stay).
    func isInsideStoredValue() -> Bool { false }
    /// Called once the input has ended without error, before the stream parser returns.
    func onEndOfInput() -> Bool { true }

    // MARK: - Entry points

    @inline(__always)
    final func noteValue() {
        if let last = levels.indices.last, !levels[last].isObject { levels[last].count &+= 1 }
    }

    @inline(__always)
    final func isFromSource(_ p: UnsafeRawBufferPointer) -> Bool {
        guard let b = p.baseAddress else { return true }
        return b >= sourceStart && b < sourceEnd || (p.count == 0 && b == sourceEnd)
    }

    final func receiveStartObject() -> Bool {
        noteValue()
        depth &+= 1
        if depth > maxDepth { return failTooDeep() }
        levels.append(Level(isObject: true, count: 0, firstKey: Int32(truncatingIfNeeded: keyEntries.count), table: -1))
        return onStartObject()
    }

    final func receiveStartArray() -> Bool {
        noteValue()
        depth &+= 1
        if depth > maxDepth { return failTooDeep() }
        levels.append(Level(isObject: false, count: 0, firstKey: Int32(truncatingIfNeeded: keyEntries.count), table: -1))
        return onStartArray()
    }

    final func receiveEndObject() -> Bool {
        let ok = onEndObject()
        popLevel()
        return ok
    }

    final func receiveEndArray() -> Bool {
        let ok = onEndArray()
        popLevel()
        return ok
    }

    final func receiveString(_ value: UnsafeRawBufferPointer) -> Bool {
        noteValue()
        return onString(value, escaped: !isFromSource(value))
    }

    final func receiveNumber(_ text: UnsafeRawBufferPointer) -> Bool {
        noteValue()
        return onNumber(text)
    }

    final func receiveBool(_ value: Bool) -> Bool {
        noteValue()
        return onBool(value)
    }

    final func receiveNull() -> Bool {
        noteValue()
        return onNull()
    }

    final func receiveKey(_ name: UnsafeRawBufferPointer) -> Bool {
        if name.count > maxKeyBytes {
            return fail(.J06, "member name longer than \(maxKeyBytes) bytes", at: .currentToken)
        }
        let level = levels.count &- 1
        let prefix = Self.prefix(name)
        let first = Int(levels[level].firstKey)
        let n = Int(levels[level].count)
        if n > 0 {
            if levels[level].table >= 0 || n >= 16 {
                if let dup = lookUpAndInsert(name, prefix: prefix, level: level) {
                    if !duplicateAllowed() { return failDuplicate(name, previous: dup) }
                }
            } else {
                var i = first
                let end = keyEntries.count
                while i < end {
                    let e = keyEntries[i]
                    if e.prefix == prefix && Int(e.length) == name.count
                        && (name.count <= 8 || memoryEqual(keyBytes.bytes(in: e.start..<e.start + name.count), name))
                    {
                        if !duplicateAllowed() { return failDuplicate(name, previous: i) }
                        break
                    }
                    i &+= 1
                }
            }
        }
        let start = keyBytes.count
        keyBytes.append(name)
        keyEntries.append(KeyEntry(start: start, length: Int32(truncatingIfNeeded: name.count), prefix: prefix))
        levels[level].count &+= 1
        if levels[level].table >= 0 { insertIntoTable(level: level, entry: keyEntries.count - 1) }
        return onKey(name, escaped: !isFromSource(name))
    }

    @inline(__always)
    private final func popLevel() {
        let level = levels.removeLast()
        let first = Int(level.firstKey)
        if first < keyEntries.count {
            keyBytes.truncate(to: keyEntries[first].start)
            keyEntries.removeSubrange(first...)
        }
        if level.table >= 0 { keyTables.removeLast() }
        depth &-= 1
    }

    private final func duplicateAllowed() -> Bool {
        duplicatePolicy == .allowInValues && isInsideStoredValue()
    }

    // MARK: - Large objects: a hash table of member names

    @inline(__always)
    static func prefix(_ name: UnsafeRawBufferPointer) -> UInt64 {
        if name.count >= 8 { return name.loadUnaligned(as: UInt64.self) }
        var v: UInt64 = 0
        var shift: UInt64 = 0
        for b in name {
            v |= UInt64(b) << shift
            shift &+= 8
        }
        return v
    }

    /// Looks `name` up in the member names of the object at `level`, building its table when
    /// it first grows past the linear-scan size. Returns the entry index of a duplicate.
    @inline(never)
    private final func lookUpAndInsert(_ name: UnsafeRawBufferPointer, prefix: UInt64, level: Int) -> Int? {
        if levels[level].table < 0 {
            levels[level].table = Int32(keyTables.count)
            keyTables.append([Int32](repeating: -1, count: 64))
            let first = Int(levels[level].firstKey)
            for e in first..<keyEntries.count { insertIntoTable(level: level, entry: e) }
        }
        let t = Int(levels[level].table)
        let mask = keyTables[t].count - 1
        var slot = Int(truncatingIfNeeded: hashBytes(name)) & mask
        while true {
            let e = Int(keyTables[t][slot])
            if e < 0 { return nil }
            let entry = keyEntries[e]
            if Int(entry.length) == name.count && entry.prefix == prefix
                && memoryEqual(keyBytes.bytes(in: entry.start..<entry.start + name.count), name)
            {
                return e
            }
            slot = (slot + 1) & mask
        }
    }

    private final func insertIntoTable(level: Int, entry: Int) {
        let t = Int(levels[level].table)
        let members = keyEntries.count - Int(levels[level].firstKey)
        if members * 2 > keyTables[t].count {
            // Grow and rehash.
            keyTables[t] = [Int32](repeating: -1, count: keyTables[t].count * 2)
            let first = Int(levels[level].firstKey)
            for e in first..<keyEntries.count where e != entry { place(e, in: t) }
        }
        place(entry, in: t)
    }

    private final func place(_ entry: Int, in t: Int) {
        let e = keyEntries[entry]
        let mask = keyTables[t].count - 1
        var slot = Int(truncatingIfNeeded: hashBytes(keyBytes.bytes(in: e.start..<e.start + Int(e.length)))) & mask
        while keyTables[t][slot] >= 0 { slot = (slot + 1) & mask }
        keyTables[t][slot] = Int32(entry)
    }

    // MARK: - Positions and failures

    enum Place {
        /// The token being reported by yajl right now.
        case currentToken
        /// The innermost open container (its opening bracket).
        case container
        /// A known absolute location.
        case at(SourcePosition)
    }

    /// The JSON pointer of the value being reported right now (the current member of the
    /// innermost object, or the current element of the innermost array).
    final func currentPointer() -> String { pointer(levels: levels.count) }

    /// The JSON pointer of the innermost open container.
    final func containerPointer() -> String { pointer(levels: levels.count - 1) }

    /// The JSON pointer made of the first `n` open levels.
    final func pointer(levels n: Int) -> String {
        var s = ""
        var i = 0
        while i < n && i < levels.count {
            let level = levels[i]
            if level.isObject {
                guard level.count > 0 else { break }
                let nextFirst = i + 1 < levels.count ? Int(levels[i + 1].firstKey) : keyEntries.count
                let e = keyEntries[nextFirst - 1]
                s += "/" + escapePointerToken(keyBytes.string(e.start..<e.start + Int(e.length)))
            } else {
                guard level.count > 0 else { break }
                s += "/\(level.count - 1)"
            }
            i += 1
        }
        return s
    }

    /// The location of the current token (inside a callback only).
    final func currentLocation() -> SourcePosition {
        parser?.currentTokenLocation() ?? .start
    }

    /// Records a failure (the first one wins) and returns `false`, to be returned to yajl.
    @inline(never)
    @discardableResult
    final func fail(_ rule: Rule, _ message: String, at place: Place = .currentToken, pointer: String? = nil) -> Bool {
        guard failure == nil && thrown == nil else { return false }
        let location: SourcePosition
        switch place {
        case .currentToken: location = currentLocation()
        case .container: location = currentLocation()
        case .at(let l): location = l
        }
        let p: String
        if let pointer { p = pointer } else {
            switch place {
            case .container: p = containerPointer()
            default: p = currentPointer()
            }
        }
        failure = Diagnostic(severity: .error, rule: rule, message: message, location: location, pointer: p)
        return false
    }

    @inline(never)
    private final func failTooDeep() -> Bool {
        fail(.J05, "nesting deeper than \(maxDepth) levels", at: .currentToken, pointer: pointer(levels: min(levels.count, 64)) + (levels.count > 64 ? "/…" : ""))
    }

    @inline(never)
    private final func failDuplicate(_ name: UnsafeRawBufferPointer, previous: Int) -> Bool {
        let text = String(decoding: name, as: UTF8.self)
        return fail(.J11, "duplicate member name \(quoted(text))", at: .currentToken, pointer: containerPointer() + "/" + escapePointerToken(text))
    }
}

// MARK: - Helpers

@inline(__always)
func memoryEqual(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer) -> Bool {
    guard a.count == b.count else { return false }
    if a.count == 0 { return true }
    return memcmp(a.baseAddress!, b.baseAddress!, a.count) == 0
}

/// FNV-1a over bytes, eight at a time: fast on short names and ids, good enough spread for
/// open addressing with linear probing.
@inline(__always)
func hashBytes(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    let n = bytes.count
    var i = 0
    while i &+ 8 <= n {
        let w = bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)
        h = (h ^ w) &* 0x0000_0100_0000_01B3
        h ^= h >> 29
        i &+= 8
    }
    while i < n {
        h = (h ^ UInt64(bytes[i])) &* 0x0000_0100_0000_01B3
        i &+= 1
    }
    h ^= h >> 32
    h = h &* 0x9E37_79B9_7F4A_7C15
    return h ^ (h >> 29)
}

/// Escapes a member name as a JSON pointer reference token (RFC 6901).
func escapePointerToken(_ s: String) -> String {
    guard s.contains(where: { $0 == "~" || $0 == "/" }) else { return s }
    var out = ""
    for c in s {
        switch c {
        case "~": out += "~0"
        case "/": out += "~1"
        default: out.append(c)
        }
    }
    return out
}

/// A name as shown in a message: in double quotes, with control characters escaped.
func quoted(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where u.value < 0x20: out += "\\u" + hex4(u.value)
        default: out.unicodeScalars.append(u)
        }
    }
    return out + "\""
}
