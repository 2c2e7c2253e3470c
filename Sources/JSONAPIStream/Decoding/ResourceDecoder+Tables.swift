#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Containers: member tables of values and resources, keyed and unkeyed.
extension ResourceDecoder {
    func makeKeyed<Key: CodingKey>(_: Key.Type, node: DecodingNode, path: PathNode?, row: Int, tracksCycles: Bool) throws -> KeyedDecodingContainer<Key> {
        if keyedCache.isOn { return try reusedKeyed(Key.self, node: node, path: path, row: row, tracksCycles: tracksCycles) }
        return KeyedDecodingContainer(GraphKeyedContainer<Key>(table: try memberTable(node: node, path: path, row: row, tracksCycles: tracksCycles)))
    }

    /// The member table of the object at `node`: what a keyed container (or a
    /// ``JSONAPIReader``) looks its keys up in. `reusing`: a table to refill when it has
    /// room (see ``MemberTable/refill(_:path:row:resourceLevel:)``); the result is that
    /// table, or a new one.
    func memberTable(node: DecodingNode, path: PathNode?, row: Int, tracksCycles: Bool, reusing old: MemberTable? = nil) throws -> MemberTable {
        let here = Location(parent: path, key: nil, segment: .none, row: row)
        let tableRow: Int
        switch node {
        case .value(let s, let e, _):
            guard bytes[s] == UInt8(ascii: "{") else { throw mismatch([String: Any].self, node, here, expected: nil) }
            indexMembers(s, e)
            return table(path: path, row: row, resourceLevel: false, reusing: old)
        case .resource(let r):
            tableRow = r
        case .primary:
            let rows = storage.primaryRows
            guard rows.count == 1 else { throw primaryShape([String: Any].self, here) }
            tableRow = Int(rows[0])
        case .relationship(let i):
            let rel = storage.relationships[i]
            guard rel.kind == .toOne else { throw relationshipShape([String: Any].self, rel, here, wanted: "a to-one relationship (a related resource)") }
            let t = resolve(linkage: Int(rel.targetStart))
            guard t >= 0 else { throw unresolved([String: Any].self, linkage: Int(rel.targetStart), here) }
            try countResolution(here)
            tableRow = t
        case .linkage(let i):
            let t = resolve(linkage: i)
            guard t >= 0 else { throw unresolved([String: Any].self, linkage: i, here) }
            try countResolution(here)
            tableRow = t
        case .text:
            throw mismatch([String: Any].self, node, here, expected: nil)
        }
        try enterResource(tableRow, path: path, tracksCycles: tracksCycles)
        indexResource(tableRow)
        return table(path: path, row: tableRow, resourceLevel: true, reusing: old)
    }

    /// A table of the members `scratch` holds: `old` refilled when it has room, or a new one.
    private func table(path: PathNode?, row: Int, resourceLevel: Bool, reusing old: MemberTable?) -> MemberTable {
        // `scratch` does not change while the table copies it.
        let entries = scratch.elements
        if let old, old.refill(entries, path: path, row: row, resourceLevel: resourceLevel) { return old }
        return MemberTable.make(entries, decoder: self, path: path, row: row, resourceLevel: resourceLevel)
    }

    /// Counts one related resource decoded as a model; throws past the limit.
    @inline(__always)
    func countResolution(_ here: Location) throws {
        resolved &+= 1
        if resolved > resolutionLimit { throw tooManyResolved(here) }
    }

    @inline(never)
    func tooManyResolved(_ here: Location) -> DecodingError {
        .dataCorrupted(
            context(
                here,
                "this decode has decoded \(resolutionLimit) related resources as models, the limit (DecodingOptions.maxResolvedResources)"
                    + "; a recursive model decodes a resource once for every path that leads to it, and this document's relationships multiply the paths."
                    + " Decode such relationships as ResourceIdentifier or ToOne/ToMany handles, or raise the limit"))
    }

    /// Enters resource `t` before its members are read (a relationship back to a resource
    /// being decoded is a cycle).
    private func enterResource(_ t: Int, path: PathNode?, tracksCycles: Bool) throws {
        if tracksCycles && levelRow != t {
            if activeRows.contains(t) { throw cycle(to: t, Location(parent: path, key: nil, segment: .none, row: row)) }
            activeRows.append(t)
            levelRow = t
        }
    }

