import Foundation
import Testing

/// libcrypto (SHA-256) is loaded when something is hashed (`SHA256Hasher`), not linked: runs
/// that never hash do not map it, and a missing library is an error that says what to do.
/// HashingTests checks the digests against the FIPS vectors through it; LibPQTests checks that
/// the binary does not link it.
struct LibCryptoTests {
    @Test func hashingWithoutTheLibraryIsAClearError() throws {
        let (dir, input) = try oneResourceDocument()
        defer { try? FileManager.default.removeItem(at: dir) }
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
    struct WrongLibrary: Sendable, CustomStringConvertible {
        var arguments: [String]
        var variable: String
        var message: String
        var description: String { variable }
    }

    /// A library that loads but is not the one asked for (zlib): the first function it lacks
    /// is named, for libcrypto and for libpq (`LoadedLibrary`).
    @Test(arguments: [
        WrongLibrary(
            arguments: ["normalize", "--format", "ndjson", "--hash"], variable: "JSONAPI_LIBCRYPTO",
            message: "the libcrypto library loaded has no EVP_sha256"),
        WrongLibrary(
            arguments: ["load", "postgresql://127.0.0.1:1/none"], variable: "JSONAPI_LIBPQ",
            message: "the libpq client library has no PQconnectdb"),
    ])
    func aLibraryWithoutTheFunctionsIsAClearError(_ c: WrongLibrary) throws {
        let (dir, input) = try oneResourceDocument()
        defer { try? FileManager.default.removeItem(at: dir) }
        let r = try run(c.arguments + [input.path], environment: [c.variable: "libz.so.1"])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains(c.message), "\(r.stderr)")
    }
    #endif
}

/// A temporary directory holding `in.json`, a document of one resource (the caller removes the
/// directory).
func oneResourceDocument() throws -> (directory: URL, file: URL) {
    let dir = try temporaryDirectory()
    let input = dir.appendingPathComponent("in.json")
    try Data(#"{"data":{"type":"a","id":"1"}}"#.utf8).write(to: input)
    return (dir, input)
}
