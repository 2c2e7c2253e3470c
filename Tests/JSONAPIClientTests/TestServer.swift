import Foundation
import Testing

/// The JSON:API test server (TestServer/, Django + djangorestframework-jsonapi) for the
/// end-to-end suites: the URL in `JSONAPI_TEST_SERVER` when set, otherwise one started by
/// `Scripts/test-server.sh start` for the suite and stopped after it. When it cannot be
/// started (no Python, no packages) the suite fails with the script's message: it is never
/// skipped.
enum TestServer {
    @TaskLocal static var current: URL?

    /// The server of the running suite.
    static var url: URL {
        get throws {
            try #require(current, "no test server: run the test inside a suite with the .testServer trait")
        }
    }

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `body` with a server.
    static func withServer(_ body: () async throws -> Void) async throws {
        if let given = ProcessInfo.processInfo.environment["JSONAPI_TEST_SERVER"], !given.isEmpty {
            guard let url = URL(string: given.hasSuffix("/") ? String(given.dropLast()) : given) else {
                throw StartFailure(description: "JSONAPI_TEST_SERVER is not a URL: \(given)")
            }
            try await $current.withValue(url) { try await body() }
            return
        }
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-test-server-\(UUID().uuidString)")
        let started = try script(["start", state.path])
        guard started.status == 0, let line = started.stdout.split(separator: "\n").last, let url = URL(string: String(line)) else {
            throw StartFailure(
                description: """
                    the JSON:API test server could not be started, so the end-to-end tests cannot run. \
                    It needs python3 with pip (and PyPI) to install TestServer/requirements.txt \
                    (Django, djangorestframework-jsonapi): run Scripts/test-server.sh install to see why, \
                    or point JSONAPI_TEST_SERVER at a running one. Output of Scripts/test-server.sh start:
                    \(started.stderr.suffix(3000))
                    """)
        }
        defer {
            _ = try? script(["stop", state.path])
            try? FileManager.default.removeItem(at: state)
        }
        try await $current.withValue(url) { try await body() }
    }

    /// Runs Scripts/test-server.sh and waits for it.
    private static func script(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/bash")
        p.arguments = [repositoryRoot.appendingPathComponent("Scripts/test-server.sh").path] + arguments
        p.currentDirectoryURL = repositoryRoot
        var environment = ProcessInfo.processInfo.environment
        environment["JSONAPI_TEST_SERVER_PARENT"] = String(getpid())
        p.environment = environment
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("test-server-\(UUID().uuidString).out")
        let err = out.appendingPathExtension("err")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        defer {
            try? FileManager.default.removeItem(at: out)
            try? FileManager.default.removeItem(at: err)
        }
        // Files, not pipes: the server started in the background keeps no pipe open.
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = try FileHandle(forWritingTo: err)
        p.standardInput = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        let stdout = (try? String(contentsOf: out, encoding: .utf8)) ?? ""
        let stderr = (try? String(contentsOf: err, encoding: .utf8)) ?? ""
        return (p.terminationStatus, stdout.trimmingCharacters(in: .whitespacesAndNewlines), stderr)
    }
}

/// Starts the test server once around a suite (and everything in it).
struct TestServerTrait: SuiteTrait, TestScoping {
    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        try await TestServer.withServer { try await function() }
    }
}

extension Trait where Self == TestServerTrait {
    /// The suite runs against the JSON:API test server.
    static var testServer: Self { Self() }
}
