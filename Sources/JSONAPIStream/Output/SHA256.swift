internal import CCrypto

/// SHA-256 (FIPS 180-4) for `--hash`, so that any tool can recompute a resource's digest
/// from its canonical form: the system's libcrypto (OpenSSL), which uses the processor's SHA
/// extensions where there are any, in place of a hand-written version that allocated an
/// array per 64-byte block. Tested against the FIPS 180-2 example vectors.
enum SHA256 {
    /// The digest of `bytes` (32 bytes).
    static func digest(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        out.withUnsafeMutableBufferPointer { o in
            // Invariant: `o` has room for SHA256_DIGEST_LENGTH (32) bytes; the input pointer
            // may be nil only for an empty input, which OpenSSL accepts.
            _ = CCrypto.SHA256(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, o.baseAddress)
        }
        return out
    }

    /// The digest of `bytes` as lowercase hex.
    static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        let digits: StaticString = "0123456789abcdef"
        let d = digest(bytes)
        return String(unsafeUninitializedCapacity: 64) { out in
            digits.withUTF8Buffer { hex in
                for (i, b) in d.enumerated() {
                    out[2 * i] = hex[Int(b >> 4)]
                    out[2 * i + 1] = hex[Int(b & 15)]
                }
            }
            return 64
        }
    }
}

/// The canonical form hashed by `--hash`: minified JSON with the members of every object
/// sorted by the bytes of their (minimally escaped) names, arrays in order, numbers and
/// strings exactly as stored.
enum Canonical {
    static func form(_ b: UnsafeRawBufferPointer, _ span: Range<Int>, into out: inout ByteArena) {
        switch b[span.lowerBound] {
        case UInt8(ascii: "{"):
            var members = StoredJSON.members(b, span)
            members.sort { lexicographicallyPrecedes(b, $0.name, $1.name) }
            out.append(UInt8(ascii: "{"))
            for (i, m) in members.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out.append(UnsafeRawBufferPointer(rebasing: b[m.name]))
                out.append(UInt8(ascii: ":"))
                form(b, m.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            out.append(UInt8(ascii: "["))
            for (i, e) in StoredJSON.elements(b, span).enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                form(b, e, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        default:
            out.append(UnsafeRawBufferPointer(rebasing: b[span]))
        }
    }

    static func lexicographicallyPrecedes(_ b: UnsafeRawBufferPointer, _ x: Range<Int>, _ y: Range<Int>) -> Bool {
        UnsafeRawBufferPointer(rebasing: b[x]).lexicographicallyPrecedes(UnsafeRawBufferPointer(rebasing: b[y]))
    }
}
