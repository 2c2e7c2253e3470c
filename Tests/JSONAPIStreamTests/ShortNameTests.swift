import Testing
@testable import JSONAPIStream

/// A name's 8-byte prefix, computed three ways (the loads without a loop, the one load of a
/// name with eight readable bytes, and the interner's words), is the name's first bytes,
/// little-endian and zero-padded, for every length and every byte.
struct ShortNameTests {
    /// The definition, a byte at a time.
    static func expected(_ bytes: [UInt8]) -> UInt64 {
        var v: UInt64 = 0
        for (i, b) in bytes.prefix(8).enumerated() { v |= UInt64(b) << (8 * UInt64(i)) }
        return v
    }

    @Test func prefixIsTheFirstEightBytesZeroPadded() {
        var generator = SystemRandomNumberGenerator()
        // Every length up to 17, names made of distinct bytes (so a byte in the wrong place
        // shows) and of the bytes at both ends of the range.
        var names: [[UInt8]] = []
        for n in 0...17 {
            names.append((0..<n).map { UInt8(truncatingIfNeeded: 0x41 + $0) })
            names.append([UInt8](repeating: 0xFF, count: n))
            names.append([UInt8](repeating: 0x00, count: n))
            for _ in 0..<50 { names.append((0..<n).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        }
        for name in names {
            // Padding after the name that a wrong mask or shift would let in.
            let buffer = name + [UInt8](repeating: 0xA5, count: 8)
            buffer.withUnsafeBytes { all in
                let bytes = UnsafeRawBufferPointer(rebasing: all[0..<name.count])
                let want = Self.expected(name)
                #expect(ShortName.prefix(bytes) == want, "\(name)")
                #expect(ShortName.prefix(bytes, readableUpTo: all.baseAddress! + all.count) == want, "\(name)")
                #expect(ShortName.words(bytes).0 == want, "\(name)")
            }
        }
    }
}
