/// Options for the flat JSON, NDJSON and edge writers (`jsonapi normalize`).
public struct OutputOptions: Sendable, Hashable {
    /// Rewrites attribute, relationship and meta member names.
    public var keys = KeyFormat.asIs
    /// Rewrites the same names with your own function instead of ``keys`` (library use; the
    /// same ``KeyFormatter`` that typed decoding and encoding take).
    public var keyFormatter: KeyFormatter? = nil
    /// Adds `"hash"` to each NDJSON resource line.
    public var hash = false
    /// NDJSON: no document lines.
    public var resourcesOnly = false
    /// How numbers are written: as in the input (the default), or as strings when a
    /// double would change them.
    public var numbers = NumberPolicy.exact
    /// Only resources of these types are written (`nil`: every type). Primary data in the
    /// document lines and the flat object's `data` stay whole.
    public var types: Set<String>? = nil
    /// For a type, the attributes and relationships to keep (as a sparse fieldset would);
    /// types not named keep all of theirs. `type`, `id`, `lid`, `links`, `meta` and unknown
    /// members are always kept.
    public var keepFields: [String: Set<String>] = [:]

    /// The defaults: names as they are, numbers exact, no hash, every resource.
    public init() {}

    /// Whether any selection applies.
    var selects: Bool { types != nil || !keepFields.isEmpty }

    /// Whether member names are rewritten (``keys`` or ``keyFormatter``).
    var formatsNames: Bool { keyFormatter != nil || keys != .asIs }

    /// The rewriting, as messages name it.
    var keysDescription: String { keyFormatter != nil ? "the key formatter" : "--keys \(keys.rawValue)" }

    /// `name` rewritten into `out`; `false` (and `out` empty) when it stays as it is.
    func formatName(_ name: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        guard let keyFormatter else { return keys.apply(name, into: &out) }
        out.removeAll(keepingCapacity: true)
        let wire = keyFormatter.wireName(for: String(decoding: name, as: UTF8.self))
        if wire.utf8.elementsEqual(name) { return false }
        out.append(contentsOf: wire.utf8)
        return true
    }

    /// `name` rewritten.
    func formatName(_ name: String) -> String {
        keyFormatter?.wireName(for: name) ?? keys.apply(name)
    }
}

/// ``OutputOptions/types`` and ``OutputOptions/keepFields`` as bytes, for the writers.
struct Selection {
    private let types: [[UInt8]]?
    private let fields: [(type: [UInt8], names: [[UInt8]])]

    init(_ options: OutputOptions) {
        types = options.types.map { $0.map { Array($0.utf8) } }
        fields = options.keepFields.map { (Array($0.key.utf8), $0.value.map { Array($0.utf8) }) }
    }

    /// Whether resources of `type` are written.
    func selects(_ type: UnsafeRawBufferPointer) -> Bool {
        guard let types else { return true }
        return types.contains { $0.withUnsafeBytes { memoryEqual($0, type) } }
    }

    /// The names to keep for `type`, or nil when all are kept.
    func fields(of type: UnsafeRawBufferPointer) -> [[UInt8]]? {
        fields.first { $0.type.withUnsafeBytes { memoryEqual($0, type) } }?.names
    }
}

/// Writes the parts of resources as the output contract says (`docs/output-contract.md`): values are
/// copied from the value store as they are (numbers as in the input, strings minimally
/// escaped, member order kept); only member names are rewritten for `--keys`.
final class ResourceWriter {
    let out: ByteWriter
    let options: OutputOptions
    @exclusivity(unchecked) private var name: [UInt8] = []
    @exclusivity(unchecked) private var seenNames: [[UInt8]] = []
    // `--hash` (ResourceWriter+Hash.swift): the canonical form, the line it is read from when
    // it cannot be written from the parts, the canonical form's working stacks, the
    // relationship names being ordered, and the digest.
    @exclusivity(unchecked) var canonical = ByteArena(capacity: 1024)
    @exclusivity(unchecked) var hashed = ByteArena(capacity: 1024)
    @exclusivity(unchecked) var canonicalizer = Canonical()
    @exclusivity(unchecked) var relationshipNames = ByteArena(capacity: 256)
    @exclusivity(unchecked) var relationshipOrder = UnsafeStack<CanonicalName>(capacity: 16)
    /// Made at the first hash (`--hash`), which loads libcrypto.
    var hasher: SHA256Hasher?

    init(out: ByteWriter, options: OutputOptions) {
        self.out = out
        self.options = options
        name.reserveCapacity(64)
    }

    // MARK: - NDJSON

