// Values the builder does not interpret: scalars outside raw values, and raw values written
// as minified JSON into the value store as they stream by.
extension DocumentBuilder {
    // MARK: - Scalars outside raw values

    /// A scalar where the builder interprets values: a member stored as a scalar, or a
    /// shape error.
    @inline(__always)
    func scalar(_ write: (DocumentBuilder) -> Void, check: (DocumentBuilder) -> Bool) -> Bool {
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
            case .atomicResults:
                if !reportResultsShape() { return false }
                target = .documentExtra
            default: target = .documentExtra
            }
        case .resultsArray, .result:
            guard top == .result && member != .data else { return skipResultScalar(top) }
            if member == .meta {
                target = .resultMeta
                schema = .meta
            } else {
                target = .resultExtra
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
        raw.wroteValue()
        if let schema, validation != .off {
            checker.begin(schema)
            raw.checksNames = true
            raw.checksValues = true
            if !check(self) { return false }
        }
        finishRaw()
        return true
    }

    // MARK: - Raw values

    /// Starts recording a value for `target`; the current event is its first.
    @inline(__always)
    func startRawValue(_ target: RawTarget) {
        raw.begin(target, store: arenas.store)
        // Unknown members are kept as `"name":value`.
        if target.isExtra { writeLastKeyAsMember() }
    }

    @inline(__always)
    func beginRaw(_ target: RawTarget, checked schema: ValueChecker.Schema?, object: Bool) -> Bool {
        startRawValue(target)
        if let schema, validation != .off {
            checker.begin(schema)
            raw.checksNames = true
            raw.checksValues = true
        }
        return rawStartContainer(open: object ? UInt8(ascii: "{") : UInt8(ascii: "["), isObject: object)
    }

    /// A resource's attributes: any JSON, so the value checker does not follow them (it would
    /// only skip their events); their names are checked (``checkKey(_:)``).
    func beginRawAttributes() -> Bool {
        startRawValue(.resourceAttributes)
        raw.checksNames = validation != .off
        return rawStartContainer(open: UInt8(ascii: "{"), isObject: true)
    }

    /// A container where the rule wants something else but nothing is lost by keeping it.
    func beginRawReporting(_ target: RawTarget, _ rule: Rule, _ message: String, isObject: Bool) -> Bool {
        if validation != .off, !report(rule, message) { return false }
        startRawValue(target)
        return rawStartContainer(open: isObject ? UInt8(ascii: "{") : UInt8(ascii: "["), isObject: isObject)
    }

    // The events of a value being recorded: written by the recorder, followed by the value
    // checker when the value is checked; the last one assigns the value to its place.

    @inline(__always)
    func rawStartContainer(open: UInt8, isObject: Bool) -> Bool {
        raw.startContainer(open, store: &arenas.store)
        if raw.checksValues { return isObject ? checker.startObject(reporter: self) : checker.startArray(reporter: self) }
        return true
    }

    @inline(__always)
    func rawEndContainer(close: UInt8) -> Bool {
        raw.endContainer(close, store: &arenas.store)
        if raw.checksValues, !checker.endContainer(reporter: self) { return false }
        if raw.isComplete { finishRaw() }
        return true
    }

    @inline(__always)
    func rawKey(_ name: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        raw.key(name, escaped: escaped, store: &arenas.store)
        guard raw.checksNames else { return true }
        // An attribute's name (most checked names) here, without a call; the rest in `checkKey`.
        if raw.target == .resourceAttributes && raw.depth == 1 { return checkAttributeName(name) }
        return checkKey(name)
    }

    @inline(__always)
    func rawString(_ value: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        raw.string(value, escaped: escaped, store: &arenas.store)
        if raw.checksValues, !checker.string(value, reporter: self) { return false }
        if raw.isComplete { finishRaw() }
        return true
    }

    @inline(__always)
    func rawLiteral(_ text: UnsafeRawBufferPointer, _ kind: ValueChecker.ScalarKind) -> Bool {
        raw.literal(text, store: &arenas.store)
        if raw.checksValues, !checker.scalar(kind, reporter: self) { return false }
        if raw.isComplete { finishRaw() }
        return true
    }

    /// Assigns the recorded value to its place.
    @inline(__always)
    func finishRaw() {
        let target = raw.target
        let span = raw.finish(store: &arenas.store)
        switch target {
        case .discard: break
        case .documentMeta: document.meta = span
        case .documentLinks: document.links = span
        case .documentJSONAPI:
            document.jsonapi = span
            if !atomic.declared && !appliesAtomicByOption { atomic.declared = declaresAtomic(span) }
        case .documentErrors: document.errors = span
        case .resourceAttributes: resource.attributes = span
        case .resourceLinks: resource.links = span
        case .resourceMeta: resource.meta = span
        case .relationshipLinks: relationship.links = span
        case .relationshipMeta: relationship.meta = span
        case .identifierMeta: identifier.meta = span
        case .documentExtra:
            documentExtras.append(span)
            if atomic.recordingOperations {
                document.atomicOperations = Int32(documentExtras.count - 1)
                atomic.recordingOperations = false
            }
        case .resourceExtra: resourceExtras.append(span)
        case .relationshipExtra: relationshipExtras.append(span)
        case .identifierExtra: identifierExtras.append(span)
        case .resultMeta:
            appendResultMember(#""meta":"#, arenas.store.bytes(in: span.range))
        case .resultExtra:
            appendResultMember("", arenas.store.bytes(in: span.range))
        }
    }

    /// Writes the member name just read (the last key of the innermost object) as `"name":`.
    func writeLastKeyAsMember() {
        withLastKey { JSONEscaping.appendQuoted($0, to: &arenas.store) }
        arenas.store.append(UInt8(ascii: ":"))
    }
}
