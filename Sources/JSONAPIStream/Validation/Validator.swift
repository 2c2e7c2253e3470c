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

    private var keys = ResourceKeys()
    /// Row per key in this document: -1 when only referenced.
    private var keyRow: [Int32] = []
    private var rows: [(key: UInt32, included: Bool, position: SourcePosition, place: ResourcePlace, asIdentifier: Bool)] = []
    private var edges: [(from: Int32, to: UInt32)] = []
    private var primaryCount = 0
    private var primaryProblems: [(Rule, String, SourcePosition, String)] = []

    init(options: DocumentOptions) { self.options = options }

    /// A validator when the options ask for rules only it checks (compound rules, a request
    /// context), otherwise `nil`.
    static func ifNeeded(for options: DocumentOptions) -> Validator? {
        guard options.validation != .off, options.compoundRules || options.context != .response else { return nil }
        return Validator(options: options)
    }

    private var checksCompound: Bool { options.compoundRules }

    func resource(_ r: ResourceDraft, in a: inout DraftArenas) throws(JSONAPIError) {
        // A result's resource (Atomic Operations) is no part of a compound document: the same
        // resource may come back from several operations (no R22), and nothing links to it
        // (no R23).
        if r.inResults { return }
        let asIdentifier = r.attributes.isNone && r.relationships.isEmpty && r.links.isNone
        if r.isPrimary {
            primaryCount += 1
            try checkRequest(r, a, asIdentifier: asIdentifier)
        }
        guard checksCompound, !r.type.isNone, !(r.id.isNone && r.lid.isNone) else { return }
        let key = internKey(type: a.scratch.bytes(in: r.type.range), id: r.id, lid: r.lid, a)
        let row = Int32(rows.count)
        if keyRow[Int(key)] >= 0 {
            let first = rows[Int(keyRow[Int(key)])]
            // Primary data made of resource identifiers alone (a relationship endpoint's
            // response) do not count as a second resource object.
            if !(asIdentifier && r.isPrimary) && !(first.asIdentifier && !first.included) {
                try report(.R22, "a compound document MUST NOT include more than one resource object for \(describe(r, a)) (the first is at \(first.position))", r.position, r.pointer)
            }
        } else {
            keyRow[Int(key)] = row
        }
        rows.append((key, !r.isPrimary, r.position, r.place, asIdentifier))
        // "Likewise per (type, lid)": a resource with both keys claims its lid too.
        if !r.id.isNone && !r.lid.isNone {
            let lidKey = internKey(type: a.scratch.bytes(in: r.type.range), id: .none, lid: r.lid, a)
            let other = keyRow[Int(lidKey)]
            if other >= 0 && other != row && rows[Int(other)].key != key {
                try report(
                    .R22,
                    "a compound document MUST NOT include more than one resource object for type \(quoted(a.scratch.string(r.type.range))) and lid \(quoted(a.scratch.string(r.lid.range))) (the first is at \(rows[Int(other)].position))",
                    r.position, r.pointer)
            } else if other < 0 {
                keyRow[Int(lidKey)] = row
            }
        }
        for i in r.relationships {
            let rel = a.relationshipDrafts[Int(i)]
            for k in rel.targets {
                let t = a.identifierDrafts[Int(k)]
                guard !t.type.isNone, !(t.id.isNone && t.lid.isNone) else { continue }
                edges.append((row, internKey(type: a.scratch.bytes(in: t.type.range), id: t.id, lid: t.lid, a)))
            }
        }
    }

    func document(_ d: DocumentDraft, in a: borrowing DraftArenas) throws(JSONAPIError) {
        defer { reset() }
        try checkRequestDocument(d)
        guard checksCompound, !options.allowsPartialLinkage else { return }
        // R23 (full linkage, JSON:API 1.1): every included resource MUST be identified by at
        // least one resource identifier object in the same document: primary data made of
        // identifiers, or linkage in primary or included resources.
        var identified = [Bool](repeating: false, count: keys.count)
        for e in edges { identified[Int(e.to)] = true }
        for r in rows where !r.included && r.asIdentifier { identified[Int(r.key)] = true }
        for (i, r) in rows.enumerated() where r.included && !identified[Int(r.key)] && keyRow[Int(r.key)] == Int32(i) {
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

    private func internKey(type: UnsafeRawBufferPointer, id: ScratchSpan, lid: ScratchSpan, _ a: borrowing DraftArenas) -> UInt32 {
        let key = keys.intern(type: type, id: a.scratch.bytes(in: (id.isNone ? lid : id).range), isLid: id.isNone)
        if keyRow.count < keys.count { keyRow.append(-1) }
        return key
    }

    private func describeKey(_ key: UInt32) -> String { keys.describe(key) }

    private func describe(_ r: ResourceDraft, _ a: borrowing DraftArenas) -> String {
        let type = a.scratch.string(r.type.range)
        if !r.id.isNone { return "type \(quoted(type)) and id \(quoted(a.scratch.string(r.id.range)))" }
        return "type \(quoted(type)) and lid \(quoted(a.scratch.string(r.lid.range)))"
    }

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
        rows.removeAll(keepingCapacity: true)
        edges.removeAll(keepingCapacity: true)
        primaryCount = 0
        primaryProblems.removeAll()
    }
}
