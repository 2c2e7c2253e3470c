/// Member names as 8-byte words: the first (up to) eight bytes, little-endian and
/// zero-padded, and for names of 9 to 16 bytes the last eight. Equal length and words mean
/// equal names up to 16 bytes, so most names are compared, hashed and cached without reading
/// their bytes. One definition for the event receiver, the tape replayer, the interner and
/// its caches, the member-name rules and the value checker, with the well-known names the
/// builder and the checker look for.
enum ShortName {
    /// The first (up to) eight bytes of `name`, little-endian, zero-padded.
    @inline(__always)
    static func prefix(_ name: UnsafeRawBufferPointer) -> UInt64 {
        let n = name.count
        if n >= 8 { return name.loadUnaligned(as: UInt64.self) }
        // Without a loop: two loads that may overlap for 4 to 7 bytes, the first, middle and
        // last byte for 1 to 3 (a byte read twice lands in the same place, so the OR is
        // exact).
        if n >= 4 {
            let low = UInt64(name.loadUnaligned(as: UInt32.self))
            let high = UInt64(name.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self))
            return low | high &<< (UInt64(truncatingIfNeeded: n &- 4) &* 8)
        }
        if n == 0 { return 0 }
        let m = n &>> 1
        let last = n &- 1
        return UInt64(name[0]) | UInt64(name[m]) &<< (UInt64(truncatingIfNeeded: m) &* 8)
            | UInt64(name[last]) &<< (UInt64(truncatingIfNeeded: last) &* 8)
    }

    /// ``prefix(_:)`` of a name that lies in a buffer ending at `end`: one load when eight
    /// bytes can be read from the name's start (a tape has more after a name, but not at
    /// its end).
    @inline(__always)
    static func prefix(_ name: UnsafeRawBufferPointer, readableUpTo end: UnsafeRawPointer) -> UInt64 {
        let n = name.count
        if n >= 8 { return name.loadUnaligned(as: UInt64.self) }
        guard let b = name.baseAddress, b + 8 <= end else { return prefix(name) }
        // Invariant: [b, b + 8) lies before `end`, inside the caller's buffer.
        let w = b.loadUnaligned(as: UInt64.self)
        return n == 0 ? 0 : w & (~UInt64(0) &>> (64 &- UInt64(n) &* 8))
    }

    /// The first eight bytes (zero-padded) and, for 9 to 16 bytes, the last eight (else 0).
    @inline(__always)
    static func words(_ name: UnsafeRawBufferPointer) -> (UInt64, UInt64) { (prefix(name), suffix(name)) }

    /// The second word of ``words(_:)``: the last eight bytes of a name of 9 to 16 bytes,
    /// else 0.
    @inline(__always)
    static func suffix(_ name: UnsafeRawBufferPointer) -> UInt64 {
        let n = name.count
        return n > 8 && n <= 16 ? name.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self) : 0
    }

    // MARK: - Well-known names (their prefix words)

    static let self_: UInt64 = 0x666C_6573  // "self"
    static let related: UInt64 = 0x64_6574_616C_6572  // "related"
    static let about: UInt64 = 0x74_756F_6261  // "about"
    static let type: UInt64 = 0x6570_7974  // "type"
    static let first: UInt64 = 0x74_7372_6966  // "first"
    static let last: UInt64 = 0x7473_616C  // "last"
    static let prev: UInt64 = 0x7665_7270  // "prev"
    static let next: UInt64 = 0x7478_656E  // "next"
    static let href: UInt64 = 0x6665_7268  // "href"
    static let rel: UInt64 = 0x6C_6572  // "rel"
    static let title: UInt64 = 0x65_6C74_6974  // "title"
    static let hreflang: UInt64 = 0x676E_616C_6665_7268  // "hreflang"
    static let meta: UInt64 = 0x6174_656D  // "meta"
    static let version: UInt64 = 0x6E_6F69_7372_6576  // "version"
    static let ext: UInt64 = 0x74_7865  // "ext"
    static let profile: UInt64 = 0x65_6C69_666F_7270  // "profile"
    static let id: UInt64 = 0x6469  // "id"
    static let status: UInt64 = 0x7375_7461_7473  // "status"
    static let code: UInt64 = 0x6564_6F63  // "code"
    static let detail: UInt64 = 0x6C69_6174_6564  // "detail"
    static let source: UInt64 = 0x6563_7275_6F73  // "source"
    static let links: UInt64 = 0x73_6B6E_696C  // "links"
    static let pointer: UInt64 = 0x72_6574_6E69_6F70  // "pointer"
    static let header: UInt64 = 0x7265_6461_6568  // "header"
    static let data: UInt64 = 0x61746164  // "data"
    static let errors: UInt64 = 0x73726F727265  // "errors"
    static let jsonapi: UInt64 = 0x6970616E6F736A  // "jsonapi"
    static let included: UInt64 = 0x646564756C636E69  // "included"
    static let attributesPrefix: UInt64 = 0x7475626972747461  // "attribut" (the first eight bytes)
    static let relationshipsPrefix: UInt64 = 0x6E6F6974616C6572  // "relation" (the first eight bytes)
    static let lid: UInt64 = 0x64696C  // "lid"
}
