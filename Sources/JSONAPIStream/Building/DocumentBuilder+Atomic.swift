// The Atomic Operations extension (https://jsonapi.org/ext/atomic) as a document applies it:
// which top-level members are the extension's, and its rules (A01-A08 checked once the
// document has closed, A09 as the results stream by). `atomic:operations` is stored as the
// document's other unknown members are (every sink keeps it as it was); the graph and the
// NDJSON writer read its operations. Each result's data in `atomic:results` is a resource for
// the sink, and the member is rebuilt with each resource as its identifier.

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

    /// Whether the stored `jsonapi` object lists the extension in `ext` (read in place: most
    /// documents have a `jsonapi` member, few an `ext`).
    func declaresAtomic(_ span: ValueSpan) -> Bool {
        var found = false
        arenas.store.withBytes { all in
            StoredJSON.forEachMember(all, span.range) { name, value in
                guard StoredJSON.nameEquals(all, name, staticBytes("ext")) else { return true }
                // Stored strings are minimally escaped: the URI is stored as written here.
                found = StoredJSON.elements(all, value).contains {
                    memoryEqual(UnsafeRawBufferPointer(rebasing: all[$0]), staticBytes(#""https://jsonapi.org/ext/atomic""#))
                }
                return false
            }
        }
        return found
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

    // MARK: - atomic:results

    /// `atomic:results` starts: the text the document will keep as that member.
    func beginResults() {
        atomic.resultsText.removeAll()
        atomic.resultsText.append(#""atomic:results":["#)
        atomic.resultIndex = 0
        atomic.resultsHaveElement = false
    }

    /// A result object starts.
    func startResult() {
        if atomic.resultsHaveElement { atomic.resultsText.append(UInt8(ascii: ",")) }
        atomic.resultsHaveElement = true
        atomic.resultsText.append(UInt8(ascii: "{"))
        atomic.resultHasMember = false
    }

    /// Appends a member of the current result: `prefix` then `value` (a `"name":value` span
    /// has an empty prefix).
    func appendResultMember(_ prefix: StaticString, _ value: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) {
        if atomic.resultHasMember { atomic.resultsText.append(UInt8(ascii: ",")) }
        atomic.resultHasMember = true
        atomic.resultsText.append(prefix)
        atomic.resultsText.append(value)
    }

    /// A result's resource has been handed to the sink: the result keeps its identifier.
    func noteResultResource() {
        appendResultMember(#""data":"#)
        JSONEscaping.appendIdentifier(
            type: arenas.scratch.bytes(in: resource.type.range), id: resource.id.isNone ? nil : arenas.scratch.bytes(in: resource.id.range),
            lid: resource.lid.isNone ? nil : arenas.scratch.bytes(in: resource.lid.range), to: &atomic.resultsText)
    }

    /// A result object ends.
    @inline(never)
    func finishResult() -> Bool {
        atomic.resultsText.append(UInt8(ascii: "}"))
        atomic.resultIndex &+= 1
        return true
    }

    /// `atomic:results` ends: its text becomes one of the document's members.
    @inline(never)
    func finishResults() {
        atomic.resultsText.append(UInt8(ascii: "]"))
        let start = arenas.store.count
        atomic.resultsText.withBytes { arenas.store.append($0) }
        documentExtras.append(ValueSpan(start: start, count: arenas.store.count - start))
        document.atomicResults = Int32(documentExtras.count - 1)
    }

    // MARK: - Events under the extension (kept out of the hot event functions)

    /// A top-level member JSON:API does not define: the extension's, or an unknown one.
    @inline(never)
    func otherDocumentMember(_ name: UnsafeRawBufferPointer) -> Bool {
        if !unknownMember(name, rule: .R05, owner: "a document's top level") { return false }
        guard let extensionMember = atomicMember(name), appliesAtomicByOption || atomic.declared else { return true }
        switch extensionMember {
        case .operations:
            // Kept as written, as unknown members are; noted when its value has been recorded.
            atomic.recordingOperations = true
            document.atomicOperationsPosition = currentLocation()
        case .results:
            // Read as results (their resources go to the sink), not kept as written.
            member = .atomicResults
        }
        return true
    }

    /// An object as `atomic:results` itself, as a result, or inside a result.
    @inline(never)
    func startObjectInResults(_ top: Frame) -> Bool {
        switch top {
        case .resultsArray:
            frames.push(.result)
            startResult()
            return true
        case .result:
            switch member {
            case .data:
                let ok = startResource(primary: false, index: atomic.resultIndex)
                resource.inResults = true
                return ok
            case .meta: return beginRaw(.resultMeta, checked: .meta, object: true)
            default: return beginRaw(.resultExtra, checked: nil, object: true)
            }
        default:
            return beginRawReporting(.documentExtra, .A09, "atomic:results MUST be an array of result objects, not an object", isObject: true)
        }
    }

    /// An array as `atomic:results` itself, as a result, or inside a result.
    @inline(never)
    func startArrayInResults(_ top: Frame) -> Bool {
        switch top {
        case .resultsArray:
            atomic.resultIndex &+= 1  // skipped, but counted: the next result keeps its index
            return badShape(.A09, "a result MUST be an object, not an array", container: true, isObject: false)
        case .result:
            switch member {
            case .data: return badShape(.A09, "a result's data MUST be a resource object or null, not an array", container: true, isObject: false)
            case .meta: return beginRawReporting(.resultMeta, .R24, "meta MUST be an object, not an array", isObject: false)
            default: return beginRaw(.resultExtra, checked: nil, object: false)
            }
        default:
            frames.push(.resultsArray)
            beginResults()
            return true
        }
    }

    /// A scalar as a result, or as a result's data.
    @inline(never)
    func skipResultScalar(_ top: Frame) -> Bool {
        if top == .resultsArray {
            atomic.resultIndex &+= 1  // skipped, but counted: the next result keeps its index
            return badShape(.A09, "a result MUST be an object", container: false)
        }
        return badShape(.A09, "a result's data MUST be a resource object or null", container: false)
    }

    /// A scalar as `atomic:results` (kept as an unknown member).
    @inline(never)
    func reportResultsShape() -> Bool {
        validation == .off || report(.A09, "atomic:results MUST be an array of result objects")
    }

    /// `"data": null` in a result.
    @inline(never)
    func nullResultData() -> Bool {
        appendResultMember(#""data":null"#)
        return true
    }
}

/// What the builder keeps of the Atomic Operations extension while a document streams by.
struct AtomicState: ~Copyable {
    /// Whether the document's `jsonapi.ext` (read so far) applies the extension.
    var declared = false
    /// Whether the value being recorded is `atomic:operations` of a document that applies the
    /// extension.
    var recordingOperations = false
    /// `atomic:results` as the document will keep it (each result's resource as its
    /// identifier, its other members as written), built as the results stream by.
    var resultsText = ByteArena(capacity: 256)
    var resultIndex: Int32 = 0
    var resultsHaveElement = false
    var resultHasMember = false
}
