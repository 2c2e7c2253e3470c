/// SHA-256 (FIPS 180-4) for `--hash` and the loader's content hashes, so that any tool can
/// recompute a digest: the system's libcrypto (OpenSSL), which uses the processor's SHA
/// extensions where there are any. Tested against the FIPS 180-2 example vectors.
///
/// One OpenSSL digest context and one fetched algorithm, reused for many small inputs (a
/// one-shot call looks the algorithm up every time, which costs more than hashing a short
/// resource). Not for use from two threads at once.
package final class SHA256Hasher {
    private let crypto: LibCrypto
    /// Invariant: both are valid from `init` to `deinit`; `md` is owned when `ownsMD`.
    private let md: OpaquePointer
    private let ownsMD: Bool
    private let ctx: OpaquePointer

    /// A hasher, loading libcrypto the first time one is made.
    ///
    /// - Throws: ``JSONAPIError/input(_:)`` when libcrypto cannot be loaded (it says what to
    ///   install), or OpenSSL has no SHA-256 context to give.
    package init() throws(JSONAPIError) {
        crypto = try LibCrypto.shared()
        if let fetch = crypto.mdFetch, let fetched = fetch(nil, "SHA256", nil) {
            md = fetched
            ownsMD = true
        } else {
            md = crypto.sha256()
            ownsMD = false
        }
        guard let ctx = crypto.mdCtxNew() else {
            if ownsMD { crypto.mdFree?(md) }
            throw JSONAPIError.input("libcrypto could not make a SHA-256 context (out of memory?)")
        }
        self.ctx = ctx
    }

    deinit {
        crypto.mdCtxFree(ctx)
        if ownsMD { crypto.mdFree?(md) }
    }

    /// The digest of `bytes` as 64 lowercase hex digits, written to `out` (64 bytes).
    package func hex(_ bytes: UnsafeRawBufferPointer, into out: UnsafeMutableRawBufferPointer) {
        precondition(out.count >= 64)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 32) { d in
            var length: UInt32 = 32
            // Invariant: `d` has room for the 32 bytes of a SHA-256 digest.
            if crypto.digestInit(ctx, md, nil) != 1 || crypto.digestUpdate(ctx, bytes.baseAddress, bytes.count) != 1
                || crypto.digestFinal(ctx, d.baseAddress, &length) != 1
            {
                // Only an allocation failure inside OpenSSL gets here: the one-shot call instead.
                _ = crypto.oneShot(bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count, d.baseAddress)
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

/// The system's libcrypto, loaded when the first ``SHA256Hasher`` is made, not when the
/// program starts.
///
/// Linked the usual way, libcrypto was mapped and relocated at every start of every program
/// that links the library, hashing or not: about 1.5 MiB of the resident set and its
/// relocations, on runs whose whole budget is a few tens of MiB (NDJSON of any size). Loaded
/// here, it costs only the runs that hash (`--hash`, `jsonapi load`, the client's response
/// cache), and a missing library is an error that says what to install.
///
/// The functions are looked up by name, with the C types OpenSSL's headers declare (every
/// OpenSSL type used is an opaque pointer). The fetched algorithm (`EVP_MD_fetch`,
/// `EVP_MD_free`) and `EVP_DigestInit_ex2` are used where the library has them (OpenSSL 3,
/// tested); otherwise `EVP_sha256` and `EVP_DigestInit_ex`, which OpenSSL 1.1 has (not tested:
/// Debian 12 has no 1.1). `JSONAPI_LIBCRYPTO`, when set, is the library to load (a path or a
/// file name).
final class LibCrypto: Sendable {
    let mdFetch: (@convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafePointer<CChar>?) -> OpaquePointer?)?
    let mdFree: (@convention(c) (OpaquePointer?) -> Void)?
    let sha256: @convention(c) () -> OpaquePointer
    let mdCtxNew: @convention(c) () -> OpaquePointer?
    let mdCtxFree: @convention(c) (OpaquePointer?) -> Void
    let digestInit: @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32
    let digestUpdate: @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int) -> Int32
    let digestFinal: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt32>?) -> Int32
    let oneShot: @convention(c) (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> UnsafeMutablePointer<UInt8>?

    /// The library, loaded once per process (a failure is kept and reported every time).
    static func shared() throws(JSONAPIError) -> LibCrypto { try loaded.get() }

    private static let loaded: Result<LibCrypto, JSONAPIError> = Result { () throws(JSONAPIError) in try LibCrypto() }

    /// The file names tried in turn when `JSONAPI_LIBCRYPTO` is not set. (On macOS the
    /// unversioned system `libcrypto.dylib` ends the process when loaded, so only Homebrew's
    /// versioned library is named.)
    static var defaultNames: [String] {
        #if canImport(Darwin)
        ["libcrypto.3.dylib", "/opt/homebrew/opt/openssl@3/lib/libcrypto.3.dylib", "/usr/local/opt/openssl@3/lib/libcrypto.3.dylib"]
        #else
        ["libcrypto.so.3", "libcrypto.so.1.1", "libcrypto.so"]
        #endif
    }

    private init() throws(JSONAPIError) {
        let library = try LoadedLibrary(
            names: Self.defaultNames, variable: "JSONAPI_LIBCRYPTO", needs: "SHA-256 needs the system's libcrypto (OpenSSL)",
            install: "Debian and Ubuntu: apt-get install libssl3; macOS: brew install openssl@3")
        func optional<F>(_ name: String) -> F? { library.optional(name) }
        func symbol<F>(_ name: String) throws(JSONAPIError) -> F {
            try library.symbol(name, missing: "the libcrypto library loaded has no \(name) (OpenSSL 1.1 or later is needed)")
        }
        mdFetch = optional("EVP_MD_fetch")
        mdFree = optional("EVP_MD_free")
        sha256 = try symbol("EVP_sha256")
        mdCtxNew = try symbol("EVP_MD_CTX_new")
        mdCtxFree = try symbol("EVP_MD_CTX_free")
        if let ex2: @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?) -> Int32 = optional("EVP_DigestInit_ex2") {
            digestInit = ex2
        } else {
            digestInit = try symbol("EVP_DigestInit_ex")
        }
        digestUpdate = try symbol("EVP_DigestUpdate")
        digestFinal = try symbol("EVP_DigestFinal_ex")
        oneShot = try symbol("SHA256")
    }
}
