/// The rules that need more than one resource at a time: R22 (one resource object per type
/// and id in a document), R23 (full linkage) and the request rules C01–C03. A sink beside
/// the graph or the streaming writers; the builder checks the local rules itself.
///
/// Memory: per document, a set of resource keys and an edge list (bounded by the number of
/// resources and linkage entries, not by their size); cleared at each document's end.
final class Validator: DocumentSink {
    let keepsValues = false
    let options: DocumentOptions
    /// Reports a finding; returns false when it stops the parse (strict mode).
    var onDiagnostic: ((Diagnostic) -> Void)?
    var sourceName: String?

    // (One thread at a time uses a validator, and no access to these overlaps another: the
    // run-time exclusivity checks, a quarter of taking in a worker's facts, are left out.)
    @exclusivity(unchecked) private var keys = ResourceKeys()
    /// Row per key in this document: -1 when only referenced.
    @exclusivity(unchecked) private var keyRow: [Int32] = []
    /// Per key: whether a resource identifier object in the document's linkage points to it
    /// (R23).
    @exclusivity(unchecked) private var identified: [Bool] = []
    @exclusivity(unchecked) private var rows: [(key: UInt32, included: Bool, position: SourcePosition, place: ResourcePlace, asIdentifier: Bool)] = []
    /// The included rows that were the first of their key, in order, with their key: what R23
    /// checks at the document's end, listed as the rows come so that the end reads 8 bytes a
    /// row rather than every row twice (at 15.7 MB on 2 workers the two passes over the rows
    /// took about 0.15 ms at the end of every validation, with the other core idle).
    @exclusivity(unchecked) private var includedFirsts: [(row: Int32, key: UInt32)] = []
    private var primaryCount = 0
    private var primaryProblems: [(Rule, String, SourcePosition, String)] = []

    /// Keys told ahead by the builder (see ``KeyHints``): with the compound rules, every
    /// resource's and identifier's key is looked up in ``keys``, which for a large document is
    /// megabytes. Set once `self` exists.
    private(set) var keyHints: KeyHints?

    init(options: DocumentOptions) {
        self.options = options
        if options.compoundRules { keyHints = KeyHints(validator: self) }
    }

    /// Asks for the cache line of `(type, id)`'s key ahead of ``resource(_:in:)``. A worker's
    /// validator (``facts``) interns into a small table of its own and is not hinted.
    @inline(__always)
    func hintKey(type: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer) {
        guard facts == nil else { return }
        keys.prefetch(type: type, id: id)
    }

    /// A validator when the options ask for rules only it checks (compound rules, a request
    /// context), otherwise `nil`.
    static func ifNeeded(for options: DocumentOptions) -> Validator? {
        guard options.validation != .off, options.compoundRules || options.context != .response else { return nil }
        return Validator(options: options)
    }

    private var checksCompound: Bool { options.compoundRules }

    func resource(_ r: ResourceDraft, in a: inout DraftArenas) throws(JSONAPIError) {
        if facts != nil {
            // Unretained: the validator holds its facts, and only ``takeFacts()`` replaces
            // them, between batches (a retain and a release per resource otherwise).
            Unmanaged.passUnretained(facts.unsafelyUnwrapped)._withUnsafeGuaranteedRef { facts in
                gather(r, a, into: facts)
                facts.resourcesSeen += 1
            }
            return
        }
        // A result's resource (Atomic Operations) is no part of a compound document: the same
        // resource may come back from several operations (no R22), and nothing links to it
        // (no R23).
        if r.inResults { return }
        if r.isPrimary {
            primaryCount += 1
            try checkRequest(r, a, asIdentifier: r.isIdentifierOnly)
        }
        guard checksCompound, r.isKeyed else { return }
        let k = Self.keyParts(type: r.type, id: r.id, lid: r.lid, a)
        let key = intern(k.type, k.id, isLid: k.isLid)
        // "Likewise per (type, lid)": a resource with both keys claims its lid too.
        let lidKey = r.hasIDAndLid ? intern(k.type, a.scratch.bytes(in: r.lid.range), isLid: true) : nil
        try place(key: key, lidKey: lidKey, included: !r.isPrimary, asIdentifier: r.isIdentifierOnly, position: r.position, place: r.place)
        forEachTarget(of: r, a) { type, id, isLid in identified[Int(intern(type, id, isLid: isLid))] = true }
    }

