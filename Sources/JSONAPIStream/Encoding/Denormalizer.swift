/// Turns `normalize` output (flat JSON or NDJSON, auto-detected per record) back into one
/// JSON:API compound document (`jsonapi denormalize`).
///
/// Each normalized record becomes a small JSON:API document fed to a ``GraphParser``, so
/// resources merge exactly as they do when reading documents; the graph is then written with
/// ``DocumentEncodingOptions`` (include paths, sparse fieldsets).
///
/// What `normalize` does not keep cannot come back: whether a resource had an
/// `attributes` or `relationships` member at all (normalized records always have both);
/// from flat JSON, whether a resource keyed by its `lid` also had an equal `id`; and whether
/// a document without errors had `"data": null` or no `data` at all (it gets `null`).
public final class Denormalizer {
    private let parser: GraphParser
    private var primary: [ResourceIdentifier] = []
    private var documentLines = 0
    private var singleShape: PrimaryDataShape = .absent
    /// Operation lines read since the last document line.
    private var operations: [JSONValue] = []
    /// Documents made of the records read, not yet handed to the parser.
    /// (Unchecked: appended to at every record, on the reading thread only.)
    @exclusivity(unchecked) private var pending = ByteArena(capacity: 64 * 1024)
    /// How the records are read: the caller's limits, two levels deeper (see `init`).
    private let recordLimits: Limits

    /// A denormalizer that merges resources as a graph built with `options` does.
    public init(options: DocumentOptions = .default) {
        // A record nests up to two levels deeper than the document it came from (a flat
        // object's entries sit under `resources` and their type; a document line's members
        // under `document`), so a document at the depth limit comes back.
        var limits = options.parse.limits
        limits.maxDepth += 2
        recordLimits = limits
        var o = options
        o.validation = .off
        // Normalized records do not say which context they came from; the create context
        // is the one that admits every shape they can hold (a primary resource with
        // neither id nor lid included).
        o.context = .create
        // Each record goes in wrapped (`{"data":null,"included":[…]}`), which can put a value a
        // level or two deeper than it was in its own document: as deep as it was is allowed.
        o.parse.limits.maxDepth += 4
        // A value read back (from a database `load` wrote under `--duplicate-members
        // allow-in-values`) may repeat a member name inside an attribute or meta value, as the
        // document it came from did; JSON:API's own objects still may not.
        o.parse.duplicateMembers = .allowInValues
        parser = GraphParser(options: o)
    }

    /// Reads one input of normalized records.
    public func read(_ source: InputSource, chunkSize: Int = 1 << 20) throws(JSONAPIError) {
        var options = ParseOptions()
        options.multipleDocuments = true
        options.limits = recordLimits
        // Entries of a flat object that an earlier input broke off.
        resetFlat()
        let receiver = NormalizedRecordReader(options: options)
        var failure: JSONAPIError? = nil
        receiver.resourceLine = { [unowned self] line, _ in
            do throws(JSONAPIError) { try self.acceptResourceLine(line) } catch {
                failure = error
                return false
            }
            return true
        }
        receiver.flatEntry = { [unowned self] type, key, lid, entry in
            self.acceptFlatEntry(type: type, key: key, lid: lid, entry)
            return true
        }
        receiver.flatObject = { [unowned self] data, others, problem, position in
            do throws(JSONAPIError) {
                if let problem { throw self.notNormalized(problem, source.name, position) }
                try self.endFlat(data: data, others: others)
            } catch {
                failure = error
                return false
            }
            return true
        }
        receiver.tree = { [unowned self] value, position in
            do throws(JSONAPIError) { try self.accept(value, source: source.name, position: position) } catch {
                failure = error
                return false
            }
            return true
        }
        let stream = JSONStreamParser(outlet: receiver, options: options)
        stream.sourceName = source.name
        do {
            try source.read(chunkSize: chunkSize) { (chunk) throws(JSONAPIError) in try stream.feed(chunk) }
            try stream.finish()
            try flush()
        } catch {
            // What the records before the problem hold goes first: one of them may fail (a
            // limit) before the problem is reached.
            if failure == nil { try flush() }
            throw failure ?? error.withSourceIfMissing(source.name)
        }
        if let failure { throw failure }
    }

