extension Graph {
    /// The operations of the documents that apply the Atomic Operations extension
    /// (`atomic:operations`), in order, document after document. An operation the extension's
    /// rules refuse (no valid `op`) is left out; the rules report it (A04-A08). The same
    /// resource may appear in several operations: operations are not resources of the graph.
    ///
    /// A document applies the extension when its `jsonapi.ext` lists
    /// `https://jsonapi.org/ext/atomic` before `atomic:operations` comes, or when
    /// ``DocumentOptions/extensions`` contains `atomic` (`--extension atomic`).
    public var atomicOperations: [AtomicOperation] {
        atomicOperationValues.compactMap { AtomicOperation($0) }
    }

    /// The operation objects as the documents have them (every one, valid or not).
    public var atomicOperationValues: [JSONValue] { elements(of: \.atomicOperations) }

    /// The elements of one of each document's top-level members (an array), document after
    /// document; `member` says which of a document's extras it is (-1: none).
    private func elements(of member: KeyPath<GraphStorage.DocumentRecord, Int32>) -> [JSONValue] {
        let s = storage
        var out: [JSONValue] = []
        s.values.withBytes { all in
            for d in s.documents where d[keyPath: member] >= 0 {
                let span = d.extras[Int(d[keyPath: member])]
                let valueStart = StoredJSON.skipString(all, at: span.start) + 1
                if case .array(let list) = StoredJSON.decode(all, valueStart..<span.range.upperBound) { out += list }
            }
        }
        return out
    }

    /// The results of the documents that apply the Atomic Operations extension
    /// (`atomic:results`), in order, document after document: each result's resource (read
    /// into the graph like an included resource, merged by type and id) and its `meta`.
    public var atomicResults: [AtomicResults.Result] {
        let list = elements(of: \.atomicResults)
        return list.map { result in
            var resource: Resource? = nil
            if let data = result["data"], let type = data["type"]?.stringValue {
                resource = self[ResourceIdentifier(type: type, id: data["id"]?.stringValue, lid: data["lid"]?.stringValue)]
            }
            return AtomicResults.Result(resource: resource, meta: result["meta"])
        }
    }

    /// Whether a document of the graph had `atomic:results` under the extension.
    var hasAtomicResults: Bool { storage.documents.contains { $0.atomicResults >= 0 } }
}
