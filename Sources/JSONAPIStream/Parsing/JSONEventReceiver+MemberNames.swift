#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Member names as 8-byte words, and the hash tables that find a repeated name (`J11`) in
/// large objects: open addressing over the names' bytes with the process's seeded hash, so
/// crafted names do not collide.
extension JSONEventReceiver {
    /// The bytes of member name entry `e` (short names are rebuilt from their prefix).
    final func keyText(_ e: KeyEntry) -> String {
        if e.length <= 8 {
            var p = e.prefix
            var bytes: [UInt8] = []
            for _ in 0..<Int(e.length) {
                bytes.append(UInt8(truncatingIfNeeded: p))
                p >>= 8
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        return keyBytes.string(e.start..<e.start + Int(e.length))
    }

    /// Calls `body` with the bytes of the member name read last, which must be one the
    /// receiver did not take as known (``receiveKnownKey(_:escaped:prefix:code:)`` keeps no
    /// entry): the document builder calls it for unknown members only.
    final func withLastKey<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        let e = keyEntries[keyEntries.count - 1]
        if e.length > 8 { return body(keyBytes.bytes(in: e.start..<e.start + Int(e.length))) }
        var p = e.prefix
        return withUnsafeBytes(of: &p) { body(UnsafeRawBufferPointer(rebasing: $0[..<Int(e.length)])) }
    }

    /// The member-name tables' hash (``SeededHash``): names that share a prefix, or were
    /// crafted to collide, spread like any others, so a huge object stays linear.
    final func hash(of e: KeyEntry) -> UInt64 {
        // Names of up to 8 bytes are all in `prefix` (their bytes are not kept).
        e.length <= 8
            ? shortMemberHash(e.prefix, length: Int(e.length))
            : SeededHash.bytes(keyBytes.bytes(in: e.start..<e.start + Int(e.length)), seed: seed)
    }

    /// The hash of a member name whose first eight bytes are `prefix`.
    @inline(__always)
    final func memberHash(_ name: UnsafeRawBufferPointer, prefix: UInt64) -> UInt64 {
        name.count <= 8 ? shortMemberHash(prefix, length: name.count) : SeededHash.bytes(name, seed: seed)
    }

    @inline(__always)
    final func shortMemberHash(_ prefix: UInt64, length: Int) -> UInt64 {
        SeededHash.short(prefix: prefix, suffix: 0, extra: UInt64(length), seed: seed)
    }

    /// Looks `name` up in the member names of the object at `level`, building its table when
    /// it first grows past the signature's reach. Returns the entry index of a duplicate.
    @inline(never)
    final func lookUpAndInsert(_ name: UnsafeRawBufferPointer, prefix: UInt64, level: UnsafeMutablePointer<Level>) -> Int? {
        if level.pointee.table < 0 {
            level.pointee.table = Int32(keyTables.count)
            keyTables.append([Int32](repeating: -1, count: 64))
            for e in Int(level.pointee.firstKey)..<keyEntries.count { insertIntoTable(level: level, entry: e) }
        }
        let t = Int(level.pointee.table)
        let mask = keyTables[t].count - 1
        let h = memberHash(name, prefix: prefix)
        var slot = Int(truncatingIfNeeded: h) & mask
        while true {
            memberTableProbes &+= 1
            let e = Int(keyTables[t][slot])
            if e < 0 { return nil }
            if entryEquals(keyEntries[e], name, prefix) { return e }
            slot = (slot + 1) & mask
        }
    }

    final func insertIntoTable(level: UnsafeMutablePointer<Level>, entry: Int) {
        let t = Int(level.pointee.table)
        let members = keyEntries.count - Int(level.pointee.firstKey)
        if members * 2 > keyTables[t].count {
            keyTables[t] = [Int32](repeating: -1, count: keyTables[t].count * 2)
            for e in Int(level.pointee.firstKey)..<keyEntries.count where e != entry { place(e, in: t) }
        }
        place(entry, in: t)
    }

    final func place(_ entry: Int, in t: Int) {
        let mask = keyTables[t].count - 1
        var slot = Int(truncatingIfNeeded: hash(of: keyEntries[entry])) & mask
        memberTableProbes &+= 1
        while keyTables[t][slot] >= 0 {
            slot = (slot + 1) & mask
            memberTableProbes &+= 1
        }
        keyTables[t][slot] = Int32(entry)
    }
}
