internal import CCrypto

/// SHA-256 (FIPS 180-4) for `--hash` and the loader's content hashes, so that any tool can
/// recompute a digest: the system's libcrypto (OpenSSL), which uses the processor's SHA
/// extensions where there are any. Tested against the FIPS 180-2 example vectors.
///
/// One OpenSSL digest context and one fetched algorithm, reused for many small inputs (a
/// one-shot call looks the algorithm up every time, which costs more than hashing a short
/// resource). Not for use from two threads at once.
package final class SHA256Hasher {
    /// Invariant: both are valid from `init` to `deinit`; `md` is owned when `ownsMD`.
    private let md: OpaquePointer
    private let ownsMD: Bool
    private let ctx: OpaquePointer

    package init() {
        if let fetched = EVP_MD_fetch(nil, "SHA256", nil) {
            md = fetched
            ownsMD = true
        } else {
            md = EVP_sha256()
            ownsMD = false
        }
        ctx = EVP_MD_CTX_new()
    }

    deinit {
        EVP_MD_CTX_free(ctx)
        if ownsMD { EVP_MD_free(md) }
    }

    /// The digest of `bytes` as 64 lowercase hex digits, written to `out` (64 bytes).
    package func hex(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count >= 64)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { d in
            var length: UInt32 = 32
            // Invariant: `d` has room for the 32 bytes of a SHA-256 digest.
            if EVP_DigestInit_ex2(ctx, md, nil) != 1 || EVP_DigestUpdate(ctx, bytes.baseAddress, bytes.count) != 1
                || EVP_DigestFinal_ex(ctx, d.baseAddress, &length) != 1
            {
                // Only an allocation failure inside OpenSSL gets here: the one-shot call instead.
                _ = CCrypto.SHA256(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, d.baseAddress)
            }
            let digits: StaticString = "0123456789abcdef"
            digits.withUTF8Buffer { h in
                for i in 0..<32 {
                    out[2 * i] = h[Int(d[i] >> 4)]
                    out[2 * i + 1] = h[Int(d[i] & 15)]
                }
            }
        }
    }

    /// The digest of `bytes` as lowercase hex.
    package func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: 64) { out in
            hex(bytes, into: UnsafeMutableRawBufferPointer(out))
            return 64
        }
    }
}
