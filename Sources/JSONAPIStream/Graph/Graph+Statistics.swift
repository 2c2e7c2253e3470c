/// Counts over a ``Graph``: what `jsonapi stats` prints.
public struct GraphStatistics: Sendable, Codable, Equatable {
    /// Resources of one type.
    public struct TypeCount: Sendable, Codable, Equatable {
        /// The resource type.
        public var type: String
        /// Resources of the type.
        public var resources: Int
        /// Of those, in primary data.
        public var primary: Int
        /// Of those, only in `included`.
        public var included: Int
    }

    /// Relationship objects of one name, across types.
    public struct RelationshipCount: Sendable, Codable, Equatable {
        /// The relationship's name.
        public var name: String
        /// Relationship objects with this name.
        public var relationships: Int
        /// Linkage entries (edges).
        public var linkage: Int
        /// Relationship objects without `data`, or with `data: null`.
        public var withoutData: Int
        /// Linkage entries per relationship object that has `data`.
        public var fanOutMin: Int
        /// The median number of linkage entries per relationship object that has `data`.
        public var fanOutMedian: Double
        /// The most linkage entries of a relationship object.
        public var fanOutMax: Int
    }

    /// Documents read.
    public var documents: Int
    /// Resources in the graph (each once, after merging).
    public var resources: Int
    /// Resources by type, in the order types first appear.
    public var types: [TypeCount]
    /// Relationships by name, in the order names first appear.
    public var relationships: [RelationshipCount]
    /// Linkage entries whose target is not in the graph.
    public var danglingLinkage: Int
    /// Included resources that primary data does not reach through linkage (R23).
    public var unreachableIncluded: Int
    /// Resources that appeared more than once and were merged.
    public var duplicates: Int
    /// Warnings found.
    public var warnings: Int
    /// Bytes read.
    public var inputBytes: Int
}

extension Graph {
    /// Counts per type and relationship, dangling linkage, unreachable included resources.
    ///
    /// - Complexity: O(resources + linkage).
    public var statistics: GraphStatistics {
        let s = storage
        var types: [GraphStatistics.TypeCount] = []
        let order = s.rowsByType.indices.filter { !s.rowsByType[$0].isEmpty }.sorted { s.rowsByType[$0][0] < s.rowsByType[$1][0] }
        for t in order {
            var primary = 0
            var included = 0
            for row in s.rowsByType[t] {
                let f = s.resources[Int(row)].flags
                if f & GraphStorage.ResourceRecord.primary != 0 { primary += 1 }
                if f & GraphStorage.ResourceRecord.included != 0 { included += 1 }
            }
            types.append(.init(type: s.symbols.string(of: UInt32(t)), resources: s.rowsByType[t].count, primary: primary, included: included))
        }
        // Relationships by name, in first-seen order, over the relationships resources hold.
        var byName: [UInt32: Int] = [:]
        var names: [UInt32] = []
        var fanOuts: [[Int]] = []
        var withoutData: [Int] = []
        var counts: [Int] = []
        var dangling = 0
        for r in s.resources {
            for i in Int(r.relationshipStart)..<Int(r.relationshipStart + r.relationshipCount) {
                let rel = s.relationships[i]
                let k: Int
                if let existing = byName[rel.name] {
                    k = existing
                } else {
                    k = names.count
                    byName[rel.name] = k
                    names.append(rel.name)
                    fanOuts.append([])
                    withoutData.append(0)
                    counts.append(0)
                }
                counts[k] += 1
                if rel.kind == .absent || rel.kind == .null { withoutData[k] += 1 } else { fanOuts[k].append(Int(rel.targetCount)) }
                for t in Int(rel.targetStart)..<Int(rel.targetStart + rel.targetCount) where resolvedRow(s.linkage[t]) < 0 {
                    dangling += 1
                }
            }
        }
        var relationships: [GraphStatistics.RelationshipCount] = []
        for (k, name) in names.enumerated() {
            let f = fanOuts[k].sorted()
            let median: Double = f.isEmpty ? 0 : (f.count % 2 == 1 ? Double(f[f.count / 2]) : Double(f[f.count / 2 - 1] + f[f.count / 2]) / 2)
            relationships.append(
                .init(
                    name: s.symbols.string(of: name), relationships: counts[k], linkage: f.reduce(0, +),
                    withoutData: withoutData[k], fanOutMin: f.first ?? 0, fanOutMedian: median, fanOutMax: f.last ?? 0))
        }
        return GraphStatistics(
            documents: s.documents.count, resources: s.resources.count, types: types, relationships: relationships,
            danglingLinkage: dangling, unreachableIncluded: unreachableIncludedRows.count, duplicates: s.duplicateCount,
            warnings: s.warningCount, inputBytes: s.inputBytes)
    }

    /// Rows of included resources that primary data does not reach (directly or through
    /// other resources' linkage). Resources that are themselves primary are reached.
    var unreachableIncludedRows: [Int] {
        let s = storage
        var reached = [Bool](repeating: false, count: s.resources.count)
        var queue: [Int] = []
        for (row, r) in s.resources.enumerated() where r.flags & GraphStorage.ResourceRecord.primary != 0 {
            reached[row] = true
            queue.append(row)
        }
        var head = 0
        while head < queue.count {
            let r = s.resources[queue[head]]
            head += 1
            for i in Int(r.relationshipStart)..<Int(r.relationshipStart + r.relationshipCount) {
                let rel = s.relationships[i]
                for t in Int(rel.targetStart)..<Int(rel.targetStart + rel.targetCount) {
                    let row = Int(resolvedRow(s.linkage[t]))
                    if row >= 0 && !reached[row] {
                        reached[row] = true
                        queue.append(row)
                    }
                }
            }
        }
        return reached.indices.filter { !reached[$0] }
    }

    func resolvedRow(_ l: GraphStorage.LinkageRecord) -> Int32 {
        let row = storage.keyRow[Int(l.key)]
        if row >= 0 || l.lidKey == GraphStorage.noKey { return row }
        return storage.keyRow[Int(l.lidKey)]
    }
}