    /// `{"type":…,"id":…,"primary":…,"attributes":{…},"relationships":{…},…}` and a newline.
    func writeLine(_ p: ResourceParts) throws(JSONAPIError) {
        let lineStart = out.mark
        JSONEscaping.appendMember(#"{"type":"#, quoting: p.type, to: &out.buffer)
        writeIDs(p.id, p.lid)
        let identityEnd = out.mark
        out.write(p.isPrimary ? #","primary":true"# : #","primary":false"#)
        let contentStart = out.mark
        try writeBody(p, reserved: Self.lineMembers)
        if options.hash {
            try writeHash(p, line: lineStart, identityEnd: identityEnd, content: contentStart)
        }
        out.write("}\n")
    }

    /// The members an NDJSON resource line adds, which a resource's own members may not use.
    static let lineMembers = ["primary", "hash", "document"]

    /// The members after the identity: attributes, relationships, links, meta, unknown ones.
    func writeBody(_ p: ResourceParts, reserved: [String]) throws(JSONAPIError) {
        if p.readsDraft { try writeBody(p, reserved: reserved, p.draftAccess) } else { try writeBody(p, reserved: reserved, p.listAccess) }
    }

    private func writeBody<A: PartsAccess>(_ p: ResourceParts, reserved: [String], _ a: A) throws(JSONAPIError) {
        out.write(#","attributes":"#)
        if let a = p.attributes {
            try writeObject(a, formatNames: true, what: "attribute", at: p, pointer: "/attributes")
        } else {
            out.write("{}")
        }
        out.write(#","relationships":{"#)
        seenNames.clearKeepingCapacity()
        let formatsNames = options.formatsNames
        for i in 0..<a.relationshipCount {
            let rel = a.relationship(i)
            // Names as they are (the usual case) need no comparing: distinct in the input.
            if formatsNames {
                if i > 0 { out.write(byte: UInt8(ascii: ",")) }
                try formattedName(rel.name, what: "relationship", at: p, pointer: "/relationships")
                out.write(byte: UInt8(ascii: ":"))
            } else {
                JSONEscaping.appendName(rel.name, comma: i > 0, to: &out.buffer)
            }
            try writeRelationshipObject(rel, p, a)
        }
        out.write(byte: UInt8(ascii: "}"))
        if let l = p.links {
            out.write(#","links":"#)
            out.write(l)
        }
        if let m = p.meta {
            out.write(#","meta":"#)
            try writeObject(m, formatNames: true, what: "meta member", at: p, pointer: "/meta")
        }
        for k in p.resourceExtras {
            let member = a.extra(k)
            if !reserved.isEmpty {
                let n = memberName(member)
                if reserved.contains(n) {
                    throw collision("the resource member \(quoted(n)) collides with the \(quoted(n)) the output adds", p, "/" + n)
                }
            }
            out.write(byte: UInt8(ascii: ","))
            out.write(member)
        }
    }

    /// `{"data":…,"links":…,"meta":…,…}`; `data` only when the input had it. `rel` is one of
    /// `p`'s ``ResourceParts/relationships``.
    func writeRelationshipObject(_ rel: ResourceParts.Relationship, _ p: ResourceParts) throws(JSONAPIError) {
        try writeRelationshipObject(rel, p, p.listAccess)
    }

    private func writeRelationshipObject<A: PartsAccess>(_ rel: ResourceParts.Relationship, _ p: ResourceParts, _ a: A) throws(JSONAPIError) {
        // `data` comes first: the object's brace and the member's name are written with it.
        var first = false
        func comma() { if !first { out.write(byte: UInt8(ascii: ",")) }; first = false }
        switch rel.kind {
        case .absent:
            out.write(byte: UInt8(ascii: "{"))
            first = true
        case .null: out.write(#"{"data":null"#)
        case .toOne:
            try writeIdentifier(a.identifier(rel.targets.lowerBound), p, a, after: #"{"data":{"type":"#)
        case .toMany:
            if rel.targets.isEmpty { out.write(#"{"data":["#) }
            for (i, k) in rel.targets.enumerated() {
                try writeIdentifier(a.identifier(k), p, a, after: i == 0 ? #"{"data":[{"type":"# : #",{"type":"#)
            }
            out.write(byte: UInt8(ascii: "]"))
        }
        if let l = rel.links { comma(); out.write(#""links":"#); out.write(l) }
        if let m = rel.meta {
            comma()
            out.write(#""meta":"#)
            try writeObject(m, formatNames: true, what: "meta member", at: p, pointer: "/relationships")
        }
        for k in rel.extras { comma(); out.write(a.extra(k)) }
        out.write(byte: UInt8(ascii: "}"))
    }

    /// `{"type":…,"id":…}` with `lid`, `meta` and unknown members when present; `lead` is what
    /// comes before the type's value, from `{"type":` back to what precedes it in the
    /// relationship object (one check for room covers it; inlined, so its length is known).
    @inline(__always)
    private func writeIdentifier<A: PartsAccess>(_ t: ResourceParts.Identifier, _ p: ResourceParts, _ a: A, after lead: StaticString) throws(JSONAPIError) {
        JSONEscaping.appendMember(lead, quoting: t.type, to: &out.buffer)
        writeIDs(t.id, t.lid)
        if let m = t.meta {
            out.write(#","meta":"#)
            try writeObject(m, formatNames: true, what: "meta member", at: p, pointer: "/relationships")
        }
        for k in t.extras { out.write(byte: UInt8(ascii: ",")); out.write(a.extra(k)) }
        out.write(byte: UInt8(ascii: "}"))
    }

    /// A bare identifier of a resource: `{"type":…,"id":…}`.
    func writeResourceIdentifier(_ p: ResourceParts) {
        JSONEscaping.appendIdentifier(type: p.type, id: p.id, lid: p.lid, to: &out.buffer)
    }

    // MARK: - Edges

    /// One line per linkage entry: `{"from":{…},"relationship":…,"to":{…},"position":N}`.
    func writeEdges(_ p: ResourceParts) throws(JSONAPIError) {
        if p.readsDraft { try writeEdges(p, p.draftAccess) } else { try writeEdges(p, p.listAccess) }
    }

    private func writeEdges<A: PartsAccess>(_ p: ResourceParts, _ a: A) throws(JSONAPIError) {
        seenNames.clearKeepingCapacity()
        for i in 0..<a.relationshipCount {
            let rel = a.relationship(i)
            guard rel.kind == .toOne || rel.kind == .toMany else { continue }
            for (position, k) in rel.targets.enumerated() {
                let t = a.identifier(k)
                out.write(#"{"from":"#)
                writeResourceIdentifier(p)
                out.write(#","relationship":"#)
                if options.formatName(rel.name, into: &name) {
                    name.withUnsafeBytes { writeQuoted($0) }
                } else {
                    writeQuoted(rel.name)
                }
                out.write(#","to":"#)
                JSONEscaping.appendIdentifier(type: t.type, id: t.id, lid: t.lid, to: &out.buffer)
                out.write(#","position":"#)
                out.write(String(position))
                if let m = t.meta {
                    out.write(#","meta":"#)
                    try writeObject(m, formatNames: true, what: "meta member", at: p, pointer: "/relationships")
                }
                out.write("}\n")
                try out.endRecord()
            }
        }
    }

    // MARK: - Pieces

    @inline(__always)
    func writeQuoted(_ bytes: UnsafeRawBufferPointer) {
        JSONEscaping.appendQuoted(bytes, to: &out.buffer)
    }

    private func writeIDs(_ id: UnsafeRawBufferPointer?, _ lid: UnsafeRawBufferPointer?) {
        JSONEscaping.appendIDs(id: id, lid: lid, to: &out.buffer)
    }

    /// Writes a stored object, rewriting its member names (not nested ones) when keys are
    /// formatted; two names that become equal are an error (`N04`).
    func writeObject(_ value: UnsafeRawBufferPointer, formatNames: Bool, what: String, at p: ResourceParts, pointer: String) throws(JSONAPIError) {
        guard formatNames && options.formatsNames, value.first == UInt8(ascii: "{") else {
            out.write(value)
            return
        }
        var failure: JSONAPIError? = nil
        var names: [[UInt8]] = []
        out.write(byte: UInt8(ascii: "{"))
        var first = true
        StoredJSON.forEachMember(value, 0..<value.count) { nameRange, valueRange in
            let raw = StoredJSON.decodeString(value, nameRange)
            let formatted = options.formatName(raw)
            let bytes = Array(formatted.utf8)
            if names.contains(bytes) {
                failure = collision("two \(what) names become \(JSONEscaping.quotedString(formatted)) with \(options.keysDescription)", p, pointer + "/" + escapePointerToken(raw))
                return false
            }
            names.append(bytes)
            if !first { out.write(byte: UInt8(ascii: ",")) }
            first = false
            bytes.withUnsafeBytes { writeQuoted($0) }
            out.write(byte: UInt8(ascii: ":"))
            out.write(UnsafeRawBufferPointer(rebasing: value[valueRange]))
            return true
        }
        if let failure { throw failure }
        out.write(byte: UInt8(ascii: "}"))
    }

    /// Writes a relationship name, formatted, refusing two that become equal.
    /// (Called when names are formatted: names as they are are distinct in the input, where
    /// duplicates are refused, so nothing is compared.)
    private func formattedName(_ raw: UnsafeRawBufferPointer, what: String, at p: ResourceParts, pointer: String) throws(JSONAPIError) {
        // The name as written (`apply` leaves `name` empty when the name is unchanged).
        if !options.formatName(raw, into: &name) { name.append(contentsOf: raw) }
        if seenNames.contains(name) {
            throw collision("two \(what) names become \(JSONEscaping.quotedString(String(decoding: name, as: UTF8.self))) with \(options.keysDescription)", p, pointer)
        }
        seenNames.append(name)
        name.withUnsafeBytes { writeQuoted($0) }
    }

    private func memberName(_ member: UnsafeRawBufferPointer) -> String {
        let end = StoredJSON.skipString(member, at: 0)
        return StoredJSON.decodeString(member, 0..<end)
    }

    private func collision(_ message: String, _ p: ResourceParts, _ pointer: String) -> JSONAPIError {
        .document(Diagnostic(severity: .error, rule: .N04, message: message, location: p.position, pointer: p.pointer + pointer))
    }
}

extension JSONEscaping {
    /// `s` as a quoted JSON string (for messages).
    static func quotedString(_ s: String) -> String {
        var a = ByteArena(capacity: s.utf8.count + 2)
        var s = s
        s.withUTF8 { appendQuoted(UnsafeRawBufferPointer($0), to: &a) }
        return a.string(0..<a.count)
    }
}
