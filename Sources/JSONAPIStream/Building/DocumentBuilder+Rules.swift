// The rules the builder checks as it goes: member names, shapes, findings.
extension DocumentBuilder {
    // MARK: - Member names

    @inline(__always)
    static func classify(_ name: UnsafeRawBufferPointer) -> Member {
        classify(name, prefix: ShortName.prefix(name))
    }

    /// The member a name stands for, given its first eight bytes (zero-padded).
    @inline(__always)
    static func classify(_ name: UnsafeRawBufferPointer, prefix p: UInt64) -> Member {
        switch name.count {
        case 2: return p == ShortName.id ? .id : .other
        case 3: return p == ShortName.lid ? .lid : .other
        case 4:
            if p == ShortName.type { return .type }
            if p == ShortName.data { return .data }
            if p == ShortName.meta { return .meta }
            return .other
        case 5: return p == ShortName.links ? .links : .other
        case 6: return p == ShortName.errors ? .errors : .other
        case 7: return p == ShortName.jsonapi ? .jsonapi : .other
        case 8: return p == ShortName.included ? .included : .other
        case 10:
            return p == ShortName.attributesPrefix && name.loadUnaligned(fromByteOffset: 8, as: UInt16.self) == 0x7365 /* "es" */ ? .attributes : .other
        case 13:
            return p == ShortName.relationshipsPrefix && name.loadUnaligned(fromByteOffset: 5, as: UInt64.self) == 0x73706968736E6F69 /* "ionships" */
                ? .relationships : .other
        default: return .other
        }
    }

    // MARK: - Findings

    /// Reports a rule violation: a warning in lenient mode (returns true), an error in
    /// strict mode (returns false). Does nothing when validation is off.
    @discardableResult
    /// (`message` is made only when it is used: with validation off, or a warning no
    /// handler receives, it is not.)
    func report(_ rule: Rule, _ message: @autoclosure () -> String, at place: Place = .currentToken, pointer: String? = nil) -> Bool {
        switch validation {
        case .off: return true
        case .strict: return fail(rule, message(), at: place, pointer: pointer)
        case .lenient:
            warn(rule, message(), at: place, pointer: pointer)
            return true
        }
    }

    func warn(_ rule: Rule, _ message: @autoclosure () -> String, at place: Place = .currentToken, pointer: String? = nil) {
        warningCount += 1
        guard let onDiagnostic else { return }
        if warningCount > warningTexts {
            onDiagnostic(.textless(rule))
            return
        }
        let location: SourcePosition
        switch place {
        case .currentToken, .container: location = currentLocation()
        case .at(let l): location = l
        }
        let p: String
        if let pointer {
            p = pointer
        } else {
            if case .container = place { p = containerPointer() } else { p = currentPointer() }
        }
        onDiagnostic(Diagnostic(severity: .warning, rule: rule, message: message(), location: location, pointer: p, source: positions?.sourceName))
    }

    /// A rule whose violation makes a resource or linkage unkeyable: fatal when keys are
    /// required, otherwise reported like any rule.
    func keyRule(_ rule: Rule, _ message: String, at place: Place, pointer: String? = nil) -> Bool {
        if requiresKeys { return fail(rule, message, at: place, pointer: pointer) }
        return report(rule, message, at: place, pointer: pointer)
    }

    /// Something that is never acceptable (the root is not an object).
    func fatal(_ rule: Rule, _ message: String, container: Bool) -> Bool {
        fail(rule, message, at: .currentToken, pointer: "")
    }

    /// A value of the wrong shape where the builder interprets the document (primary data,
    /// included, attributes, relationships, linkage). Fatal when keys are required; otherwise
    /// reported, and the value is skipped.
    func badShape(_ rule: Rule, _ message: String, container: Bool, isObject: Bool = true) -> Bool {
        if requiresKeys { return fail(rule, message + "; the document cannot be normalized") }
        if !report(rule, message) { return false }
        startRawValue(.discard)
        if container { return rawStartContainer(open: isObject ? UInt8(ascii: "{") : UInt8(ascii: "["), isObject: isObject) }
        finishRaw()
        return true
    }

