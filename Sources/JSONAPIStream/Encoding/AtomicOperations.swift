/// JSON:API's Atomic Operations extension (<https://jsonapi.org/ext/atomic>): several
/// writes in one request, done all or none, with local ids (`lid`) linking a resource added by
/// one operation to the operations after it.
///
/// ```swift
/// var author = EditableResource(type: "authors", lid: "a1")
/// author["name"] = "Ada"
/// var article = EditableResource(type: "articles", lid: "r1")
/// article["title"] = "Hello"
/// article.setRelationship("author", .toOne(author.identifier))   // {"type":"authors","lid":"a1"}
/// var operations = AtomicOperations()
/// try operations.add(author)
/// try operations.add(article)
/// let body = operations.document()   // {"atomic:operations":[{"op":"add","data":…},…]}
/// ```
///
/// Send it with `JSONAPIClient.send(_:to:)`, under ``AtomicOperations/mediaType``; the
/// server's `atomic:results` come back as ``AtomicResults``.
public struct AtomicOperations: Sendable {
    /// The extension's URI, as the `ext` media-type parameter and `jsonapi.ext` name it.
    public static let uri = "https://jsonapi.org/ext/atomic"
    /// The extension's namespace: its members are `atomic:operations` and `atomic:results`,
    /// and `DocumentOptions.extensions` containing it applies the extension to every document.
    public static let namespace = "atomic"
    /// The media type of requests and responses under the extension.
    public static let mediaType = #"application/vnd.api+json; ext="https://jsonapi.org/ext/atomic""#

    /// The operations, in the order they run.
    public private(set) var operations: [AtomicOperation] = []

    /// No operations yet.
    public init() {}

    /// Adds a new resource (`op: add`): its type, `lid` (to name it in later operations)
    /// and every attribute and relationship set, checked as a create request is.
    public mutating func add(_ resource: EditableResource) throws(JSONAPIError) {
        let attributes = resource.createAttributes
        try RequestCheck.validate(resource.document(attributes: attributes, includeEmptyAttributes: false), context: .create)
        operations.append(AtomicOperation(op: .add, data: resource.resourceValue(attributes: attributes)))
    }

    /// Updates a resource (`op: update`): the attributes and relationships changed in
    /// `resource`, which names it by `id` (checked as an update request is), or by the `lid`
    /// an earlier `add` gave it.
    public mutating func update(_ resource: EditableResource) throws(JSONAPIError) {
        guard resource.id != nil || resource.lid != nil else {
            throw JSONAPIError.misuse("an update operation needs the resource's id or lid")
        }
        let attributes = resource.changedAttributes
        // C02 asks an update for an id; one named by its lid is checked as a resource object.
        let context: DocumentContext = resource.id == nil ? .create : .update
        try RequestCheck.validate(resource.document(attributes: attributes, includeEmptyAttributes: false), context: context)
        operations.append(AtomicOperation(op: .update, data: resource.resourceValue(attributes: attributes)))
    }

    /// Removes a resource (`op: remove`, `ref` naming it by id or lid).
    public mutating func remove(_ resource: ResourceIdentifier) {
        operations.append(AtomicOperation(op: .remove, ref: AtomicOperation.Ref(resource)))
    }

    /// Replaces a relationship's linkage (`op: update` on `ref.relationship`).
    public mutating func replaceRelationship(_ name: String, of resource: ResourceIdentifier, with linkage: RelationshipLinkage) {
        operations.append(AtomicOperation(op: .update, ref: AtomicOperation.Ref(resource, relationship: name), data: linkage.jsonValue))
    }

    /// Adds members to a to-many relationship (`op: add` on `ref.relationship`).
    public mutating func addToRelationship(_ name: String, of resource: ResourceIdentifier, _ members: [ResourceIdentifier]) {
        operations.append(
            AtomicOperation(op: .add, ref: AtomicOperation.Ref(resource, relationship: name), data: .array(members.map(\.jsonValue))))
    }

    /// Removes members from a to-many relationship (`op: remove` on `ref.relationship`).
    public mutating func removeFromRelationship(_ name: String, of resource: ResourceIdentifier, _ members: [ResourceIdentifier]) {
        operations.append(
            AtomicOperation(op: .remove, ref: AtomicOperation.Ref(resource, relationship: name), data: .array(members.map(\.jsonValue))))
    }

    /// Appends an operation built by hand.
    public mutating func append(_ operation: AtomicOperation) { operations.append(operation) }

