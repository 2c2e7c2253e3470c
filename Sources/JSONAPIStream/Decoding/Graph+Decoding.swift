#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Resource {
    /// Decodes this resource into `type`, reading the value store directly.
    ///
    /// The model's coding keys find, in this order: `id`, `type` and `lid`; the attributes
    /// (names matched as ``DecodingOptions/keys`` says); the relationships; then the
    /// resource's `meta` and `links`. A relationship decodes as ``ResourceIdentifier``
    /// (`[ResourceIdentifier]` for to-many), as ``Resource``, ``Relationship``, ``ToOne`` or
    /// ``ToMany``, or as the related resource's own model (resolved through the graph; one
    /// that was not included is `nil` for an optional property and an error otherwise).
    ///
    /// ```swift
    /// struct Article: Decodable {
    ///     let id: String
    ///     let title: String
    ///     let publishedAt: Date?
    ///     let author: Person?           // the included resource, decoded
    ///     let comments: [ResourceIdentifier]
    /// }
    /// let article = try graph.primary[0].decode(Article.self)
    /// ```
    ///
    /// - Throws: `DecodingError`, whose description names the resource (`articles/1`), the
    ///   JSON pointer inside it (`/attributes/views`), and what was expected and found.
    public func decode<T: Decodable>(_ type: T.Type = T.self, options: DecodingOptions = .default) throws -> T {
        let d = ResourceDecoder(graph: graph, options: options, node: .resource(row), path: nil, row: row)
        return try d.decodeNested(T.self, node: .resource(row), path: nil, row: row)
    }
}

extension Graph {
    /// Decodes the primary data: `[Article].self` for all primary resources (of every
    /// document read, in order), `Article.self` when there is exactly one, `Article?.self`
    /// when `data` may be `null`.
    ///
    /// - Complexity: O(size of what the model reads); nothing else is decoded.
    ///
    /// - Throws: ``ErrorDocument`` with the server's error objects when no document read had
    ///   primary data and some had errors; `DecodingError` when the data does not fit `T`.
    public func decode<T: Decodable>(_ type: T.Type = T.self, options: DecodingOptions = .default) throws -> T {
        try checkPrimaryData()
        let d = ResourceDecoder(graph: self, options: options, node: .primary, path: nil, row: -1)
        return try d.reusingKeyedContainers {
            if let array = T.self as? PrimaryArrayDecoding.Type {
                // `[Article]`: one loop, without an unkeyed container and a dispatch per element.
                return try array.decodePrimary(d) as! T
            }
            return try d.decodeNested(T.self, node: .primary, path: nil, row: -1)
        }
    }

    /// Decodes every resource of `resourceType` (primary and included), in first-seen order.
    public func decode<T: Decodable>(_ type: T.Type = T.self, ofType resourceType: String, options: DecodingOptions = .default) throws -> [T] {
        let rows = rows(ofType: resourceType)
        let d = ResourceDecoder(graph: self, options: options, node: .primary, path: nil, row: -1)
        return try d.reusingKeyedContainers { try decodedInPlace(count: rows.count) { i in try d.decodeResource(T.self, rows, i) } }
    }

    /// Decodes all primary resources into `[T]` on every core: the same array, or the same
    /// error, as ``decode(_:options:)``, in less time when there are many of them.
    ///
    /// The resources are cut into runs of 256, which the calling thread and
    /// `DispatchQueue.concurrentPerform`'s worker threads decode side by side, each run with
    /// a decoder of its own, straight into its place in the result. Under 1,024 resources, or
    /// on one core, it is ``decode(_:options:)``. A failure is that of the first resource in
    /// order that fails, as on one thread; runs after a failure are skipped.
    ///
    /// The model's `init(from:)`, and any transform or strategy in `options`, run on several
    /// threads at once: `T` must be `Sendable`, and its decoding must not share mutable state.
    ///
    /// ```swift
    /// let articles = try graph.decodeConcurrently([Article].self)
    /// ```
    public func decodeConcurrently<T: Decodable & Sendable>(_ type: [T].Type = [T].self, options: DecodingOptions = .default) throws -> [T] {
        try checkPrimaryData()
        let rows = storage.primaryRows
        guard ParallelDecoding.isWorthwhile(rows.count) else {
            let d = ResourceDecoder(graph: self, options: options, node: .primary, path: nil, row: -1)
            return try d.reusingKeyedContainers { try [T].decodePrimary(d) }
        }
        return try ParallelDecoding.decode(count: rows.count, graph: self, options: options) { d, i in
            try d.decodePrimary(T.self, rows, i)
        }
    }

    /// Throws ``ErrorDocument`` when no document read had primary data (`data`) and some had
    /// errors: decoding would otherwise give an empty array, or a missing resource, with no
    /// word of what the server said.
    func checkPrimaryData() throws {
        guard storage.documents.allSatisfy({ $0.shape == .absent }) else { return }
        let errors = self.errors
        if !errors.isEmpty { throw ErrorDocument(errors: errors) }
    }

