#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Resource linkage to send: a to-one relationship's identifier (or `null`), or a to-many
/// relationship's identifiers.
public enum RelationshipLinkage: Sendable, Hashable {
    case toOne(ResourceIdentifier?)
    case toMany([ResourceIdentifier])

    /// `{"data":…}`: a relationship update request (`PATCH /articles/1/relationships/author`),
    /// checked against C03 before it is returned.
    public func document() throws(JSONAPIError) -> [UInt8] {
        var w = JSONTextWriter()
        w.arena.append(#"{"data":"#)
        writeData(&w)
        w.arena.append("}")
        let bytes = w.arena.array(0..<w.arena.count)
        try RequestCheck.validate(bytes, context: .relationshipUpdate)
        return bytes
    }

    /// The linkage value (`null`, an identifier, or an array of identifiers).
    var jsonValue: JSONValue {
        switch self {
        case .toOne(nil): return .null
        case .toOne(let id?): return id.jsonValue
        case .toMany(let ids): return .array(ids.map(\.jsonValue))
        }
    }

    func writeData(_ w: inout JSONTextWriter) { w.write(jsonValue) }
}

extension ResourceIdentifier {
    /// `{"type":…,"id":…}` (with `lid` when it has one).
    var jsonValue: JSONValue { .object(jsonObject) }

    /// The members of ``jsonValue``.
    var jsonObject: JSONObject {
        var o = JSONObject()
        o.append("type", .string(type))
        if let id { o.append("id", .string(id)) }
        if let lid { o.append("lid", .string(lid)) }
        return o
    }
}

/// A resource built or changed in code, to send as a create or update request, or to apply
/// to a graph with a ``GraphEditor``.
///
/// ```swift
/// var article = EditableResource(type: "articles", lid: "new-1")
/// article["title"] = "Hello"
/// article.setRelationship("author", .toOne(ResourceIdentifier(type: "people", id: "9")))
/// let body = try article.createDocument()   // POST /articles
///
/// var edit = EditableResource(editing: graph[type: "articles", id: "1"]!)
/// edit["title"] = "Better title"
/// let patch = try edit.updateDocument()     // PATCH /articles/1: only the title
/// ```
public struct EditableResource: Sendable {
    /// The resource's type.
    public var type: String
    /// Its id (nil for a resource the server will name).
    public var id: String?
    /// Its local id, which other resources of the same document can refer to.
    public var lid: String?
    /// The resource this edits, if any (its stored values are what "unchanged" means).
    public let original: Resource?
    /// Attributes set here, in the order they were first set.
    public private(set) var changedAttributes = JSONObject()
    /// Relationships set here, in the order they were first set.
    public private(set) var changedRelationships: [(name: String, linkage: RelationshipLinkage)] = []
    /// `meta` to send with the resource object.
    public var meta: JSONObject?

    /// A new resource: give a client-generated `id`, or a local `lid` for the server to
    /// replace with its own id.
    public init(type: String, id: String? = nil, lid: String? = nil) {
        self.type = type
        self.id = id
        self.lid = lid
        self.original = nil
    }

    /// A change to a resource of a graph.
    public init(editing resource: Resource) {
        type = resource.type
        id = resource.id
        lid = resource.lid
        original = resource
    }

    /// An attribute's value: the one set here, else the original's.
    public subscript(attribute: String) -> JSONValue? {
        get { changedAttributes[attribute] ?? original?.attributes[attribute]?.jsonValue }
        set { setAttribute(attribute, newValue ?? .null) }
    }

    /// Sets an attribute. Setting it to the original's value records no change, compared by
    /// value (``JSONValue/hasSameValue(as:)``): `19.990` for a stored `19.99`, the same
    /// instant written another way, an object with its members in another order.
    public mutating func setAttribute(_ name: String, _ value: JSONValue) {
        if let old = original?.attributes[name]?.jsonValue, old.hasSameValue(as: value) {
            changedAttributes[name] = nil
            return
        }
        changedAttributes[name] = value
    }

    /// Sets an attribute from an `Encodable` value, encoded as ``init(encoding:type:options:)``
    /// encodes a model's attributes with the same `options`: dates as ISO 8601 by default,
    /// numbers in their shortest exact form, non-finite numbers as the options say, transforms
    /// applied.
    public mutating func setAttribute<T: Encodable>(
        _ name: String, encoding value: T, options: ResourceEncodingOptions = .init()
    ) throws(JSONAPIError) {
        let encoder = ValueEncoder(options: options, path: [NameKey(name)])
        try encoder.encode(value, describing: T.self, as: name)
        setAttribute(name, encoder.root?.resolve() ?? .null)
    }

