#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Every resource of one or more JSON:API documents, flat and normalized: keyed by type and
/// id, relationships as edges between them, with primary data and the top-level members.
///
/// Build one from a file, bytes or `Data`, or feed a ``GraphParser`` as data arrives. A graph
/// is immutable and can be shared between threads; its views (``Resource``,
/// ``Relationship``, ``LazyValue``) decode values from the value store only when read.
///
/// ```swift
/// let graph = try Graph(contentsOf: "articles.json")
/// for article in graph.primary {
///     print(article.id ?? "-", article.attributes["title"]?.string ?? "")
///     print(article.relationship("author")?.resource?.attributes["name"]?.string ?? "")
/// }
/// ```
public struct Graph: Sendable {
    let storage: GraphStorage

    init(storage: GraphStorage) { self.storage = storage }

    /// Parses the file at `path` (`-` for standard input) as a stream.
    public init(contentsOf path: String, options: DocumentOptions = .default, duplicates: DuplicatePolicy = .last) throws(JSONAPIError) {
        let parser = GraphParser(options: options, duplicates: duplicates)
        try parser.read(InputSource(path: path))
        self = try parser.finish()
    }

    /// Parses a file URL as a stream.
    public init(contentsOf url: URL, options: DocumentOptions = .default, duplicates: DuplicatePolicy = .last) throws(JSONAPIError) {
        try self.init(contentsOf: url.path, options: options, duplicates: duplicates)
    }

    /// Parses `bytes` (one or more documents).
    public init(bytes: some Collection<UInt8>, options: DocumentOptions = .default, duplicates: DuplicatePolicy = .last) throws(JSONAPIError) {
        let parser = GraphParser(options: options, duplicates: duplicates)
        // (Workers, if any, read the bytes where they are: they stop before the view ends.)
        self = try withContiguousBytes(of: bytes) { (b) throws(JSONAPIError) in try parser.finish(reading: b) }
    }

    /// Parses `data` (one or more documents).
    public init(data: Data, options: DocumentOptions = .default, duplicates: DuplicatePolicy = .last) throws(JSONAPIError) {
        try self.init(bytes: data, options: options, duplicates: duplicates)
    }

    /// Parses a JSON:API text.
    public init(json: String, options: DocumentOptions = .default, duplicates: DuplicatePolicy = .last) throws(JSONAPIError) {
        try self.init(bytes: Array(json.utf8), options: options, duplicates: duplicates)
    }

    // MARK: - Resources

    /// The number of resources (each type and id once).
    public var count: Int { storage.resources.count }

    /// Every resource, in first-seen order.
    public var resources: ResourceCollection { ResourceCollection(graph: self) }

    /// The resource with this type and id, if the documents held its resource object.
    ///
    /// - Complexity: O(1) expected.
    public subscript(type type: String, id id: String) -> Resource? {
        storage.row(type: type, id: id).map { Resource(graph: self, row: $0) }
    }

    /// The resource with this type and local id (`lid`), if the documents held it.
    public subscript(type type: String, lid lid: String) -> Resource? {
        storage.row(type: type, lid: lid).map { Resource(graph: self, row: $0) }
    }

    /// The resource an identifier names, if the documents held it. An identifier with
    /// neither id nor lid names the resource of its type that had neither (a create
    /// payload's primary data).
    public subscript(identifier: ResourceIdentifier) -> Resource? {
        if let id = identifier.id { return self[type: identifier.type, id: id] }
        if let lid = identifier.lid { return self[type: identifier.type, lid: lid] }
        guard let row = storage.row(type: identifier.type, lid: ""),
            storage.resources[row].flags & GraphStorage.ResourceRecord.anonymous != 0
        else { return nil }
        return Resource(graph: self, row: row)
    }

    /// Primary data, in document order (a resource listed by two documents appears twice).
    public var primary: [Resource] { storage.primaryRows.map { Resource(graph: self, row: Int($0)) } }

    /// The resources of `type`, in first-seen order.
    public func resources(ofType type: String) -> [Resource] {
        guard let t = storage.symbols.find(type), Int(t) < storage.rowsByType.count else { return [] }
        return storage.rowsByType[Int(t)].map { Resource(graph: self, row: Int($0)) }
    }

    /// The type names of the resources, in first-seen order.
    public var types: [String] {
        storage.rowsByType.enumerated().filter { !$0.element.isEmpty }.map { storage.symbols.string(of: UInt32($0.offset)) }
    }

    // MARK: - Documents and top-level members

