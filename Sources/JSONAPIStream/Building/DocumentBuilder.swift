/// The JSON:API state machine: turns JSON events into resources and documents, in any
/// member order, and hands each finished resource to a ``DocumentSink``.
///
/// Where it is in a document is a stack of ``Frame``s; what the next value means is
/// ``Member`` (set by the key before it). Values the builder does not interpret (attributes,
/// meta, links, `jsonapi`, errors, unknown members) are written as minified JSON into the
/// value store as they stream by (``RawValueRecorder``), then recorded as a span on the
/// resource or document they belong to.
///
/// ```
/// {"data":{"type":"articles","id":"1","attributes":{"title":"Hi"}}}
///  │       │                              └ raw: store += {"title":"Hi"}
///  │       └ Frame.resource (primary, single)
///  └ Frame.document
/// ```
///
/// Rules it can see locally (R05–R21, R37–R41) are reported as it goes: as warnings in
/// lenient mode, as errors in strict mode. Shapes it cannot build from (a resource without
/// `type`, a linkage that is not identifiers, ...) stop the parse in every mode when the sink
/// needs keys (``requiresKeys``).
final class DocumentBuilder: JSONEventReceiver {
    enum Frame: UInt8 {
        case document, dataArray, includedArray, resource, relationships, relationship, linkageArray, identifier
        /// `atomic:results` and one result object in it (Atomic Operations).
        case resultsArray, result
    }

    enum Member: UInt8, CaseIterable {
        case none, data, included, meta, links, jsonapi, errors, type, id, lid, attributes, relationships, other
        /// `atomic:results` in a document that applies the Atomic Operations extension.
        case atomicResults

        /// The member name of a member JSON:API defines (those ``classify(_:prefix:)``
        /// knows); nil for the others.
        var name: String? {
            switch self {
            case .data: "data"
            case .included: "included"
            case .meta: "meta"
            case .links: "links"
            case .jsonapi: "jsonapi"
            case .errors: "errors"
            case .type: "type"
            case .id: "id"
            case .lid: "lid"
            case .attributes: "attributes"
            case .relationships: "relationships"
            case .none, .other, .atomicResults: nil
            }
        }
    }

    // MARK: Configuration

    let options: DocumentOptions
    let sink: any DocumentSink
    /// Whether resources and identifiers must be keyable (graph, writers); when false (the
    /// validator alone), unkeyable shapes are reported like other rule violations.
    let requiresKeys: Bool
    let validation: ValidationMode
    let keepsValues: Bool
    /// Receives warnings (lenient mode) as they are found.
    var onDiagnostic: ((Diagnostic) -> Void)?
    var warningCount = 0
    /// The warnings worded before the rest go out textless (``DocumentOptions/warningTexts``).
    let warningTexts: Int
    /// Resources handed to the sink so far (on the building thread).
    @exclusivity(unchecked) var resourcesBuilt = 0

    // MARK: Output: spans handed to sinks

    /// The spans of the draft being built point into these; sinks read them there.
    @exclusivity(unchecked) var arenas = DraftArenas()

    // MARK: State

    /// The JSON:API objects and arrays open, innermost last.
    @exclusivity(unchecked) var frames = UnsafeStack<Frame>(capacity: 16)
    /// The member names ``classify(_:prefix:)`` knows, by ``knownNameSlot(_:)`` (kept here, not
    /// in a static table, so that a lookup is one load from the builder).
    let knownNames = DocumentBuilder.makeKnownNames()
    @exclusivity(unchecked) var member = Member.none
    /// The value being recorded without interpretation, if any: while it is active, every
    /// event goes to it (the one test at the top of each event).
    @exclusivity(unchecked) var raw = RawValueRecorder()
    @exclusivity(unchecked) var checker = ValueChecker()