    /// Writes the compound document.
    public func write(to out: ByteWriter, options: DocumentEncodingOptions = .init()) throws(JSONAPIError) {
        try flush()
        let graph = try parser.finish()
        var rows: [Resource] = []
        // Resources without id or lid never merge: the k-th such identifier of a type in
        // the primary data names the k-th such resource of that type.
        var anonymous: [String: [Resource]] = [:]
        var anonymousUsed: [String: Int] = [:]
        for id in primary {
            if id.id == nil && id.lid == nil {
                if anonymous[id.type] == nil { anonymous[id.type] = graph.resources(ofType: id.type).filter { $0.id == nil && $0.lid == nil } }
                let k = anonymousUsed[id.type, default: 0]
                anonymousUsed[id.type] = k + 1
                if let all = anonymous[id.type], k < all.count { rows.append(all[k]) }
                continue
            }
            guard let r = graph[id] else { continue }
            rows.append(r)
        }
        let shape: PrimaryDataShape = documentLines == 1 ? singleShape : (documentLines == 0 ? .absent : .many)
        try DocumentEncoder(graph: graph, out: out, options: options, overlay: nil, shape: shape).write(primary: rows)
    }

    // MARK: - Records

    private func accept(_ value: JSONValue, source: String, position: SourcePosition) throws(JSONAPIError) {
        guard case .object(let o) = value else {
            throw notNormalized("a record is not a JSON object", source, position)
        }
        if let r = o["resources"] {
            try acceptFlat(o, resources: r, source, position)
        } else if let d = o["document"] {
            guard case .object(let doc) = d else { throw notNormalized("\"document\" is not an object", source, position) }
            try acceptDocumentLine(doc)
        } else if let operation = o["operation"] {
            // An Atomic Operations operation line: it goes back into `atomic:operations` of
            // the document line that follows it.
            operations.append(operation)
        } else if o["type"] != nil {
            // The members `normalize` added to the line go.
            try acceptResourceLine(NormalizedRecordReader.Line(o, dropping: { $0 == "primary" || $0 == "hash" }))
        } else {
            throw notNormalized("a record is neither a resource line, a document line, nor a flat object", source, position)
        }
    }

    private func notNormalized(_ what: String, _ source: String, _ position: SourcePosition) -> JSONAPIError {
        .document(Diagnostic(severity: .error, rule: .N03, message: "not normalize output: \(what)", location: position, pointer: "", source: source))
    }

    /// A resource object as it was (read back from a database or a table row: every member
    /// is the resource's own, `primary` and `hash` too).
    package func acceptResource(_ o: JSONObject) throws(JSONAPIError) {
        try acceptResourceLine(NormalizedRecordReader.Line(o, dropping: { _ in false }))
    }

    /// A document line: its primary linkage (in order) and top-level members.
    package func acceptDocumentLine(_ doc: JSONObject) throws(JSONAPIError) {
        documentLines += 1
        var top = JSONObject()
        for m in doc.members {
            if m.key == "data" {
                switch m.value {
                case .null: singleShape = .null
                case .array(let a):
                    singleShape = .many
                    primary += a.compactMap(Self.identifier)
                case let one:
                    singleShape = .single
                    if let id = Self.identifier(one) { primary.append(id) }
                }
                // Normalized records write absent primary data as null; an error document
                // had none (data and errors never coexist).
                // An identifier with neither id nor lid stands for the resource line before
                // it; read again, it would be a second, empty resource.
                if m.value == .null && doc["errors"] != nil {
                    singleShape = .absent
                } else if case .array(let a) = m.value {
                    top.append("data", .array(a.filter { !Self.isAnonymous($0) }))
                } else {
                    top.append("data", Self.isAnonymous(m.value) ? .null : m.value)
                }
            } else {
                top.append(m.key, m.value)
            }
        }
        if top["data"] == nil { singleShape = .absent }
        if !operations.isEmpty || top["atomic:results"] != nil {
            // A document with operations or results had no data (the extension forbids it):
            // its line's `"data":null` stands for none.
            if top["data"] == .null {
                var rest = JSONObject()
                for m in top.members where m.key != "data" { rest.append(m.key, m.value) }
                top = rest
                singleShape = .absent
            }
            if !operations.isEmpty { top.append("atomic:operations", .array(operations)) }
            operations = []
        }
        try feed(.object(top))
    }

