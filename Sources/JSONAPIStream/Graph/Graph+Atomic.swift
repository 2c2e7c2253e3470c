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
    public var atomicOperationValues: [JSONValue] {
        let s = storage
        var out: [JSONValue] = []
        s.values.withBytes { all in
            for d in s.documents where d.atomicOperations >= 0 {
                let span = d.extras[Int(d.atomicOperations)]
                let valueStart = StoredJSON.skipString(all, at: span.start) + 1
                if case .array(let list) = StoredJSON.decode(all, valueStart..<span.range.upperBound) { out += list }
            }
        }
        return out
    }
}