    func makeUnkeyed(node: DecodingNode, path: PathNode?, row: Int) throws -> any UnkeyedDecodingContainer {
        let here = Location(parent: path, key: nil, segment: .none, row: row)
        switch node {
        case .value(let s, let e, _):
            guard bytes[s] == UInt8(ascii: "[") else { throw mismatch([Any].self, node, here, expected: nil) }
            return GraphUnkeyedContainer(decoder: self, source: .array(s, e), path: path, row: row)
        case .relationship(let i):
            let rel = storage.relationships[i]
            guard rel.kind == .toMany else { throw relationshipShape([Any].self, rel, here, wanted: "a to-many relationship (an array of identifiers)") }
            return GraphUnkeyedContainer(decoder: self, source: .linkage(Int(rel.targetStart), Int(rel.targetCount)), path: path, row: row)
        case .primary:
            return GraphUnkeyedContainer(decoder: self, source: .primary(storage.primaryRows.count), path: path, row: row)
        case .resource, .linkage, .text:
            throw mismatch([Any].self, node, here, expected: nil)
        }
    }

    /// Indexes the members of the stored object at `s..<e` into `scratch`.
    private func indexMembers(_ s: Int, _ e: Int) {
        scratch.removeAll()
        appendMembers(s, e, attributes: false)
    }

    /// Indexes the attributes and relationships of resource `r` into `scratch`.
    private func indexResource(_ r: Int) {
        scratch.removeAll()
        let record = storage.resources[r]
        if !record.attributes.isNone {
            let span = storage.span(record.attributes).range
            appendMembers(span.lowerBound, span.upperBound, attributes: true)
        }
        let convert = options.keys.convertsStoredNames
        let start = Int(record.relationshipStart)
        for i in start..<(start + Int(record.relationshipCount)) {
            let symbol = storage.relationships[i].name
            var name = storage.symbols.bytes(of: symbol)
            if convert, let alias = relationshipAliases.alias(for: name, quoted: false, keys: options.keys, decoder: self) { name = alias }
            scratch.push(
                MemberEntry(
                    name: name.baseAddress ?? bytes.baseAddress!, nameCount: name.count, storedStart: Int(symbol), storedEnd: 0,
                    valueStart: i, valueEnd: 0, flags: MemberEntry.relationship))
        }
    }

    func appendMembers(_ s: Int, _ e: Int, attributes: Bool) {
        guard e - s >= 2, bytes[s] == UInt8(ascii: "{") else { return }
        let convert = attributes && options.keys.convertsStoredNames
        var i = s + 1
        let end = e - 1
        while i < end {
            var nameEscaped = false
            let nameEnd = StoredJSON.skipString(bytes, at: i, escaped: &nameEscaped)
            let valueStart = nameEnd + 1
            var valueEscaped = false
            let valueEnd = StoredJSON.skipValue(bytes, at: valueStart, escaped: &valueEscaped)
            var name = UnsafeRawBufferPointer(rebasing: bytes[(i + 1)..<(nameEnd - 1)])
            if nameEscaped || convert {
                let quoted = UnsafeRawBufferPointer(rebasing: bytes[i..<nameEnd])
                let alias =
                    convert
                    ? attributeAliases.alias(for: quoted, quoted: true, keys: options.keys, decoder: self)
                    : escapedNames.alias(for: quoted, quoted: true, keys: .asIs, decoder: self)
                if let alias { name = alias }
            }
            scratch.push(
                MemberEntry(
                    name: name.baseAddress ?? bytes.baseAddress!, nameCount: name.count, storedStart: i, storedEnd: nameEnd,
                    valueStart: valueStart, valueEnd: valueEnd, flags: valueEscaped ? MemberEntry.escaped : 0))
            i = valueEnd + 1
        }
    }

    /// Copies `bytes` into memory the decoder owns (freed with it).
    /// The wire name of coding key `key` under the ``keyFormatter`` (kept, by key).
    func wireName(_ key: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        let name = String(decoding: key, as: UTF8.self)
        if let known = wireNames[name] { return known }
        let wire = keep(Array((keyFormatter?.wireName(for: name) ?? name).utf8))
        wireNames[name] = wire
        return wire
    }

    func keep(_ source: [UInt8]) -> UnsafeRawBufferPointer {
        let p = UnsafeMutableRawPointer.allocate(byteCount: max(source.count, 1), alignment: 1)
        source.withUnsafeBytes { if let b = $0.baseAddress { p.copyMemory(from: b, byteCount: $0.count) } }
        allocations.append(p)
        return UnsafeRawBufferPointer(start: p, count: source.count)
    }
}
