#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The standard scalar types, decoded straight from the stored bytes.
protocol StoredScalar {
    static func decodeScalar(_ d: ResourceDecoder, _ node: DecodingNode) throws(ScalarFailure) -> Self
}

extension String: StoredScalar {
    @inline(__always)
    static func decodeScalar(_ d: ResourceDecoder, _ node: DecodingNode) throws(ScalarFailure) -> String { try d.string(node) }
}
extension Bool: StoredScalar {
    @inline(__always)
    static func decodeScalar(_ d: ResourceDecoder, _ node: DecodingNode) throws(ScalarFailure) -> Bool { try d.bool(node) }
}
extension Double: StoredScalar {
    @inline(__always)
    static func decodeScalar(_ d: ResourceDecoder, _ node: DecodingNode) throws(ScalarFailure) -> Double { try d.double(node) }
}
extension Float: StoredScalar {
    static func decodeScalar(_ d: ResourceDecoder, _ node: DecodingNode) throws(ScalarFailure) -> Float { try d.float(node) }
}
extension StoredScalar where Self: FixedWidthInteger {
    @inline(__always)
    static func decodeScalar(_ d: ResourceDecoder, _ node: DecodingNode) throws(ScalarFailure) -> Self { try d.integer(Self.self, node) }
}
extension Int: StoredScalar {}
extension Int8: StoredScalar {}
extension Int16: StoredScalar {}
extension Int32: StoredScalar {}
extension Int64: StoredScalar {}
extension UInt: StoredScalar {}
extension UInt8: StoredScalar {}
extension UInt16: StoredScalar {}
extension UInt32: StoredScalar {}
extension UInt64: StoredScalar {}

// MARK: - Keyed

/// A member found for a coding key: where its value is, and its JSON pointer step.
struct MemberLookup {
    var node: DecodingNode
    var segment: PointerSegment
}