    /// Decodes every resource of `resourceType` (primary and included), in first-seen order,
    /// on every core: ``decode(_:ofType:options:)`` as ``decodeConcurrently(_:options:)``
    /// does it.
    public func decodeConcurrently<T: Decodable & Sendable>(_ type: T.Type = T.self, ofType resourceType: String, options: DecodingOptions = .default) throws -> [T] {
        let rows = rows(ofType: resourceType)
        guard ParallelDecoding.isWorthwhile(rows.count) else { return try decode(T.self, ofType: resourceType, options: options) }
        return try ParallelDecoding.decode(count: rows.count, graph: self, options: options) { d, i in
            try d.decodeResource(T.self, rows, i)
        }
    }

    /// The rows of every resource of `resourceType`, in first-seen order.
    private func rows(ofType resourceType: String) -> [Int32] {
        guard let t = storage.symbols.find(resourceType), Int(t) < storage.rowsByType.count else { return [] }
        return storage.rowsByType[Int(t)]
    }
}

extension ResourceDecoder {
    // Each element has its own budget of related resources (DecodingOptions.maxResolvedResources),
    // so that decoding on one thread and on several fail at the same element.

    /// Element `i` of the primary data (`rows`: the primary rows), as `T`.
    @inline(__always)
    func decodePrimary<T: Decodable>(_: T.Type, _ rows: [Int32], _ i: Int) throws -> T {
        resolved = 0
        return try decode(T.self, node: .resource(Int(rows[i])), at: Location(parent: nil, key: IndexKey(i), segment: .none, row: -1))
    }

    /// Resource `rows[i]`, element `i` of a decode by type, as `T`.
    @inline(__always)
    func decodeResource<T: Decodable>(_: T.Type, _ rows: [Int32], _ i: Int) throws -> T {
        let row = Int(rows[i])
        resolved = 0
        return try decodeNested(T.self, node: .resource(row), path: PathNode(parent: nil, key: IndexKey(i), segment: .none, row: -1), row: row)
    }
}

extension LazyValue {
    /// Decodes the value into `type`, reading the stored bytes directly (no `JSONValue` on
    /// the way): `try value.decode(Int.self)`, `try value.decode(Dimensions.self)`.
    public func decode<T: Decodable>(_ type: T.Type = T.self, options: DecodingOptions = .default) throws -> T {
        let (storage, span) = storedSpan
        let d = ResourceDecoder(graph: Graph(storage: storage), options: options, node: .primary, path: nil, row: -1)
        d.valuePointer = pointer ?? ""
        var escaped = false
        let end = StoredJSON.skipValue(d.bytes, at: span.start, escaped: &escaped)
        let node = DecodingNode.value(span.start, end, escaped: escaped)
        return try d.decode(T.self, node: node, at: Location(parent: nil, key: nil, segment: .none, row: -1))
    }

    /// The storage and span of the value; a detached value is written into a storage of its
    /// own.
    var storedSpan: (GraphStorage, ValueSpan) {
        switch backing {
        case .stored(let s, let span): return (s, span)
        case .detached(let v):
            let s = GraphStorage()
            var text = v.jsonText
            text.withUTF8 { s.values.append(UnsafeRawBufferPointer($0)) }
            return (s, ValueSpan(start: 0, count: s.values.count))
        }
    }
}

/// Arrays decoded straight from the primary rows.
protocol PrimaryArrayDecoding {
    static func decodePrimary(_ d: ResourceDecoder) throws -> Self
}

extension Array: PrimaryArrayDecoding where Element: Decodable {
    static func decodePrimary(_ d: ResourceDecoder) throws -> [Element] {
        let rows = d.storage.primaryRows
        return try decodedInPlace(count: rows.count) { i in try d.decodePrimary(Element.self, rows, i) }
    }
}

/// `[T]` of `count` elements, element `i` made by `element(i)` straight into its place. An
/// `append` of a model would copy it in and destroy the original (generic code cannot move
/// it), retaining and releasing each of its strings and arrays once more.
func decodedInPlace<T>(count: Int, _ element: (Int) throws -> T) throws -> [T] {
    try [T](uninitializedCount: count) { buffer, initialized in
        // Invariant: elements 0..<initialized are initialized and no other, also when
        // `element` throws (the array then deinitializes those).
        for i in 0..<count {
            (buffer.baseAddress! + i).initialize(to: try element(i))
            initialized = i + 1
        }
    }
}

// MARK: - Graph types as properties

extension ResourceIdentifier: Codable, GraphIntrinsic {
    private enum Keys: String, CodingKey { case type, id, lid }