    @exclusivity(unchecked) var resource = ResourceDraft()
    @exclusivity(unchecked) var relationship = RelationshipDraft()
    @exclusivity(unchecked) var identifier = IdentifierDraft()
    @exclusivity(unchecked) var document = DocumentDraft()
    // Unknown members of each open owner, collected until the owner closes (they interleave
    // in time: a resource's own, then a relationship's, then the resource's again).
    @exclusivity(unchecked) var documentExtras: [ValueSpan] = []
    @exclusivity(unchecked) var resourceExtras: [ValueSpan] = []
    @exclusivity(unchecked) var relationshipExtras: [ValueSpan] = []
    @exclusivity(unchecked) var identifierExtras: [ValueSpan] = []
    /// Attribute names of the current resource, for R17, as words (exact for names of up to
    /// 16 bytes; longer ones also keep their bytes in scratch).
    @exclusivity(unchecked) var attributeNames = UnsafeStack<NameWords>(capacity: 16)
    @exclusivity(unchecked) var relationshipNames = UnsafeStack<NameWords>(capacity: 16)
    /// The names in `attributeNames`, as a filter.
    @exclusivity(unchecked) var attributeBits = NameFilter()
    @exclusivity(unchecked) var documentCount = 0
    /// Whether each document's top-level `links` and `meta` are copied into ``lastDocument``
    /// as it closes (off by default: it costs a copy per document).
    var recordsTopLevel = false
    /// The top-level members of the last document that closed (with ``recordsTopLevel``).
    var lastDocument: DocumentTopLevel?
    var documentHasErrors = false
    var documentHasExtensionMember = false
    var relationshipHasExtensionMember = false
    /// What the Atomic Operations extension needs kept while the document streams by.
    var atomic = AtomicState()
    /// Which came last at the top level, for R03's pointer.
    var documentErrorsAfterData = false
    /// Whether `relationships` came after `attributes` in the resource, for R17's pointer.
    @exclusivity(unchecked) var relationshipsAfterAttributes = false
    /// The range of elements being read, on a worker (``ElementRange``): its document is the
    /// prefix's, whose rules and end are the caller's.
    var elementRange: ElementRange?
    /// The `null` of the prefix that stands for the comma before the range is still to come.
    var skipsPrefixNull = false

    init(options: DocumentOptions, sink: any DocumentSink, requiresKeys: Bool = true) {
        self.options = options
        self.sink = sink
        self.requiresKeys = requiresKeys
        self.validation = options.validation
        self.keepsValues = sink.keepsValues
        self.keyHints = sink.keyHints.map { .passUnretained($0) }
        self.warningTexts = options.wordedWarnings
        super.init(options: options.parse)
        checker.extensions = options.extensions
        checker.strictNames = options.validation == .strict || options.strictChecks
    }

    @exclusivity(unchecked) var lastKeyInScratch = ScratchSpan.none
    /// The sink's ``KeyHints`` (the graph's), told each resource's and identifier's key once
    /// its type and id are both read: long before the sink looks the key up at the object's
    /// end. Unmanaged, so that a hint costs no reference counting: the sink, which the
    /// builder holds, owns its hints.
    let keyHints: Unmanaged<KeyHints>?

    /// ``keyHints`` once a hinted table has outgrown the caches (``KeyHints/wanted``), else nil.
    @inline(__always)
    var wantedHints: Unmanaged<KeyHints>? {
        guard let hints = keyHints, hints._withUnsafeGuaranteedRef({ $0.wanted }) else { return nil }
        return hints
    }
    /// Names already found valid: attribute, relationship and type names repeat from one
    /// resource to the next.
    @exclusivity(unchecked) var nameCache = NameCache()
    /// The attribute names found valid, one a place (the n-th attribute of a resource): the
    /// resources of a type, which usually come together, name their attributes alike.
    @exclusivity(unchecked) var checkedAttributes = PlacedNames()

    // MARK: - Events