extension MemberTable {
    /// The member a coding key names: for a resource, `id`, `type` and `lid` first, then
    /// attributes and relationships, then `meta` and `links`.
    @inline(__always)
    func lookup(_ name: String) -> MemberLookup? {
        var name = name
        return name.withUTF8 { lookup(UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    func lookup(_ raw: UnsafeRawBufferPointer) -> MemberLookup? {
        let resourceLevel = self.resourceLevel
        if resourceLevel, raw.count <= 4, let v = virtual(raw, beforeMembers: true) { return v }
        if formatsKeys {
            if let i = find(decoder.wireName(raw)) { return member(i) }
        } else if let i = find(raw) {
            return member(i)
        }
        if resourceLevel, raw.count <= 5, let v = virtual(raw, beforeMembers: false) { return v }
        return nil
    }

    @inline(__always)
    func member(_ i: Int) -> MemberLookup {
        let e = entry(i)
        if e.isRelationship { return MemberLookup(node: .relationship(e.valueStart), segment: .relationship(UInt32(e.storedStart))) }
        return MemberLookup(
            node: .value(e.valueStart, e.valueEnd, escaped: e.flags & MemberEntry.escaped != 0),
            segment: resourceLevel ? .attribute(e.storedStart, e.storedEnd) : .member(e.storedStart, e.storedEnd))
    }

    /// `id`, `type`, `lid` (before attributes), `meta`, `links` (when no attribute or
    /// relationship has the name).
    private func virtual(_ k: UnsafeRawBufferPointer, beforeMembers: Bool) -> MemberLookup? {
        func equals(_ s: StaticString) -> Bool {
            memoryEqual(UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount), k)
        }
        if beforeMembers {
            let storage = decoder.storage
            if equals("id") { return storage.id(row: row).map { MemberLookup(node: .text($0), segment: .fixed("/id")) } }
            if equals("type") { return MemberLookup(node: .text(storage.type(row: row)), segment: .fixed("/type")) }
            if equals("lid") { return storage.lid(row: row).map { MemberLookup(node: .text($0), segment: .fixed("/lid")) } }
            return nil
        }
        guard equals("meta") || equals("links") else { return nil }
        let record = decoder.storage.resources[row]
        let meta = decoder.storage.span(record.meta)
        if equals("meta"), !meta.isNone {
            return MemberLookup(node: .value(meta.start, meta.start + meta.count, escaped: false), segment: .fixed("/meta"))
        }
        let links = decoder.storage.span(record.links)
        if equals("links"), !links.isNone {
            return MemberLookup(node: .value(links.start, links.start + links.count, escaped: false), segment: .fixed("/links"))
        }
        return nil
    }

    // What a keyed container and a ``JSONAPIReader`` do with the member `m` found for a key:
    // one implementation for both. The key is needed only to place a failure.

    /// `m`, or `keyNotFound` for `key`.
    @inline(__always)
    func require(_ m: MemberLookup?, key: @autoclosure () -> any CodingKey) throws -> MemberLookup {
        guard let m else { throw keyNotFound(key()) }
        return m
    }

    /// The scalar at `m`; a failure is placed at `key`.
    @inline(__always)
    func scalar<T: StoredScalar>(_ m: MemberLookup, key: @autoclosure () -> any CodingKey) throws -> T {
        do throws(ScalarFailure) {
            return try T.decodeScalar(decoder, m.node)
        } catch {
            throw decoder.error(error, m.node, location(key(), m))
        }
    }

    /// The scalar at `m`, or `nil` when it is absent or `null`.
    @inline(__always)
    func scalarIfPresent<T: StoredScalar>(_ m: MemberLookup?, key: @autoclosure () -> any CodingKey) throws -> T? {
        guard let m, !decoder.isNil(m.node) else { return nil }
        return try scalar(m, key: key())
    }

    /// The value at `m` as `T`, as a model's property of that type.
    @inline(__always)
    func decode<T: Decodable>(_: T.Type, _ m: MemberLookup, key: any CodingKey) throws -> T {
        try decoder.decode(T.self, node: m.node, at: location(key, m))
    }

    /// What `decodeIfPresent` gives for the member `m` found for `key` (`nil`: absent).
    func decodeIfPresent<T: Decodable>(_: T.Type, _ m: MemberLookup?, key: any CodingKey) throws -> T? {
        guard let m else { return nil }
        let decoder = self.decoder
        switch m.node {
        case .value(let s, _, _):
            if decoder.bytes[s] == UInt8(ascii: "n") { return nil }
        case .relationship(let i):
            let rel = decoder.storage.relationships[i]
            switch rel.kind {
            case .null, .absent:
                return nil
            case .toOne where !(T.self is GraphIntrinsic.Type):
                // A related model: nil when its resource is not in the document, or (when
                // asked) when it closes a cycle.
                let t = decoder.resolve(linkage: Int(rel.targetStart))
                if t < 0 { return nil }
                if decoder.options.cycles == .nilForOptionals && decoder.activeRows.contains(t) { return nil }
            default:
                break
            }
        default:
            break
        }
        return try decoder.decode(T.self, node: m.node, at: location(key, m))
    }

    func location(_ key: any CodingKey, _ m: MemberLookup) -> Location {
        Location(parent: path, key: key, segment: m.segment, row: row)
    }

    /// The names coding keys can use, in order.
    var names: [String] {
        var names: [String] = []
        if resourceLevel {
            let resource = Resource(graph: decoder.graph, row: row)
            if resource.id != nil { names.append("id") }
            names.append("type")
            if resource.lid != nil { names.append("lid") }
        }
        for i in 0..<count {
            let e = entry(i)
            names.append(String(decoding: UnsafeRawBufferPointer(start: e.name, count: e.nameCount), as: UTF8.self))
        }
        if resourceLevel {
            let record = decoder.storage.resources[row]
            if !record.meta.isNone && !names.contains("meta") { names.append("meta") }
            if !record.links.isNone && !names.contains("links") { names.append("links") }
        }
        return names
    }

    @inline(never)
    func keyNotFound(_ key: any CodingKey) -> DecodingError {
        var names: [String] = []
        for i in 0..<min(count, 12) {
            let e = entry(i)
            names.append(String(decoding: UnsafeRawBufferPointer(start: e.name, count: e.nameCount), as: UTF8.self))
        }
        if count > 12 { names.append("…") }
        let what = resourceLevel ? "no attribute or relationship" : "no member"
        var message = "\(what) \"\(key.stringValue)\""
        if resourceLevel && !decoder.options.keys.isAsIs { message += " (stored names \(decoder.options.keys.summary))" }
        message += names.isEmpty ? "; it has none" : "; it has " + names.joined(separator: ", ")
        return .keyNotFound(key, decoder.context(Location(parent: path, key: nil, segment: .none, row: row), message))
    }
}

/// A keyed container over a stored object, or over a resource (`id`, `type`, `lid`, its
/// attributes, its relationships, then `meta` and `links`). One reference: everything it
/// needs is in its ``MemberTable``.
struct GraphKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let table: MemberTable

    var codingPath: [any CodingKey] { table.path?.codingPath ?? [] }

    var allKeys: [Key] { table.names.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { table.lookup(key.stringValue) != nil }

    @inline(__always)
    private func require(_ key: Key) throws -> MemberLookup { try table.require(table.lookup(key.stringValue), key: key) }

    func decodeNil(forKey key: Key) throws -> Bool { table.decoder.isNil(try require(key).node) }

    // MARK: Values

    @inline(__always)
    private func scalar<T: StoredScalar>(_ key: Key) throws -> T { try table.scalar(require(key), key: key) }

    @inline(__always)
    private func scalarIfPresent<T: StoredScalar>(_ key: Key) throws -> T? { try table.scalarIfPresent(table.lookup(key.stringValue), key: key) }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(key) }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try scalarIfPresent(key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try scalarIfPresent(key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try scalarIfPresent(key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try scalarIfPresent(key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try scalarIfPresent(key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try scalarIfPresent(key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try scalarIfPresent(key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try scalarIfPresent(key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try scalarIfPresent(key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try scalarIfPresent(key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try scalarIfPresent(key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try scalarIfPresent(key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try scalarIfPresent(key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try scalarIfPresent(key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try table.decode(T.self, require(key), key: key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try table.decodeIfPresent(T.self, table.lookup(key.stringValue), key: key)
    }

    // MARK: Nesting

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let m = try require(key)
        return try table.decoder.makeKeyed(NestedKey.self, node: m.node, path: PathNode(table.location(key, m)), row: table.row, tracksCycles: false)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let m = try require(key)
        return try table.decoder.makeUnkeyed(node: m.node, path: PathNode(table.location(key, m)), row: table.row)
    }

    func superDecoder() throws -> any Decoder {
        let key = NameKey("super")
        guard let m = table.lookup("super") else { throw table.keyNotFound(key) }
        return table.decoder.fork(node: m.node, location: table.location(key, m))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        let m = try require(key)
        return table.decoder.fork(node: m.node, location: table.location(key, m))
    }
}
