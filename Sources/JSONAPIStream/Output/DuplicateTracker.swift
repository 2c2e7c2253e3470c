/// The keys (type, id or lid) of the resources a streaming writer has written, for
/// ``DuplicatePolicy/first`` and ``DuplicatePolicy/error``: says whether a resource is new,
/// and warns about (or refuses) one seen before. Memory grows with the number of resources.
final class DuplicateTracker {
    private let policy: DuplicatePolicy
    private var seen = ResourceKeys()
    private var seenAt: [(document: Int32, position: SourcePosition, source: String?)] = []

    /// The warnings worded before the rest go out textless (``DocumentOptions/warningTexts``;
    /// the tracker sees its resources in input order, so its first ones are the input's).
    private let warningTexts: Int
    private var warned = 0

    init(policy: DuplicatePolicy, warningTexts: Int = .max) {
        self.policy = policy
        self.warningTexts = warningTexts
    }

    /// Whether this (type, id) is written: true when it is new, or (policy `last`) when it
    /// is written again; throws under policy `error`.
    func admits(
        _ r: ResourceDraft, in a: borrowing DraftArenas, sourceName: String?, onDiagnostic: ((Diagnostic) -> Void)?
    ) throws(JSONAPIError) -> Bool {
        let type = a.scratch.bytes(in: r.type.range)
        let id = r.id.isNone ? a.scratch.bytes(in: r.lid.range) : a.scratch.bytes(in: r.id.range)
        let before = seen.count
        let key = seen.intern(type: type, id: id, isLid: r.id.isNone)
        if seen.count > before {
            seenAt.append((Int32(r.documentIndex), r.position, sourceName))
            return true
        }
        let written = policy == .last
        // No one to tell (no handler, and not refused): nothing to write.
        guard onDiagnostic != nil || policy == .error else { return written }
        let first = seenAt[Int(key)]
        let rule: Rule = first.document == Int32(r.documentIndex) ? .R22 : .N01
        if policy != .error {
            warned += 1
            if warned > warningTexts {
                onDiagnostic?(.textless(rule))
                return written
            }
        }
        let firstPlace = first.source != nil && first.source != sourceName ? "\(first.source!):\(first.position)" : first.position.description
        let what = "resource (type \(quoted(String(decoding: type, as: UTF8.self))), \(r.id.isNone ? "lid" : "id") \(quoted(String(decoding: id, as: UTF8.self))))"
        if policy == .error {
            throw JSONAPIError.document(
                Diagnostic(
                    severity: .error, rule: rule, message: "\(what) appears again (first at \(firstPlace)); duplicates are refused",
                    location: r.position, pointer: r.pointer, source: sourceName))
        }
        onDiagnostic?(
            Diagnostic(
                severity: .warning, rule: rule,
                message: "\(what) appears again (first at \(firstPlace)); \(written ? "written again (the later line wins)" : "skipped (the first line wins)")",
                location: r.position, pointer: r.pointer, source: sourceName))
        return written
    }
}