    @inline(__always) override func onStartObject() -> Bool {
        if raw.isActive { return rawStartContainer(open: UInt8(ascii: "{"), isObject: true) }
        guard let top = frames.last else { return startDocument() }
        switch top {
        case .document:
            switch member {
            case .data:
                document.primaryShape = .single
                return startResource(primary: true, index: -1)
            case .included:
                return badShape(.R07, "included MUST be an array of resource objects, not an object", container: true)
            case .meta: return beginRaw(.documentMeta, checked: .meta, object: true)
            case .links: return beginRaw(.documentLinks, checked: .links(.document), object: true)
            case .jsonapi: return beginRaw(.documentJSONAPI, checked: .jsonapi, object: true)
            case .errors:
                return beginRawReporting(.documentErrors, .R08, "errors MUST be an array of error objects, not an object", isObject: true)
            case .atomicResults: return startObjectInResults(.document)
            default: return beginRaw(.documentExtra, checked: nil, object: true)
            }
        case .resultsArray, .result: return startObjectInResults(top)
        case .dataArray:
            return startResource(primary: true, index: Int32(levels[levels.count - 2].count - 1))
        case .includedArray:
            return startResource(primary: false, index: Int32(levels[levels.count - 2].count - 1))
        case .resource:
            switch member {
            case .attributes:
                return beginRawAttributes()
            case .relationships:
                resource.hadRelationships = true
                frames.push(.relationships)
                return true
            case .links: return beginRaw(.resourceLinks, checked: .links(.resource), object: true)
            case .meta: return beginRaw(.resourceMeta, checked: .meta, object: true)
            case .type, .id, .lid: return badKeyValue(container: true, object: true)
            default: return beginRaw(.resourceExtra, checked: nil, object: true)
            }
        case .relationships:
            relationship = RelationshipDraft()
            relationship.name = lastKeyInScratch
            relationshipExtras.clearKeepingCapacity()
            relationshipHasExtensionMember = false
            frames.push(.relationship)
            return true
        case .relationship:
            switch member {
            case .data:
                relationship.kind = .toOne
                let start = Int32(arenas.identifierDrafts.count)
                relationship.targets = start..<start
                return startIdentifier()
            case .links: return beginRaw(.relationshipLinks, checked: .links(.relationship), object: true)
            case .meta: return beginRaw(.relationshipMeta, checked: .meta, object: true)
            default: return beginRaw(.relationshipExtra, checked: nil, object: true)
            }
        case .linkageArray:
            return startIdentifier()
        case .identifier:
            switch member {
            case .meta: return beginRaw(.identifierMeta, checked: .meta, object: true)
            case .type, .id, .lid: return badKeyValue(container: true, object: true)
            default: return beginRaw(.identifierExtra, checked: nil, object: true)
            }
        }
    }

    @inline(__always) override func onStartArray() -> Bool {
        if raw.isActive { return rawStartContainer(open: UInt8(ascii: "["), isObject: false) }
        guard let top = frames.last else {
            return fatal(.R01, "the root value MUST be a JSON object (a JSON:API document), not an array", container: true)
        }
        switch top {
        case .document:
            switch member {
            case .data:
                document.primaryShape = .many
                frames.push(.dataArray)
                return true
            case .included:
                document.hasIncluded = true
                frames.push(.includedArray)
                return true
            case .errors: return beginRaw(.documentErrors, checked: .errors, object: false)
            case .meta: return beginRawReporting(.documentMeta, .R24, "meta MUST be an object, not an array", isObject: false)
            case .links: return beginRawReporting(.documentLinks, .R25, "links MUST be an object, not an array", isObject: false)
            case .jsonapi: return beginRawReporting(.documentJSONAPI, .R30, "jsonapi MUST be an object, not an array", isObject: false)
            case .atomicResults: return startArrayInResults(.document)
            default: return beginRaw(.documentExtra, checked: nil, object: false)
            }
        case .resultsArray, .result: return startArrayInResults(top)
        case .dataArray:
            return badShape(.R06, "primary data MUST be resource objects, not an array inside the array", container: true, isObject: false)
        case .includedArray:
            return badShape(.R07, "included MUST be an array of resource objects, not arrays", container: true, isObject: false)
        case .resource:
            switch member {
            case .attributes: return badShape(.R15, "attributes MUST be an object, not an array", container: true, isObject: false)
            case .relationships: return badShape(.R16, "relationships MUST be an object, not an array", container: true, isObject: false)
            case .links: return beginRawReporting(.resourceLinks, .R25, "links MUST be an object, not an array", isObject: false)
            case .meta: return beginRawReporting(.resourceMeta, .R24, "meta MUST be an object, not an array", isObject: false)
            case .type, .id, .lid: return badKeyValue(container: true, object: false)
            default: return beginRaw(.resourceExtra, checked: nil, object: false)
            }
        case .relationships:
            return badShape(.R16, "a relationship MUST be a relationship object, not an array", container: true, isObject: false)
        case .relationship:
            switch member {
            case .data:
                relationship.kind = .toMany
                let start = Int32(arenas.identifierDrafts.count)
                relationship.targets = start..<start
                frames.push(.linkageArray)
                return true
            case .links: return beginRawReporting(.relationshipLinks, .R25, "links MUST be an object, not an array", isObject: false)
            case .meta: return beginRawReporting(.relationshipMeta, .R24, "meta MUST be an object, not an array", isObject: false)
            default: return beginRaw(.relationshipExtra, checked: nil, object: false)
            }
        case .linkageArray:
            return badShape(.R20, "resource linkage MUST be resource identifier objects, not an array inside the array", container: true, isObject: false)
        case .identifier:
            switch member {
            case .meta: return beginRawReporting(.identifierMeta, .R24, "meta MUST be an object, not an array", isObject: false)
            case .type, .id, .lid: return badKeyValue(container: true, object: false)
            default: return beginRaw(.identifierExtra, checked: nil, object: false)
            }
        }
    }

