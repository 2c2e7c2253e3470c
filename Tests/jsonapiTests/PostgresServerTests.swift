import Foundation
import Testing

/// `Scripts/postgres-server.sh`, the throwaway PostgreSQL server the database tests start and
/// stop themselves: a real server on 127.0.0.1, reached with `psql`, gone after `stop`.
struct PostgresServerTests {
    static func script(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [repositoryRoot.appendingPathComponent("Scripts/postgres-server.sh").path] + arguments
        return try collect(p)
    }

    static func psql(_ url: String, _ sql: String, options: [String] = []) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["psql", url, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1"] + options + ["-c", sql]
        return try collect(p)
    }

    static func collect(_ p: Process) throws -> (status: Int32, out: String, err: String) {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out"), err = dir.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = try FileHandle(forWritingTo: err)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        return (p.terminationStatus, try String(contentsOf: out, encoding: .utf8), try String(contentsOf: err, encoding: .utf8))
    }

    @Test func startsAnswersAndStops() throws {
        let state = try temporaryDirectory().appendingPathComponent("pg")
        defer { _ = try? Self.script(["stop", state.path]) }
        let started = try Self.script(["start", state.path])
        try #require(started.status == 0, "\(started.err)")
        let url = started.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(url.hasPrefix("postgresql://postgres@127.0.0.1:"))
        let cluster = try String(contentsOf: state.appendingPathComponent("cluster"), encoding: .utf8).trimmingCharacters(in: .newlines)
        let pid = try #require(
            Int32(
                try String(contentsOf: URL(fileURLWithPath: cluster + "/data/postmaster.pid"), encoding: .utf8)
                    .split(separator: "\n")[0]))
        let made = try Self.psql(url, "CREATE TABLE t (n numeric, j json); INSERT INTO t VALUES (1e400, '{\"b\":1,\"a\":-0}'); SELECT j FROM t")
        #expect(made.status == 0, "\(made.err)")
        #expect(made.out.contains(#"{"b":1,"a":-0}"#), "json keeps the text as written: \(made.out)")
        #expect(kill(pid, 0) == 0)
        let stopped = try Self.script(["stop", state.path])
        #expect(stopped.status == 0, "\(stopped.err)")
        #expect(kill(pid, 0) != 0, "the server is still running")
        #expect(!FileManager.default.fileExists(atPath: cluster))
        #expect(!FileManager.default.fileExists(atPath: state.path))
    }
}