    /// `{"atomic:operations":[…]}`.
    public func document() -> [UInt8] {
        var top = JSONObject()
        top.append("atomic:operations", .array(operations.map(\.jsonValue)))
        return Array(JSONValue.object(top).jsonText.utf8)
    }
}

/// One operation of an `atomic:operations` document.
public struct AtomicOperation: Sendable, Hashable {
    /// What the operation does.
    public enum Code: String, Sendable, Hashable {
        case add, update, remove
    }

    /// What an operation targets: a resource by type and id (or lid), or one of its
    /// relationships.
    public struct Ref: Sendable, Hashable {
        /// The resource's type.
        public var type: String
        /// Its id, for a resource the server knows.
        public var id: String?
        /// Its local id, for a resource an earlier operation added.
        public var lid: String?
        /// A relationship's name, when the operation targets that relationship.
        public var relationship: String?

        /// A reference to `resource` (its relationship `relationship`, when given).
        public init(_ resource: ResourceIdentifier, relationship: String? = nil) {
            type = resource.type
            id = resource.id
            lid = resource.lid
            self.relationship = relationship
        }

        var jsonValue: JSONValue {
            var o = ResourceIdentifier(type: type, id: id, lid: lid).jsonObject
            if let relationship { o.append("relationship", .string(relationship)) }
            return .object(o)
        }
    }

    /// `op`.
    public var op: Code
    /// `ref`, when the operation names its target there.
    public var ref: Ref?
    /// `href`, when the operation names its target by URL instead.
    public var href: String?
    /// `data`: a resource object, linkage, or `null`; `nil` when absent.
    public var data: JSONValue?
    /// `meta`.
    public var meta: JSONObject?

    /// An operation with these members.
    public init(op: Code, ref: Ref? = nil, href: String? = nil, data: JSONValue? = nil, meta: JSONObject? = nil) {
        self.op = op
        self.ref = ref
        self.href = href
        self.data = data
        self.meta = meta
    }

    /// The operation in an operation object, or nil when it is not one (not an object, or
    /// without a valid `op`). Members of the wrong type are left out; ``problems(_:)`` says
    /// what is wrong with them.
    public init?(_ value: JSONValue) {
        guard case .object = value, let code = value["op"]?.stringValue.flatMap(Code.init(rawValue:)) else { return nil }
        op = code
        if case .object = value["ref"], let type = value["ref"]?["type"]?.stringValue {
            let r = value["ref"]!
            ref = Ref(
                ResourceIdentifier(type: type, id: r["id"]?.stringValue, lid: r["lid"]?.stringValue),
                relationship: r["relationship"]?.stringValue)
        }
        href = value["href"]?.stringValue
        data = value["data"]
        if case .object(let m)? = value["meta"] { meta = m }
    }

    /// What an operation object breaks of the extension's rules (A04-A08): each with its
    /// rule, a message and the pointer below the operation (`/op`, `/ref/type`, …).
    static func problems(_ value: JSONValue) -> [(rule: Rule, message: String, pointer: String)] {
        guard case .object = value else { return [(.A04, "an operation MUST be an object", "")] }
        var out: [(rule: Rule, message: String, pointer: String)] = []
        let code: Code?
        switch value["op"] {
        case nil:
            out.append((.A05, "an operation MUST contain op", ""))
            code = nil
        case .string(let s)?:
            code = Code(rawValue: s)
            if code == nil { out.append((.A05, "op MUST be add, update or remove, not \(quoted(s))", "/op")) }
        default:
            out.append((.A05, "op MUST be a string: add, update or remove", "/op"))
            code = nil
        }
        let ref = value["ref"]
        if ref != nil && value["href"] != nil { out.append((.A06, "an operation MUST NOT contain both ref and href", "/href")) }
        if let href = value["href"], href.stringValue == nil { out.append((.A06, "href MUST be a string (a URI-reference)", "/href")) }
        var relationship: String?
        if let ref {
            if case .object = ref {
                if ref["type"]?.stringValue == nil { out.append((.A07, "ref MUST contain type, a string", "/ref")) }
                if ref["id"] == nil && ref["lid"] == nil { out.append((.A07, "ref MUST contain id or lid", "/ref")) }
                for name in ["id", "lid", "relationship"] where ref[name] != nil && ref[name]?.stringValue == nil {
                    out.append((.A07, "ref's \(name) MUST be a string", "/ref/\(name)"))
                }
                relationship = ref["relationship"]?.stringValue
            } else {
                out.append((.A07, "ref MUST be an object", "/ref"))
            }
        }
        guard let code else { return out }
        let data = value["data"]
        if relationship != nil {
            switch (code, data) {
            case (_, nil):
                out.append((.A08, "an operation on a relationship MUST contain data", ""))
            case (.update, .null?):
                break
            case (.update, .object?):
                if !isIdentifier(data!) { out.append((.A08, "a to-one relationship's data MUST be a resource identifier object or null", "/data")) }
            case (_, .array(let list)?):
                if let k = list.firstIndex(where: { !isIdentifier($0) }) {
                    out.append((.A08, "relationship data MUST be resource identifier objects", "/data/\(k)"))
                }
            default:
                let wanted = code == .update ? "null, a resource identifier object or an array of them" : "an array of resource identifier objects"
                out.append((.A08, "\(code.rawValue) on a relationship MUST have data: \(wanted)", "/data"))
            }
        } else {
            switch code {
            case .add, .update:
                if case .object? = data, data?["type"]?.stringValue != nil {
                } else {
                    out.append((.A08, "\(code.rawValue) of a resource MUST have data: a resource object with type", data == nil ? "" : "/data"))
                }
            case .remove:
                if ref == nil && value["href"] == nil { out.append((.A08, "remove MUST name its target with ref or href", "")) }
            }
        }
        return out
    }

