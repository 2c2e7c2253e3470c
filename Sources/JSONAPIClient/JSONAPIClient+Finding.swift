import Foundation
import JSONAPIStream
import Logging

/// How ``JSONAPIClient/resources(type:ids:query:lookup:)`` asks a server for resources by id.
///
/// | lookup | requests for ids `1`, `2`, `3` |
/// |---|---|
/// | ``filter(field:op:batchSize:)`` (the default) | `GET /articles?filter[id]=1,2,3` (every page), written by the query's ``FilterStrategy`` |
/// | `.filter(op: "in")` with ``FilterStrategy/dotted`` (django-filter) | `GET /articles?filter[id.in]=1,2,3` |
/// | ``oneByOne(concurrency:)`` | `GET /articles/1`, `/articles/2`, `/articles/3` |
public struct IDLookup: Sendable {
    enum Kind: Sendable {
        case filter(field: String, op: String?, batchSize: Int)
        case oneByOne(concurrency: Int)
    }
    let kind: Kind

    /// A filter on `field` (`id`) with operator `op`, `batchSize` ids per request (long lists
    /// are split, so that no URL grows without bound); every page of each answer is read.
    public static func filter(field: String = "id", op: String? = nil, batchSize: Int = 100) -> IDLookup {
        IDLookup(kind: .filter(field: field, op: op, batchSize: max(batchSize, 1)))
    }

    /// One request per id, `concurrency` at once: for servers without an id filter.
    public static func oneByOne(concurrency: Int = 4) -> IDLookup {
        IDLookup(kind: .oneByOne(concurrency: max(concurrency, 1)))
    }
}

extension JSONAPIClient {
    /// The resources of `type` with `ids`, in the order of `ids` (each once), asked for as
    /// `lookup` says; `query` adds include paths, sparse fieldsets and its filter strategy.
    ///
    /// An id the server does not return is left out, with a `warning` in the log (a
    /// missing resource under ``IDLookup/oneByOne(concurrency:)``, HTTP 404, likewise).
    ///
    /// - Throws: ``JSONAPIClientError``, or `CancellationError`.
    public func resources(
        type: String, ids: [String], query: JSONAPIQuery = JSONAPIQuery(), lookup: IDLookup = .filter()
    ) async throws -> [Resource] {
        var wanted: [String] = []
        var seen = Set<String>()
        for id in ids where seen.insert(id).inserted { wanted.append(id) }
        guard !wanted.isEmpty else { return [] }
        var found: [String: Resource] = [:]
        switch lookup.kind {
        case .filter(let field, let op, let batchSize):
            for start in stride(from: 0, to: wanted.count, by: batchSize) {
                let batch = Array(wanted[start..<min(start + batchSize, wanted.count)])
                let graph = try await graph(at: url(type: type, query: query.filter(Filter(field, op: op, batch))), pages: .all())
                for resource in graph.primary where resource.type == type {
                    if let id = resource.id, found[id] == nil { found[id] = resource }
                }
            }
        case .oneByOne(let concurrency):
            try await withThrowingTaskGroup(of: (String, Resource?).self) { group in
                var next = 0
                func add() throws {
                    let id = wanted[next]
                    let url = try url(type: type, id: id, query: query)
                    next += 1
                    group.addTask {
                        do {
                            return (id, try await self.graph(at: url).primary.first)
                        } catch let error as JSONAPIClientError where error.status == 404 {
                            return (id, nil)
                        }
                    }
                }
                while next < min(concurrency, wanted.count) { try add() }
                while let (id, resource) = try await group.next() {
                    if let resource { found[id] = resource }
                    if next < wanted.count { try add() }
                }
            }
        }
        let missing = wanted.filter { found[$0] == nil }
        if !missing.isEmpty {
            configuration.logger.warning(
                "the server returned no \(type) resource for \(missing.count) of the \(wanted.count) ids asked for",
                metadata: ["missing": "\(missing.prefix(20).joined(separator: ","))\(missing.count > 20 ? ",…" : "")"])
        }
        return wanted.compactMap { found[$0] }
    }