    /// A number as `id` (flask-rest-jsonapi writes them on relationship endpoints): keyed by
    /// its exact text (`1` is the id `"1"`, `1.0` the id `"1.0"`) with a warning naming R11;
    /// an error in strict mode.
    @inline(never)
    func numericID(_ text: UnsafeRawBufferPointer, inIdentifier: Bool) -> Bool {
        let shown = String(decoding: text, as: UTF8.self)
        if validation == .strict {
            return fail(.R11, "id MUST be a string, not the number \(shown)" + (requiresKeys ? "; the document cannot be normalized" : ""))
        }
        if validation != .off {
            warn(.R11, "id MUST be a string, not the number \(shown); it is keyed as \(quoted(shown))")
        }
        if inIdentifier { identifier.id = appendToScratch(text) } else { resource.id = appendToScratch(text) }
        return true
    }

    /// `type`, `id` or `lid` that is not a string.
    func badKeyValue(container: Bool, object: Bool) -> Bool {
        let name = member == .type ? "type" : (member == .id ? "id" : "lid")
        return badShape(.R11, "\(name) MUST be a string", container: container, isObject: object)
    }

    func unknownMember(_ name: UnsafeRawBufferPointer, rule: Rule, owner: String) -> Bool {
        // Where does its value go: the member spans of the owner, via the pending lists.
        if name.first == UInt8(ascii: "@") {
            return checkMemberName(name, what: "@-member name", always: false)
        }
        if let colon = name.firstIndex(of: UInt8(ascii: ":")) {
            let ns = String(decoding: UnsafeRawBufferPointer(rebasing: name[..<colon]), as: UTF8.self)
            if options.extensions.contains(ns) {
                if frames.last == .document { documentHasExtensionMember = true }
                if frames.last == .relationship { relationshipHasExtensionMember = true }
                // The rest of the name follows the member-name rules (R41).
                return checkMemberName(name, what: "extension member name", always: true)
            }
            if ns == AtomicOperations.namespace && atomic.declared {
                // Applied by this document's jsonapi.ext (not cached: the next document may not).
                if frames.last == .document { documentHasExtensionMember = true }
                if frames.last == .relationship { relationshipHasExtensionMember = true }
                var applied = options.extensions
                applied.insert(ns)
                if let problem = MemberNameRules.violation(name, extensions: applied, allowAt: true) {
                    return report(problem.rule, "extension member name \(quoted(String(decoding: name, as: UTF8.self))): \(problem.message)")
                }
                return true
            }
        }
        if validation == .off { return true }
        let text = String(decoding: name, as: UTF8.self)
        if !checkMemberName(name, what: "member name", always: true) { return false }
        return report(rule, "\(owner) MUST NOT contain the member \(quoted(text)) (it is kept)")
    }

    @inline(__always)
    func checkTypeName(_ value: UnsafeRawBufferPointer) -> Bool {
        let prefix = ShortName.prefix(value)
        if nameCache.contains(value, prefix: prefix, kind: 1) { return true }
        return checkNewTypeName(value, prefix: prefix)
    }

    @inline(never)
    func checkNewTypeName(_ value: UnsafeRawBufferPointer, prefix: UInt64) -> Bool {
        if let problem = MemberNameRules.violation(value, extensions: options.extensions, allowAt: false) {
            return report(.R12, "type \(quoted(String(decoding: value, as: UTF8.self))) is not a valid member name: \(problem.message)")
        }
        nameCache.insert(value, prefix: prefix, kind: 1)
        return true
    }

    /// Checks a member name against R37–R41. `always`: names the spec always covers
    /// (attributes, relationships); others only in strict mode.
    @inline(__always)
    func checkMemberName(_ name: UnsafeRawBufferPointer, what: StaticString, always: Bool) -> Bool {
        guard always || validation == .strict || options.strictChecks else { return true }
        // Called for the member name being reported, so `keyPrefix` is its prefix.
        if nameCache.contains(name, prefix: keyPrefix, kind: 0) { return true }
        return checkNewMemberName(name, what: what)
    }

    @inline(never)
    func checkNewMemberName(_ name: UnsafeRawBufferPointer, what: StaticString) -> Bool {
        if let problem = MemberNameRules.violation(name, extensions: options.extensions, allowAt: true) {
            return report(problem.rule, "\(what) \(quoted(String(decoding: name, as: UTF8.self))): \(problem.message)")
        }
        nameCache.insert(name, prefix: keyPrefix, kind: 0)
        return true
    }

    /// A key inside a checked raw value (an attribute's name: ``checkAttributeName(_:)``).
    func checkKey(_ name: UnsafeRawBufferPointer) -> Bool {
        if raw.target == .resourceAttributes {
            if raw.depth == 1 { return checkAttributeName(name) }
            // Keys inside an attribute's value are any JSON (a JSON field's keys, domain
            // names with dots): the member-name rules cover the attribute names only.
            return true
        }
        return checker.key(name, prefix: keyPrefix, reporter: self)
    }

