/// How a graph is written back as a JSON:API document.
public struct DocumentEncodingOptions: Sendable, Hashable {
    /// Relationship paths whose resources go into `included` (`comments.author` includes the
    /// comments and their authors). `nil` includes every resource of the graph that is not
    /// primary data, in first-seen order (what a round trip wants).
    public var include: [String]? = nil
    /// Sparse fieldsets: for a type, the attribute and relationship names to keep.
    public var fields: [String: Set<String>] = [:]
    /// Rewrites attribute, relationship and meta member names.
    public var keys = KeyFormat.asIs
    /// Rewrites the same names with your own function instead of ``keys``: the
    /// ``KeyFormatter`` your models are decoded and encoded with (model name → wire name).
    public var keyFormatter: KeyFormatter? = nil

    /// The defaults.
    public init() {}

    /// Options from query-style strings: `include` as `a.b,c`, fields as `type=f1,f2`.
    public init(include: String?, fields: [String]) throws(JSONAPIError) {
        self.include = include.map { $0.split(separator: ",").map { String($0).trimmingSpaces } }
        for f in fields {
            guard let eq = f.firstIndex(of: "="), eq != f.startIndex else {
                throw JSONAPIError.misuse("a fieldset is TYPE=FIELD,FIELD... (got \(quoted(f)))")
            }
            let type = String(f[..<eq])
            let names = f[f.index(after: eq)...].split(separator: ",").map { String($0).trimmingSpaces }
            self.fields[type, default: []].formUnion(names)
        }
    }
}

extension String {
    var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " { s = s.dropFirst() }
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

extension Graph {
    /// The graph as one JSON:API compound document: primary data, `included` by include
    /// paths (each resource once, never one that is primary data), sparse fieldsets, and the
    /// top-level `meta`, `links`, `jsonapi`, `errors` and unknown members. Values are copied
    /// from the value store as they were read (numbers' text, member order).
    ///
    /// - Parameter primary: the primary data to write; by default the graph's own, in the
    ///   shape the input had (one resource, an array, or `null`).
    public func document(primary: [Resource]? = nil, options: DocumentEncodingOptions = .init()) throws(JSONAPIError) -> [UInt8] {
        let out = ByteWriter()
        try writeDocument(to: out, primary: primary, options: options)
        return out.bytes
    }

    /// Writes ``document(primary:options:)`` to `out` (whole lines only: one line).
    public func writeDocument(to out: ByteWriter, primary: [Resource]? = nil, options: DocumentEncodingOptions = .init()) throws(JSONAPIError) {
        try DocumentEncoder(graph: self, out: out, options: options, overlay: nil).write(primary: primary)
    }
}

/// Writes a graph (with an optional overlay of edited and new resources) as a compound
/// document.
struct DocumentEncoder {
    let graph: Graph
    let out: ByteWriter
    let options: DocumentEncodingOptions
    let overlay: EditOverlay?
    /// The shape of primary data to write when it is given explicitly (default: an array).
    var shape: PrimaryDataShape? = nil

    private var storage: GraphStorage { graph.storage }

