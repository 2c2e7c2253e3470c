#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One member a keyed container can find: an attribute or nested object member (a span of
/// the value store), or a relationship (an index into the relationship table).
struct MemberEntry {
    /// The bytes coding keys are compared with: the stored name without quotes, the
    /// relationship's symbol, or an alias (an unescaped or key-strategy-converted name) owned
    /// by the decoder. Valid while the decoder and its graph live.
    var name: UnsafeRawPointer
    var nameCount: Int
    /// The quoted stored name (value members), or the relationship's name symbol in
    /// `storedStart` (relationships).
    var storedStart: Int
    var storedEnd: Int
    /// The value's span (value members), or the relationship index in `valueStart`.
    var valueStart: Int
    var valueEnd: Int
    var flags: UInt8

    static let relationship: UInt8 = 1
    /// The value is a string with a backslash.
    static let escaped: UInt8 = 2

    @inline(__always) var isRelationship: Bool { flags & Self.relationship != 0 }
}

/// The members of one object, indexed once when a keyed container is made, so that each
/// coding key is a short scan of `(length, bytes)` pairs instead of a walk of the JSON.
///
/// A worked example: a resource whose attributes are stored at offset 100 of the value store
/// as `{"title":"Hi","tags-list":["a"],"views":3}`, with one relationship `author` (symbol
/// 4, relationship row 0). Its container's table, under `keys = .camelCase`, is
///
/// ```
/// entry  compared name  stored name   value                 flags
/// 0      title          101..<108     109..<113  "Hi"       -
/// 1      tagsList       114..<125     126..<131  ["a"]      -         (alias)
/// 2      views          132..<139     140..<141  3          -
/// 3      author         symbol 4      relationship 0        relationship
/// ```
///
/// Building it is one pass over the object: the scan that finds where each string ends also
/// notes whether it holds a backslash (`flags`), so decoding a string without one is a
/// single copy. `tagsList` is an alias kept by the decoder (converted once per distinct
/// stored name); `id`, `type`, `lid`, `meta` and `links` are not entries but are answered
/// from the resource row.
///
/// Synthesized `init(from:)` asks for keys in declaration order, which is usually the order
/// of the stored members, so a lookup starts where the previous one ended (`hint`). Names
/// that appear twice (possible inside attribute values when duplicates are allowed) make
/// lookups take the last one, as ``LazyValue`` does.
///
/// The table also holds what its keyed container needs (decoder, path, resource), so that a
/// container is one reference: the standard library's container box copies the container
/// on every call.
final class MemberTable: ManagedBuffer<MemberTable.Header, MemberEntry> {
    struct Header {
        var count: Int
        /// Entries the storage holds (at least what `make` asked for).
        let capacity: Int
        var hint: Int
        var mayHaveDuplicates: Bool
        let decoder: ResourceDecoder
        // The fields below change only when ``refill(_:path:row:resourceLevel:)`` reuses the
        // table for another object.
        var path: PathNode?
        /// The resource the members belong to (-1: none).
        var row: Int
        /// Whether this is a resource's own container (`id`, `type`, attributes, ...).
        var resourceLevel: Bool
        /// Whether coding keys are looked up under the wire names of a
        /// ``KeyDecodingStrategy/formatter(_:)`` (a resource's container only).
        var formatsKeys: Bool
    }

    /// Whether two of `entries` may have the same name: a 64-bit filter on (length, first
    /// byte, last byte).
    private static func mayHaveDuplicates(_ entries: UnsafeBufferPointer<MemberEntry>) -> Bool {
        var seen: UInt64 = 0
        for e in entries {
            let first = e.nameCount > 0 ? e.name.load(as: UInt8.self) : 0
            let last = e.nameCount > 0 ? e.name.load(fromByteOffset: e.nameCount - 1, as: UInt8.self) : 0
            let bit = UInt64(1) << ((UInt64(e.nameCount) &* 31 &+ UInt64(first) &* 7 &+ UInt64(last)) & 63)
            if seen & bit != 0 { return true }
            seen |= bit
        }
        return false
    }

