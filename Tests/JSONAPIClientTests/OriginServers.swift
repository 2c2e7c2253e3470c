import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// Two scripted HTTP servers on 127.0.0.1, two origins (TestServer/origins.py, Python's
/// standard library only): each records the requests it gets, so a test can show which
/// headers reached which origin. Started per test, stopped (by pid) when the test ends; the
/// script also exits by itself when this process is gone, or after thirty minutes (a test
/// whose task waits long for a thread, as on a busy 2-core machine, still finds it there).
final class OriginServers: @unchecked Sendable {
    let a: String
    let b: String
    private let process: Process

    /// Servers of `http` URLs, or of `https` ones with the certificate and key of `tls`.
    init(hangSeconds: Double = 30, tls: (certificate: String, key: String)? = nil) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments =
            [
                "python3", TestServer.repositoryRoot.appendingPathComponent("TestServer/origins.py").path,
                "--hang", String(hangSeconds),
            ] + (tls.map { ["--tls", $0.certificate, $0.key] } ?? [])
        let out = Pipe()
        p.standardOutput = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        process = p
        var line = Data()
        let deadline = Date().addingTimeInterval(20)
        while !line.contains(UInt8(ascii: "\n")) && Date() < deadline {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let urls = String(decoding: line, as: UTF8.self).split(whereSeparator: \.isWhitespace).map(String.init)
        guard urls.count == 2 else {
            p.terminate()
            throw TestServer.StartFailure(description: "TestServer/origins.py did not start (printed \(urls))")
        }
        a = urls[0]
        b = urls[1]
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    struct Request: Decodable {
        var path: String
        var headers: [String: String]
    }

    /// The requests `server` (``a`` or ``b``) has recorded.
    func seen(_ server: String) async throws -> [Request] {
        let (data, _) = try await URLSession.shared.data(from: URL(string: server + "/seen")!)
        return try JSONDecoder().decode([Request].self, from: data)
    }
}

/// `text` percent-encoded for a query value.
func queryValue(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
}
