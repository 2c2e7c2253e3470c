import CPostgres
import Foundation
import JSONAPILoad
import Testing

/// libpq is loaded when a PostgreSQL connection is made (`LibPQ`), not linked: the commands
/// that never connect do not map it, and a missing library is an error that says what to do.
/// LoadPostgresTests loads through it into a real server.
struct LibPQTests {
    @Test func statusCodesAreTheHeaders() {
        #expect(LibPQ.connectionOK == CONNECTION_OK.rawValue)
        #expect(LibPQ.commandOK == PGRES_COMMAND_OK.rawValue)
        #expect(LibPQ.tuplesOK == PGRES_TUPLES_OK.rawValue)
        #expect(LibPQ.copyIn == PGRES_COPY_IN.rawValue)
        #expect(LibPQ.transactionActive == PQTRANS_ACTIVE.rawValue)
        #expect(LibPQ.transactionInTransaction == PQTRANS_INTRANS.rawValue)
        #expect(LibPQ.transactionInError == PQTRANS_INERROR.rawValue)
    }

    #if os(Linux)
    /// glibc's loader lists what a program needs and exits when `LD_TRACE_LOADED_OBJECTS` is
    /// set (what `ldd` does).
    /// libcrypto (`SHA256Hasher`) is loaded when something is hashed, the same way.
    @Test func theCommandLinksNeitherLibpqNorLibcrypto() throws {
        let r = try run(["validate", "--help"], environment: ["LD_TRACE_LOADED_OBJECTS": "1"])
        #expect(r.status == 0)
        #expect(r.out.contains("libyajl"), "the trace lists the libraries: \(r.out)")
        #expect(r.out.contains("libsqlite3"))
        #expect(!r.out.contains("libpq"))
        #expect(!r.out.contains("libgssapi"))
        #expect(!r.out.contains("libcrypto"))
        #expect(!r.out.contains("libssl"))
    }
    #endif

    @Test func aLibraryThatCannotBeLoadedIsAClearError() throws {
        let (dir, input) = try oneResourceDocument()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = dir.appendingPathComponent("no-such-libpq.so.5").path
        let r = try run(["load", "postgresql://127.0.0.1:1/none", input.path], environment: ["JSONAPI_LIBPQ": missing])
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("PostgreSQL needs the libpq client library, which could not be loaded"), "\(r.stderr)")
        #expect(r.stderr.contains(missing))
        #expect(r.stderr.contains("JSONAPI_LIBPQ names it"))
        #expect(r.out.isEmpty)
    }
}
