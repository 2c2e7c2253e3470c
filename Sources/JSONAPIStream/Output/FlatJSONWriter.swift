/// Writes a ``Graph`` as the flat object of `--format json`:
///
/// ```
/// {"data":…,"resources":{"<type>":{"<id>":{"attributes":{…},"relationships":{…},…}}},
///  "meta":…,"links":…,"jsonapi":…,"errors":[…]}
/// ```
///
/// Types and ids in first-seen order; with several documents `data` is the concatenation of
/// their primary linkage, top-level `meta`, `links`, `jsonapi` and unknown members are
/// merged by name (later documents win, a name keeps its first position) and `errors` are
/// concatenated.
struct FlatJSONWriter {
    let graph: Graph
    let out: ByteWriter
    let options: OutputOptions

    func write() throws(JSONAPIError) {
        // The object is one record: check everything that can fail (names that collide with
        // --keys or with the members the output adds) before writing any of it.
        let check = FlatJSONWriter(graph: graph, out: ByteWriter(), options: options)
        try check.writeAll(dryRun: true)
        try writeAll(dryRun: false)
    }

    /// Whether writing a resource's body can fail: only when names are formatted (`--keys`),
    /// where two names can become one (the flat output reserves no member names in a body).
    /// When it cannot, the dry run checks the keys alone and writes no bodies: it would
    /// otherwise cost about as much as writing the output.
    private var bodiesCanFail: Bool { options.formatsNames }