    /// From a relationship (its one identifier), a linkage entry, or a resource; from any
    /// other decoder, an object with `type` and `id` or `lid`.
    public init(from decoder: any Decoder) throws {
        if let d = ResourceDecoder.unwrap(decoder), let id = try d.identifier(d.node, d.here) {
            self = id
            return
        }
        let c = try decoder.container(keyedBy: Keys.self)
        self.init(type: try c.decode(String.self, forKey: .type), id: try c.decodeIfPresent(String.self, forKey: .id), lid: try c.decodeIfPresent(String.self, forKey: .lid))
        if id == nil && lid == nil {
            throw DecodingError.keyNotFound(Keys.id, DecodingError.Context(codingPath: c.codingPath, debugDescription: "a resource identifier needs id or lid"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(type, forKey: .type)
        try c.encodeIfPresent(id, forKey: .id)
        try c.encodeIfPresent(lid, forKey: .lid)
    }
}

extension Resource: Decodable, GraphIntrinsic {
    /// The related resource of a to-one relationship (an error when it was not included),
    /// a linkage entry's resource, or the resource being decoded.
    public init(from decoder: any Decoder) throws {
        guard let d = ResourceDecoder.unwrap(decoder) else { throw notFromGraph(Resource.self, decoder) }
        self = try d.resource(d.node, d.here)
    }
}

extension Linkage: Decodable, GraphIntrinsic {
    /// A relationship's linkage entry as a model property: the identifier with its own
    /// `meta`, whether or not the document included the resource (it is never decoded as the
    /// related model). `let author: Linkage?` reads a to-one relationship (`nil` for `null`),
    /// `let tags: [Linkage]` a to-many one.
    public init(from decoder: any Decoder) throws {
        guard let d = ResourceDecoder.unwrap(decoder) else { throw notFromGraph(Linkage.self, decoder) }
        self = try d.linkage(d.node, d.here)
    }
}

extension Relationship: Decodable, GraphIntrinsic {
    /// The relationship itself (linkage, links, meta), for a property named after it.
    public init(from decoder: any Decoder) throws {
        guard let d = ResourceDecoder.unwrap(decoder) else { throw notFromGraph(Relationship.self, decoder) }
        self = try d.relationship(Relationship.self, d.node, d.here)
    }
}

extension LazyValue: Decodable {
    /// The stored value, still undecoded; from another decoder, the decoded ``JSONValue``.
    public init(from decoder: any Decoder) throws {
        if let d = ResourceDecoder.unwrap(decoder) {
            guard let v = d.lazyValue(d.node) else { throw d.mismatch(LazyValue.self, d.node, d.here, expected: "a stored value") }
            self = v
            return
        }
        self.init(detached: try JSONValue(from: decoder))
    }
}

extension JSONValue: Decodable {
    public init(from decoder: any Decoder) throws {
        if let d = ResourceDecoder.unwrap(decoder) {
            guard let v = d.lazyValue(d.node) else { throw d.mismatch(JSONValue.self, d.node, d.here, expected: "a stored value") }
            self = v.jsonValue
            return
        }
        // Any other decoder: try each shape (member order is the decoder's).
        if let c = try? decoder.container(keyedBy: NameKey.self) {
            var o = JSONObject()
            for key in c.allKeys { o.append(key.stringValue, try c.decode(JSONValue.self, forKey: key)) }
            self = .object(o)
        } else if var c = try? decoder.unkeyedContainer() {
            var a: [JSONValue] = []
            while !c.isAtEnd { a.append(try c.decode(JSONValue.self)) }
            self = .array(a)
        } else {
            let c = try decoder.singleValueContainer()
            if c.decodeNil() {
                self = .null
            } else if let b = try? c.decode(Bool.self) {
                self = .bool(b)
            } else if let n = try? c.decode(JSONNumber.self) {
                self = .number(n)
            } else {
                self = .string(try c.decode(String.self))
            }
        }
    }
}

extension JSONNumber: Decodable {
    /// The number's exact text; from another decoder, an integer or the nearest `Double`.
    public init(from decoder: any Decoder) throws {
        if let d = ResourceDecoder.unwrap(decoder) {
            guard case .value(let s, let e, _) = d.node, d.bytes[s] == UInt8(ascii: "-") || (d.bytes[s] &- 0x30) < 10 else {
                throw d.mismatch(JSONNumber.self, d.node, d.here, expected: "a number")
            }
            self.init(uncheckedText: String(decoding: UnsafeRawBufferPointer(rebasing: d.bytes[s..<e]), as: UTF8.self))
            return
        }
        let c = try decoder.singleValueContainer()
        if let i = try? c.decode(Int64.self) {
            self.init(i)
        } else if let u = try? c.decode(UInt64.self) {
            self.init(u)
        } else {
            let v = try c.decode(Double.self)
            guard v.isFinite else {
                throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "\(v) is not a JSON number"))
            }
            self.init(v)
        }
    }
}