    /// Whether keys are looked up under a formatter's wire names: in a resource's own
    /// container, when the decoder has a formatter.
    private static func formatsKeys(_ resourceLevel: Bool, _ decoder: ResourceDecoder) -> Bool {
        resourceLevel && decoder.keyFormatter != nil
    }

    static func make(_ entries: UnsafeBufferPointer<MemberEntry>, decoder: ResourceDecoder, path: PathNode?, row: Int, resourceLevel: Bool) -> MemberTable {
        let duplicates = mayHaveDuplicates(entries)
        let buffer = Self.create(minimumCapacity: entries.count) { _ in
            Header(
                count: entries.count, capacity: entries.count, hint: 0, mayHaveDuplicates: duplicates, decoder: decoder, path: path,
                row: row, resourceLevel: resourceLevel, formatsKeys: formatsKeys(resourceLevel, decoder))
        }
        let table = unsafeDowncast(buffer, to: MemberTable.self)
        if let base = entries.baseAddress {
            table.withUnsafeMutablePointerToElements { $0.initialize(from: base, count: entries.count) }
        }
        return table
    }

    /// Makes the table that of another object of the same decoder, when its storage has room
    /// for `entries` (returns false otherwise, changing nothing). Only for a table no
    /// container but the one reused holds (``KeyedContainerCache``).
    func refill(_ entries: UnsafeBufferPointer<MemberEntry>, path: PathNode?, row: Int, resourceLevel: Bool) -> Bool {
        withUnsafeMutablePointers { h, e in
            guard entries.count <= h.pointee.capacity else { return false }
            h.pointee.count = entries.count
            h.pointee.hint = 0
            h.pointee.mayHaveDuplicates = Self.mayHaveDuplicates(entries)
            h.pointee.path = path
            h.pointee.row = row
            h.pointee.resourceLevel = resourceLevel
            h.pointee.formatsKeys = Self.formatsKeys(resourceLevel, h.pointee.decoder)
            // MemberEntry is trivial: its old values need no deinitializing.
            if let base = entries.baseAddress { e.initialize(from: base, count: entries.count) }
            return true
        }
    }

    // Through the header pointer: `header` is a class property, and reading it directly
    // would pay a dynamic exclusivity check on every coding key.
    var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }
    var decoder: ResourceDecoder { withUnsafeMutablePointerToHeader { $0.pointee.decoder } }
    var path: PathNode? { withUnsafeMutablePointerToHeader { $0.pointee.path } }
    var row: Int { withUnsafeMutablePointerToHeader { $0.pointee.row } }
    var resourceLevel: Bool { withUnsafeMutablePointerToHeader { $0.pointee.resourceLevel } }
    var formatsKeys: Bool { withUnsafeMutablePointerToHeader { $0.pointee.formatsKeys } }

    @inline(__always)
    func entry(_ i: Int) -> MemberEntry { withUnsafeMutablePointerToElements { $0[i] } }

    /// The entry whose name is `key`, or `nil`.
    @inline(__always)
    func find(_ key: UnsafeRawBufferPointer) -> Int? {
        withUnsafeMutablePointers { h, e in
            let n = h.pointee.count
            guard n > 0 else { return nil }
            if h.pointee.mayHaveDuplicates {
                var i = n - 1
                while i >= 0 {
                    if Self.equal(e[i], key) { return i }
                    i -= 1
                }
                return nil
            }
            var i = h.pointee.hint
            for _ in 0..<n {
                if i >= n { i = 0 }
                if Self.equal(e[i], key) {
                    h.pointee.hint = i + 1
                    return i
                }
                i += 1
            }
            return nil
        }
    }

    @inline(__always)
    private static func equal(_ e: MemberEntry, _ key: UnsafeRawBufferPointer) -> Bool {
        guard e.nameCount == key.count else { return false }
        guard let k = key.baseAddress else { return true }
        return memcmp(e.name, k, key.count) == 0
    }
}