    /// Sets a relationship's linkage. Setting it to the original's linkage (the same
    /// identifiers in the same order) records no change.
    public mutating func setRelationship(_ name: String, _ linkage: RelationshipLinkage) {
        if let old = original?.relationship(name), Self.linkage(of: old) == linkage {
            changedRelationships.removeAll { $0.name == name }
            return
        }
        if let i = changedRelationships.firstIndex(where: { $0.name == name }) {
            changedRelationships[i].linkage = linkage
        } else {
            changedRelationships.append((name, linkage))
        }
    }

    /// A stored relationship's linkage, `nil` when it has no `data`.
    private static func linkage(of r: Relationship) -> RelationshipLinkage? {
        switch r.kind {
        case .absent: nil
        case .null: .toOne(nil)
        case .toOne: .toOne(r.identifiers.first)
        case .toMany: .toMany(r.identifiers)
        }
    }

    /// The identifier to link to this resource with.
    public var identifier: ResourceIdentifier { ResourceIdentifier(type: type, id: id, lid: lid) }

    // MARK: - Documents

    /// `{"data":{…}}` for a create request (`POST /<type>`): type, id or lid, every attribute
    /// (the original's, then those set here) and every relationship set here, each with
    /// `data`. Checked against C01 and the member-name rules before it is returned.
    public func createDocument() throws(JSONAPIError) -> [UInt8] {
        let bytes = document(attributes: createAttributes, includeEmptyAttributes: false)
        try RequestCheck.validate(bytes, context: .create)
        return bytes
    }

    /// What a create request sends as attributes: the original's, then those set here.
    var createAttributes: JSONObject {
        var attributes = JSONObject()
        if let original, case .object(let o) = original.attributes.jsonValue { attributes = o }
        for m in changedAttributes.members { attributes[m.key] = m.value }
        return attributes
    }

    /// `{"data":{…}}` for an update request (`PATCH /<type>/<id>`): type, id, and only the
    /// attributes and relationships changed here. Checked against C02 before it is returned.
    public func updateDocument() throws(JSONAPIError) -> [UInt8] {
        guard id != nil else { throw JSONAPIError.misuse("an update needs the resource's id") }
        let bytes = document(attributes: changedAttributes, includeEmptyAttributes: false)
        try RequestCheck.validate(bytes, context: .update)
        return bytes
    }

    /// Whether anything was changed.
    public var hasChanges: Bool { !changedAttributes.isEmpty || !changedRelationships.isEmpty || meta != nil }

    func document(attributes: JSONObject, includeEmptyAttributes: Bool) -> [UInt8] {
        var w = JSONTextWriter()
        w.arena.append(#"{"data":"#)
        writeResourceObject(&w, attributes: attributes, includeEmptyAttributes: includeEmptyAttributes)
        w.arena.append("}")
        return w.arena.array(0..<w.arena.count)
    }

    /// The resource object alone, with these attributes.
    func resourceObject(attributes: JSONObject) -> [UInt8] {
        var w = JSONTextWriter()
        writeResourceObject(&w, attributes: attributes, includeEmptyAttributes: false)
        return w.arena.array(0..<w.arena.count)
    }

    private func writeResourceObject(_ w: inout JSONTextWriter, attributes: JSONObject, includeEmptyAttributes: Bool) {
        w.write(resourceValue(attributes: attributes, includeEmptyAttributes: includeEmptyAttributes))
    }

    /// The resource object with these attributes: type, id and lid as set, and the
    /// relationships and meta set here.
    func resourceValue(attributes: JSONObject, includeEmptyAttributes: Bool = false) -> JSONValue {
        var o = JSONObject()
        o.append("type", .string(type))
        if let id { o.append("id", .string(id)) }
        if let lid { o.append("lid", .string(lid)) }
        if !attributes.isEmpty || includeEmptyAttributes { o.append("attributes", .object(attributes)) }
        if !changedRelationships.isEmpty {
            var r = JSONObject()
            for (name, linkage) in changedRelationships { r.append(name, ["data": linkage.jsonValue]) }
            o.append("relationships", .object(r))
        }
        if let meta { o.append("meta", .object(meta)) }
        return .object(o)
    }
}

/// Checks a request document before it is sent.
enum RequestCheck {
    static func validate(_ bytes: [UInt8], context: DocumentContext) throws(JSONAPIError) {
        var o = DocumentOptions()
        o.context = context
        let findings = try DocumentValidator(options: o).validate(.bytes(bytes, name: "request"))
        if let first = findings.first(where: { $0.severity == .error }) {
            throw first.rule.isJSONRule ? .syntax(first) : .document(first)
        }
    }
}

/// Changes to a graph: edited resources and new ones. The graph itself never changes;
/// ``graph()`` builds a new one, and the request documents say what to send a server.
///
/// ```swift
/// var editor = GraphEditor(graph)
/// var a = EditableResource(editing: graph[type: "articles", id: "1"]!)
/// a["title"] = "Renamed"
/// try editor.update(a)
/// editor.add(EditableResource(type: "tags", id: "t9"))
/// let updated = try editor.graph()
/// ```
public struct GraphEditor: Sendable {
    /// The graph being edited (unchanged: edits are kept beside it).
    public let base: Graph
    private var edits: [Int: EditableResource] = [:]
    private var added: [(resource: EditableResource, primary: Bool)] = []