    private static func isIdentifier(_ v: JSONValue) -> Bool {
        guard case .object = v, v["type"]?.stringValue != nil else { return false }
        return v["id"]?.stringValue != nil || v["lid"]?.stringValue != nil
    }

    /// The operation object.
    public var jsonValue: JSONValue {
        var o = JSONObject()
        o.append("op", .string(op.rawValue))
        if let ref { o.append("ref", ref.jsonValue) }
        if let href { o.append("href", .string(href)) }
        if let data { o.append("data", data) }
        if let meta { o.append("meta", .object(meta)) }
        return .object(o)
    }
}

/// The `atomic:results` of a response to ``AtomicOperations``: one result per operation, in
/// order, and the server ids of the resources added under a `lid`.
public struct AtomicResults: Sendable {
    /// One operation's result.
    public struct Result: Sendable {
        /// The resource the operation added or updated, as the server returned it; `nil`
        /// for an operation without one (a remove, a relationship change).
        public var resource: Resource?
        /// The result's `meta`.
        public var meta: JSONValue?
    }

    /// The results, one per operation (empty for a `204 No Content`).
    public var results: [Result]
    /// The resources of the results, in one graph.
    public var graph: Graph
    /// The id the server gave each resource added with a `lid`, by lid.
    public var ids: [String: String]

    /// No results (`204 No Content`): every operation succeeded and none returned data.
    public init() {
        results = []
        graph = Graph(storage: GraphStorage())
        ids = [:]
    }

    /// The results in `body`, a response to `operations`, read under `options` (its limits
    /// and strictness).
    ///
    /// - Throws: ``JSONAPIError`` when the body is not an `atomic:results` document with one
    ///   result per operation, a result's resource is invalid, or an added resource came back
    ///   with another type than it was added with.
    public init(parsing body: [UInt8], operations: AtomicOperations, options: DocumentOptions = .default) throws(JSONAPIError) {
        // Read once, as the graph reads any document under the extension: the results'
        // resources merge by type and id (added, then updated, they are one resource).
        var o = options
        o.extensions.insert(AtomicOperations.namespace)
        graph = try Graph(bytes: body, options: o)
        guard graph.hasAtomicResults else {
            throw JSONAPIError.input("the response has no atomic:results array")
        }
        results = graph.atomicResults
        guard results.count == operations.operations.count else {
            throw JSONAPIError.input("\(results.count) atomic:results for \(operations.operations.count) operations")
        }
        ids = [:]
        for (operation, result) in zip(operations.operations, results) {
            guard operation.op == .add, operation.ref == nil, let sent = operation.data, let lid = sent["lid"]?.stringValue,
                let resource = result.resource, let id = resource.id
            else { continue }
            guard resource.type == sent["type"]?.stringValue else {
                throw JSONAPIError.input("the resource added as \(lid) came back as \(resource.type), not \(sent["type"]?.stringValue ?? "?")")
            }
            ids[lid] = id
        }
    }
}