    /// A flat object read as a tree (a member other than `data` and `resources` first): each
    /// entry turned into text as ``NormalizedRecordReader`` reads it, then the same document.
    private func acceptFlat(_ o: JSONObject, resources: JSONValue, _ source: String, _ position: SourcePosition) throws(JSONAPIError) {
        guard case .object(let byType) = resources else { throw notNormalized("\"resources\" is not an object", source, position) }
        var entries: [(type: String, key: String, entry: JSONObject)] = []
        for t in byType.members {
            guard case .object(let byKey) = t.value else { throw notNormalized("resources of \(quoted(t.key)) are not an object", source, position) }
            for r in byKey.members {
                guard case .object(let entry) = r.value else { throw notNormalized("a resource entry is not an object", source, position) }
                entries.append((t.key, r.key, entry))
            }
        }
        let data = o["data"] ?? .null
        for (type, key, entry) in entries {
            acceptFlatEntry(type: type, key: key, lid: entry["lid"]?.stringValue, NormalizedRecordReader.Line(entry, dropping: { $0 == "lid" }))
        }
        var others = JSONObject()
        for m in o.members where m.key != "data" && m.key != "resources" { others.append(m.key, m.value) }
        try endFlat(data: data, others: others)
    }

    // MARK: - A flat object read entry by entry (NormalizedRecordReader)

    /// The flat object being read: each entry's type, key, `lid` and other members (their
    /// text, comma-led, one entry after another in `flatText`). Who an entry is depends on
    /// `data` (an entry keyed "" is the anonymous resource of its type when the primary data
    /// names one), which may come after `resources`; so entries are kept as read and written
    /// as resources once the object has ended.
    private var flatText = ByteArena(capacity: 64 * 1024)
    private var flatEntries: [(type: String, key: String, lid: String?, members: Range<Int>)] = []
    /// The start of the entry being written (reused).
    private var entryHead = JSONTextWriter()

    /// No flat object being read (its text's memory freed: one object can be the whole input).
    private func resetFlat() {
        flatText = ByteArena(capacity: 64 * 1024)
        flatEntries.removeAll()
    }

    /// One entry, as read.
    private func acceptFlatEntry(type: String, key: String, lid: String?, _ entry: borrowing NormalizedRecordReader.Line) {
        let start = flatText.count
        for range in entry.members {
            flatText.append(UInt8(ascii: ","))
            flatText.append(entry.text.bytes(in: range))
        }
        flatEntries.append((type, key, lid, start..<flatText.count))
    }