    /// An editor of `graph`.
    public init(_ graph: Graph) { base = graph }

    /// Records changes to a resource of the graph.
    public mutating func update(_ resource: EditableResource) throws(JSONAPIError) {
        guard let row = resource.original?.row ?? locate(resource.identifier) else {
            throw JSONAPIError.misuse("\(resource.identifier) is not in the graph; add it instead")
        }
        edits[row] = resource
    }

    /// Adds a new resource (to `included`, or to primary data).
    public mutating func add(_ resource: EditableResource, asPrimary: Bool = false) {
        added.append((resource, asPrimary))
    }

    private func locate(_ id: ResourceIdentifier) -> Int? { base[id]?.row }

    /// The update documents of the edited resources and the create documents of the new
    /// ones, in the order they were recorded.
    public func requestDocuments() throws(JSONAPIError) -> [(method: String, resource: ResourceIdentifier, body: [UInt8])] {
        var out: [(String, ResourceIdentifier, [UInt8])] = []
        for row in edits.keys.sorted() where edits[row]!.hasChanges {
            let e = edits[row]!
            out.append(("PATCH", e.identifier, try e.updateDocument()))
        }
        for a in added { out.append(("POST", a.resource.identifier, try a.resource.createDocument())) }
        return out
    }

    /// The graph with the changes applied, as a compound document. Include paths and sparse
    /// fieldsets apply to every resource alike, added ones included: the changes are applied
    /// first (``graph(options:)``), then that graph is written with `options`.
    ///
    /// - Throws: ``JSONAPIError/misuse(_:)`` for an include path that names no relationship
    ///   of the resources it reaches.
    public func document(options: DocumentEncodingOptions = .init()) throws(JSONAPIError) -> [UInt8] {
        let plain = try appliedDocument()
        if options == DocumentEncodingOptions() { return plain }
        var parse = DocumentOptions.default
        parse.validation = .off
        let applied = try Graph(bytes: plain, options: parse)
        let out = ByteWriter()
        try applied.writeDocument(to: out, options: options)
        return out.bytes
    }

    /// The base written with the edits and added resources laid over it, every resource
    /// included.
    private func appliedDocument() throws(JSONAPIError) -> [UInt8] {
        var overlay = EditOverlay()
        for (row, e) in edits {
            var edit = EditOverlay.Edit()
            for m in e.changedAttributes.members { edit.attributes.append((m.key, Array(m.value.jsonText.utf8))) }
            for (name, linkage) in e.changedRelationships {
                let object: JSONValue = ["data": linkage.jsonValue]
                edit.relationships.append((name, Array(object.jsonText.utf8)))
            }
            overlay.edits[row] = edit
        }
        for a in added {
            overlay.newResources.append((a.primary, a.resource.resourceObject(attributes: a.resource.changedAttributes)))
        }
        let out = ByteWriter()
        try DocumentEncoder(graph: base, out: out, options: .init(), overlay: overlay).write(primary: nil)
        return out.bytes
    }

    /// A new graph: the base with the changes applied.
    public func graph(options: DocumentOptions = .default) throws(JSONAPIError) -> Graph {
        var o = options
        o.validation = .off
        return try Graph(bytes: appliedDocument(), options: o)
    }
}
