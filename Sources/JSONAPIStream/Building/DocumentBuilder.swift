/// The JSON:API state machine: turns JSON events into resources and documents, in any
/// member order, and hands each finished resource to a ``DocumentSink``.
///
/// Where it is in a document is a stack of ``Frame``s; what the next value means is
/// ``Member`` (set by the key before it). Values the builder does not interpret (attributes,
/// meta, links, `jsonapi`, errors, unknown members) are written as minified JSON into the
/// value store as they stream by ("raw" mode, with its own depth counter), then recorded as
/// a span on the resource or document they belong to.
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
    }

    enum Member: UInt8 {
        case none, data, included, meta, links, jsonapi, errors, type, id, lid, attributes, relationships, other
    }

    enum RawTarget: UInt8 {
        case discard
        case documentMeta, documentLinks, documentJSONAPI, documentErrors, documentExtra
        case resourceAttributes, resourceLinks, resourceMeta, resourceExtra
        case relationshipLinks, relationshipMeta, relationshipExtra
        case identifierMeta, identifierExtra
    }

    // MARK: Configuration

    let options: DocumentOptions
    let sink: any DocumentSink
    /// Whether resources and identifiers must be keyable (graph, writers); when false (the
    /// validator alone), unkeyable shapes are reported like other rule violations.
    let requiresKeys: Bool
    let validation: ValidationMode
    private let keepsValues: Bool
    /// Receives warnings (lenient mode) as they are found.
    @exclusivity(unchecked) var onDiagnostic: ((Diagnostic) -> Void)?
    @exclusivity(unchecked) private(set) var warningCount = 0
    /// Resources handed to the sink so far (on the building thread).
    @exclusivity(unchecked) private(set) var resourcesBuilt = 0

    // MARK: Output: spans handed to sinks

    /// The value store: minified JSON of every recorded value.
    @exclusivity(unchecked) var store = ByteArena(capacity: 1 << 20)
    /// Raw type names, ids, lids and relationship names of the current resource.
    @exclusivity(unchecked) var scratch = ByteArena(capacity: 4096)
    @exclusivity(unchecked) var relationshipDrafts: [RelationshipDraft] = []
    @exclusivity(unchecked) var identifierDrafts: [IdentifierDraft] = []
    /// `"name":value` spans of unknown members (resource, relationship, identifier, document).
    @exclusivity(unchecked) var memberSpans: [ValueSpan] = []

    // MARK: State

    @exclusivity(unchecked) private var frames: [Frame] = []
    @exclusivity(unchecked) private var member = Member.none
    @exclusivity(unchecked) private var inRaw = false
    @exclusivity(unchecked) private var rawDepth = 0
    @exclusivity(unchecked) private var needComma = false
    @exclusivity(unchecked) private var rawStart = 0
    @exclusivity(unchecked) private var rawTarget = RawTarget.discard
    /// Whether the current raw value is checked by the value checker.
    @exclusivity(unchecked) private var rawChecked = false
    @exclusivity(unchecked) private var checker = ValueChecker()

    @exclusivity(unchecked) private var resource = ResourceDraft()
    @exclusivity(unchecked) private var relationship = RelationshipDraft()
    @exclusivity(unchecked) private var identifier = IdentifierDraft()
    @exclusivity(unchecked) private var document = DocumentDraft()
    // Unknown members of each open owner, collected until the owner closes (they interleave
    // in time: a resource's own, then a relationship's, then the resource's again).
    @exclusivity(unchecked) private var documentExtras: [ValueSpan] = []
    @exclusivity(unchecked) private var resourceExtras: [ValueSpan] = []
    @exclusivity(unchecked) private var relationshipExtras: [ValueSpan] = []
    @exclusivity(unchecked) private var identifierExtras: [ValueSpan] = []
    /// Attribute names of the current resource (scratch spans), for R17.
    /// Attribute names of the current resource, for R17, as words (exact for names of up to
    /// 16 bytes; longer ones also keep their bytes in scratch).
    @exclusivity(unchecked) private var attributeNames: [NameWords] = []
    @exclusivity(unchecked) private var relationshipNames: [NameWords] = []
    @exclusivity(unchecked) private(set) var documentCount = 0
    /// Whether each document's top-level `links` and `meta` are copied into ``lastDocument``
    /// as it closes (off by default: it costs a copy per document).
    @exclusivity(unchecked) var recordsTopLevel = false
    /// The top-level members of the last document that closed (with ``recordsTopLevel``).
    @exclusivity(unchecked) private(set) var lastDocument: DocumentTopLevel?
    @exclusivity(unchecked) private var documentHasErrors = false
    @exclusivity(unchecked) private var documentHasExtensionMember = false
    @exclusivity(unchecked) private var relationshipHasExtensionMember = false
    /// Which came last at the top level, for R03's pointer.
    @exclusivity(unchecked) private var documentErrorsAfterData = false
    /// Whether `relationships` came after `attributes` in the resource, for R17's pointer.
    @exclusivity(unchecked) private var relationshipsAfterAttributes = false

    init(options: DocumentOptions, sink: any DocumentSink, requiresKeys: Bool = true) {
        self.options = options
        self.sink = sink
        self.requiresKeys = requiresKeys
        self.validation = options.validation
        self.keepsValues = sink.keepsValues
        super.init(options: options.parse)
        frames.reserveCapacity(16)
        relationshipDrafts.reserveCapacity(16)
        identifierDrafts.reserveCapacity(64)
        checker.extensions = options.extensions
        checker.strictNames = options.validation == .strict || options.strictChecks
    }

    // MARK: - Events

    override func onStartObject() -> Bool {
        if inRaw { return rawStartContainer(open: UInt8(ascii: "{"), isObject: true) }
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
            default: return beginRaw(.documentExtra, checked: nil, object: true)
            }
        case .dataArray:
            return startResource(primary: true, index: Int32(levels[levels.count - 2].count - 1))
        case .includedArray:
            return startResource(primary: false, index: Int32(levels[levels.count - 2].count - 1))
        case .resource:
            switch member {
            case .attributes:
                return beginRaw(.resourceAttributes, checked: validation == .off ? nil : .attributes, object: true)
            case .relationships:
                resource.hadRelationships = true
                frames.append(.relationships)
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
            frames.append(.relationship)
            return true
        case .relationship:
            switch member {
            case .data:
                relationship.kind = .toOne
                let start = Int32(identifierDrafts.count)
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

    override func onStartArray() -> Bool {
        if inRaw { return rawStartContainer(open: UInt8(ascii: "["), isObject: false) }
        guard let top = frames.last else {
            return fatal(.R01, "the root value MUST be a JSON object (a JSON:API document), not an array", container: true)
        }
        switch top {
        case .document:
            switch member {
            case .data:
                document.primaryShape = .many
                frames.append(.dataArray)
                return true
            case .included:
                document.hasIncluded = true
                frames.append(.includedArray)
                return true
            case .errors: return beginRaw(.documentErrors, checked: .errors, object: false)
            case .meta: return beginRawReporting(.documentMeta, .R24, "meta MUST be an object, not an array", isObject: false)
            case .links: return beginRawReporting(.documentLinks, .R25, "links MUST be an object, not an array", isObject: false)
            case .jsonapi: return beginRawReporting(.documentJSONAPI, .R30, "jsonapi MUST be an object, not an array", isObject: false)
            default: return beginRaw(.documentExtra, checked: nil, object: false)
            }
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
                let start = Int32(identifierDrafts.count)
                relationship.targets = start..<start
                frames.append(.linkageArray)
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

    override func onEndObject() -> Bool {
        if inRaw { return rawEndContainer(close: UInt8(ascii: "}")) }
        guard let top = frames.popLast() else { return true }
        switch top {
        case .document: return finishDocument()
        case .resource: return finishResource()
        case .relationship: return finishRelationship()
        case .identifier: return finishIdentifier()
        case .relationships: return true
        case .dataArray, .includedArray, .linkageArray: return true
        }
    }

    override func onEndArray() -> Bool {
        if inRaw { return rawEndContainer(close: UInt8(ascii: "]")) }
        _ = frames.popLast()
        return true
    }

    override func onKey(_ name: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        if inRaw {
            if needComma { store.append(UInt8(ascii: ",")) }
            if escaped { JSONEscaping.appendQuoted(name, to: &store) } else { appendPlainQuoted(name) }
            store.append(UInt8(ascii: ":"))
            needComma = false
            if rawChecked { return checkKey(name) }
            return true
        }
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
            default: return unknownMember(name, rule: .R05, owner: "a document's top level")
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
        default:
            return true
        }
    }

    override func onString(_ value: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        if inRaw {
            if needComma { store.append(UInt8(ascii: ",")) }
            if escaped { JSONEscaping.appendQuoted(value, to: &store) } else { appendPlainQuoted(value) }
            needComma = true
            if rawChecked, !checker.string(value, builder: self) { return false }
            if rawDepth == 0 { finishRaw() }
            return true
        }
        switch frames.last {
        case .resource:
            switch member {
            case .type:
                resource.type = appendToScratch(value)
                if validation != .off { return checkTypeName(value) }
                return true
            case .id: resource.id = appendToScratch(value); return true
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
            if escaped { JSONEscaping.appendQuoted(value, to: &$0.store) } else { $0.appendPlainQuoted(value) }
        } check: { $0.checker.string(value, builder: $0) }
    }

    /// Counts the numbers a double would change (`--numbers safe`), so that the writer looks
    /// for them only in the documents that have any.
    var numberAlarm: NumberAlarm?

    override func onNumber(_ text: UnsafeRawBufferPointer) -> Bool {
        if let alarm = numberAlarm, !SafeNumbers.isSafe(text) { alarm.raise() }
        if !inRaw, member == .id, let top = frames.last, top == .resource || top == .identifier {
            return numericID(text, inIdentifier: top == .identifier)
        }
        if inRaw {
            if needComma { store.append(UInt8(ascii: ",")) }
            store.append(text)
            needComma = true
            if rawChecked, !checker.scalar(.number, builder: self) { return false }
            if rawDepth == 0 { finishRaw() }
            return true
        }
        return scalar { $0.store.append(text) } check: { $0.checker.scalar(.number, builder: $0) }
    }

    override func onBool(_ value: Bool) -> Bool {
        if inRaw {
            if needComma { store.append(UInt8(ascii: ",")) }
            store.append(value ? "true" : "false")
            needComma = true
            if rawChecked, !checker.scalar(.bool, builder: self) { return false }
            if rawDepth == 0 { finishRaw() }
            return true
        }
        return scalar { $0.store.append(value ? "true" : "false") } check: { $0.checker.scalar(.bool, builder: $0) }
    }

    override func onNull() -> Bool {
        if inRaw {
            if needComma { store.append(UInt8(ascii: ",")) }
            store.append("null")
            needComma = true
            if rawChecked, !checker.scalar(.null, builder: self) { return false }
            if rawDepth == 0 { finishRaw() }
            return true
        }
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
        default: break
        }
        return scalar { $0.store.append("null") } check: { $0.checker.scalar(.null, builder: $0) }
    }

    override func isInsideStoredValue() -> Bool {
        inRaw && (rawTarget == .resourceAttributes || rawTarget == .resourceMeta || rawTarget == .documentMeta
            || rawTarget == .relationshipMeta || rawTarget == .identifierMeta || rawTarget == .documentExtra
            || rawTarget == .resourceExtra || rawTarget == .relationshipExtra || rawTarget == .identifierExtra
            || rawTarget == .discard)
    }

    override func onEndOfInput() -> Bool { true }

    // MARK: - Scalars outside raw values

    /// A scalar where the builder interprets values: a member stored as a scalar, or a
    /// shape error.
    @inline(__always)
    private func scalar(_ write: (DocumentBuilder) -> Void, check: (DocumentBuilder) -> Bool) -> Bool {
        guard let top = frames.last else {
            return fatal(.R01, "the root value MUST be a JSON object (a JSON:API document)", container: false)
        }
        let target: RawTarget
        var schema: ValueChecker.Schema? = nil
        switch top {
        case .document:
            switch member {
            case .data: return badShape(.R06, "primary data MUST be null, a resource object or an array of resource objects", container: false)
            case .included: return badShape(.R07, "included MUST be an array of resource objects", container: false)
            case .meta: target = .documentMeta; schema = .meta
            case .links: target = .documentLinks; schema = .links(.document)
            case .jsonapi: target = .documentJSONAPI; schema = .jsonapi
            case .errors: target = .documentErrors; schema = .errors
            default: target = .documentExtra
            }
        case .dataArray:
            return badShape(.R06, "primary data MUST be resource objects, not scalars", container: false)
        case .includedArray:
            return badShape(.R07, "included MUST be an array of resource objects, not scalars", container: false)
        case .resource:
            switch member {
            case .attributes: return badShape(.R15, "attributes MUST be an object", container: false)
            case .relationships: return badShape(.R16, "relationships MUST be an object", container: false)
            case .type, .id, .lid: return badKeyValue(container: false, object: false)
            case .links: target = .resourceLinks; schema = .links(.resource)
            case .meta: target = .resourceMeta; schema = .meta
            default: target = .resourceExtra
            }
        case .relationships:
            return badShape(.R16, "a relationship MUST be a relationship object", container: false)
        case .relationship:
            switch member {
            case .data: return badShape(.R20, "resource linkage MUST be null, an identifier or an array of identifiers", container: false)
            case .links: target = .relationshipLinks; schema = .links(.relationship)
            case .meta: target = .relationshipMeta; schema = .meta
            default: target = .relationshipExtra
            }
        case .linkageArray:
            return badShape(.R20, "resource linkage MUST be resource identifier objects, not scalars", container: false)
        case .identifier:
            switch member {
            case .type, .id, .lid: return badKeyValue(container: false, object: false)
            case .meta: target = .identifierMeta; schema = .meta
            default: target = .identifierExtra
            }
        }
        startRawValue(target)
        write(self)
        needComma = true
        if let schema, validation != .off {
            checker.begin(schema, builder: self)
            rawChecked = true
            if !check(self) { return false }
        }
        finishRaw()
        return true
    }

    // MARK: - Raw values

    /// Starts recording a value for `target`; the current event is its first.
    @inline(__always)
    private func startRawValue(_ target: RawTarget) {
        inRaw = true
        rawDepth = 0
        needComma = false
        rawTarget = target
        rawChecked = false
        rawStart = store.count
        if target == .documentExtra || target == .resourceExtra || target == .relationshipExtra || target == .identifierExtra {
            // Unknown members are kept as `"name":value`.
            writeLastKeyAsMember()
        }
    }

    @inline(__always)
    private func beginRaw(_ target: RawTarget, checked schema: ValueChecker.Schema?, object: Bool) -> Bool {
        startRawValue(target)
        if let schema, validation != .off {
            checker.begin(schema, builder: self)
            rawChecked = true
        }
        return rawStartContainer(open: object ? UInt8(ascii: "{") : UInt8(ascii: "["), isObject: object)
    }

    /// A container where the rule wants something else but nothing is lost by keeping it.
    private func beginRawReporting(_ target: RawTarget, _ rule: Rule, _ message: String, isObject: Bool) -> Bool {
        if validation != .off, !report(rule, message) { return false }
        startRawValue(target)
        return rawStartContainer(open: isObject ? UInt8(ascii: "{") : UInt8(ascii: "["), isObject: isObject)
    }

    @inline(__always)
    private func rawStartContainer(open: UInt8, isObject: Bool) -> Bool {
        if needComma { store.append(UInt8(ascii: ",")) }
        store.append(open)
        needComma = false
        rawDepth &+= 1
        if rawChecked { return isObject ? checker.startObject(builder: self) : checker.startArray(builder: self) }
        return true
    }

    @inline(__always)
    private func rawEndContainer(close: UInt8) -> Bool {
        store.append(close)
        needComma = true
        rawDepth &-= 1
        if rawChecked, !checker.endContainer(builder: self) { return false }
        if rawDepth == 0 { finishRaw() }
        return true
    }

    /// Assigns the recorded value to its place.
    @inline(__always)
    private func finishRaw() {
        inRaw = false
        rawChecked = false
        let span = ValueSpan(start: rawStart, count: store.count &- rawStart)
        switch rawTarget {
        case .discard: store.truncate(to: rawStart)
        case .documentMeta: document.meta = span
        case .documentLinks: document.links = span
        case .documentJSONAPI: document.jsonapi = span
        case .documentErrors: document.errors = span
        case .resourceAttributes: resource.attributes = span
        case .resourceLinks: resource.links = span
        case .resourceMeta: resource.meta = span
        case .relationshipLinks: relationship.links = span
        case .relationshipMeta: relationship.meta = span
        case .identifierMeta: identifier.meta = span
        case .documentExtra: documentExtras.append(span)
        case .resourceExtra: resourceExtras.append(span)
        case .relationshipExtra: relationshipExtras.append(span)
        case .identifierExtra: identifierExtras.append(span)
        }
    }

    @inline(__always)
    private func appendPlainQuoted(_ bytes: UnsafeRawBufferPointer) {
        let n = bytes.count
        let p = store.reserveTail(n &+ 2)
        p.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
        if n > 0 { copyBytes(to: p + 1, from: bytes.baseAddress.unsafelyUnwrapped, count: n) }
        p.storeBytes(of: UInt8(ascii: "\""), toByteOffset: n &+ 1, as: UInt8.self)
    }

    /// Writes the member name just read (the last key of the innermost object) as `"name":`.
    private func writeLastKeyAsMember() {
        withLastKey { JSONEscaping.appendQuoted($0, to: &store) }
        store.append(UInt8(ascii: ":"))
    }

    // MARK: - Documents

    private func startDocument() -> Bool {
        numberAlarm?.enterDocument()
        frames.append(.document)
        member = .none
        document = DocumentDraft()
        document.index = documentCount
        document.position = currentLocation()
        documentExtras.clearKeepingCapacity()
        documentErrorsAfterData = false
        documentHasErrors = false
        documentHasExtensionMember = false
        return true
    }

    private func finishDocument() -> Bool {
        document.extras = documentExtras
        if validation != .off {
            let hasErrors = !document.errors.isNone
            if !document.hasData && !hasErrors && document.meta.isNone && !documentHasExtensionMember {
                if !report(.R02, "a document MUST contain at least one of data, errors, meta", at: .at(document.position), pointer: "") { return false }
            }
            if document.hasData && hasErrors {
                if !report(.R03, "data and errors MUST NOT coexist in the same document", at: .at(document.position), pointer: documentErrorsAfterData ? "/errors" : "/data") { return false }
            }
            if document.hasIncluded && !document.hasData {
                if !report(.R04, "included MUST NOT be present without data", at: .at(document.position), pointer: "/included") { return false }
            }
        }
        do throws(JSONAPIError) {
            try sink.document(document, from: self)
        } catch {
            return failWith(error)
        }
        if recordsTopLevel {
            lastDocument = DocumentTopLevel(
                index: documentCount,
                linksJSON: document.links.isNone ? nil : store.array(document.links.range),
                metaJSON: document.meta.isNone ? nil : store.array(document.meta.range))
        }
        documentCount += 1
        // The document is complete: its top-level values are no longer needed here.
        if !keepsValues { store.truncate(to: 0) }
        member = .none
        return true
    }

    // MARK: - Resources

    private func startResource(primary: Bool, index: Int32) -> Bool {
        frames.append(.resource)
        member = .none
        resource = ResourceDraft()
        resource.isPrimary = primary
        resource.arrayIndex = index
        resource.documentIndex = documentCount
        resource.storeMark = store.count
        if let alarm = numberAlarm { alarm.enterResource() }
        resource.position = currentLocation()
        scratch.removeAll()
        relationshipDrafts.clearKeepingCapacity()
        identifierDrafts.clearKeepingCapacity()
        memberSpans.clearKeepingCapacity()
        resourceExtras.clearKeepingCapacity()
        relationshipsAfterAttributes = false
        if validation != .off {
            attributeNames.clearKeepingCapacity()
            relationshipNames.clearKeepingCapacity()
        }
        return true
    }

    private func finishResource() -> Bool {
        if let alarm = numberAlarm { alarm.inResource = false }
        resource.extras = appendMemberSpans(&resourceExtras)
        resource.relationships = 0..<Int32(relationshipDrafts.count)
        if resource.type.isNone {
            if requiresKeys || validation != .off {
                if !keyRule(.R09, "a resource object MUST contain type\(requiresKeys ? "; it cannot be keyed" : "")", at: .at(resource.position), pointer: resource.pointer) { return false }
            }
        }
        if resource.id.isNone {
            let allowed = options.context != .response && resource.isPrimary
            if resource.lid.isNone && !allowed {
                if requiresKeys || validation != .off {
                    if !keyRule(.R10, "a resource object MUST contain id\(requiresKeys ? "; it cannot be keyed" : "")", at: .at(resource.position), pointer: resource.pointer) { return false }
                }
            } else if !allowed && validation != .off {
                // A lid without id is for a new resource in a request.
                if options.context == .response {
                    if !report(.R10, "a resource object MUST contain id (lid alone is for new resources in requests)", at: .at(resource.position), pointer: resource.pointer) { return false }
                }
            }
        }
        if validation != .off && !attributeNames.isEmpty || validation != .off && !relationshipDrafts.isEmpty {
            if !checkFieldNamespace() { return false }
        }
        do throws(JSONAPIError) {
            try sink.resource(resource, from: self)
        } catch {
            return failWith(error)
        }
        resourcesBuilt &+= 1
        if !keepsValues { store.truncate(to: resource.storeMark) }
        member = .none
        return true
    }

    /// Moves an owner's collected unknown members to `memberSpans`; returns their range.
    @inline(__always)
    private func appendMemberSpans(_ pending: inout [ValueSpan]) -> Range<Int32> {
        let s = Int32(memberSpans.count)
        if !pending.isEmpty {
            memberSpans.append(contentsOf: pending)
            pending.clearKeepingCapacity()
        }
        return s..<Int32(memberSpans.count)
    }

    // MARK: - Relationships and identifiers

    @exclusivity(unchecked) private var lastKeyInScratch = ScratchSpan.none

    private func finishRelationship() -> Bool {
        relationship.extras = appendMemberSpans(&relationshipExtras)
        if validation != .off, relationship.kind == .absent, relationship.links.isNone, relationship.meta.isNone,
            !relationshipHasExtensionMember
        {
            if !report(.R18, "a relationship object MUST contain at least one of links, data, meta", at: .container) { return false }
        }
        relationshipDrafts.append(relationship)
        member = .none
        return true
    }


    private func startIdentifier() -> Bool {
        identifier = IdentifierDraft()
        identifierExtras.clearKeepingCapacity()
        frames.append(.identifier)
        return true
    }

    private func finishIdentifier() -> Bool {
        identifier.extras = appendMemberSpans(&identifierExtras)
        if identifier.type.isNone || (identifier.id.isNone && identifier.lid.isNone) {
            let what = identifier.type.isNone ? "type" : "id (or lid)"
            if !keyRule(.R13, "a resource identifier object MUST contain \(what)\(requiresKeys ? "; the linkage cannot be keyed" : "")", at: .container) { return false }
        } else if identifier.id.isNone && options.context == .response && validation != .off {
            if !report(.R13, "a resource identifier object MUST contain id (lid alone is for new resources in requests)", at: .container) { return false }
        }
        identifierDrafts.append(identifier)
        relationship.targets = relationship.targets.lowerBound..<Int32(identifierDrafts.count)
        member = .none
        return true
    }

    // MARK: - Scratch

    @inline(__always)
    private func appendToScratch(_ bytes: UnsafeRawBufferPointer) -> ScratchSpan {
        let start = scratch.count
        scratch.append(bytes)
        return ScratchSpan(start: Int32(truncatingIfNeeded: start), count: Int32(truncatingIfNeeded: bytes.count))
    }

    // MARK: - Member names

    static let pData: UInt64 = 0x61746164  // "data"
    static let pMeta: UInt64 = 0x6174656D  // "meta"
    static let pType: UInt64 = 0x65707974  // "type"
    static let pLinks: UInt64 = 0x736B6E696C  // "links"
    static let pErrors: UInt64 = 0x73726F727265  // "errors"
    static let pJSONAPI: UInt64 = 0x6970616E6F736A  // "jsonapi"
    static let pIncluded: UInt64 = 0x646564756C636E69  // "included"
    static let pAttributes: UInt64 = 0x7475626972747461  // "attribut"
    static let pRelationships: UInt64 = 0x6E6F6974616C6572  // "relation"
    static let pID: UInt64 = 0x6469  // "id"
    static let pLID: UInt64 = 0x64696C  // "lid"

    @inline(__always)
    static func classify(_ name: UnsafeRawBufferPointer) -> Member {
        classify(name, prefix: JSONEventReceiver.prefix(name))
    }

    /// The member a name stands for, given its first eight bytes (zero-padded).
    @inline(__always)
    static func classify(_ name: UnsafeRawBufferPointer, prefix p: UInt64) -> Member {
        switch name.count {
        case 2: return p == pID ? .id : .other
        case 3: return p == pLID ? .lid : .other
        case 4:
            if p == pType { return .type }
            if p == pData { return .data }
            if p == pMeta { return .meta }
            return .other
        case 5: return p == pLinks ? .links : .other
        case 6: return p == pErrors ? .errors : .other
        case 7: return p == pJSONAPI ? .jsonapi : .other
        case 8: return p == pIncluded ? .included : .other
        case 10:
            return p == pAttributes && name.loadUnaligned(fromByteOffset: 8, as: UInt16.self) == 0x7365 /* "es" */ ? .attributes : .other
        case 13:
            return p == pRelationships && name.loadUnaligned(fromByteOffset: 5, as: UInt64.self) == 0x73706968736E6F69 /* "ionships" */
                ? .relationships : .other
        default: return .other
        }
    }

    // MARK: - Findings

    /// Reports a rule violation: a warning in lenient mode (returns true), an error in
    /// strict mode (returns false). Does nothing when validation is off.
    @discardableResult
    func report(_ rule: Rule, _ message: String, at place: Place = .currentToken, pointer: String? = nil) -> Bool {
        switch validation {
        case .off: return true
        case .strict: return fail(rule, message, at: place, pointer: pointer)
        case .lenient:
            warn(rule, message, at: place, pointer: pointer)
            return true
        }
    }

    func warn(_ rule: Rule, _ message: String, at place: Place = .currentToken, pointer: String? = nil) {
        warningCount += 1
        guard let onDiagnostic else { return }
        let location: SourcePosition
        switch place {
        case .currentToken, .container: location = currentLocation()
        case .at(let l): location = l
        }
        let p: String
        if let pointer { p = pointer } else {
            if case .container = place { p = containerPointer() } else { p = currentPointer() }
        }
        onDiagnostic(Diagnostic(severity: .warning, rule: rule, message: message, location: location, pointer: p, source: parser?.sourceName))
    }

    /// A rule whose violation makes a resource or linkage unkeyable: fatal when keys are
    /// required, otherwise reported like any rule.
    private func keyRule(_ rule: Rule, _ message: String, at place: Place, pointer: String? = nil) -> Bool {
        if requiresKeys { return fail(rule, message, at: place, pointer: pointer) }
        return report(rule, message, at: place, pointer: pointer)
    }

    /// Something that is never acceptable (the root is not an object).
    private func fatal(_ rule: Rule, _ message: String, container: Bool) -> Bool {
        fail(rule, message, at: .currentToken, pointer: "")
    }

    /// A value of the wrong shape where the builder interprets the document (primary data,
    /// included, attributes, relationships, linkage). Fatal when keys are required; otherwise
    /// reported, and the value is skipped.
    private func badShape(_ rule: Rule, _ message: String, container: Bool, isObject: Bool = true) -> Bool {
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
    private func numericID(_ text: UnsafeRawBufferPointer, inIdentifier: Bool) -> Bool {
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
    private func badKeyValue(container: Bool, object: Bool) -> Bool {
        let name = member == .type ? "type" : (member == .id ? "id" : "lid")
        return badShape(.R11, "\(name) MUST be a string", container: container, isObject: object)
    }

    private func unknownMember(_ name: UnsafeRawBufferPointer, rule: Rule, owner: String) -> Bool {
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
        }
        if validation == .off { return true }
        let text = String(decoding: name, as: UTF8.self)
        if !checkMemberName(name, what: "member name", always: true) { return false }
        return report(rule, "\(owner) MUST NOT contain the member \(quoted(text)) (it is kept)")
    }

    @inline(__always)
    private func checkTypeName(_ value: UnsafeRawBufferPointer) -> Bool {
        let prefix = JSONEventReceiver.prefix(value)
        if nameCache.contains(value, prefix: prefix, kind: 1) { return true }
        return checkNewTypeName(value, prefix: prefix)
    }

    @inline(never)
    private func checkNewTypeName(_ value: UnsafeRawBufferPointer, prefix: UInt64) -> Bool {
        if let problem = MemberNameRules.violation(value, extensions: options.extensions, allowAt: false) {
            return report(.R12, "type \(quoted(String(decoding: value, as: UTF8.self))) is not a valid member name: \(problem.message)")
        }
        nameCache.insert(value, prefix: prefix, kind: 1)
        return true
    }

    /// Names already found valid: attribute, relationship and type names repeat from one
    /// resource to the next.
    @exclusivity(unchecked) private var nameCache = NameCache()

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
    private func checkNewMemberName(_ name: UnsafeRawBufferPointer, what: StaticString) -> Bool {
        if let problem = MemberNameRules.violation(name, extensions: options.extensions, allowAt: true) {
            return report(problem.rule, "\(what) \(quoted(String(decoding: name, as: UTF8.self))): \(problem.message)")
        }
        nameCache.insert(name, prefix: keyPrefix, kind: 0)
        return true
    }

    /// A key inside a checked raw value.
    private func checkKey(_ name: UnsafeRawBufferPointer) -> Bool {
        if rawTarget == .resourceAttributes {
            if rawDepth == 1 {
                attributeNames.append(NameWords(name, prefix: keyPrefix, longName: name.count > 16 ? appendToScratch(name) : .none))
            }
            // Keys inside an attribute's value are any JSON (a JSON field's keys, domain
            // names with dots): the member-name rules cover the attribute names only.
            return rawDepth == 1 ? checkMemberName(name, what: "attribute name", always: true) : true
        }
        return checker.key(name, prefix: keyPrefix, builder: self)
    }

    /// R17: attributes and relationships share one namespace; neither may be `type` or `id`.
    private func checkFieldNamespace() -> Bool {
        for i in 0..<relationshipDrafts.count {
            let name = relationshipDrafts[i].name
            let bytes = scratch.bytes(in: name.range)
            relationshipNames.append(NameWords(bytes, prefix: JSONEventReceiver.prefix(bytes), longName: name))
        }
        // The usual case, no clash, without copying the lists (no reference counting).
        let clash = attributeNames.withUnsafeBufferPointer { attributes in
            relationshipNames.withUnsafeBufferPointer { relationships in
                for a in attributes {
                    if a.isTypeOrID { return true }
                    for r in relationships where r.equals(a, scratch) { return true }
                }
                for r in relationships where r.isTypeOrID { return true }
                return false
            }
        }
        if !clash { return true }
        for a in attributeNames {
            if a.isTypeOrID {
                let name = a.text(scratch)
                if !report(.R17, "a resource MUST NOT have an attribute named \(quoted(name))", at: .at(resource.position), pointer: resource.pointer + "/attributes/" + escapePointerToken(name)) { return false }
            }
            for r in relationshipNames where r.equals(a, scratch) {
                let name = a.text(scratch)
                let later = relationshipsAfterAttributes ? "/relationships/" : "/attributes/"
                if !report(.R17, "\(quoted(name)) is both an attribute and a relationship", at: .at(resource.position), pointer: resource.pointer + later + escapePointerToken(name)) { return false }
            }
        }
        for r in relationshipNames where r.isTypeOrID {
            let name = r.text(scratch)
            if !report(.R17, "a resource MUST NOT have a relationship named \(quoted(name))", at: .at(resource.position), pointer: resource.pointer + "/relationships/" + escapePointerToken(name)) { return false }
        }
        return true
    }

    private func failWith(_ error: JSONAPIError) -> Bool {
        if failure == nil && thrown == nil { thrown = error }
        return false
    }
}

/// A member name as its length, first and last eight bytes: equal words mean equal names
/// for names of up to 16 bytes; longer names also keep their bytes (`longName`).
struct NameWords {
    var length: Int
    var prefix: UInt64
    var suffix: UInt64
    var longName: ScratchSpan

    init(_ name: UnsafeRawBufferPointer, prefix: UInt64, longName: ScratchSpan) {
        length = name.count
        self.prefix = prefix
        suffix = name.count > 8 ? name.loadUnaligned(fromByteOffset: name.count &- 8, as: UInt64.self) : 0
        self.longName = longName
    }

    var isTypeOrID: Bool { (length == 4 && prefix == Names.type) || (length == 2 && prefix == Names.id) }

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
