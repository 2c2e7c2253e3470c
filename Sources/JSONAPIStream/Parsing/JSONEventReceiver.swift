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
        /// The code of this object's last member name when the receiver took it as a known
        /// name (``receiveKnownKey(_:escaped:prefix:code:)``: it has no entry in `keyEntries`),
        /// or 0 when the last name is the object's last entry there. (In the padding after
        /// `isObject`, as `known` is: a level stays 32 bytes.)
        var lastKnown: UInt8
        /// One bit per known name taken so far (bit `code`), each checked exactly.
        var known: UInt16
        /// Members (objects) or elements (arrays) seen so far.
        var count: Int32
        /// Index in `keyEntries` of this container's first member name.
        var firstKey: Int32
        /// Index in `keyTables` of this object's hash table, or -1 while it has few members.
        var table: Int32
        /// Where this container's long member names start in `keyBytes`.
        var bytesStart: Int
        /// One bit per member name seen (a 64-bit signature): a name whose bit is clear is
        /// certainly new, so most names are checked without comparing anything.
        var signature: UInt64
    }

    struct KeyEntry {
        /// Where the name's bytes are in `keyBytes`; only names longer than 8 bytes are stored
        /// there (shorter ones are all in `prefix`).
        var start: Int
        var length: Int32
        /// The first (up to) eight bytes, little-endian, zero-padded.
        var prefix: UInt64
    }

    // Set by the stream parser around each `yajl_parse`: the bytes being parsed.
    @exclusivity(unchecked) final var sourceStart = UnsafeRawPointer(bitPattern: 1)!
    @exclusivity(unchecked) final var sourceEnd = UnsafeRawPointer(bitPattern: 1)!

    @exclusivity(unchecked) final var depth = 0
    /// Whether a member name was read and its value has not started yet.
    @exclusivity(unchecked) final var awaitingValue = false
    /// The first eight bytes (zero-padded) of the member name being reported to `onKey`.
    @exclusivity(unchecked) final var keyPrefix: UInt64 = 0
    @exclusivity(unchecked) final var levels = UnsafeStack<Level>(capacity: 64)
    @exclusivity(unchecked) final var keyEntries = UnsafeStack<KeyEntry>(capacity: 256)
    @exclusivity(unchecked) final var keyBytes = ByteArena(capacity: 4096)
    @exclusivity(unchecked) final var keyTables: [[Int32]] = []
    /// The key of the member-name tables' hash, taken once.
    final let seed = HashSeed.process
    /// Slots looked at by the member-name tables of large objects, inserts and lookups (a
    /// measure of their cost, counted on their out-of-line path only).
    final var memberTableProbes = 0

    final let maxDepth: Int
    final let maxKeyBytes: Int
    final let maxStringBytes: Int
    final let maxNumberLength: Int
    final let limits: Limits
    final let duplicatePolicy: DuplicateMemberPolicy

    /// The first failure a handler reported; it wins over yajl's own status.
    final var failure: Diagnostic?
    /// An error a handler's consumer threw (an output error), rethrown as it is.
    final var thrown: JSONAPIError?
    /// Positions and the input's name, kept by the stage that drives this receiver (the
    /// stream parser's ``StreamPositions`` or the tape replayer's ``ReplayPositions``).
    /// Unmanaged because it is asked once per resource (``currentLocation()``), and a
    /// reference loaded from a property is retained and released around the call, unowned or
    /// not (a strong one cost 0.05 instructions per input byte, callgrind, graph pass).
    /// Invariant: the stage that sets it owns the positions and clears this before it lets
    /// them go (the stream parser in its deinit; the replayer lives as long as its receiver is
    /// driven).
    private final var positionsRef: Unmanaged<SourcePositions>? = nil

    final var positions: SourcePositions? {
        get { positionsRef?.takeUnretainedValue() }
        set { positionsRef = newValue.map { Unmanaged.passUnretained($0) } }
    }

    init(options: ParseOptions) {
        maxDepth = options.limits.maxDepth
        maxKeyBytes = options.limits.maxKeyBytes
        maxStringBytes = options.limits.maxStringBytes
        maxNumberLength = options.limits.maxNumberLength
        limits = options.limits
        duplicatePolicy = options.duplicateMembers
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
    /// A member name repeated where the duplicate policy allows it (`name` is being
    /// reported); false stops the parse.
    func onAllowedDuplicate(_ name: UnsafeRawBufferPointer) -> Bool { true }
    /// Called once the input has ended without error, before the stream parser returns.
    func onEndOfInput() -> Bool { true }

    // MARK: - Entry points

    @inline(__always)
    final func noteValue() {
        awaitingValue = false
        if levels.count > 0 {
            let top = levels.topPointer
            if !top.pointee.isObject { top.pointee.count &+= 1 }
        }
    }

    @inline(__always)
    final func isFromSource(_ p: UnsafeRawBufferPointer) -> Bool {
        guard let b = p.baseAddress else { return true }
        return b >= sourceStart && b < sourceEnd || (p.count == 0 && b == sourceEnd)
    }

    @inline(__always)
    private final func openLevel(isObject: Bool) {
        levels.push(
            Level(
                isObject: isObject, lastKnown: 0, known: 0, count: 0, firstKey: Int32(truncatingIfNeeded: keyEntries.count), table: -1,
                bytesStart: keyBytes.count, signature: 0))
    }

    @inline(__always)
    final func receiveStartObject() -> Bool {
        noteValue()
        depth &+= 1
        if depth > maxDepth { return failTooDeep() }
        openLevel(isObject: true)
        return onStartObject()
    }

    @inline(__always)
    final func receiveStartArray() -> Bool {
        noteValue()
        depth &+= 1
        if depth > maxDepth { return failTooDeep() }
        openLevel(isObject: false)
        return onStartArray()
    }

    @inline(__always)
    final func receiveEndObject() -> Bool {
        let ok = onEndObject()
        popLevel()
        return ok
    }

    @inline(__always)
    final func receiveEndArray() -> Bool {
        let ok = onEndArray()
        popLevel()
        return ok
    }

    @inline(__always)
    final func receiveString(_ value: UnsafeRawBufferPointer) -> Bool {
        receiveString(value, escaped: !isFromSource(value))
    }

    @inline(__always)
    final func receiveString(_ value: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        noteValue()
        if escaped, !checkEscapes(key: false) { return false }
        if value.count > maxStringBytes { return failTooLong(.string) }
        return onString(value, escaped: escaped)
    }

    @inline(__always)
    final func receiveNumber(_ text: UnsafeRawBufferPointer) -> Bool {
        noteValue()
        if text.count > maxNumberLength { return failTooLong(.number) }
        return onNumber(text)
    }

    /// A string with escapes: yajl unescaped it, but turns unpaired surrogates into other
    /// characters (`J03`); the source token is read again to refuse them.
    @inline(never)
    private final func checkEscapes(key: Bool) -> Bool {
        guard let (token, offset) = positions?.currentStringToken() else { return true }
        guard let error = LexicalScanner.checkEscapedString(token, base: offset, limits: limits) else { return true }
        // A bad member name is in its object; a bad string value is that value.
        return fail(error.rule, error.message, at: .at(positions!.location(of: error.offset)), pointer: key ? containerPointer() : currentPointer())
    }

    @inline(__always)
    final func receiveBool(_ value: Bool) -> Bool {
        noteValue()
        return onBool(value)
    }

    @inline(__always)
    final func receiveNull() -> Bool {
        noteValue()
        return onNull()
    }

    @inline(__always)
    final func receiveKey(_ name: UnsafeRawBufferPointer) -> Bool {
        let escaped = !isFromSource(name)
        return receiveKey(name, escaped: escaped, prefix: escaped ? ShortName.prefix(name) : ShortName.prefix(name, readableUpTo: sourceEnd))
    }

    @inline(__always)
    final func receiveKey(_ name: UnsafeRawBufferPointer, escaped: Bool, prefix: UInt64) -> Bool {
        let n = name.count
        if name.count > maxKeyBytes { return failTooLong(.memberName) }
        if escaped, !checkEscapes(key: true) { return false }
        let level = levels.topPointer
        let h = (prefix ^ UInt64(truncatingIfNeeded: n)) &* 0x9E37_79B9_7F4A_7C15
        let bit: UInt64 = 1 &<< (h &>> 58)
        if level.pointee.table >= 0 || level.pointee.count >= 24 {
            if lookUpAndInsert(name, prefix: prefix, level: level) != nil, !repeated(name) { return false }
        } else if level.pointee.signature & bit != 0 {
            // Maybe seen: compare with this object's names.
            var i = Int(level.pointee.firstKey)
            let end = keyEntries.count
            while i < end {
                if entryEquals(keyEntries[i], name, prefix) {
                    if !repeated(name) { return false }
                    break
                }
                i &+= 1
            }
        }
        level.pointee.signature |= bit
        var start = -1
        if n > 8 {
            start = keyBytes.count
            keyBytes.append(name)
        }
        keyEntries.push(KeyEntry(start: start, length: Int32(truncatingIfNeeded: n), prefix: prefix))
        level.pointee.count &+= 1
        level.pointee.lastKnown = 0
        awaitingValue = true
        if level.pointee.table >= 0 { insertIntoTable(level: level, entry: keyEntries.count - 1) }
        keyPrefix = prefix
        return onKey(name, escaped: escaped)
    }

    /// A member name met again in its object: `J11` stops the parse, unless the policy lets
    /// the name stay here (the handler is then told). False when the parse stops.
    @inline(__always)
    private final func repeated(_ name: UnsafeRawBufferPointer) -> Bool {
        if !duplicateAllowed() { return failDuplicate(name) }
        return onAllowedDuplicate(name)
    }

    /// A member name that the receiver knows as one of the few names an object of the kind
    /// being read is made of (a resource's `type`, `id`, `attributes`…), numbered by the
    /// receiver (`code`, 1 to 15), which then handles it itself instead of calling `onKey`.
    /// It is checked exactly as any name is (length, escapes, a repeat: `J11`), but against a
    /// bit of the object's level rather than the object's list of names, in which it takes no
    /// entry (the JSON pointers of diagnostics know it by its code, ``knownMemberName(_:)``).
    ///
    /// The receiver must take a name this way whenever it is known, in any object where it
    /// takes it so (whether escaped or not): two equal names are then both known or both not,
    /// so a repeat is found by the bit or by the list, and never between the two. Returns
    /// false when the parse stops (the name is a repeat, or its escapes are bad).
    @inline(__always)
    final func receiveKnownKey(_ name: UnsafeRawBufferPointer, escaped: Bool, prefix: UInt64, code: UInt8) -> Bool {
        // The same two checks as `receiveKey`'s, written out in both: as one inlined helper
        // they made the compiler keep the name's end and first word on the stack in
        // `yajlKey`, 1.7 % slower by the clock for the same instructions.
        if name.count > maxKeyBytes { return failTooLong(.memberName) }
        if escaped, !checkEscapes(key: true) { return false }
        let level = levels.topPointer
        let bit = UInt16(1) &<< UInt16(code)
        if level.pointee.known & bit != 0, !repeated(name) { return false }
        level.pointee.known |= bit
        level.pointee.lastKnown = code
        level.pointee.count &+= 1
        awaitingValue = true
        keyPrefix = prefix
        return true
    }

    /// The text of a member name the receiver took as known, by its code (in JSON pointers).
    func knownMemberName(_ code: UInt8) -> String { "" }

    @inline(__always)
    final func entryEquals(_ e: KeyEntry, _ name: UnsafeRawBufferPointer, _ prefix: UInt64) -> Bool {
        guard e.prefix == prefix && Int(e.length) == name.count else { return false }
        if name.count <= 8 { return true }
        return memoryEqual(keyBytes.bytes(in: e.start..<e.start + name.count), name)
    }

    @inline(__always)
    private final func popLevel() {
        let level = levels.pop()
        keyEntries.truncate(to: Int(level.firstKey))
        keyBytes.truncate(to: level.bytesStart)
        if level.table >= 0 { keyTables.removeLast() }
        depth &-= 1
    }

    private final func duplicateAllowed() -> Bool {
        duplicatePolicy == .allowInValues && isInsideStoredValue()
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

    /// The JSON pointer of the value that comes next (between events): the next element of
    /// the innermost array, the value of the member name just read, or the innermost object.
    final func nextValuePointer() -> String {
        guard levels.count > 0 else { return "" }
        let top = levels.top
        if top.isObject { return awaitingValue ? currentPointer() : containerPointer() }
        return containerPointer() + "/\(top.count)"
    }

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
                if level.lastKnown != 0 {
                    s += "/" + escapePointerToken(knownMemberName(level.lastKnown))
                    i += 1
                    continue
                }
                let nextFirst = i + 1 < levels.count ? Int(levels[i + 1].firstKey) : keyEntries.count
                s += "/" + escapePointerToken(keyText(keyEntries[nextFirst - 1]))
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
        guard let positionsRef else { return .start }
        return positionsRef._withUnsafeGuaranteedRef { $0.currentTokenLocation() }
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
        if let pointer {
            p = pointer
        } else {
            switch place {
            case .container: p = containerPointer()
            default: p = currentPointer()
            }
        }
        failure = Diagnostic(severity: .error, rule: rule, message: message, location: location, pointer: p)
        return false
    }

    private enum LongToken { case string, number, memberName }

    /// `J06` for the token being reported. Out of line: the entry points are inlined into
    /// their callers, and the message's text would be inlined with them.
    @inline(never)
    private final func failTooLong(_ token: LongToken) -> Bool {
        switch token {
        case .string: fail(.J06, "string longer than \(maxStringBytes) bytes", at: .currentToken)
        case .number: fail(.J06, "number longer than \(maxNumberLength) characters", at: .currentToken)
        case .memberName: fail(.J06, "member name longer than \(maxKeyBytes) bytes", at: .currentToken)
        }
    }

    @inline(never)
    private final func failTooDeep() -> Bool {
        fail(.J05, "nesting deeper than \(maxDepth) levels", at: .currentToken, pointer: currentPointer())
    }

    /// The `J11` finding for a repeated member name (the name being reported), as a warning.
    final func duplicateWarning(_ name: UnsafeRawBufferPointer, _ message: String) -> Diagnostic {
        let text = String(decoding: name, as: UTF8.self)
        return Diagnostic(
            severity: .warning, rule: .J11, message: "duplicate member name \(quoted(text))\(message)",
            location: currentLocation(), pointer: containerPointer() + "/" + escapePointerToken(text))
    }

    @inline(never)
    private final func failDuplicate(_ name: UnsafeRawBufferPointer) -> Bool {
        let text = String(decoding: name, as: UTF8.self)
        return fail(.J11, "duplicate member name \(quoted(text))", at: .currentToken, pointer: containerPointer() + "/" + escapePointerToken(text))
    }
}
