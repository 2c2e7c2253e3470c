#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Graph nodes: linkage resolved to identifiers, resources and relationships.
extension ResourceDecoder {
    /// The row a linkage entry names, or -1 when the documents did not hold it.
    @inline(__always)
    func resolve(linkage i: Int) -> Int {
        let l = storage.linkage[i]
        let r = storage.keyRow[Int(l.key)]
        if r >= 0 { return Int(r) }
        if l.lidKey != GraphStorage.noKey {
            let lr = storage.keyRow[Int(l.lidKey)]
            if lr >= 0 { return Int(lr) }
        }
        return -1
    }

    /// The identifier at a graph node; `nil` for stored values (decoded as objects).
    func identifier(_ node: DecodingNode, _ location: Location) throws -> ResourceIdentifier? {
        switch node {
        case .value: return nil
        case .resource(let r): return storage.identifier(row: r)
        case .linkage(let i): return storage.identifier(linkage: i)
        case .relationship(let i):
            let rel = storage.relationships[i]
            guard rel.kind == .toOne else { throw relationshipShape(ResourceIdentifier.self, rel, location, wanted: "a to-one relationship") }
            return storage.identifier(linkage: Int(rel.targetStart))
        case .primary:
            let rows = storage.primaryRows
            guard rows.count == 1 else { throw primaryShape(ResourceIdentifier.self, location) }
            return storage.identifier(row: Int(rows[0]))
        case .text:
            throw mismatch(ResourceIdentifier.self, node, location, expected: "a resource identifier")
        }
    }

    /// The resource at a graph node.
    func resource(_ node: DecodingNode, _ location: Location) throws -> Resource {
        switch node {
        case .resource(let r): return Resource(graph: graph, row: r)
        case .primary:
            let rows = storage.primaryRows
            guard rows.count == 1 else { throw primaryShape(Resource.self, location) }
            return Resource(graph: graph, row: Int(rows[0]))
        case .linkage(let i):
            let t = resolve(linkage: i)
            guard t >= 0 else { throw unresolved(Resource.self, linkage: i, location) }
            return Resource(graph: graph, row: t)
        case .relationship(let i):
            let rel = storage.relationships[i]
            guard rel.kind == .toOne else { throw relationshipShape(Resource.self, rel, location, wanted: "a to-one relationship") }
            let t = resolve(linkage: Int(rel.targetStart))
            guard t >= 0 else { throw unresolved(Resource.self, linkage: Int(rel.targetStart), location) }
            return Resource(graph: graph, row: t)
        case .value, .text:
            throw mismatch(Resource.self, node, location, expected: "a relationship or a resource")
        }
    }

    /// The linkage entry at a graph node: one of a to-many linkage, or a to-one
    /// relationship's.
    func linkage(_ node: DecodingNode, _ location: Location) throws -> Linkage {
        switch node {
        case .linkage(let i): return Linkage(graph: graph, index: i)
        case .relationship(let i):
            let rel = storage.relationships[i]
            guard rel.kind == .toOne else { throw relationshipShape(Linkage.self, rel, location, wanted: "a to-one relationship") }
            return Linkage(graph: graph, index: Int(rel.targetStart))
        case .value, .text, .resource, .primary:
            throw mismatch(Linkage.self, node, location, expected: "a relationship's resource linkage")
        }
    }

    /// The relationship at a graph node.
    func relationship(_ type: Any.Type, _ node: DecodingNode, _ location: Location) throws -> Relationship {
        guard case .relationship(let i) = node else { throw mismatch(type, node, location, expected: "a relationship") }
        return Relationship(graph: graph, index: i)
    }

    /// The location of the current node (for errors raised by graph types).
    var here: Location { Location(parent: path, key: nil, segment: .none, row: row) }
}
