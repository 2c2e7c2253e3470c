/// A resource identifier: type plus id, or type plus local id (`lid`) for a resource a
/// client creates.
public struct ResourceIdentifier: Hashable, Sendable, CustomStringConvertible {
    /// The resource type.
    public var type: String
    /// The id (nil for a resource known only by its `lid`).
    public var id: String?
    /// The local id, when it has one.
    public var lid: String?

    /// The identifier of the resource with this type and id.
    public init(type: String, id: String) {
        self.type = type
        self.id = id
    }

    /// An identifier with these members.
    public init(type: String, id: String?, lid: String?) {
        self.type = type
        self.id = id
        self.lid = lid
    }

    public var description: String {
        if let id { return "\(type)/\(id)" }
        return "\(type)/lid:\(lid ?? "")"
    }
}

/// A view of one resource in a ``Graph``: cheap to copy, decodes only what is read.
public struct Resource: Sendable, Hashable, CustomStringConvertible {
    /// The graph the resource is in.
    public let graph: Graph
    /// The resource's row in the graph (its index in ``Graph/resources``).
    public let row: Int

    init(graph: Graph, row: Int) {
        self.graph = graph
        self.row = row
    }

    public static func == (a: Resource, b: Resource) -> Bool { a.graph.storage === b.graph.storage && a.row == b.row }
    public func hash(into hasher: inout Hasher) { hasher.combine(row) }

    var record: GraphStorage.ResourceRecord { graph.storage.resources[row] }

    /// Its type.
    public var type: String { graph.storage.type(row: row) }

    /// The id, or `nil` for a new resource known only by its `lid`.
    public var id: String? { graph.storage.id(row: row) }

    /// The local id (`lid`), when the resource object had one.
    public var lid: String? { graph.storage.lid(row: row) }

    /// Its type, id and lid.
    public var identifier: ResourceIdentifier { graph.storage.identifier(row: row) }

    /// Whether the resource was in primary data (of any document read).
    public var isPrimary: Bool { record.flags & GraphStorage.ResourceRecord.primary != 0 }
    /// Whether the resource was in `included` (of any document read).
    public var isIncluded: Bool { record.flags & GraphStorage.ResourceRecord.included != 0 }

    /// The attributes, decoded lazily.
    public var attributes: LazyValue {
        let span = graph.storage.span(record.attributes)
        return span.isNone ? LazyValue(detached: .object(JSONObject())) : LazyValue(storage: graph.storage, span: span)
    }

    /// Whether the resource object had an `attributes` member.
    public var hasAttributes: Bool { !record.attributes.isNone }

    /// Its `links` object (nil when absent).
    public var links: LazyValue? { graph.storage.lazyValue(record.links) }
    /// Its `meta` object (nil when absent).
    public var meta: LazyValue? { graph.storage.lazyValue(record.meta) }

    /// The relationships, in input order.
    public var relationships: [Relationship] {
        let r = record
        return (Int(r.relationshipStart)..<Int(r.relationshipStart + r.relationshipCount)).map { Relationship(graph: graph, index: $0) }
    }

    /// The relationship named `name`.
    public func relationship(_ name: String) -> Relationship? {
        guard let symbol = graph.storage.symbols.find(name) else { return nil }
        let r = record
        for i in Int(r.relationshipStart)..<Int(r.relationshipStart + r.relationshipCount)
        where graph.storage.relationships[i].name == symbol {
            return Relationship(graph: graph, index: i)
        }
        return nil
    }

    /// Unknown and `@`-members of the resource object, in order.
    public var otherMembers: [(name: String, value: LazyValue)] {
        graph.storage.members[graph.storage.resourceExtras[row]].map {
            LazyValue.member(storage: graph.storage, span: $0)
        }
    }

    /// Where the resource object (its first occurrence) starts in its input.
    public var position: SourcePosition { graph.storage.position(record.position) }

    public var description: String { identifier.description }
}

/// A relationship of a resource: its name, its resource linkage, links and meta.
public struct Relationship: Sendable, CustomStringConvertible {
    let graph: Graph
    let index: Int

    var record: GraphStorage.RelationshipRecord { graph.storage.relationships[index] }

    /// The relationship's name.
    public var name: String { graph.storage.symbols.string(of: record.name) }

    /// What the relationship's `data` was: absent, null, one identifier, or an array.
    public var kind: LinkageKind { record.kind }

    /// The resource linkage, in order.
    public var linkage: [Linkage] {
        let r = record
        return (Int(r.targetStart)..<Int(r.targetStart + r.targetCount)).map { Linkage(graph: graph, index: $0) }
    }

    /// The identifiers of the resource linkage, in order.
    public var identifiers: [ResourceIdentifier] { linkage.map(\.identifier) }

