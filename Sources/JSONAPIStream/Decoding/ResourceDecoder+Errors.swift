#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Errors: where a failure is (coding path and JSON pointer) and what it says.
extension ResourceDecoder {
    /// `articles/1 /attributes/views`, with the resource it was reached from.
    ///
    /// A long chain of related resources is shortened to its first two and its last:
    /// `n/40 /relationships/next/data (reached from n/39 … (reached from … 37 more resources …
    /// (reached from n/0 …)))`. Iterative, so that a chain as long as the stack allowed is
    /// described without recursing again.
    func place(_ location: Location) -> String {
        // One location per resource on the way, innermost first.
        var levels = [location]
        var node = location.parent
        while let n = node {
            if n.row != levels[levels.count - 1].row {
                guard n.row >= 0 else { break }
                levels.append(Location(parent: n.parent, key: n.key, segment: n.segment, row: n.row))
            }
            node = n.parent
        }
        let shown = levels.count <= 4 ? Array(levels.indices) : [0, 1, levels.count - 1]
        var text = ""
        for (k, i) in shown.enumerated() {
            if k > 0 {
                text += " (reached from "
                if i - shown[k - 1] > 1 { text += "… \(i - shown[k - 1] - 1) more resources … (reached from " }
            }
            text += levelText(levels[i])
        }
        for (k, i) in shown.enumerated() where k > 0 {
            text += i - shown[k - 1] > 1 ? "))" : ")"
        }
        return text
    }

    /// One resource's part of ``place(_:)``: the resource and the pointer inside it.
    func levelText(_ location: Location) -> String {
        var segments: [String] = []
        if let s = segmentText(location.segment) { segments.append(s) }
        var node = location.parent
        while let n = node, n.row == location.row {
            if let s = segmentText(n.segment) { segments.append(s) }
            node = n.parent
        }
        let pointer = segments.reversed().joined()
        if location.row >= 0 {
            let text = Resource(graph: graph, row: location.row).description
            return pointer.isEmpty ? text : text + " " + pointer
        }
        let whole = valuePointer + pointer
        return whole.isEmpty ? "the value" : whole
    }

    func segmentText(_ segment: PointerSegment) -> String? {
        func escape(_ s: String) -> String { escapePointerToken(s) }
        switch segment {
        case .none: return nil
        case .member(let s, let e): return "/" + escape(StoredJSON.decodeString(bytes, s..<e))
        case .attribute(let s, let e): return "/attributes/" + escape(StoredJSON.decodeString(bytes, s..<e))
        case .relationship(let symbol): return "/relationships/" + escape(storage.symbols.string(of: symbol)) + "/data"
        case .fixed(let text): return "\(text)"
        case .index(let i): return "/\(i)"
        }
    }

    func context(_ location: Location, _ message: String, underlying: (any Error)? = nil) -> DecodingError.Context {
        DecodingError.Context(codingPath: location.codingPath, debugDescription: place(location) + ": " + message, underlyingError: underlying)
    }

    /// A `DecodingError` a closure of the caller's threw (a transform, a `.custom` date
    /// strategy), which knows nothing of where it ran (its coding path is usually empty):
    /// the same error at `location`, its path and message prefixed with the resource and
    /// the pointer, the original as the underlying error.
    func relocated(_ e: DecodingError, _ location: Location) -> DecodingError {
        func moved(_ c: DecodingError.Context) -> DecodingError.Context {
            DecodingError.Context(
                codingPath: location.codingPath + c.codingPath, debugDescription: place(location) + ": " + c.debugDescription,
                underlyingError: c.underlyingError ?? e)
        }
        switch e {
        case .typeMismatch(let type, let c): return .typeMismatch(type, moved(c))
        case .valueNotFound(let type, let c): return .valueNotFound(type, moved(c))
        case .keyNotFound(let key, let c): return .keyNotFound(key, moved(c))
        case .dataCorrupted(let c): return .dataCorrupted(moved(c))
        @unknown default: return e
        }
    }

    /// What is at `node`, for "found ..." in messages.
    func describe(_ node: DecodingNode) -> String {
        switch node {
        case .value(let s, let e, _): return StoredJSON.describe(bytes, s, e)
        case .text(let t): return "string \"\(t)\""
        case .resource(let r): return "resource \(Resource(graph: graph, row: r))"
        case .linkage(let i): return "resource identifier \(Linkage(graph: graph, index: i).identifier)"
        case .primary: return "primary data of \(storage.primaryRows.count) resources"
        case .relationship(let i):
            let rel = storage.relationships[i]
            switch rel.kind {
            case .toOne: return "a to-one relationship"
            case .toMany: return "a to-many relationship (\(rel.targetCount) identifiers)"
            case .null: return "a relationship with null data"
            case .absent: return "a relationship without data"
            }
        }
    }

    /// A wrong kind of value (or `null` where a value is required). `expected` describes
    /// what would do when the type name alone does not say it.
    func mismatch(_ type: Any.Type, _ node: DecodingNode, _ location: Location, expected: String?) -> DecodingError {
        let wanted = expected.map { "\(typeName(type)) (\($0))" } ?? typeName(type)
        let message = "expected \(wanted), found \(describe(node))"
        if isNil(node) { return .valueNotFound(type, context(location, message)) }
        return .typeMismatch(type, context(location, message))
    }

    func numberFailure(_ type: Any.Type, _ failure: StoredNumber.Failure, _ node: DecodingNode, _ location: Location) -> DecodingError {
        .dataCorrupted(context(location, "expected \(typeName(type)), found \(describe(node)), which \(failure.reason(typeName(type)))"))
    }

    func unresolved(_ type: Any.Type, linkage i: Int, _ location: Location) -> DecodingError {
        let id = Linkage(graph: graph, index: i).identifier
        return .valueNotFound(type, context(location, "the related resource \(id) is not in the document (not included); declare the property optional, or as ResourceIdentifier, ToOne or ToMany"))
    }

    func relationshipShape(_ type: Any.Type, _ rel: GraphStorage.RelationshipRecord, _ location: Location, wanted: String) -> DecodingError {
        let found: String
        switch rel.kind {
        case .toOne: found = "a to-one relationship"
        case .toMany: found = "a to-many relationship (\(rel.targetCount) identifiers)"
        case .null: found = "null resource linkage"
        case .absent: found = "a relationship without data (no resource linkage)"
        }
        let message = "expected \(wanted), found \(found)"
        if rel.kind == .null || rel.kind == .absent { return .valueNotFound(type, context(location, message)) }
        return .typeMismatch(type, context(location, message))
    }

    func primaryShape(_ type: Any.Type, _ location: Location) -> DecodingError {
        let n = storage.primaryRows.count
        if n == 0 { return .valueNotFound(type, context(location, "expected one resource, found no primary data")) }
        return .typeMismatch(type, context(location, "expected one resource, found primary data of \(n) resources; decode an array"))
    }

    func cycle(to t: Int, _ location: Location) -> DecodingError {
        let start = activeRows.firstIndex(of: t) ?? 0
        let chain = (activeRows[start...] + [t]).map { Resource(graph: graph, row: $0).description }.joined(separator: " → ")
        return .dataCorrupted(
            context(
                location,
                "the relationship leads back to a resource being decoded (\(chain)); declare one side as ResourceIdentifier, ToOne, ToMany or Resource, or set cycles to .nilForOptionals for an optional to-one"
            ))
    }

    func typeName(_ type: Any.Type) -> String {
        if type == [String: Any].self { return "an object" }
        if type == [Any].self { return "an array" }
        return String(describing: type)
    }
}