    private func writeAll(dryRun: Bool) throws(JSONAPIError) {
        let s = graph.storage
        let writer = ResourceWriter(out: out, options: options)
        let parts = ResourceParts()
        // (The dry run of bodies that cannot fail: the keys are checked, nothing is written.)
        let checksKeysOnly = dryRun && !bodiesCanFail
        out.write(#"{"data":"#)
        // The primary linkage cannot fail.
        if !checksKeysOnly { try writePrimary(writer, parts, dryRun: dryRun) }
        out.write(#","resources":{"#)
        // Types in the order their first resource appeared.
        let selection = Selection(options)
        let types = s.rowsByType.indices
            .filter { !s.rowsByType[$0].isEmpty && selection.selects(s.symbols.bytes(of: UInt32($0))) }
            .sorted { s.rowsByType[$0][0] < s.rowsByType[$1][0] }
        for (i, t) in types.enumerated() {
            if i > 0 { out.write(byte: UInt8(ascii: ",")) }
            let fields = selection.fields(of: s.symbols.bytes(of: UInt32(t)))
            writer.writeQuoted(s.symbols.bytes(of: UInt32(t)))
            out.write(":{")
            var keyedByEmpty = false
            for (k, row) in s.rowsByType[t].enumerated() {
                if k > 0 && !checksKeysOnly { out.write(byte: UInt8(ascii: ",")) }
                // --numbers safe: each entry is checked as it ends, and scanned only when
                // its resource's input held a number to quote.
                if s.topLevelUnsafeNumbers != nil && !checksKeysOnly {
                    out.settleNumbers()
                    out.mayHoldUnsafeNumbers = s.resources[Int(row)].flags & GraphStorage.ResourceRecord.unsafeNumbers != 0
                }
                let (id, lid): (UnsafeRawBufferPointer?, UnsafeRawBufferPointer?)
                if checksKeysOnly {
                    (id, lid) = s.identity(of: s.resources[Int(row)])
                } else {
                    parts.fill(row: Int(row), of: s)
                    if let fields { parts.keepFields(fields) }
                    parts.place = s.resources[Int(row)].place
                    (id, lid) = (parts.id, parts.lid)
                }
                // A resource with neither id nor lid (a create payload's) is keyed by "";
                // a second one of the same type has no key of its own.
                if id == nil && lid == nil {
                    if keyedByEmpty {
                        let r = s.resources[Int(row)]
                        throw JSONAPIError.document(
                            Diagnostic(
                                severity: .error, rule: .N04,
                                message:
                                    "a second resource of type \(quoted(String(decoding: s.symbols.bytes(of: UInt32(t)), as: UTF8.self))) without id or lid: flat JSON keys resources by id or lid and cannot hold both (NDJSON can)",
                                location: s.position(r.position), pointer: r.pointer, source: s.documents[Int(r.document)].source))
                    }
                    keyedByEmpty = true
                }
                if id == nil {
                    // Keyed by its lid (or ""): a resource of the same type with that id
                    // would take the same key.
                    let key = lid.map { String(decoding: $0, as: UTF8.self) } ?? ""
                    if let k = s.keys.find(key, tag: s.idTag(UInt32(t))), s.keyRow[Int(k)] >= 0 {
                        let r = s.resources[Int(row)]
                        let type = String(decoding: s.symbols.bytes(of: UInt32(t)), as: UTF8.self)
                        throw JSONAPIError.document(
                            Diagnostic(
                                severity: .error, rule: .N04,
                                message:
                                    "resources (type \(quoted(type)), \(lid == nil ? "without id or lid" : "lid \(quoted(key))")) and (type \(quoted(type)), id \(quoted(key))) would both be keyed \(quoted(key)) in flat JSON (NDJSON can hold both)",
                                location: s.position(r.position), pointer: r.pointer, source: s.documents[Int(r.document)].source))
                    }
                }
                if checksKeysOnly { continue }
                writer.writeQuoted(parts.id ?? parts.lid ?? UnsafeRawBufferPointer(start: nil, count: 0))
                out.write(":{")
                // The entry: writeBody writes `,"attributes":…`; drop its leading comma.
                let mark = out.mark
                try writer.writeBody(parts, reserved: [])
                removeByte(at: mark)
                if let lid = parts.lid {
                    out.write(#","lid":"#)
                    writer.writeQuoted(lid)
                }
                out.write(byte: UInt8(ascii: "}"))
                try pace(dryRun: dryRun)
            }
            out.write(byte: UInt8(ascii: "}"))
        }
        out.write(byte: UInt8(ascii: "}"))
        try writeTopLevel(writer, parts)
        out.write("}\n")
        if !dryRun { try out.endRecord() }
    }

    /// Removes the byte at `index` of the output buffer (the comma `writeBody` starts with).
    private func removeByte(at index: Int) { out.buffer.remove(at: index) }

    /// Between two resources or identifiers: the dry run forgets what it wrote, the real one
    /// writes its buffer out when full, so that neither holds more than a buffer and one
    /// resource.
    @inline(__always)
    private func pace(dryRun: Bool) throws(JSONAPIError) {
        if dryRun { out.discardAll() } else { try out.flushIfFull() }
    }

    private func writePrimary(_ writer: ResourceWriter, _ parts: ResourceParts, dryRun: Bool) throws(JSONAPIError) {
        let s = graph.storage
        func identifier(_ row: Int32) throws(JSONAPIError) {
            parts.fill(row: Int(row), of: s)
            writer.writeResourceIdentifier(parts)
            try pace(dryRun: dryRun)
        }
        if s.documents.count == 1 {
            let d = s.documents[0]
            switch d.shape {
            case .absent, .null: out.write("null")
            case .single:
                if d.primaryCount > 0 { try identifier(s.primaryRows[d.primaryStart]) } else { out.write("null") }
            case .many:
                out.write(byte: UInt8(ascii: "["))
                for (i, row) in s.primaryRows[d.primaryStart..<d.primaryStart + d.primaryCount].enumerated() {
                    if i > 0 { out.write(byte: UInt8(ascii: ",")) }
                    try identifier(row)
                }
                out.write(byte: UInt8(ascii: "]"))
            }
            return
        }
        if s.documents.isEmpty { out.write("null"); return }
        out.write(byte: UInt8(ascii: "["))
        for (i, row) in s.primaryRows.enumerated() {
            if i > 0 { out.write(byte: UInt8(ascii: ",")) }
            try identifier(row)
        }
        out.write(byte: UInt8(ascii: "]"))
    }

    private func writeTopLevel(_ writer: ResourceWriter, _ parts: ResourceParts) throws(JSONAPIError) {
        if let counted = graph.storage.topLevelUnsafeNumbers {
            out.settleNumbers()
            out.mayHoldUnsafeNumbers = counted
        }
        let s = graph.storage
        let all = s.values.bytes(in: 0..<s.values.count)
        parts.place = .document
        for (name, path) in [("meta", \GraphStorage.DocumentRecord.meta), ("links", \.links), ("jsonapi", \.jsonapi)] {
            let spans = s.documents.map { $0[keyPath: path] }.filter { !$0.isNone }
            guard !spans.isEmpty else { continue }
            out.write(#",""#)
            out.write(name)
            out.write(#"":"#)
            if spans.count == 1 || spans.contains(where: { all[$0.start] != UInt8(ascii: "{") }) {
                // One value, or values that are not objects (kept in lenient mode): the last wins.
                let v = UnsafeRawBufferPointer(rebasing: all[spans.last!.range])
                try writer.writeObject(v, formatNames: name == "meta", what: "meta member", at: parts, pointer: "/" + name)
                continue
            }
            let merged = Self.merge(spans.map { StoredJSON.members(all, $0.range) }, all)
            let o = ByteWriter()
            o.write(byte: UInt8(ascii: "{"))
            for (i, m) in merged.enumerated() {
                if i > 0 { o.write(byte: UInt8(ascii: ",")) }
                o.write(UnsafeRawBufferPointer(rebasing: all[m.name]))
                o.write(byte: UInt8(ascii: ":"))
                o.write(UnsafeRawBufferPointer(rebasing: all[m.value]))
            }
            o.write(byte: UInt8(ascii: "}"))
            try o.buffer.withBytes { (b) throws(JSONAPIError) in
                try writer.writeObject(b, formatNames: name == "meta", what: "meta member", at: parts, pointer: "/" + name)
            }
        }
        let errorSpans = s.documents.map(\.errors).filter { !$0.isNone }
        if !errorSpans.isEmpty {
            out.write(#","errors":["#)
            Self.writeErrorObjects(errorSpans, all, to: out)
            out.write(byte: UInt8(ascii: "]"))
        }
        // Unknown top-level members, merged by name.
        for m in Self.mergedDocumentExtras(s, all) {
            let name = StoredJSON.decodeString(all, m.name)
            if ["data", "resources"].contains(name) {
                throw JSONAPIError.document(
                    Diagnostic(
                        severity: .error, rule: .N04, message: "the top-level member \(quoted(name)) collides with the \(quoted(name)) the flat output adds",
                        location: .start, pointer: "/" + name))
            }
            out.write(byte: UInt8(ascii: ","))
            out.write(UnsafeRawBufferPointer(rebasing: all[m.name]))
            out.write(byte: UInt8(ascii: ":"))
            out.write(UnsafeRawBufferPointer(rebasing: all[m.value]))
        }
    }

    /// The error objects of every document (`errors` spans: arrays, or a single value kept
    /// as it was), comma-separated, without the brackets.
    static func writeErrorObjects(_ errorSpans: [ValueSpan], _ all: UnsafeRawBufferPointer, to out: ByteWriter) {
        var first = true
        for span in errorSpans {
            let items = all[span.start] == UInt8(ascii: "[") ? StoredJSON.elements(all, span.range) : [span.range]
            for item in items {
                if !first { out.write(byte: UInt8(ascii: ",")) }
                first = false
                out.write(UnsafeRawBufferPointer(rebasing: all[item]))
            }
        }
    }

    /// Unknown top-level members of every document, merged by name (``merge(_:_:)``).
    static func mergedDocumentExtras(_ s: GraphStorage, _ all: UnsafeRawBufferPointer) -> [(name: Range<Int>, value: Range<Int>)] {
        let extras = s.documents.map { doc in
            doc.extras.map { span -> (name: Range<Int>, value: Range<Int>) in
                let end = StoredJSON.skipString(all, at: span.start)
                return (span.start..<end, (end + 1)..<span.start + span.count)
            }
        }
        return merge(extras, all)
    }

    /// Members of several objects merged by name: a name keeps its first position and takes
    /// its last value.
    static func merge(_ objects: [[(name: Range<Int>, value: Range<Int>)]], _ all: UnsafeRawBufferPointer) -> [(name: Range<Int>, value: Range<Int>)] {
        var out: [(name: Range<Int>, value: Range<Int>)] = []
        for members in objects {
            for m in members {
                let n = UnsafeRawBufferPointer(rebasing: all[m.name])
                if let i = out.firstIndex(where: { memoryEqual(UnsafeRawBufferPointer(rebasing: all[$0.name]), n) }) {
                    out[i].value = m.value
                } else {
                    out.append(m)
                }
            }
        }
        return out
    }
}
