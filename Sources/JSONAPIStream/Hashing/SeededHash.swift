#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The secret key of ``SeededHash``: four 64-bit words.
struct HashSeed: Sendable, Equatable {
    var k0: UInt64
    var k1: UInt64
    var k2: UInt64
    var k3: UInt64

    /// Four words expanded from one (splitmix64), so a seed is one number to write down.
    init(_ value: UInt64) {
        var state = value
        func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z &>> 31)
        }
        k0 = next() | 1
        k1 = next() | 1
        k2 = next()
        k3 = next()
    }

    /// This process's seed: random, drawn once from the system's generator, so that
    /// collisions crafted against one run (or read off the source) do not collide in another.
    /// `JSONAPI_HASH_SEED` (a decimal or `0x` hexadecimal 64-bit number) fixes it, to replay a
    /// fuzz finding or a slow input exactly.
    static let process: HashSeed = {
        if let text = getenv("JSONAPI_HASH_SEED").map({ String(cString: $0) }), let value = parse(text) {
            return HashSeed(value)
        }
        var g = SystemRandomNumberGenerator()
        return HashSeed(g.next())
    }()

    static func parse(_ text: String) -> UInt64? {
        let t = String(text.filter { !$0.isWhitespace })
        if t.hasPrefix("0x") || t.hasPrefix("0X") { return UInt64(t.dropFirst(2), radix: 16) }
        return UInt64(t)
    }
}

/// The one keyed hash of every table keyed by input bytes (the id and name interner, member
/// name tables for duplicate detection, the name caches): a seeded multiply-mix in the manner
/// of wyhash. Every byte of the key and its length reach every bit of the result, so the slot
/// index may be taken from the low bits, and names that share a prefix spread like any others.
/// With the per-process random ``HashSeed/process``, inputs cannot be crafted in advance to
/// collide; tables that hold a seed take it once when made (no global access per lookup).
enum SeededHash {
    /// The 128-bit product of `a` and `b`, folded to 64 bits.
    @inline(__always)
    static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let p = a.multipliedFullWidth(by: b)
        return p.high ^ p.low
    }

    /// A key of at most 16 bytes, given as its first eight bytes (little-endian, zero-padded),
    /// its last eight bytes when it is longer than eight (else 0), and `extra`: its length,
    /// with anything else that belongs to the key (a tag) in the upper 32 bits.
    @inline(__always)
    static func short(prefix: UInt64, suffix: UInt64, extra: UInt64, seed: HashSeed) -> UInt64 {
        let p = (prefix ^ seed.k0).multipliedFullWidth(by: suffix ^ seed.k1)
        return mix(p.low ^ seed.k2 ^ extra, p.high ^ seed.k3)
    }

    /// Any key: `extra` as for ``short(prefix:suffix:extra:seed:)`` (its length is added here).
    static func bytes(_ key: UnsafeRawBufferPointer, extra: UInt64 = 0, seed: HashSeed) -> UInt64 {
        let (prefix, suffix) = key.count <= 16 ? ShortName.words(key) : (0, 0)
        return bytes(key, prefix: prefix, suffix: suffix, extra: extra, seed: seed)
    }

    /// Any key whose ``ShortName/words(_:)`` the caller has already (they are read only for keys of up
    /// to 16 bytes): `extra` as for ``short(prefix:suffix:extra:seed:)``, its length added here.
    @inline(__always)
    static func bytes(_ key: UnsafeRawBufferPointer, prefix: UInt64, suffix: UInt64, extra: UInt64, seed: HashSeed) -> UInt64 {
        let n = UInt64(truncatingIfNeeded: key.count)
        return key.count <= 16
            ? short(prefix: prefix, suffix: suffix, extra: extra | n, seed: seed)
            : long(key, extra: extra | n, seed: seed)
    }

    /// Keys of more than 16 bytes: 16 bytes a step, the last 16 (overlapping) to finish.
    @inline(never)
    static func long(_ key: UnsafeRawBufferPointer, extra: UInt64, seed: HashSeed) -> UInt64 {
        let n = key.count
        var h = seed.k2 ^ extra
        var i = 0
        while i &+ 16 < n {
            h = mix(
                key.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ seed.k0,
                key.loadUnaligned(fromByteOffset: i &+ 8, as: UInt64.self) ^ h ^ seed.k1)
            i &+= 16
        }
        h = mix(
            key.loadUnaligned(fromByteOffset: n &- 16, as: UInt64.self) ^ seed.k0 ^ h,
            key.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self) ^ seed.k1)
        return mix(h ^ seed.k3, extra ^ seed.k2)
    }
}