    /// Checks R22 for a resource of `key` (and `lidKey`), and keeps its row for R23.
    private func place(key: UInt32, lidKey: UInt32?, included: Bool, asIdentifier: Bool, position: SourcePosition, place: ResourcePlace) throws(JSONAPIError) {
        let row = Int32(rows.count)
        if keyRow[Int(key)] >= 0 {
            let first = rows[Int(keyRow[Int(key)])]
            // Primary data made of resource identifiers alone (a relationship endpoint's
            // response) do not count as a second resource object.
            if !(asIdentifier && !included) && !(first.asIdentifier && !first.included) {
                try report(.R22, "a compound document MUST NOT include more than one resource object for \(describeInMessage(key)) (the first is at \(first.position))", position, place.pointer)
            }
        } else {
            keyRow[Int(key)] = row
            if included { includedFirsts.append((row, key)) }
        }
        // Primary data made of identifiers identify (R23); nothing reads `identified` before
        // the document's end.
        if asIdentifier && !included { identified[Int(key)] = true }
        rows.append((key, included, position, place, asIdentifier))
        if let lidKey {
            let other = keyRow[Int(lidKey)]
            if other >= 0 && other != row && rows[Int(other)].key != key {
                try report(
                    .R22, "a compound document MUST NOT include more than one resource object for \(describeInMessage(lidKey)) (the first is at \(rows[Int(other)].position))",
                    position, place.pointer)
            } else if other < 0 {
                keyRow[Int(lidKey)] = row
            }
        }
    }

    // MARK: - Ranges of elements read by workers

    /// When set, a worker's validator reading a range of elements: the compound rules'
    /// facts are gathered here for the caller's validator, not checked (``CompoundFacts``).
    var facts: CompoundFacts?

    /// What a worker's validator does instead of ``resource(_:in:)``: the same keys, into the
    /// facts' own table.
    private func gather(_ r: ResourceDraft, _ a: borrowing DraftArenas, into facts: CompoundFacts) {
        guard checksCompound, !r.inResults, r.isKeyed else { return }
        forEachTarget(of: r, a) { type, id, isLid in facts.appendEdge(facts.keys.intern(type: type, id: id, isLid: isLid)) }
        let k = Self.keyParts(type: r.type, id: r.id, lid: r.lid, a)
        let key = facts.keys.intern(type: k.type, id: k.id, isLid: k.isLid)
        let lidKey = r.hasIDAndLid ? facts.keys.intern(type: k.type, id: a.scratch.bytes(in: r.lid.range), isLid: true) : UInt32.max
        facts.appendRow(key: key, lidKey: lidKey, included: !r.isPrimary, asIdentifier: r.isIdentifierOnly, position: r.position, place: r.place)
    }

    /// The facts gathered since the last call (nil when they hold no resource), and a fresh set.
    func takeFacts() -> CompoundFacts? {
        guard let taken = facts else { return nil }
        facts = CompoundFacts(out: taken.out, sizedLike: taken)
        return taken.rows.isEmpty ? nil : taken
    }

