/// One relationship of a ``ResourceView``.
public struct StreamedRelationship: Sendable, Hashable {
    /// The relationship's name.
    public var name: String
    /// Whether `data` was absent, `null`, one identifier or an array.
    public var kind: LinkageKind
    /// The linkage in order (empty for absent and `null`).
    public var targets: [ResourceIdentifier]
    /// The relationship's `links`, decoded (nil when absent).
    public var links: JSONValue?
    /// The relationship's `meta`, decoded (nil when absent).
    public var meta: JSONValue?
}

/// A resource as a ``DocumentStream`` reads it: views of its parts in the stream's memory,
/// valid only during ``StreamSink/resource(_:)``. Reading a part decodes only that part;
/// numbers keep their exact text.
public final class ResourceView {
    /// The parts as byte views (for the package's own sinks, such as the database loader).
    package let parts = ResourceParts()
    private let text = ByteWriter()
    private lazy var writer = ResourceWriter(out: text, options: OutputOptions())
    private var textWritten = false
    /// The number of the document the resource is in (0 for the first read by the stream).
    public private(set) var documentIndex = 0
    /// The input's name (as given to ``DocumentStream/beginInput(named:)`` or the source).
    public private(set) var source: String?

    init() {}

    func fill(_ r: ResourceDraft, in a: borrowing DraftArenas, source: String?) {
        parts.fill(r, in: a)
        parts.place = r.place
        documentIndex = r.documentIndex
        self.source = source
        textWritten = false
    }

    /// The resource type.
    public var type: String { String(decoding: parts.type, as: UTF8.self) }
    /// The id (nil when it has none).
    public var id: String? { parts.id.map { String(decoding: $0, as: UTF8.self) } }
    /// The local id (nil when it has none).
    public var lid: String? { parts.lid.map { String(decoding: $0, as: UTF8.self) } }
    /// Its type, id and lid.
    public var identifier: ResourceIdentifier { ResourceIdentifier(type: type, id: id, lid: lid) }
    /// Whether the resource is in `data` (not `included`).
    public var isPrimary: Bool { parts.isPrimary }
    /// Where the resource object starts in its input.
    public var position: SourcePosition { parts.position }
    /// Its JSON pointer in the document (`/data/3`, `/included/0`).
    public var pointer: String { parts.pointer }

    /// The `attributes` object, decoded (nil when the resource had none).
    public var attributes: JSONValue? { parts.attributes.map { StoredJSON.decode($0, 0..<$0.count) } }

    /// One attribute, decoded (nil when the resource does not have it).
    public func attribute(_ name: String) -> JSONValue? {
        guard let a = parts.attributes, a.first == UInt8(ascii: "{") else { return nil }
        var found: JSONValue? = nil
        var name = name
        name.withUTF8 { raw in
            StoredJSON.forEachMember(a, 0..<a.count) { n, v in
                guard StoredJSON.nameEquals(a, n, UnsafeRawBufferPointer(raw)) else { return true }
                found = StoredJSON.decode(a, v)
                return false
            }
        }
        return found
    }

    /// The `links` object, decoded (nil when absent).
    public var links: JSONValue? { parts.links.map { StoredJSON.decode($0, 0..<$0.count) } }
    /// The `meta` object, decoded (nil when absent).
    public var meta: JSONValue? { parts.meta.map { StoredJSON.decode($0, 0..<$0.count) } }

    /// The relationships, in order.
    public var relationships: [StreamedRelationship] {
        parts.relationships.map { rel in
            StreamedRelationship(
                name: String(decoding: rel.name, as: UTF8.self), kind: rel.kind,
                targets: rel.targets.map { k in
                    let t = parts.identifiers[k]
                    return ResourceIdentifier(
                        type: String(decoding: t.type, as: UTF8.self), id: t.id.map { String(decoding: $0, as: UTF8.self) },
                        lid: t.lid.map { String(decoding: $0, as: UTF8.self) })
                },
                links: rel.links.map { StoredJSON.decode($0, 0..<$0.count) },
                meta: rel.meta.map { StoredJSON.decode($0, 0..<$0.count) })
        }
    }

    /// The resource object as minified JSON text, values exactly as in the input: `type`,
    /// `id`, `lid`, `attributes`, `relationships` (both always present), `links`, `meta` and
    /// unknown members, in that order; valid during the call.
    public func withJSONText<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        if !textWritten {
            text.buffer.removeAll()
            text.write(#"{"type":"#)
            writer.writeQuoted(parts.type)
            JSONEscaping.appendIDs(id: parts.id, lid: parts.lid, to: &text.buffer)
            // Names are written as they are (no --keys), so nothing can collide: no error.
            do throws(JSONAPIError) { try writer.writeBody(parts, reserved: []) } catch {}
            text.write(byte: UInt8(ascii: "}"))
            textWritten = true
        }
        return try text.buffer.withBytes(body)
    }

    /// The resource object as minified JSON text (see ``withJSONText(_:)``).
    public var jsonText: String { withJSONText { String(decoding: $0, as: UTF8.self) } }

    /// The resource object, decoded.
    public var jsonValue: JSONValue { withJSONText { StoredJSON.decode($0, 0..<$0.count) } }
}

/// A document's top level as a ``DocumentStream`` reads it, when the document closes; valid
/// only during ``StreamSink/document(_:)``.
public final class DocumentView {
    private var store = UnsafeRawBufferPointer(start: nil, count: 0)
    private var draft = DocumentDraft()
    /// The input's name.
    public private(set) var source: String?

    init() {}

    func fill(_ d: DocumentDraft, in a: borrowing DraftArenas, source: String?) {
        draft = d
        store = a.store.bytes(in: 0..<a.store.count)
        self.source = source
    }

    func clear() { store = UnsafeRawBufferPointer(start: nil, count: 0) }

    private func value(_ span: ValueSpan) -> JSONValue? {
        // Not `? nil :`, which JSONValue's nil literal would turn into `.null`.
        guard !span.isNone else { return Optional.none }
        return StoredJSON.decode(store, span.range)
    }

    /// The document's number among all read by the stream (0 for the first).
    public var index: Int { draft.index }
    /// Where the document starts in its input.
    public var position: SourcePosition { draft.position }
    /// Whether `data` was absent, `null`, one resource or an array.
    public var primaryShape: PrimaryDataShape { draft.primaryShape }
    /// The top-level `meta`, decoded (nil when absent).
    public var meta: JSONValue? { value(draft.meta) }
    /// The top-level `links` (nil when absent).
    public var links: JSONValue? { value(draft.links) }
    /// The `jsonapi` object (nil when absent).
    public var jsonapi: JSONValue? { value(draft.jsonapi) }
    /// The `errors` array (nil when absent).
    public var errors: JSONValue? { value(draft.errors) }
    /// Unknown and `@`-members of the top level.
    public var otherMembers: [(name: String, value: JSONValue)] {
        draft.extras.map { span in
            let b = UnsafeRawBufferPointer(rebasing: store[span.range])
            let end = StoredJSON.skipString(b, at: 0)
            return (StoredJSON.decodeString(b, 0..<end), StoredJSON.decode(b, (end + 1)..<b.count))
        }
    }
}
