import Foundation
import Testing

/// libcrypto (SHA-256) is loaded when something is hashed (`SHA256Hasher`), not linked: runs
/// that never hash do not map it, and a missing library is an error that says what to do.
/// HashingTests checks the digests against the FIPS vectors through it; LibPQTests checks that
/// the binary does not link it.
struct LibCryptoTests {
    @Test func hashingWithoutTheLibraryIsAClearError() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json")
        try Data(#"{"data":{"type":"a","id":"1"}}"#.utf8).write(to: input)
        let missing = dir.appendingPathComponent("no-such-libcrypto.so.3").path
        let environment = ["JSONAPI_LIBCRYPTO": missing]

        let hashed = try run(["normalize", "--format", "ndjson", "--hash", input.path], environment: environment)
        #expect(hashed.status == 2, "\(hashed.stderr)")
        #expect(hashed.stderr.contains("SHA-256 needs the system's libcrypto (OpenSSL), which could not be loaded"), "\(hashed.stderr)")
        #expect(hashed.stderr.contains(missing))
        #expect(hashed.stderr.contains("JSONAPI_LIBCRYPTO names it"))
        #expect(!hashed.out.contains(#""hash""#))

        // Loading hashes every resource: it stops before it creates the database.
        let database = dir.appendingPathComponent("out.db")
        let loaded = try run(["load", database.path, input.path], environment: environment)
        #expect(loaded.status == 2, "\(loaded.stderr)")
        #expect(loaded.stderr.contains("SHA-256 needs the system's libcrypto"), "\(loaded.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database.path))

        // Commands that do not hash run without it.
        let plain = try run(["normalize", "--format", "ndjson", input.path], environment: environment)
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(plain.out.hasPrefix(#"{"type":"a","id":"1","primary":true"#), "\(plain.out)")
    }

    #if os(Linux)
    /// A library that loads but is not libcrypto (zlib): the first function it lacks is named.
    @Test func aLibraryWithoutLibcryptosFunctionsIsAClearError() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.json")
        try Data(#"{"data":{"type":"a","id":"1"}}"#.utf8).write(to: input)
        let r = try run(["normalize", "--format", "ndjson", "--hash", input.path], environment: ["JSONAPI_LIBCRYPTO": "libz.so.1"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("the libcrypto library loaded has no EVP_sha256"), "\(r.stderr)")
    }
    #endif
}