    /// Takes in a worker's facts (in input order) as if it had read their resources: the rows
    /// of the resources before `resource` (`Int.max`: all) not taken in yet, each after the
    /// warnings that came before it on the worker (`warnings[next...]`, handed to `emit`).
    /// R22 is checked now, R23 at the document's end. On a violation that stops the read,
    /// ``CompoundFacts/taken`` is the row of the resource that broke it.
    func takeIn(
        _ facts: CompoundFacts, before resource: Int, warnings: [Diagnostic], next: inout Int, emit: (Diagnostic) -> Void
    ) throws(JSONAPIError) {
        // The facts' types and keys, all at once and in their order (as in merging graph
        // pieces: ``KeyTranslation/translateAll(from:into:)``); then each use is a lookup.
        if !facts.keysTaken {
            keys.internAll(from: facts.keys, via: &facts.callerKeys)
            growKeyTables()
            facts.keysTaken = true
        }
        /// This validator's number for key `k` of the facts.
        func mapped(_ k: UInt32) -> UInt32 { facts.callerKeys.translated(k) }
        while facts.taken < facts.rows.count && facts.rows[facts.taken].resourcesBefore <= resource {
            let f = facts.rows[facts.taken]
            while next < warnings.count && next < f.diagnosticsBefore {
                emit(warnings[next])
                next += 1
            }
            try place(
                key: mapped(f.key), lidKey: f.lidKey == .max ? nil : mapped(f.lidKey), included: f.included, asIdentifier: f.asIdentifier,
                position: f.position, place: f.place)
            for e in facts.edges(of: facts.taken) { identified[Int(mapped(e))] = true }
            facts.taken += 1
        }
    }

    func document(_ d: DocumentDraft, in a: borrowing DraftArenas) throws(JSONAPIError) {
        defer { reset() }
        try checkRequestDocument(d)
        guard checksCompound, !options.allowsPartialLinkage else { return }
        // R23 (full linkage, JSON:API 1.1): every included resource MUST be identified by at
        // least one resource identifier object in the same document: primary data made of
        // identifiers, or linkage in primary or included resources.
        // (A key's first row is the one its `keyRow` names at the end: it is never set again.)
        for (i, key) in includedFirsts where !identified[Int(key)] {
            let r = rows[Int(i)]
            try report(.R23, "included resource \(describeKey(r.key)) is not identified by any resource identifier object in the document (full linkage)", r.position, r.place.pointer)
        }
    }

    // MARK: - Request documents (C01–C03)

    private func checkRequest(_ r: ResourceDraft, _ a: borrowing DraftArenas, asIdentifier: Bool) throws(JSONAPIError) {
        switch options.context {
        case .response:
            return
        case .create:
            if r.type.isNone { try report(.C01, "a create request MUST send a resource object with type", r.position, r.pointer) }
            for i in r.relationships where a.relationshipDrafts[Int(i)].kind == .absent {
                let name = a.scratch.string(a.relationshipDrafts[Int(i)].name.range)
                try report(.C01, "relationship \(quoted(name)) in a create request MUST contain data", r.position, r.pointer + "/relationships/" + escapePointerToken(name))
            }
            if r.arrayIndex >= 0 { primaryProblems.append((.C01, "a create request MUST send one resource object, not an array", r.position, r.pointer)) }
        case .update:
            if r.type.isNone || r.id.isNone {
                try report(.C02, "an update request MUST send a resource object with type and id", r.position, r.pointer)
            }
            for i in r.relationships where a.relationshipDrafts[Int(i)].kind == .absent {
                let name = a.scratch.string(a.relationshipDrafts[Int(i)].name.range)
                try report(.C02, "relationship \(quoted(name)) in an update request MUST contain data", r.position, r.pointer + "/relationships/" + escapePointerToken(name))
            }
            if r.arrayIndex >= 0 { primaryProblems.append((.C02, "an update request MUST send one resource object, not an array", r.position, r.pointer)) }
        case .relationshipUpdate:
            if !asIdentifier {
                let member = !r.attributes.isNone ? "/attributes" : (!r.relationships.isEmpty ? "/relationships" : "/links")
                try report(.C03, "a relationship update MUST send resource identifier objects, not resource objects with attributes, relationships or links", r.position, r.pointer + member)
            } else if r.type.isNone || (r.id.isNone && r.lid.isNone) {
                try report(.C03, "a relationship update MUST send resource identifier objects with type and id", r.position, r.pointer)
            }
        }
    }

    private func checkRequestDocument(_ d: DocumentDraft) throws(JSONAPIError) {
        switch options.context {
        case .response:
            return
        case .create, .update:
            let rule: Rule = options.context == .create ? .C01 : .C02
            if d.primaryShape != .single {
                let found = d.primaryShape == .many ? "an array" : (d.primaryShape == .null ? "null" : "no data")
                try report(
                    rule, "a \(options.context == .create ? "create" : "update") request MUST send one resource object as data, not \(found)", d.position, d.primaryShape == .absent ? "" : "/data")
            }
        case .relationshipUpdate:
            if d.primaryShape == .absent {
                try report(.C03, "a relationship update MUST send data: null, an identifier or an array of identifiers", d.position, "")
            }
        }
        if d.primaryShape == .many {
            for p in primaryProblems.prefix(1) { try report(p.0, p.1, p.2, "/data") }
        }
    }