    /// The related resources, in linkage order; `nil` where a target was not included.
    public var resources: [Resource?] { linkage.map(\.resource) }

    /// The related resource of a to-one relationship, if it was included.
    public var resource: Resource? { kind == .toOne ? linkage.first?.resource : nil }

    /// Its `links` object (nil when absent).
    public var links: LazyValue? { graph.storage.lazyValue(record.links) }
    /// Its `meta` object (nil when absent).
    public var meta: LazyValue? { graph.storage.lazyValue(record.meta) }

    /// Unknown and `@`-members of the relationship object, in order.
    public var otherMembers: [(name: String, value: LazyValue)] {
        graph.storage.members[graph.storage.relationshipExtras[index]].map {
            LazyValue.member(storage: graph.storage, span: $0)
        }
    }

    public var description: String { "\(name) -> \(identifiers)" }
}

/// One entry of resource linkage: the identifier, its meta, and the resource it names.
public struct Linkage: Sendable {
    let graph: Graph
    let index: Int

    var record: GraphStorage.LinkageRecord { graph.storage.linkage[index] }

    /// The identifier of the target.
    public var identifier: ResourceIdentifier { graph.storage.identifier(linkage: index) }

    /// The resource this identifier names, when the documents held it.
    public var resource: Resource? {
        let row = graph.storage.keyRow[Int(record.key)]
        if row >= 0 { return Resource(graph: graph, row: Int(row)) }
        if record.lidKey != GraphStorage.noKey {
            let lidRow = graph.storage.keyRow[Int(record.lidKey)]
            if lidRow >= 0 { return Resource(graph: graph, row: Int(lidRow)) }
        }
        return nil
    }

    /// Identifier meta.
    public var meta: LazyValue? { graph.storage.lazyValue(record.meta) }
}

extension GraphStorage {
    /// A record's `links` or `meta`, decoded lazily; nil when absent.
    fileprivate func lazyValue(_ packed: PackedSpan) -> LazyValue? {
        let s = span(packed)
        return s.isNone ? nil : LazyValue(storage: self, span: s)
    }
}

// What `Resource` and `Linkage` read, on the storage itself: typed decoding calls these on
// its decoder's storage instead of making a `Resource` or a `Linkage`, each of which holds
// a `Graph` and so retains and releases the storage. Decoding threads share one storage,
// and that reference count, written from every core, was a contended cache line. The
// writers (`ResourceParts`, the flat JSON) read the same ids and lids as bytes: one rule
// for which key is an id and which a lid, here.
extension GraphStorage {
    /// A resource record's id and lid, as stored.
    @inline(__always)
    func identity(of r: ResourceRecord) -> (id: UnsafeRawBufferPointer?, lid: UnsafeRawBufferPointer?) {
        if r.flags & ResourceRecord.hasID != 0 {
            return (keys.bytes(of: r.key), r.lidKey == GraphStorage.noKey ? nil : keys.bytes(of: r.lidKey))
        }
        return (nil, r.flags & ResourceRecord.anonymous != 0 ? nil : keys.bytes(of: r.key))
    }

    /// A linkage record's id and lid, as stored.
    @inline(__always)
    func identity(of l: LinkageRecord) -> (id: UnsafeRawBufferPointer?, lid: UnsafeRawBufferPointer?) {
        if keyIsLid(l.key) { return (nil, keys.bytes(of: l.key)) }
        return (keys.bytes(of: l.key), l.lidKey == GraphStorage.noKey ? nil : keys.bytes(of: l.lidKey))
    }

    /// Resource `row`'s type.
    func type(row: Int) -> String { symbols.string(of: resources[row].type) }

    /// Resource `row`'s id, or `nil` for a resource known only by its `lid`.
    func id(row: Int) -> String? { identity(of: resources[row]).id.map(Self.string) }

    /// Resource `row`'s local id, when its object had one.
    func lid(row: Int) -> String? { identity(of: resources[row]).lid.map(Self.string) }

    /// Resource `row`'s type, id and lid.
    func identifier(row: Int) -> ResourceIdentifier {
        let (id, lid) = identity(of: resources[row])
        return ResourceIdentifier(type: type(row: row), id: id.map(Self.string), lid: lid.map(Self.string))
    }

    /// The identifier linkage entry `index` holds.
    func identifier(linkage index: Int) -> ResourceIdentifier {
        let l = linkage[index]
        let (id, lid) = identity(of: l)
        return ResourceIdentifier(type: symbols.string(of: keyType(l.key)), id: id.map(Self.string), lid: lid.map(Self.string))
    }

    private static func string(_ bytes: UnsafeRawBufferPointer) -> String { String(decoding: bytes, as: UTF8.self) }
}
