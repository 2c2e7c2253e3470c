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