    @inline(__always) override func onEndObject() -> Bool {
        if raw.isActive { return rawEndContainer(close: UInt8(ascii: "}")) }
        guard let top = frames.popLast() else { return true }
        switch top {
        case .document: return finishDocument()
        case .resource: return finishResource()
        case .relationship: return finishRelationship()
        case .identifier: return finishIdentifier()
        case .relationships: return true
        case .result: return finishResult()
        case .dataArray, .includedArray, .linkageArray, .resultsArray: return true
        }
    }

    @inline(__always) override func onEndArray() -> Bool {
        if raw.isActive { return rawEndContainer(close: UInt8(ascii: "]")) }
        if frames.popLast() == .resultsArray { finishResults() }
        return true
    }

    /// Every member name of a document, from yajl (``YajlParser``) or the tape
    /// (``TapeReplayer``). The names a resource, a relationship or an identifier object is
    /// made of (`type`, `id`, `attributes`, `data`…: more than half the names of a typical
    /// document) are taken here at once: found by one lookup (``knownNames``), their repeats
    /// checked by one bit of the object's level
    /// (``JSONEventReceiver/receiveKnownKey(_:escaped:prefix:code:)``), and their handling
    /// `onKey`'s for them (the member noted), without the list of the object's names and
    /// the calls. Every other name goes the common way (``JSONEventReceiver/receiveKey(_:escaped:prefix:)``).
    ///
    /// (One of these objects takes a name it knows this way whatever its escapes, and all
    /// its names are read with no value being recorded, so equal names of an object always
    /// go the same way, as ``JSONEventReceiver/receiveKnownKey(_:escaped:prefix:code:)``
    /// requires.)
    @inline(__always)
    func receiveMemberName(_ name: UnsafeRawBufferPointer, escaped: Bool, prefix: UInt64) -> Bool {
        if !raw.isActive, let frame = frames.last {
            let taken = Self.namesTakenAtOnce(in: frame)
            if taken != 0 {
                let known = knownMember(name, prefix: prefix)
                if taken & Self.bit(known) != 0 {
                    if !receiveKnownKey(name, escaped: escaped, prefix: prefix, code: known.rawValue) { return false }
                    member = known
                    if known == .relationships { relationshipsAfterAttributes = !resource.attributes.isNone }
                    return true
                }
            }
        }
        return receiveKey(name, escaped: escaped, prefix: prefix)
    }

    /// The members ``receiveMemberName(_:escaped:prefix:)`` takes at once in an object of
    /// `frame`, one bit per ``Member`` (its raw value): those `onKey` accepts there without
    /// anything more than noting them (and, for `relationships`, whether attributes came
    /// first).
    @inline(__always)
    static func namesTakenAtOnce(in frame: Frame) -> UInt16 {
        switch frame {
        case .resource: bit(.type) | bit(.id) | bit(.lid) | bit(.attributes) | bit(.relationships) | bit(.links) | bit(.meta)
        case .identifier: bit(.type) | bit(.id) | bit(.lid) | bit(.meta)
        case .relationship: bit(.data) | bit(.links) | bit(.meta)
        default: 0
        }
    }