    /// An attribute's name: kept for R17, and checked against the member-name rules, at once
    /// when it is the name the same place of an earlier resource had (``checkedAttributes``).
    @inline(__always)
    func checkAttributeName(_ name: UnsafeRawBufferPointer) -> Bool {
        let words = NameWords(name, prefix: keyPrefix, longName: name.count > 16 ? appendToScratch(name) : .none)
        attributeBits.insert(words)
        let place = attributeNames.count
        attributeNames.push(words)
        if checkedAttributes.holds(words, at: place) { return true }
        return checkNewAttributeName(name, words, at: place)
    }

    /// ``checkAttributeName(_:)`` for a name not checked at its place before: the name cache,
    /// or the rules; a valid name is then kept for its place.
    @inline(never)
    func checkNewAttributeName(_ name: UnsafeRawBufferPointer, _ words: NameWords, at place: Int) -> Bool {
        if nameCache.contains(name, prefix: keyPrefix, kind: 0) {
            checkedAttributes.note(words, at: place)
            return true
        }
        guard checkNewMemberName(name, what: "attribute name") else { return false }
        // Valid unless it was reported (and the parse goes on): a valid name is in the cache
        // now (unless the cache is full).
        if nameCache.contains(name, prefix: keyPrefix, kind: 0) { checkedAttributes.note(words, at: place) }
        return true
    }

    /// R17: attributes and relationships share one namespace; neither may be `type` or `id`.
    func checkFieldNamespace() -> Bool {
        // The usual case, no clash, is settled by the names' filter (`attributeBits`): a
        // relationship name the filter does not contain is certainly not an attribute's, and
        // `type` and `id` are looked up the same way. Only a possible match compares names.
        var maybe = attributeBits.mayContain(NameWords.type) || attributeBits.mayContain(NameWords.id)
        var taken = attributeBits
        taken.insert(NameWords.type)
        taken.insert(NameWords.id)
        for i in 0..<arenas.relationshipDrafts.count where !maybe {
            let bytes = arenas.scratch.bytes(in: arenas.relationshipDrafts[i].name.range)
            if taken.mayContain(NameWords(bytes, prefix: ShortName.prefix(bytes), longName: .none)) { maybe = true }
        }
        if !maybe { return true }
        for i in 0..<arenas.relationshipDrafts.count {
            let name = arenas.relationshipDrafts[i].name
            let bytes = arenas.scratch.bytes(in: name.range)
            relationshipNames.push(NameWords(bytes, prefix: ShortName.prefix(bytes), longName: name))
        }
        if !namesClash() { return true }
        for a in attributeNames.elements {
            if a.isTypeOrID {
                let name = a.text(arenas.scratch)
                if !report(.R17, "a resource MUST NOT have an attribute named \(quoted(name))", at: .at(resource.position), pointer: resource.pointer + "/attributes/" + escapePointerToken(name)) {
                    return false
                }
            }
            for r in relationshipNames.elements where r.equals(a, arenas.scratch) {
                let name = a.text(arenas.scratch)
                let later = relationshipsAfterAttributes ? "/relationships/" : "/attributes/"
                if !report(.R17, "\(quoted(name)) is both an attribute and a relationship", at: .at(resource.position), pointer: resource.pointer + later + escapePointerToken(name)) { return false }
            }
        }
        for r in relationshipNames.elements where r.isTypeOrID {
            let name = r.text(arenas.scratch)
            if !report(.R17, "a resource MUST NOT have a relationship named \(quoted(name))", at: .at(resource.position), pointer: resource.pointer + "/relationships/" + escapePointerToken(name)) {
                return false
            }
        }
        return true
    }

    /// Whether an attribute is named `type` or `id`, or like a relationship, or a relationship
    /// is named `type` or `id` (the lists hold the current resource's names).
    private func namesClash() -> Bool {
        let relationships = relationshipNames.elements
        for a in attributeNames.elements {
            if a.isTypeOrID { return true }
            for r in relationships where r.equals(a, arenas.scratch) { return true }
        }
        return relationships.contains { $0.isTypeOrID }
    }

    func failWith(_ error: JSONAPIError) -> Bool {
        if failure == nil && thrown == nil { thrown = error }
        return false
    }
}

/// A filter of member names in two 64-bit words, one bit in each per name (two bits of the
/// name's hash pick them): a name whose two bits are not both set was certainly not
/// inserted. With the dozen attributes of a typical resource, about one lookup in twenty
/// says "maybe" for a name that is not there.
struct NameFilter {
    private var low: UInt64 = 0
    private var high: UInt64 = 0

