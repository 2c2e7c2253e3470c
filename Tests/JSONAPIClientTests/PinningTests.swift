import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Testing
@testable import JSONAPIClient

/// Certificate trust and public-key pinning over a local HTTPS server (TestServer/origins.py
/// with a certificate the test makes with `openssl`): with `--cacert` the right pin gets
/// through, a wrong pin fails before any request is sent, and without `--cacert` the
/// self-signed certificate is refused.
@Suite struct Pinning {
    /// A self-signed certificate for 127.0.0.1 and the `sha256//` pin of its public key.
    struct Certificate {
        var directory: URL
        var certificate: String
        var key: String
        var pin: String
    }

    static func shell(_ command: String, in directory: URL) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        p.currentDirectoryURL = directory
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw TestServer.StartFailure(description: "\(command) failed") }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func makeCertificate(_ name: String = "server") throws -> Certificate {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        _ = try shell(
            "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout \(name).key -out \(name).pem"
                + " -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1", in: dir)
        let pin = try shell(
            "openssl x509 -in \(name).pem -pubkey -noout | openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64", in: dir)
        return Certificate(
            directory: dir, certificate: dir.appendingPathComponent("\(name).pem").path, key: dir.appendingPathComponent("\(name).key").path,
            pin: "sha256//" + pin)
    }

    /// The requests the server recorded, read through a transport that trusts it.
    static func seen(_ server: String, trusting certificate: String) async throws -> Int {
        var options = CurlTransport.Options()
        options.certificateAuthorities = certificate
        let response = try await CurlTransport(options: options).send(
            URLRequest(url: URL(string: server + "/seen")!), limits: TransportLimits(idleTimeout: 10, deadline: 30))
        var body: [UInt8] = []
        while let chunk = try await response.body.next() { body += chunk }
        return try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [Any]).count
    }

    @Test func theCommandTrustsACertificateAndChecksThePin() async throws {
        let cert = try Self.makeCertificate()
        defer { try? FileManager.default.removeItem(at: cert.directory) }
        let other = try Self.makeCertificate("other")
        defer { try? FileManager.default.removeItem(at: other.directory) }
        let s = try OriginServers(tls: (cert.certificate, cert.key))
        #expect(s.a.hasPrefix("https://127.0.0.1:"))
        let url = "\(s.a)/doc?id=pinned"

        let trusted = try jsonapi(["fetch", url, "--cacert", cert.certificate, "--format", "ndjson", "--resources-only"])
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(trusted.lines == [#"{"type":"things","id":"pinned","primary":true,"attributes":{},"relationships":{}}"#])

        // The right pin, alone and as the backup of another.
        for pins in [cert.pin, "\(other.pin);\(cert.pin)"] {
            let pinned = try jsonapi(["fetch", url, "--cacert", cert.certificate, "--pinnedpubkey", pins, "--format", "ndjson"])
            #expect(pinned.status == 0, "\(pins): \(pinned.stderr)")
        }
        let before = try await Self.seen(s.a, trusting: cert.certificate)

        let wrong = try jsonapi(["fetch", url, "--cacert", cert.certificate, "--pinnedpubkey", other.pin, "--attempts", "1"])
        #expect(wrong.status == 2)
        #expect(wrong.stderr.contains("matches none of the pinned keys"), "\(wrong.stderr)")
        let untrusted = try jsonapi(["fetch", url, "--attempts", "1"])
        #expect(untrusted.status == 2)
        #expect(untrusted.stderr.contains("TLS:"), "\(untrusted.stderr)")
        // Neither refused connection got as far as sending its request.
        #expect(before == 3)
        #expect(try await Self.seen(s.a, trusting: cert.certificate) == before)
    }

    @Test func theLibraryPinsPerHost() async throws {
        let cert = try Self.makeCertificate()
        defer { try? FileManager.default.removeItem(at: cert.directory) }
        let s = try OriginServers(tls: (cert.certificate, cert.key))
        func client(pin: String) -> JSONAPIClient {
            var c = JSONAPIClient.Configuration()
            c.tls.certificateAuthorities = cert.certificate
            c.tls.pinnedPublicKeys = ["127.0.0.1": pin]
            c.retry.maxAttempts = 1
            return JSONAPIClient(baseURL: URL(string: s.a)!, configuration: c)
        }
        let graph = try await client(pin: cert.pin).graph("doc", query: JSONAPIQuery().parameter("id", "7"))
        #expect(graph.primary.map(\.id) == ["7"])
        await #expect {
            _ = try await client(pin: "sha256//" + Data(repeating: 1, count: 32).base64EncodedString()).graph("doc")
        } throws: { error in
            guard case JSONAPIClientError.transport(_, let message, _) = error else { return false }
            return message.contains("matches none of the pinned keys")
        }
    }
}