    @inline(__always)
    private static func bit(_ member: Member) -> UInt16 { UInt16(1) &<< UInt16(member.rawValue) }

    /// One of the member names ``classify(_:prefix:)`` knows, as ``knownNames`` holds it.
    struct KnownName {
        /// Its first eight bytes, zero-padded (``ShortName/prefix(_:)``).
        var prefix: UInt64
        /// Its last eight bytes, for a name longer than eight.
        var tail: UInt64
        var length: UInt8
        var member: Member
    }

    /// The slot of ``knownNames`` a name whose first eight bytes are `prefix` would be in:
    /// the multiplier was searched for so that the names ``classify(_:prefix:)`` knows each
    /// have a slot of their own (``makeKnownNames()`` checks it, `KnownMemberNameTests` that
    /// the lookup answers as `classify` does).
    @inline(__always)
    static func knownNameSlot(_ prefix: UInt64) -> Int { Int(truncatingIfNeeded: (prefix &* 0xBAEB_41A5_E65A_8149) &>> 60) }

    /// The member names ``classify(_:prefix:)`` knows, each in its slot (``knownNameSlot(_:)``),
    /// the other slots empty (member `other`): one load and two comparisons classify a name,
    /// where `classify` branches on its length and then on its first bytes.
    static func makeKnownNames() -> InlineArray<16, KnownName> {
        var table = InlineArray<16, KnownName>(repeating: KnownName(prefix: 0, tail: 0, length: 0, member: .other))
        for member in Member.allCases {
            guard let name = member.name else { continue }
            Array(name.utf8).withUnsafeBytes { b in
                let prefix = ShortName.prefix(b)
                precondition(classify(b, prefix: prefix) == member, "a member name classify does not know")
                let tail = b.count > 8 ? b.loadUnaligned(fromByteOffset: b.count - 8, as: UInt64.self) : 0
                let slot = knownNameSlot(prefix)
                precondition(table[slot].member == .other, "two known names in one slot")
                table[slot] = KnownName(prefix: prefix, tail: tail, length: UInt8(b.count), member: member)
            }
        }
        return table
    }

    /// The member `name` stands for when it is one ``classify(_:prefix:)`` knows, else
    /// `other` (the same answer as `classify`'s).
    @inline(__always)
    func knownMember(_ name: UnsafeRawBufferPointer, prefix: UInt64) -> Member {
        // The entry alone is read (24 bytes): the table passed whole to a function was
        // copied at each name (384 bytes, 3 % of a pass's time on one thread).
        Self.knownMember(name, prefix: prefix, entry: knownNames[Self.knownNameSlot(prefix)])
    }

    /// The member `name` stands for if it is the name of `entry`, the entry of its slot
    /// (``knownNameSlot(_:)``) in the table ``makeKnownNames()`` makes; else `other`.
    @inline(__always)
    static func knownMember(_ name: UnsafeRawBufferPointer, prefix: UInt64, entry e: KnownName) -> Member {
        guard e.prefix == prefix && Int(e.length) == name.count else { return .other }
        if e.length > 8 && name.loadUnaligned(fromByteOffset: Int(e.length) - 8, as: UInt64.self) != e.tail { return .other }
        return e.member
    }

    override func knownMemberName(_ code: UInt8) -> String { Member(rawValue: code)?.name ?? "" }