    /// One entry per document read, in order.
    public var documents: [DocumentInfo] {
        storage.documents.indices.map { DocumentInfo(graph: self, index: $0) }
    }

    /// Top-level `meta` of all documents, merged member by member (later documents win).
    public var meta: LazyValue? { mergedTopLevel(\.meta, "/meta") }
    /// Top-level `links` of all documents, merged member by member (later documents win).
    public var links: LazyValue? { mergedTopLevel(\.links, "/links") }
    /// Top-level `jsonapi` of all documents, merged member by member.
    public var jsonapi: LazyValue? { mergedTopLevel(\.jsonapi, "/jsonapi") }
    /// The error objects of all documents, concatenated, typed.
    public var errors: [ErrorObject] { errorValues.map { ErrorObject($0.jsonValue) } }

    /// The error objects of all documents, concatenated, as stored: for members of their own
    /// (`try graph.errorValues[0]["meta"]?.decode(Details.self)`). Each knows where it is in
    /// its document (`/errors/0`), and decoding errors name places from there.
    public var errorValues: [LazyValue] {
        storage.documents.indices.flatMap { DocumentInfo(graph: self, index: $0).errorValues }
    }

    /// A top-level member of all documents; one document's as it is (and where it is in its
    /// document, `pointer`), several merged.
    private func mergedTopLevel(_ path: KeyPath<GraphStorage.DocumentRecord, ValueSpan>, _ pointer: String) -> LazyValue? {
        let spans = storage.documents.map { $0[keyPath: path] }.filter { !$0.isNone }
        if spans.isEmpty { return nil }
        if spans.count == 1 { return LazyValue(storage: storage, span: spans[0], pointer: pointer) }
        var merged = JSONObject()
        for span in spans {
            guard case .object(let o) = LazyValue(storage: storage, span: span).jsonValue else { continue }
            for m in o.members { merged[m.key] = m.value }
        }
        return LazyValue(detached: .object(merged))
    }

    /// Warnings found while reading (the first thousand; ``warningCount`` counts all).
    public var warnings: [Diagnostic] { storage.warnings }
    /// Warnings found while building (all of them; the graph keeps the first thousand).
    public var warningCount: Int { storage.warningCount }

    /// Bytes of input read.
    public var inputBytes: Int { storage.inputBytes }

    /// Approximate memory the graph holds, in bytes.
    public var memoryFootprint: Int { storage.memoryFootprint }

    #if DEBUG
    func checkInvariants() { storage.checkInvariants() }
    #endif
}

/// One document read into a ``Graph``.
public struct DocumentInfo: Sendable {
    let graph: Graph
    let index: Int

    private var record: GraphStorage.DocumentRecord { graph.storage.documents[index] }

    /// How its primary data was shaped.
    public var primaryShape: PrimaryDataShape { record.shape }
    /// Its primary data, in order.
    public var primary: [Resource] {
        let r = record
        return graph.storage.primaryRows[r.primaryStart..<r.primaryStart + r.primaryCount].map { Resource(graph: graph, row: Int($0)) }
    }
    /// The document's top-level `meta` (nil when absent).
    public var meta: LazyValue? { value(record.meta, "/meta") }
    /// Its top-level `links`.
    public var links: LazyValue? { value(record.links, "/links") }
    /// Its `jsonapi` object.
    public var jsonapi: LazyValue? { value(record.jsonapi, "/jsonapi") }
    /// Its error objects, typed.
    public var errors: [ErrorObject] { errorValues.map { ErrorObject($0.jsonValue) } }
    /// Its error objects as stored, each knowing where it is (`/errors/0`).
    public var errorValues: [LazyValue] {
        guard let v = value(record.errors, "/errors") else { return [] }
        return v.kind == .array ? v.elements : [v]
    }
    /// Unknown and `@`-members of its top level, in order.
    public var otherMembers: [(name: String, value: LazyValue)] {
        record.extras.map { LazyValue.member(storage: graph.storage, span: $0) }
    }
    /// Where the document starts in its input.
    public var position: SourcePosition { record.position }

    private func value(_ span: ValueSpan, _ pointer: String) -> LazyValue? {
        span.isNone ? nil : LazyValue(storage: graph.storage, span: span, pointer: pointer)
    }
}

/// The resources of a graph as a collection, in first-seen order.
public struct ResourceCollection: RandomAccessCollection, Sendable {
    let graph: Graph
    public var startIndex: Int { 0 }
    public var endIndex: Int { graph.storage.resources.count }
    public subscript(position: Int) -> Resource { Resource(graph: graph, row: position) }
}
