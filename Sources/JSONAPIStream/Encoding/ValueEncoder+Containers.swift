#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

protocol LinkageConvertible {
    /// The resource linkage to encode.
    var encodedLinkage: RelationshipLinkage { get }
}

extension ToOne: LinkageConvertible {
    var encodedLinkage: RelationshipLinkage { .toOne(identifier) }
}

extension ToMany: LinkageConvertible {
    var encodedLinkage: RelationshipLinkage { .toMany(identifiers) }
}

extension ToOne: Encodable {
    /// The identifier (or `null`): what a relationship's `data` holds.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let identifier { try c.encode(identifier) } else { try c.encodeNil() }
    }
}

extension ToMany: Encodable {
    /// The identifiers: what a relationship's `data` holds.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(identifiers)
    }
}

struct KeyedNodeContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: ValueEncoder
    let node: EncodedNode
    let codingPath: [any CodingKey]

    private func put(_ value: JSONValue, _ key: Key) { node.set(key.stringValue, EncodedNode(value)) }

    mutating func encodeNil(forKey key: Key) throws { put(.null, key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { put(.string(value), key) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        node.set(key.stringValue, try encoder.box(value, path: codingPath + [key]))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodedNode()
        child.kind = .object([])
        node.set(key.stringValue, child)
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(encoder: encoder, node: child, codingPath: codingPath + [key]))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = EncodedNode()
        child.kind = .array([])
        node.set(key.stringValue, child)
        return UnkeyedNodeContainer(encoder: encoder, node: child, codingPath: codingPath + [key])
    }

    mutating func superEncoder() -> any Encoder { superEncoder(named: "super") }
    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue, key: key) }

    private func superEncoder(named name: String, key: (any CodingKey)? = nil) -> any Encoder {
        let sub = NodeReferencingEncoder(options: encoder.options, path: codingPath + [key ?? SuperKey()])
        sub.attach = { [node] child in node.set(name, child) }
        return sub
    }
}

struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) {}
    init?(intValue: Int) { nil }
}

/// An encoder for `superEncoder`: its root is attached to the parent when first made.
final class NodeReferencingEncoder: Encoder {
    let inner: ValueEncoder
    var attach: ((EncodedNode) -> Void)?
    var codingPath: [any CodingKey] { inner.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { inner.userInfo }

    init(options: ResourceEncodingOptions, path: [any CodingKey]) {
        inner = ValueEncoder(options: options, path: path)
    }

    private func attachOnce() {
        if let attach {
            let n = EncodedNode()
            inner.root = n
            attach(n)
            self.attach = nil
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        attachOnce()
        return inner.container(keyedBy: type)
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        attachOnce()
        return inner.unkeyedContainer()
    }
    func singleValueContainer() -> any SingleValueEncodingContainer {
        attachOnce()
        return SingleNodeContainer(encoder: inner, codingPath: codingPath)
    }
}

struct UnkeyedNodeContainer: UnkeyedEncodingContainer {
    let encoder: ValueEncoder
    let node: EncodedNode
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    private var nextPath: [any CodingKey] { codingPath + [EncodingIndexKey(count)] }

    mutating func encodeNil() throws { node.append(EncodedNode(.null)) }
    mutating func encode(_ value: Bool) throws { node.append(EncodedNode(.bool(value))) }
    mutating func encode(_ value: String) throws { node.append(EncodedNode(.string(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { node.append(try encoder.box(value, path: nextPath)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let path = nextPath
        let child = EncodedNode()
        child.kind = .object([])
        node.append(child)
        return KeyedEncodingContainer(KeyedNodeContainer<NestedKey>(encoder: encoder, node: child, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let path = nextPath
        let child = EncodedNode()
        child.kind = .array([])
        node.append(child)
        return UnkeyedNodeContainer(encoder: encoder, node: child, codingPath: path)
    }

    mutating func superEncoder() -> any Encoder {
        let sub = NodeReferencingEncoder(options: encoder.options, path: nextPath)
        sub.attach = { [node] child in node.append(child) }
        return sub
    }
}

struct SingleNodeContainer: SingleValueEncodingContainer {
    let encoder: ValueEncoder
    let codingPath: [any CodingKey]

    private func set(_ n: EncodedNode) {
        if let root = encoder.root {
            root.kind = n.kind
            root.linkage = n.linkage
        } else {
            encoder.root = n
        }
    }

    mutating func encodeNil() throws { set(EncodedNode(.null)) }
    mutating func encode(_ value: Bool) throws { set(EncodedNode(.bool(value))) }
    mutating func encode(_ value: String) throws { set(EncodedNode(.string(value))) }
    mutating func encode<T: Encodable>(_ value: T) throws { set(try encoder.box(value, path: codingPath)) }
}

// MARK: - RFC 3339 dates