    /// The flat object is complete: one document with the primary linkage's resources as
    /// data (in `data`'s order) and every other resource as included (in the entries'
    /// order), then the object's other members, written as JSONTextWriter writes a document.
    private func endFlat(data: JSONValue, others: JSONObject) throws(JSONAPIError) {
        // The primary data's identifiers, and the types whose primary data holds an
        // identifier with neither id nor lid: their entry keyed "" without a "lid" member is
        // that anonymous resource.
        let many: Bool
        var ids: [ResourceIdentifier] = []
        var anonymousTypes = Set<String>()
        switch data {
        case .null: many = false
        case .array(let a):
            many = true
            ids = a.compactMap(Self.identifier)
            for v in a where Self.isAnonymous(v) { anonymousTypes.insert(v["type"]!.stringValue!) }
        case let one:
            many = false
            ids = Self.identifier(one).map { [$0] } ?? []
            if Self.isAnonymous(one) { anonymousTypes.insert(one["type"]!.stringValue!) }
        }
        // Who each entry is: keyed by its `lid` (key and `lid` equal), the anonymous resource
        // of its type (keyed "" without a `lid`, when the primary data names one), or by its
        // id; the primary ones' entries by identifier (the last entry of an identifier, as a
        // tree's member would be).
        var primaryEntries: [ResourceIdentifier: Int] = [:]
        for id in ids { primaryEntries[id] = -1 }
        var isPrimary = [Bool](repeating: false, count: flatEntries.count)
        var writesID = [Bool](repeating: true, count: flatEntries.count)
        for (k, e) in flatEntries.enumerated() {
            let keyedByLid = e.lid == e.key
            let anonymous = e.lid == nil && e.key.isEmpty && anonymousTypes.contains(e.type)
            writesID[k] = !keyedByLid && !anonymous
            let id = ResourceIdentifier(type: e.type, id: writesID[k] ? e.key : nil, lid: e.lid)
            if primaryEntries[id] != nil {
                primaryEntries[id] = k
                isPrimary[k] = true
            }
        }
        documentLines += 1
        singleShape = many ? .many : data == .null ? .null : .single
        primary += ids
        let dataIsNull = !many && ids.isEmpty
        var first = true
        func member(_ name: StaticString) {
            pending.append(UInt8(ascii: first ? "{" : ","))
            first = false
            pending.append(name)
        }
        if dataIsNull && others["errors"] != nil {
            singleShape = .absent
        } else if dataIsNull {
            member(#""data":null"#)
        } else {
            member(#""data":"#)
            if many { pending.append(UInt8(ascii: "[")) }
            for (k, id) in ids.enumerated() {
                if k > 0 { pending.append(UInt8(ascii: ",")) }
                if let entry = primaryEntries[id], entry >= 0 {
                    writeFlatEntry(entry, writesID: writesID[entry])
                } else {
                    // Not among the resources: its identifier.
                    var w = JSONTextWriter()
                    w.write(id.jsonValue)
                    w.arena.withBytes { pending.append($0) }
                }
                try flushIfFull()
            }
            if many { pending.append(UInt8(ascii: "]")) }
        }
        var included = false
        for k in flatEntries.indices where !isPrimary[k] {
            if included {
                pending.append(UInt8(ascii: ","))
            } else {
                member(#""included":["#)
                included = true
            }
            writeFlatEntry(k, writesID: writesID[k])
            try flushIfFull()
        }
        if included { pending.append(UInt8(ascii: "]")) }
        let rest = NormalizedRecordReader.Line(others, dropping: { _ in false })
        if rest.text.count > 0 {
            pending.append(UInt8(ascii: first ? "{" : ","))
            first = false
            pending.append(rest.text.bytes(in: 0..<rest.text.count))
        }
        if first { pending.append(UInt8(ascii: "{")) }
        pending.append("}\n")
        resetFlat()
        try flushIfFull()
    }

    /// Entry `k` as a resource object: `type`, `id` (its key, unless it has none: keyed by
    /// its `lid`, or anonymous), `lid`, then the entry's other members.
    private func writeFlatEntry(_ k: Int, writesID: Bool) {
        let e = flatEntries[k]
        entryHead.arena.truncate(to: 0)
        entryHead.arena.append(#"{"type":"#)
        entryHead.writeString(e.type)
        if writesID {
            entryHead.arena.append(#","id":"#)
            entryHead.writeString(e.key)
        }
        if let lid = e.lid {
            entryHead.arena.append(#","lid":"#)
            entryHead.writeString(lid)
        }
        entryHead.arena.withBytes { pending.append($0) }
        pending.append(flatText.bytes(in: e.members))
        pending.append(UInt8(ascii: "}"))
    }

    /// The identifier of a primary data entry; one with neither id nor lid names the
    /// anonymous resource of its type.
    private static func identifier(_ v: JSONValue) -> ResourceIdentifier? {
        guard let type = v["type"]?.stringValue else { return nil }
        return ResourceIdentifier(type: type, id: v["id"]?.stringValue, lid: v["lid"]?.stringValue)
    }

    private static func isAnonymous(_ v: JSONValue) -> Bool {
        v["type"]?.stringValue != nil && v["id"] == nil && v["lid"] == nil
    }

    private func feed(_ document: JSONValue) throws(JSONAPIError) {
        var w = JSONTextWriter()
        w.write(document)
        w.arena.withBytes { pending.append($0) }
        pending.append(UInt8(ascii: "\n"))
        try flushIfFull()
    }

    /// A resource line (read as text by ``NormalizedRecordReader``, or made text from a
    /// tree): `{"data":null,"included":[{…}]}`, or `{"data":{…}}` for a resource with no
    /// identity (a create payload's), which cannot be included, only be primary data.
    func acceptResourceLine(_ line: borrowing NormalizedRecordReader.Line) throws(JSONAPIError) {
        let anonymous = !line.hasID && !line.hasLid
        pending.append(anonymous ? #"{"data":{"# : #"{"data":null,"included":[{"#)
        for (k, range) in line.members.enumerated() {
            if k > 0 { pending.append(UInt8(ascii: ",")) }
            pending.append(line.text.bytes(in: range))
        }
        pending.append(anonymous ? "}}\n" : "}]}\n")
        try flushIfFull()
    }

    /// Documents are handed to the graph parser this many bytes at a time.
    private static let feedBytes = 256 * 1024

    /// Hands the documents gathered to the graph parser once they are ``feedBytes`` or more.
    @inline(__always)
    private func flushIfFull() throws(JSONAPIError) {
        if pending.count >= Self.feedBytes { try flush() }
    }

    /// Hands the documents gathered so far to the graph parser.
    private func flush() throws(JSONAPIError) {
        guard pending.count > 0 else { return }
        defer { pending.truncate(to: 0) }
        try pending.withBytes { (b) throws(JSONAPIError) in try parser.feed(b) }
    }
}

extension JSONValueReceiver {
    /// The values completed so far (and forgets them).
    func takeValues() -> [JSONValue] {
        let v = values
        values.removeAll()
        return v
    }
}