    override func onKey(_ name: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        if raw.isActive { return rawKey(name, escaped: escaped) }
        let top = frames.last.unsafelyUnwrapped
        if top == .relationships {
            // A relationship name.
            lastKeyInScratch = appendToScratch(name)
            member = .none
            if validation != .off { return checkMemberName(name, what: "relationship name", always: true) }
            return true
        }
        let known = Self.classify(name, prefix: keyPrefix)
        member = known
        switch top {
        case .document:
            switch known {
            case .errors:
                documentErrorsAfterData = document.hasData
                return true
            case .data, .included, .meta, .links, .jsonapi: return true
            default: return otherDocumentMember(name)
            }
        case .resource:
            switch known {
            case .relationships:
                relationshipsAfterAttributes = !resource.attributes.isNone
                return true
            case .type, .id, .lid, .attributes, .links, .meta: return true
            default: return unknownMember(name, rule: .R14, owner: "a resource object")
            }
        case .relationship:
            switch known {
            case .data, .links, .meta: return true
            default: return unknownMember(name, rule: .R21, owner: "a relationship object")
            }
        case .identifier:
            switch known {
            case .type, .id, .lid, .meta: return true
            default: return unknownMember(name, rule: .R14, owner: "a resource identifier object")
            }
        case .result:
            // A result object has data and meta; other members are kept as written.
            if known != .data && known != .meta { member = .other }
            return true
        default:
            return true
        }
    }

    @inline(__always) override func onString(_ value: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        if raw.isActive { return rawString(value, escaped: escaped) }
        switch frames.last {
        case .resource:
            switch member {
            case .type:
                resource.type = appendToScratch(value)
                if let hints = wantedHints, !resource.id.isNone {
                    hints._withUnsafeGuaranteedRef { $0.hint(type: value, id: arenas.scratch.bytes(in: resource.id.range)) }
                }
                if validation != .off { return checkTypeName(value) }
                return true
            case .id:
                resource.id = appendToScratch(value)
                if let hints = wantedHints, !resource.type.isNone {
                    hints._withUnsafeGuaranteedRef { $0.hint(type: arenas.scratch.bytes(in: resource.type.range), id: value) }
                }
                return true
            case .lid: resource.lid = appendToScratch(value); return true
            default: break
            }
        case .identifier:
            switch member {
            case .type:
                identifier.type = appendToScratch(value)
                if validation != .off { return checkTypeName(value) }
                return true
            case .id: identifier.id = appendToScratch(value); return true
            case .lid: identifier.lid = appendToScratch(value); return true
            default: break
            }
        default: break
        }
        return scalar {
            RawValueRecorder.appendQuoted(value, escaped: escaped, to: &$0.arenas.store)
        } check: {
            $0.checker.string(value, reporter: $0)
        }
    }

    /// Counts the numbers a double would change (`--numbers safe`), so that the writer looks
    /// for them only in the documents that have any.
    var numberAlarm: NumberAlarm?

    @inline(__always) override func onNumber(_ text: UnsafeRawBufferPointer) -> Bool {
        if let alarm = numberAlarm, !SafeNumbers.isSafe(text) { alarm.raise() }
        if raw.isActive { return rawLiteral(text, .number) }
        if member == .id, let top = frames.last, top == .resource || top == .identifier {
            return numericID(text, inIdentifier: top == .identifier)
        }
        return scalar {
            $0.arenas.store.append(text)
        } check: {
            $0.checker.scalar(.number, reporter: $0)
        }
    }

    @inline(__always) override func onBool(_ value: Bool) -> Bool {
        if raw.isActive { return rawLiteral(value ? staticBytes("true") : staticBytes("false"), .bool) }
        return scalar {
            $0.arenas.store.append(value ? "true" : "false")
        } check: {
            $0.checker.scalar(.bool, reporter: $0)
        }
    }

    @inline(__always) override func onNull() -> Bool {
        if raw.isActive { return rawLiteral(staticBytes("null"), .null) }
        if skipsPrefixNull { return skipPrefixNull() }
        switch frames.last {
        case .document:
            if member == .data {
                document.primaryShape = .null
                return true
            }
        case .relationship:
            if member == .data {
                relationship.kind = .null
                return true
            }
        case .result:
            if member == .data { return nullResultData() }
        default: break
        }
        return scalar {
            $0.arenas.store.append("null")
        } check: {
            $0.checker.scalar(.null, reporter: $0)
        }
    }

    override func isInsideStoredValue() -> Bool {
        raw.isActive && raw.target.isStoredAsIs
    }

    override func onEndOfInput() -> Bool { true }
}
