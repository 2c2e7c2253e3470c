// The Atomic Operations extension (https://jsonapi.org/ext/atomic) as a document applies it:
// which top-level members are the extension's, and its rules (A01-A08), checked once the
// document has closed. `atomic:operations` is stored as the document's other unknown members
// are (every sink keeps it as it was); the graph and the NDJSON writer read its operations.

/// A top-level member of the extension.
enum AtomicMember {
    case operations, results
}

extension DocumentBuilder {
    /// Whether the options apply the extension to every document (`--extension atomic`).
    var appliesAtomicByOption: Bool { options.extensions.contains(AtomicOperations.namespace) }

    /// The extension's member `name` is, if any (whether or not the document applies it).
    func atomicMember(_ name: UnsafeRawBufferPointer) -> AtomicMember? {
        guard name.count > 7, name.first == UInt8(ascii: "a") else { return nil }
        if memoryEqual(name, staticBytes("atomic:operations")) { return .operations }
        if memoryEqual(name, staticBytes("atomic:results")) { return .results }
        return nil
    }

    /// Whether the stored `jsonapi` object lists the extension in `ext`.
    func declaresAtomic(_ span: ValueSpan) -> Bool {
        let value = arenas.store.withBytes { StoredJSON.decode($0, span.range) }
        guard case .array(let ext)? = value["ext"] else { return false }
        return ext.contains { $0.stringValue == AtomicOperations.uri }
    }

    /// Notes that the document's extra member `extra` is the extension's `member`, when the
    /// document applies the extension (otherwise it stays an unknown member).
    func noteAtomic(_ member: AtomicMember, extra: Int) {
        guard appliesAtomicByOption || documentDeclaresAtomic else { return }
        switch member {
        case .operations:
            document.atomicOperations = Int32(extra)
            document.atomicOperationsPosition = atomicKeyPosition
        case .results:
            document.atomicResults = Int32(extra)
        }
    }

    /// The extension's rules over the closed document. Positions are the document's, or the
    /// start of `atomic:operations`; pointers name the member at fault.
    func checkAtomicDocument() -> Bool {
        let top = "/atomic:operations"
        if document.atomicOperations >= 0 && document.atomicResults >= 0 {
            if !report(.A02, "a document MUST NOT contain both atomic:operations and atomic:results", at: .at(document.position), pointer: "/atomic:results") {
                return false
            }
        }
        let name = document.atomicOperations >= 0 ? "atomic:operations" : "atomic:results"
        if document.hasData || document.hasIncluded {
            let member = document.hasData ? "/data" : "/included"
            if !report(.A01, "a document with \(name) MUST NOT contain data or included", at: .at(document.position), pointer: member) { return false }
        }
        if !document.errors.isNone {
            if !report(.A03, "a document with \(name) MUST NOT contain errors", at: .at(document.position), pointer: "/errors") { return false }
        }
        guard document.atomicOperations >= 0 else { return true }
        let span = documentExtras[Int(document.atomicOperations)]
        let value = arenas.store.withBytes { all -> JSONValue in
            let valueStart = StoredJSON.skipString(all, at: span.start) + 1
            return StoredJSON.decode(all, valueStart..<span.range.upperBound)
        }
        let at = document.atomicOperationsPosition
        guard case .array(let operations) = value else {
            return report(.A04, "atomic:operations MUST be an array of operation objects", at: .at(at), pointer: top)
        }
        for (i, operation) in operations.enumerated() {
            for problem in AtomicOperation.problems(operation) {
                if !report(problem.rule, problem.message, at: .at(at), pointer: "\(top)/\(i)\(problem.pointer)") { return false }
            }
        }
        return true
    }
}
