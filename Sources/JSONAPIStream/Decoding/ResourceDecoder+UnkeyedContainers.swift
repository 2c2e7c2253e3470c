#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An unkeyed container over a stored array, a to-many relationship's linkage, or primary
/// data.
struct GraphUnkeyedContainer: UnkeyedDecodingContainer {
    enum Source {
        /// A stored array's span.
        case array(Int, Int)
        /// Linkage entries `start..<start + count`.
        case linkage(Int, Int)
        /// The graph's primary rows (their count).
        case primary(Int)
    }

    let decoder: ResourceDecoder
    let source: Source
    let path: PathNode?
    let row: Int
    /// Stored arrays: where the next element starts, or the closing `]`.
    private var offset: Int
    private(set) var currentIndex = 0

    init(decoder: ResourceDecoder, source: Source, path: PathNode?, row: Int) {
        self.decoder = decoder
        self.source = source
        self.path = path
        self.row = row
        if case .array(let s, _) = source { offset = s + 1 } else { offset = 0 }
    }

    var codingPath: [any CodingKey] { path?.codingPath ?? [] }

    var count: Int? {
        switch source {
        case .array(let s, let e): return StoredJSON.elements(decoder.bytes, s..<e).count
        case .linkage(_, let n): return n
        case .primary(let n): return n
        }
    }

    var isAtEnd: Bool {
        switch source {
        case .array: return decoder.bytes[offset] == UInt8(ascii: "]")
        case .linkage(_, let n): return currentIndex >= n
        case .primary(let n): return currentIndex >= n
        }
    }

    /// The next element and where it is; advances.
    @inline(__always)
    private mutating func next() throws -> (DecodingNode, Location) {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(
                Any.self,
                decoder.context(
                    Location(parent: path, key: IndexKey(currentIndex), segment: .index(currentIndex), row: row),
                    "expected an element at index \(currentIndex), found the end of the array"))
        }
        let i = currentIndex
        currentIndex += 1
        switch source {
        case .array:
            var escaped = false
            let e = StoredJSON.skipValue(decoder.bytes, at: offset, escaped: &escaped)
            let node = DecodingNode.value(offset, e, escaped: escaped)
            offset = decoder.bytes[e] == UInt8(ascii: ",") ? e + 1 : e
            return (node, Location(parent: path, key: IndexKey(i), segment: .index(i), row: row))
        case .linkage(let start, _):
            return (.linkage(start + i), Location(parent: path, key: IndexKey(i), segment: .index(i), row: row))
        case .primary:
            return (.resource(Int(decoder.storage.primaryRows[i])), Location(parent: path, key: IndexKey(i), segment: .none, row: -1))
        }
    }

    mutating func decodeNil() throws -> Bool {
        guard case .array = source, !isAtEnd, decoder.bytes[offset] == UInt8(ascii: "n") else { return false }
        _ = try next()
        return true
    }

    @inline(__always)
    private mutating func scalar<T: StoredScalar>() throws -> T {
        let (node, loc) = try next()
        do throws(ScalarFailure) {
            return try T.decodeScalar(decoder, node)
        } catch {
            throw decoder.error(error, node, loc)
        }
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try scalar() }
    mutating func decode(_ type: String.Type) throws -> String { try scalar() }
    mutating func decode(_ type: Double.Type) throws -> Double { try scalar() }
    mutating func decode(_ type: Float.Type) throws -> Float { try scalar() }
    mutating func decode(_ type: Int.Type) throws -> Int { try scalar() }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try scalar() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try scalar() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try scalar() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try scalar() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try scalar() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar() }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        // `[Person?]` over linkage: an element that was not included is nil.
        if case .linkage(let start, let n) = source, currentIndex < n, let optional = T.self as? OptionalDecoding.Type,
            !optional.wrappedIsIntrinsic, decoder.resolve(linkage: start + currentIndex) < 0
        {
            currentIndex += 1
            return optional.nilValue as! T
        }
        let (node, loc) = try next()
        return try decoder.decode(T.self, node: node, at: loc)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (node, loc) = try next()
        return try decoder.makeKeyed(NestedKey.self, node: node, path: PathNode(loc), row: row, tracksCycles: false)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (node, loc) = try next()
        return try decoder.makeUnkeyed(node: node, path: PathNode(loc), row: row)
    }

    mutating func superDecoder() throws -> any Decoder {
        let (node, loc) = try next()
        return decoder.fork(node: node, location: loc)
    }
}

// MARK: - Single value

struct GraphSingleValueContainer: SingleValueDecodingContainer {
    let decoder: ResourceDecoder
    let node: DecodingNode
    let path: PathNode?
    let row: Int

    var codingPath: [any CodingKey] { path?.codingPath ?? [] }

    private var here: Location { Location(parent: path, key: nil, segment: .none, row: row) }

    func decodeNil() -> Bool { decoder.isNil(node) }

    @inline(__always)
    private func scalar<T: StoredScalar>() throws -> T {
        do throws(ScalarFailure) {
            return try T.decodeScalar(decoder, node)
        } catch {
            throw decoder.error(error, node, here)
        }
    }

    func decode(_ type: Bool.Type) throws -> Bool { try scalar() }
    func decode(_ type: String.Type) throws -> String { try scalar() }
    func decode(_ type: Double.Type) throws -> Double { try scalar() }
    func decode(_ type: Float.Type) throws -> Float { try scalar() }
    func decode(_ type: Int.Type) throws -> Int { try scalar() }
    func decode(_ type: Int8.Type) throws -> Int8 { try scalar() }
    func decode(_ type: Int16.Type) throws -> Int16 { try scalar() }
    func decode(_ type: Int32.Type) throws -> Int32 { try scalar() }
    func decode(_ type: Int64.Type) throws -> Int64 { try scalar() }
    func decode(_ type: UInt.Type) throws -> UInt { try scalar() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar() }

    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decoder.decode(T.self, node: node, at: here) }
}