    func write(primary explicit: [Resource]?) throws(JSONAPIError) {
        let s = storage
        var output = OutputOptions()
        output.keys = options.keys
        output.keyFormatter = options.keyFormatter
        let writer = ResourceWriter(out: out, options: output)
        let parts = ResourceParts()

        // Primary data and its shape.
        var primaryRows: [Int] = []
        var shape: PrimaryDataShape
        if let explicit {
            primaryRows = explicit.map(\.row)
            shape = self.shape ?? .many
        } else {
            primaryRows = s.primaryRows.map { Int($0) }
            if s.documents.count == 1 {
                shape = s.documents[0].shape
            } else if s.documents.isEmpty {
                shape = .absent
            } else {
                shape = primaryRows.isEmpty && s.documents.allSatisfy({ $0.shape == .absent }) ? .absent : .many
            }
        }
        // A resource listed twice (two documents of a dump) is written once. One flag per
        // row, not a hash set: every row is looked at once below.
        var seen = [Bool](repeating: false, count: s.resources.count)
        primaryRows = primaryRows.filter { row in
            defer { seen[row] = true }
            return !seen[row]
        }
        let newPrimary = overlay?.newResources.filter(\.primary).map(\.text) ?? []
        let newIncluded = overlay?.newResources.filter { !$0.primary }.map(\.text) ?? []
        if !newPrimary.isEmpty { shape = .many }
        // Before anything is written: a bad include path fails with no output.
        let included = try includedRows(primary: primaryRows, seen: seen)

        out.write(byte: UInt8(ascii: "{"))
        var first = true
        func comma() {
            if !first { out.write(byte: UInt8(ascii: ",")) }
            first = false
        }

        if shape != .absent || !primaryRows.isEmpty {
            comma()
            out.write(#""data":"#)
            switch shape {
            case .single where primaryRows.count == 1:
                try writeResource(primaryRows[0], writer, parts)
            case .null where primaryRows.isEmpty, .absent where primaryRows.isEmpty, .single where primaryRows.isEmpty:
                out.write("null")
            default:
                out.write(byte: UInt8(ascii: "["))
                var firstItem = true
                for row in primaryRows {
                    if !firstItem { out.write(byte: UInt8(ascii: ",")) }
                    firstItem = false
                    try writeResource(row, writer, parts)
                }
                for text in newPrimary {
                    if !firstItem { out.write(byte: UInt8(ascii: ",")) }
                    firstItem = false
                    text.withUnsafeBytes { out.write($0) }
                }
                out.write(byte: UInt8(ascii: "]"))
            }
        }

        if !included.isEmpty || !newIncluded.isEmpty {
            comma()
            out.write(#""included":["#)
            var firstItem = true
            for row in included {
                if !firstItem { out.write(byte: UInt8(ascii: ",")) }
                firstItem = false
                try writeResource(row, writer, parts)
                if out.buffer.count > 1 << 20 { try out.flush() }
            }
            for text in newIncluded {
                if !firstItem { out.write(byte: UInt8(ascii: ",")) }
                firstItem = false
                text.withUnsafeBytes { out.write($0) }
            }
            out.write(byte: UInt8(ascii: "]"))
        }

        try writeTopLevel(comma: comma, writer, parts)
        out.write("}\n")
        try out.endRecord()
    }

    // MARK: - Included resources

    /// Rows for `included`: by include paths, or every non-primary row.
    /// - Parameter seen: one flag per row, set for the rows already written.
    /// - Throws: ``JSONAPIError/misuse(_:)`` when a path names a relationship that none of
    ///   the resources it reaches has (a typo would otherwise include nothing, silently).
    private func includedRows(primary: [Int], seen: [Bool]) throws(JSONAPIError) -> [Int] {
        let s = storage
        var taken = seen
        var rows: [Int] = []
        guard let paths = options.include else {
            // The data of a result in atomic:results is written there, not in included.
            let results = s.documents.contains { $0.atomicResults >= 0 }
            for row in 0..<s.resources.count where !taken[row] {
                if results && s.resources[row].flags & GraphStorage.ResourceRecord.result != 0 { continue }
                rows.append(row)
            }
            return rows
        }
        // Each path from every primary resource; intermediate resources are included too.
        for path in paths where !path.isEmpty {
            var level = primary
            for name in path.split(separator: ".") {
                // Nothing reached (no linkage, or linkage to resources not in the graph).
                if level.isEmpty { break }
                guard let symbol = s.symbols.find(String(name)), level.contains(where: { hasRelationship($0, symbol) }) else {
                    throw JSONAPIError.misuse(
                        "include path \(quoted(path)): none of the resources it reaches has a relationship named \(quoted(String(name)))")
                }
                var next: [Int] = []
                for row in level {
                    for target in relatedRows(row, symbol) {
                        if !taken[target] {
                            taken[target] = true
                            rows.append(target)
                        }
                        next.append(target)
                    }
                }
                level = next
            }
        }
        return rows
    }

    /// Whether the resource of `row` has a relationship named `name` (whatever its linkage).
    private func hasRelationship(_ row: Int, _ name: UInt32) -> Bool {
        let s = storage
        let r = s.resources[row]
        return (Int(r.relationshipStart)..<Int(r.relationshipStart + r.relationshipCount)).contains { s.relationships[$0].name == name }
    }

    /// The rows a relationship of `row` resolves to (linkage to resources in the graph).
    private func relatedRows(_ row: Int, _ name: UInt32) -> [Int] {
        let s = storage
        let r = s.resources[row]
        var out: [Int] = []
        for i in Int(r.relationshipStart)..<Int(r.relationshipStart + r.relationshipCount) where s.relationships[i].name == name {
            let rel = s.relationships[i]
            for t in Int(rel.targetStart)..<Int(rel.targetStart + rel.targetCount) {
                let target = graph.resolvedRow(s.linkage[t])
                if target >= 0 { out.append(Int(target)) }
            }
        }
        return out
    }

    // MARK: - Resource objects

    /// `{"type":…,"id":…,"attributes":{…},"relationships":{…},"links":…,"meta":…,…}`, with
    /// the members the input had, filtered by the type's sparse fieldset.
    func writeResource(_ row: Int, _ writer: ResourceWriter, _ parts: ResourceParts) throws(JSONAPIError) {
        let s = storage
        parts.fill(row: row, of: s)
        let record = s.resources[row]
        parts.place = record.place
        var attributes = parts.attributes
        var relationships = Array(parts.relationships)
        var hadRelationships = record.flags & GraphStorage.ResourceRecord.hasRelationships != 0
        var edited: EditOverlay.Edit? = nil
        if let overlay, let e = overlay.edit(for: row) {
            edited = e
            hadRelationships = hadRelationships || !e.relationships.isEmpty
        }
        let fieldset = options.fields[String(decoding: parts.type, as: UTF8.self)]

        out.write(#"{"type":"#)
        writer.writeQuoted(parts.type)
        JSONEscaping.appendIDs(id: parts.id, lid: parts.lid, to: &out.buffer)

        // Attributes: stored ones (minus replaced names), then edits; filtered.
        if attributes != nil || !(edited?.attributes.isEmpty ?? true) {
            var members: [(name: [UInt8], value: [UInt8])] = []
            if let a = attributes {
                StoredJSON.forEachMember(a, 0..<a.count) { name, value in
                    let raw = Array(StoredJSON.decodeString(a, name).utf8)
                    members.append((raw, Array(UnsafeRawBufferPointer(rebasing: a[value]))))
                    return true
                }
            }
            if let edited {
                for (name, value) in edited.attributes {
                    let raw = Array(name.utf8)
                    if let i = members.firstIndex(where: { $0.name == raw }) { members[i].value = value } else { members.append((raw, value)) }
                }
            }
            if let fieldset { members = members.filter { fieldset.contains(String(decoding: $0.name, as: UTF8.self)) } }
            if !(fieldset != nil && members.isEmpty) {
                out.write(#","attributes":"#)
                let text = JSONObjectText(members)
                try text.withBytes { (b) throws(JSONAPIError) in
                    try writer.writeObject(b, formatNames: true, what: "attribute", at: parts, pointer: "/attributes")
                }
            }
            attributes = nil
        }

        // Relationships: stored ones (minus replaced), then edits; filtered.
        if let fieldset {
            relationships = relationships.filter { fieldset.contains(String(decoding: $0.name, as: UTF8.self)) }
        }
        let editedRelationships = (edited?.relationships ?? []).filter { fieldset?.contains($0.name) ?? true }
        let replaced = Set(editedRelationships.map(\.name))
        relationships = relationships.filter { !replaced.contains(String(decoding: $0.name, as: UTF8.self)) }
        if hadRelationships && !(fieldset != nil && relationships.isEmpty && editedRelationships.isEmpty) {
            out.write(#","relationships":{"#)
            var firstRelationship = true
            for rel in relationships {
                if !firstRelationship { out.write(byte: UInt8(ascii: ",")) }
                firstRelationship = false
                var name: [UInt8] = []
                if writer.options.formatName(rel.name, into: &name) { name.withUnsafeBytes { writer.writeQuoted($0) } } else { writer.writeQuoted(rel.name) }
                out.write(byte: UInt8(ascii: ":"))
                try writer.writeRelationshipObject(rel, parts)
            }
            for rel in editedRelationships {
                if !firstRelationship { out.write(byte: UInt8(ascii: ",")) }
                firstRelationship = false
                var name = rel.name
                name.withUTF8 { writer.writeQuoted(UnsafeRawBufferPointer($0)) }
                out.write(byte: UInt8(ascii: ":"))
                rel.value.withUnsafeBytes { out.write($0) }
            }
            out.write(byte: UInt8(ascii: "}"))
        }
        if let l = parts.links { out.write(#","links":"#); out.write(l) }
        if let m = parts.meta {
            out.write(#","meta":"#)
            try writer.writeObject(m, formatNames: true, what: "meta member", at: parts, pointer: "/meta")
        }
        for k in parts.resourceExtras { out.write(byte: UInt8(ascii: ",")); out.write(parts.extras[k]) }
        out.write(byte: UInt8(ascii: "}"))
    }

    // MARK: - Top level

    private func writeTopLevel(comma: () -> Void, _ writer: ResourceWriter, _ parts: ResourceParts) throws(JSONAPIError) {
        let s = storage
        let all = s.values.bytes(in: 0..<s.values.count)
        parts.place = .document
        let named: [(StaticString, KeyPath<GraphStorage.DocumentRecord, ValueSpan>)] = [("meta", \.meta), ("links", \.links), ("jsonapi", \.jsonapi)]
        for (name, path) in named {
            let spans = s.documents.map { $0[keyPath: path] }.filter { !$0.isNone }
            guard !spans.isEmpty else { continue }
            comma()
            out.write(byte: UInt8(ascii: "\""))
            out.write(name)
            out.write("\":")
            let isMeta = name.utf8CodeUnitCount == 4 && name.description == "meta"
            if spans.count == 1 || spans.contains(where: { all[$0.start] != UInt8(ascii: "{") }) {
                try writer.writeObject(UnsafeRawBufferPointer(rebasing: all[spans.last!.range]), formatNames: isMeta, what: "meta member", at: parts, pointer: "/\(name)")
                continue
            }
            let merged = FlatJSONWriter.merge(spans.map { StoredJSON.members(all, $0.range) }, all)
            let text = JSONObjectText(
                merged.map { (Array(UnsafeRawBufferPointer(rebasing: all[$0.name]).dropFirst().dropLast()), Array(UnsafeRawBufferPointer(rebasing: all[$0.value]))) }, namesAreEscaped: true)
            try text.withBytes { (b) throws(JSONAPIError) in
                try writer.writeObject(b, formatNames: isMeta, what: "meta member", at: parts, pointer: "/\(name)")
            }
        }
        let errorSpans = s.documents.map(\.errors).filter { !$0.isNone }
        if !errorSpans.isEmpty {
            comma()
            out.write(#""errors":["#)
            FlatJSONWriter.writeErrorObjects(errorSpans, all, to: out)
            out.write(byte: UInt8(ascii: "]"))
        }
        let hasResults = s.documents.contains { $0.atomicResults >= 0 }
        for m in FlatJSONWriter.mergedDocumentExtras(s, all) {
            comma()
            out.write(UnsafeRawBufferPointer(rebasing: all[m.name]))
            out.write(byte: UInt8(ascii: ":"))
            if hasResults && StoredJSON.nameEquals(all, m.name, staticBytes("atomic:results")) {
                try writeResults(all, m.value, writer, parts)
            } else {
                out.write(UnsafeRawBufferPointer(rebasing: all[m.value]))
            }
        }
    }
}

/// A JSON object's text built from raw member names (escaped here) and value texts.
struct JSONObjectText: ~Copyable {
    var arena = ByteArena(capacity: 256)

    init(_ members: [(name: [UInt8], value: [UInt8])], namesAreEscaped: Bool = false) {
        arena.append(UInt8(ascii: "{"))
        for (i, m) in members.enumerated() {
            if i > 0 { arena.append(UInt8(ascii: ",")) }
            if namesAreEscaped {
                arena.append(UInt8(ascii: "\""))
                m.name.withUnsafeBytes { arena.append($0) }
                arena.append(UInt8(ascii: "\""))
            } else {
                m.name.withUnsafeBytes { JSONEscaping.appendQuoted($0, to: &arena) }
            }
            arena.append(UInt8(ascii: ":"))
            m.value.withUnsafeBytes { arena.append($0) }
        }
        arena.append(UInt8(ascii: "}"))
    }

    func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try arena.withBytes(body)
    }
}