    // MARK: - Helpers

    /// The key of `(type, id)`, or of `(type, lid)` when `isLid`.
    private func intern(_ type: UnsafeRawBufferPointer, _ id: UnsafeRawBufferPointer, isLid: Bool) -> UInt32 {
        let key = keys.intern(type: type, id: id, isLid: isLid)
        growKeyTables()
        return key
    }

    /// A row and a flag for each key interned since the last call.
    @inline(__always)
    private func growKeyTables() {
        if keyRow.count < keys.count {
            // One key since the last call, or a worker's many (`takeIn`).
            repeat {
                keyRow.append(-1)
                identified.append(false)
            } while keyRow.count < keys.count
            if keys.keys.outgrowsCache { keyHints?.want() }
        }
    }

    /// A key's parts as ``ResourceKeys/intern(type:id:isLid:)`` takes them: the type and the
    /// id, or the lid when there is no id.
    @inline(__always)
    private static func keyParts(
        type: ScratchSpan, id: ScratchSpan, lid: ScratchSpan, _ a: borrowing DraftArenas
    ) -> (type: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer, isLid: Bool) {
        (a.scratch.bytes(in: type.range), a.scratch.bytes(in: (id.isNone ? lid : id).range), id.isNone)
    }

    /// Calls `body` with the key parts of each resource identifier in `r`'s linkage that has a
    /// type and an id or lid; with none when partial linkage is allowed (only R23 needs them).
    @inline(__always)
    private func forEachTarget(
        of r: ResourceDraft, _ a: borrowing DraftArenas, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer, Bool) -> Void
    ) {
        guard !options.allowsPartialLinkage else { return }
        for i in r.relationships {
            for k in a.relationshipDrafts[Int(i)].targets {
                let t = a.identifierDrafts[Int(k)]
                guard !t.type.isNone, !(t.id.isNone && t.lid.isNone) else { continue }
                let p = Self.keyParts(type: t.type, id: t.id, lid: t.lid, a)
                body(p.type, p.id, p.isLid)
            }
        }
    }

    private func describeKey(_ key: UInt32) -> String { keys.describe(key) }

    /// `type "articles" and id "1"` (or `lid`), for R22's message.
    private func describeInMessage(_ key: UInt32) -> String { keys.describeInMessage(key) }

    private func report(_ rule: Rule, _ message: String, _ position: SourcePosition, _ pointer: String) throws(JSONAPIError) {
        let d = Diagnostic(
            severity: options.validation == .strict ? .error : .warning, rule: rule, message: message,
            location: position, pointer: pointer, source: sourceName)
        if options.validation == .strict { throw JSONAPIError.document(d) }
        if options.validation == .lenient { onDiagnostic?(d) }
    }

    private func reset() {
        keys = ResourceKeys()
        keyRow.removeAll(keepingCapacity: true)
        identified.removeAll(keepingCapacity: true)
        rows.removeAll(keepingCapacity: true)
        includedFirsts.removeAll(keepingCapacity: true)
        primaryCount = 0
        primaryProblems.removeAll()
    }
}

extension ResourceDraft {
    /// A type and an id or lid: a resource the compound rules can key.
    fileprivate var isKeyed: Bool { !type.isNone && !(id.isNone && lid.isNone) }
    /// Both an id and a lid: it claims its `(type, lid)` too.
    fileprivate var hasIDAndLid: Bool { !id.isNone && !lid.isNone }
    /// Nothing but its identity (no attributes, relationships or links): primary data made of
    /// such objects is an endpoint's linkage, not a second resource object.
    fileprivate var isIdentifierOnly: Bool { attributes.isNone && relationships.isEmpty && links.isNone }
}