    @inline(__always)
    mutating func insert(_ name: NameWords) {
        let h = name.hash
        low |= 1 &<< (h &>> 58)
        high |= 1 &<< ((h &>> 52) & 63)
    }

    @inline(__always)
    func mayContain(_ name: NameWords) -> Bool {
        let h = name.hash
        return low & (1 &<< (h &>> 58)) != 0 && high & (1 &<< ((h &>> 52) & 63)) != 0
    }
}

/// Member names found valid (``DocumentBuilder/checkNewMemberName(_:what:)``), one for each
/// place of a list of names (the n-th attribute of a resource), for the first
/// ``PlacedNames/places`` places and names of up to 16 bytes (whose ``NameWords`` are the whole
/// name): a name equal to the one kept at its place is valid, found with one comparison
/// rather than a look-up in the ``NameCache``.
struct PlacedNames: ~Copyable {
    static let places = 32
    /// Invariant: `places` entries, initialized; an entry of length -1 holds no name.
    private let entries: UnsafeMutablePointer<NameWords>

    init() {
        entries = .allocate(capacity: Self.places)
        entries.initialize(repeating: NameWords(length: -1, prefix: 0, suffix: 0, longName: .none), count: Self.places)
    }

    deinit { entries.deallocate() }

    /// Whether `words` (a name's) is the valid name kept at `place`.
    @inline(__always)
    func holds(_ words: NameWords, at place: Int) -> Bool {
        guard place < Self.places else { return false }
        let e = entries[place]
        // (An entry's length is at most 16, so equal words are equal names.)
        return e.length == words.length && e.prefix == words.prefix && e.suffix == words.suffix
    }

    /// Keeps `words`, a valid name's, for `place`.
    @inline(__always)
    func note(_ words: NameWords, at place: Int) {
        guard place < Self.places, words.length <= 16 else { return }
        entries[place] = NameWords(length: words.length, prefix: words.prefix, suffix: words.suffix, longName: .none)
    }
}

/// A member name as its length and ``ShortName`` words: equal words mean equal names for
/// names of up to 16 bytes; longer names also keep their bytes (`longName`).
struct NameWords {
    var length: Int
    var prefix: UInt64
    var suffix: UInt64
    var longName: ScratchSpan

    init(length: Int, prefix: UInt64, suffix: UInt64, longName: ScratchSpan) {
        self.length = length
        self.prefix = prefix
        self.suffix = suffix
        self.longName = longName
    }

    @inline(__always)
    init(_ name: UnsafeRawBufferPointer, prefix: UInt64, longName: ScratchSpan) {
        length = name.count
        self.prefix = prefix
        suffix = ShortName.suffix(name)
        self.longName = longName
    }

    var isTypeOrID: Bool { (length == 4 && prefix == ShortName.type) || (length == 2 && prefix == ShortName.id) }

    static let type = NameWords(length: 4, prefix: ShortName.type, suffix: 0, longName: .none)
    static let id = NameWords(length: 2, prefix: ShortName.id, suffix: 0, longName: .none)

    /// The name's hash (equal names, equal hashes).
    @inline(__always)
    var hash: UInt64 {
        (prefix ^ (suffix &* 0xC2B2_AE3D_27D4_EB4F) ^ UInt64(truncatingIfNeeded: length)) &* 0x9E37_79B9_7F4A_7C15
    }

    func equals(_ other: NameWords, _ scratch: borrowing ByteArena) -> Bool {
        guard length == other.length && prefix == other.prefix && suffix == other.suffix else { return false }
        if length <= 16 { return true }
        return memoryEqual(scratch.bytes(in: longName.range), scratch.bytes(in: other.longName.range))
    }

    /// The name, for messages.
    func text(_ scratch: borrowing ByteArena) -> String {
        if length > 16 { return scratch.string(longName.range) }
        var bytes: [UInt8] = []
        for k in 0..<length {
            bytes.append(k < 8 ? UInt8(truncatingIfNeeded: prefix >> (UInt64(k) * 8)) : UInt8(truncatingIfNeeded: suffix >> (UInt64(k - (length - 8)) * 8)))
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

func staticBytes(_ s: StaticString) -> UnsafeRawBufferPointer {
    UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)
}

/// The value checker's findings are the builder's to report (its mode, its positions).
extension DocumentBuilder: RuleReporter {}