    /// The page after `graph`'s last document (its `links.next`), or `nil` when it has none:
    /// Spine's "load next page" of a collection.
    ///
    /// - Throws: ``JSONAPIClientError``, or `CancellationError`.
    public func nextPage(after graph: Graph, options: DocumentOptions? = nil) async throws -> Graph? {
        guard let link = graph.documents.last?.links?["next"].flatMap(Self.href) else { return nil }
        return try await self.graph(url(link), options: options)
    }

    /// The page before `graph`'s first document (its `links.prev`), or `nil` when it has none.
    ///
    /// - Throws: ``JSONAPIClientError``, or `CancellationError`.
    public func previousPage(before graph: Graph, options: DocumentOptions? = nil) async throws -> Graph? {
        guard let link = graph.documents.first?.links?["prev"].flatMap(Self.href) else { return nil }
        return try await self.graph(url(link), options: options)
    }

    /// A link's URL text: a string, or a link object's `href`; `nil` for `null`.
    static func href(_ value: LazyValue) -> String? {
        value.string ?? value["href"]?.string
    }

    private func graph(_ url: URL, options: DocumentOptions?) async throws -> Graph {
        try await graph(at: url, options: options)
    }
}

extension JSONAPIClient {
    /// One resource: from the client's identity cache when the same resource was loaded
    /// before with the same query (no request at all), else fetched and kept. Spine's
    /// "load only if not loaded"; ``reload(type:id:query:)`` always asks the server.
    ///
    /// The cache holds ``Configuration/identityCacheLimit`` resources at most (the least
    /// recently used go first); ``update(_:query:)`` and ``delete(type:id:)`` through this
    /// client drop the resource from it.
    ///
    /// - Throws: ``JSONAPIClientError``, or `CancellationError`.
    public func load(type: String, id: String, query: JSONAPIQuery = JSONAPIQuery()) async throws -> Resource {
        let key = IdentityCache.Key(type: type, id: id, query: query.percentEncodedQuery)
        if let cached = identities.resource(for: key) {
            configuration.logger.debug("identity cache: \(type) \(id) already loaded")
            return cached
        }
        return try await reload(type: type, id: id, query: query)
    }

    /// One resource, always fetched from the server; the identity cache keeps the answer.
    ///
    /// - Throws: ``JSONAPIClientError``, or `CancellationError`.
    public func reload(type: String, id: String, query: JSONAPIQuery = JSONAPIQuery()) async throws -> Resource {
        let resource = try await self.resource(type: type, id: id, query: query)
        identities.keep(resource, for: IdentityCache.Key(type: type, id: id, query: query.percentEncodedQuery))
        return resource
    }
}

/// Resources loaded through ``JSONAPIClient/load(type:id:query:)``, by type, id and query;
/// least recently used first out. Safe from any task.
final class IdentityCache: @unchecked Sendable {
    struct Key: Hashable {
        var type: String
        var id: String
        var query: String
    }

    private let limit: Int
    private let lock = NSLock()
    private var entries: [Key: (resource: Resource, use: UInt64)] = [:]
    private var clock: UInt64 = 0

    init(limit: Int) { self.limit = max(limit, 0) }

    func resource(for key: Key) -> Resource? {
        lock.withLock {
            guard let entry = entries[key] else { return nil }
            clock += 1
            entries[key] = (entry.resource, clock)
            return entry.resource
        }
    }

    func keep(_ resource: Resource, for key: Key) {
        guard limit > 0 else { return }
        lock.withLock {
            clock += 1
            entries[key] = (resource, clock)
            if entries.count > limit {
                // Drop the oldest eighth at once: eviction stays rare and linear.
                let drop = entries.sorted { $0.value.use < $1.value.use }.prefix(max(1, limit / 8))
                for (key, _) in drop { entries[key] = nil }
            }
        }
    }

    /// Forgets `type` `id` under every query.
    func forget(type: String, id: String) {
        lock.withLock { entries = entries.filter { !($0.key.type == type && $0.key.id == id) } }
    }
}
