/// A to-one relationship as a model property, resolved only when asked: declare
/// `let author: ToOne<Person>` to keep the identifier and decode the person later (or
/// never), and to break cycles (an article's comments pointing back at the article).
///
/// ```swift
/// struct Comment: Decodable {
///     let body: String
///     let article: ToOne<Article>
/// }
/// let comment = try resource.decode(Comment.self)
/// print(comment.article.identifier ?? "none")       // articles/1, nothing decoded
/// let article = try comment.article.decode()        // Article?, decoded now
/// ```
///
/// Decodes from a relationship whose `data` is one resource identifier, `null`, or absent.
public struct ToOne<Model: Decodable>: Decodable, Sendable, Hashable, CustomStringConvertible {
    /// The relationship: its linkage, links and meta.
    public let relationship: Relationship
    let options: DecodingOptions

    public init(from decoder: any Decoder) throws {
        guard let d = ResourceDecoder.unwrap(decoder) else { throw notFromGraph(Self.self, decoder) }
        let rel = try d.relationship(Self.self, d.node, d.here)
        guard rel.kind != .toMany else {
            throw d.relationshipShape(Self.self, rel.record, d.here, wanted: "a to-one relationship")
        }
        relationship = rel
        options = d.options
    }

    /// The identifier of the related resource; `nil` when `data` is `null` or absent.
    public var identifier: ResourceIdentifier? { relationship.kind == .toOne ? relationship.identifiers.first : nil }

    /// The resource linkage entry: the identifier with its own `meta`
    /// (`{"type":"people","id":"9","meta":{"role":"editor"}}`), whether or not the document
    /// included the resource; `nil` when `data` is `null` or absent.
    public var linkage: Linkage? { relationship.kind == .toOne ? relationship.linkage.first : nil }

    /// The identifier's `meta` (not the relationship's, which is `relationship.meta`).
    public var identifierMeta: LazyValue? { linkage?.meta }

    /// The related resource, when the document included it.
    public var resource: Resource? { relationship.resource }

    /// Decodes the related resource with the options this handle was decoded with; `nil`
    /// when `data` is `null` or absent, or when the resource was not included.
    public func decode() throws -> Model? {
        guard let r = resource else { return nil }
        return try r.decode(Model.self, options: options)
    }

    public var description: String { "ToOne(\(identifier.map { "\($0)" } ?? "null"))" }

    public static func == (a: ToOne, b: ToOne) -> Bool {
        a.relationship.graph.storage === b.relationship.graph.storage && a.relationship.index == b.relationship.index
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(relationship.index) }
}

/// A to-many relationship as a model property, resolved only when asked: declare
/// `let comments: ToMany<Comment>` to keep the identifiers and decode the comments later.
///
/// Decodes from a relationship whose `data` is an array of resource identifiers, or absent
/// (then it has no identifiers).
public struct ToMany<Model: Decodable>: Decodable, Sendable, Hashable, CustomStringConvertible {
    /// The relationship as the graph has it (its linkage, links and meta).
    public let relationship: Relationship
    let options: DecodingOptions
    /// The resource that has this relationship (for error messages).
    let ownerRow: Int

    public init(from decoder: any Decoder) throws {
        guard let d = ResourceDecoder.unwrap(decoder) else { throw notFromGraph(Self.self, decoder) }
        let rel = try d.relationship(Self.self, d.node, d.here)
        guard rel.kind == .toMany || rel.kind == .absent else {
            throw d.relationshipShape(Self.self, rel.record, d.here, wanted: "a to-many relationship")
        }
        relationship = rel
        options = d.options
        ownerRow = d.row
    }

    /// The number of identifiers in the resource linkage.
    public var count: Int { Int(relationship.record.targetCount) }

    /// The identifiers of the resource linkage, in order.
    public var identifiers: [ResourceIdentifier] { relationship.identifiers }

    /// The resource linkage entries in order: each identifier with its own `meta`, whether or
    /// not the document included the resource.
    public var linkage: [Linkage] { relationship.linkage }

    /// The related resources in linkage order; `nil` where one was not included.
    public var resources: [Resource?] { relationship.resources }

    /// Decodes every related resource, in linkage order.
    ///
    /// - Throws: `DecodingError.valueNotFound` when one of them was not included (use
    ///   ``decodeIncluded()`` to skip those).
    public func decode() throws -> [Model] {
        let node = DecodingNode.relationship(relationship.index)
        let path = PathNode(parent: nil, key: nil, segment: .relationship(relationship.record.name), row: ownerRow)
        let d = ResourceDecoder(graph: relationship.graph, options: options, node: node, path: path, row: ownerRow)
        return try d.reusingKeyedContainers { try d.decodeNested([Model].self, node: node, path: path, row: ownerRow) }
    }

    /// Decodes the related resources the document included, in linkage order.
    public func decodeIncluded() throws -> [Model] {
        try resources.compactMap { try $0?.decode(Model.self, options: options) }
    }

    public var description: String { "ToMany(\(identifiers.map(\.description).joined(separator: ", ")))" }

    public static func == (a: ToMany, b: ToMany) -> Bool {
        a.relationship.graph.storage === b.relationship.graph.storage && a.relationship.index == b.relationship.index
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(relationship.index) }
}

extension ToOne: GraphIntrinsic {}
extension ToMany: GraphIntrinsic {}

func notFromGraph(_ type: Any.Type, _ decoder: any Decoder) -> DecodingError {
    .typeMismatch(
        type,
        DecodingError.Context(
            codingPath: decoder.codingPath,
            debugDescription: "\(type) decodes only from a JSONAPIStream Graph (Resource.decode, Graph.decode), not from \(Swift.type(of: decoder))"))
}
