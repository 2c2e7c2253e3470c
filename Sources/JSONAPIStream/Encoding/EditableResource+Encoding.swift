#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension EditableResource {
    /// A new resource from a model: `id`, `lid` and `type` coding keys give its identity
    /// (`type` defaults to `type:` or the model's ``EncodableResource/resourceType``);
    /// properties holding ``ResourceIdentifier``s, ``ToOne``/``ToMany`` handles or
    /// ``EncodableResource`` models (one, optional, or an array) become relationships; every
    /// other property becomes an attribute. Properties that encode nothing (a `nil` optional
    /// with synthesized `Encodable`) are left out.
    ///
    /// ```swift
    /// struct NewArticle: Encodable {
    ///     var lid = "a1"
    ///     var title: String
    ///     var publishedAt: Date
    ///     var author: ResourceIdentifier
    /// }
    /// var options = ResourceEncodingOptions()
    /// options.keys = .kebabCase
    /// let article = try EditableResource(encoding: model, type: "articles", options: options)
    /// let body = try article.createDocument()
    /// ```
    public init<Model: Encodable>(encoding model: Model, type: String? = nil, options: ResourceEncodingOptions = .init()) throws(JSONAPIError) {
        let parts = try ModelParts(model, options: options)
        guard let resolved = parts.type ?? type ?? (Model.self as? any EncodableResource.Type)?.resourceType else {
            throw JSONAPIError.misuse("the type of \(Model.self) resources is unknown: give `type:`, a `type` property, or conform to EncodableResource")
        }
        self.init(type: resolved, id: parts.id, lid: parts.lid)
        for m in parts.attributes.members { setAttribute(m.key, m.value) }
        for (name, linkage) in parts.relationships { setRelationship(name, linkage) }
    }

    /// Sets the attributes and relationships a model encodes (an update: attributes equal
    /// to the original's record no change). The model's identity must match this
    /// resource's when it has one.
    public mutating func update<Model: Encodable>(encoding model: Model, options: ResourceEncodingOptions = .init()) throws(JSONAPIError) {
        let parts = try ModelParts(model, options: options)
        if let t = parts.type, t != type { throw JSONAPIError.misuse("the model's type \(quoted(t)) is not the resource's \(quoted(type))") }
        if let i = parts.id, let id, i != id { throw JSONAPIError.misuse("the model's id \(quoted(i)) is not the resource's \(quoted(id))") }
        for m in parts.attributes.members { setAttribute(m.key, m.value) }
        for (name, linkage) in parts.relationships { setRelationship(name, linkage) }
    }
}

extension ResourceIdentifier {
    /// The identifier of a model (its `type`, `id` and `lid` coding keys, or its
    /// ``EncodableResource/resourceType``).
    public init<Model: EncodableResource>(of model: Model) throws(JSONAPIError) {
        let parts = try ModelParts(model, options: .init())
        guard parts.id != nil || parts.lid != nil else {
            throw JSONAPIError.misuse("a \(Model.self) needs an id or a lid to be linked to")
        }
        self.init(type: parts.type ?? Model.resourceType, id: parts.id, lid: parts.lid)
    }
}

/// What a model encodes to, split into identity, attributes and relationships.
struct ModelParts {
    var type: String?
    var id: String?
    var lid: String?
    var attributes = JSONObject()
    var relationships: [(String, RelationshipLinkage)] = []

    init<Model: Encodable>(_ model: Model, options: ResourceEncodingOptions) throws(JSONAPIError) {
        let encoder = ValueEncoder(options: options, path: [], resourceLevel: true)
        try encoder.encode(model, describing: Model.self, as: "\(Model.self)")
        guard let root = encoder.root, case .object(let members) = root.kind else {
            throw JSONAPIError.misuse("\(Model.self) does not encode as an object (a resource needs keyed members)")
        }
        for (key, node) in members {
            switch key {
            case "type", "id", "lid":
                let text: String
                switch node.kind {
                case .value(.string(let s)): text = s
                case .value(.number(let n)): text = n.text
                case .value(.null): continue
                default: throw JSONAPIError.misuse("\(Model.self).\(key) must be a string or an integer to be a resource's \(key)")
                }
                if key == "type" { type = text } else if key == "id" { id = text } else { lid = text }
            default:
                let name = options.keys.convert(key)
                if let linkage = node.linkage {
                    relationships.append((name, linkage))
                } else {
                    attributes[name] = node.resolve()
                }
            }
        }
    }

    static func describe(_ error: EncodingError, model: Any.Type) -> String {
        switch error {
        case .invalidValue(let value, let context):
            let path = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/")
            return "cannot encode \(model) at /\(path): \(context.debugDescription) (value \(value))"
        @unknown default:
            return "cannot encode \(model): \(error)"
        }
    }
}

extension ValueEncoder {
    /// ``encodeValue(_:)`` with its errors as this library throws them: an `EncodingError`
    /// described with its path (``ModelParts/describe(_:model:)``), a ``JSONAPIError`` as it
    /// is, anything else naming `name`.
    func encode(_ value: some Encodable, describing model: Any.Type, as name: String) throws(JSONAPIError) {
        do {
            try encodeValue(value)
        } catch let error as EncodingError {
            throw JSONAPIError.misuse(ModelParts.describe(error, model: model))
        } catch let error as JSONAPIError {
            throw error
        } catch {
            throw JSONAPIError.misuse("cannot encode \(name): \(error)")
        }
    }
}
