import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Testing
@testable import JSONAPIClient

/// The client over a transport of the test's own (``InMemoryTransport``): what it asks of
/// the transport, and when.
@Suite struct Transports {
    static let jsonAPI = ["Content-Type": "application/vnd.api+json"]

    /// A document of `n` resources.
    static func document(_ n: Int) -> [UInt8] {
        let resources = (1...n).map { #"{"type":"articles","id":"\#($0)","attributes":{"title":"article \#($0)"}}"# }
        return Array(#"{"data":[\#(resources.joined(separator: ","))]}"#.utf8)
    }

    static func client(_ transport: InMemoryTransport, log: ResponseLog? = nil, _ configure: (inout JSONAPIClient.Configuration) -> Void = { _ in }) -> JSONAPIClient {
        var c = JSONAPIClient.Configuration()
        c.transport = transport
        c.retry.baseDelay = 0
        if let log { c.observeResponse = { log.record($0) } }
        configure(&c)
        return JSONAPIClient(baseURL: URL(string: "https://api.example.com/")!, configuration: c)
    }

    @Test func theBodyIsReadOnlyAsFastAsItIsConsumed() async throws {
        let body = Self.document(2000)
        let chunk = 1000
        let transport = InMemoryTransport { _ in .init(status: 200, headers: Self.jsonAPI, body: body, chunkSize: chunk) }
        let client = Self.client(transport)
        let ahead = ResponseLog.Values()
        let parser = GraphParser()
        _ = try await client.fetch(URL(string: "https://api.example.com/articles")!, into: parser) { progress in
            // After each chunk is fed: chunks handed out minus chunks fed.
            ahead.add(transport.chunksTaken - (progress.bytes + chunk - 1) / chunk)
        }
        let graph = try parser.finish()
        #expect(graph.primary.count == 2000)
        #expect(transport.chunksTaken == (body.count + chunk - 1) / chunk)
        #expect(ahead.all.count >= body.count / chunk)
        #expect(ahead.all.allSatisfy { $0 == 0 }, "the client took chunks before it had consumed the ones before: \(Set(ahead.all))")
    }

    @Test func eachRedirectIsReportedWithItsOwnURLAndStatus() async throws {
        let transport = InMemoryTransport { request in
            switch request.url?.path {
            case "/articles": .init(status: 301, headers: ["Location": "/v2/articles"])
            case "/v2/articles": .init(status: 307, headers: ["Location": "https://api.example.com/v3/articles?x=1"])
            default: .init(status: 200, headers: Self.jsonAPI, body: Self.document(3))
            }
        }
        let log = ResponseLog()
        let graph = try await Self.client(transport, log: log).graph("articles")
        #expect(graph.primary.count == 3)
        #expect(log.statuses == [301, 307, 200])
        #expect(
            log.all.map(\.url.absoluteString) == [
                "https://api.example.com/articles", "https://api.example.com/v2/articles", "https://api.example.com/v3/articles?x=1",
            ])
        #expect(transport.requests.map { $0.url?.path ?? "" } == ["/articles", "/v2/articles", "/v3/articles"])
    }

    @Test func a303AfterAPostIsFollowedWithAGetWithoutTheBody() throws {
        var rule = RedirectRule(home: nil, policy: .refuse, credentialHeaders: [], withCredentials: true)
        var post = URLRequest(url: URL(string: "https://api.example.com/articles")!)
        post.httpMethod = "POST"
        post.httpBody = Data("{}".utf8)
        post.setValue("application/vnd.api+json", forHTTPHeaderField: "Content-Type")
        let after303 = try rule.follow(post, to: "/articles/9", from: post.url!, status: 303)
        #expect(after303.httpMethod == "GET")
        #expect(after303.httpBody == nil)
        #expect(after303.value(forHTTPHeaderField: "Content-Type") == nil)
        #expect(after303.url?.absoluteString == "https://api.example.com/articles/9")
        let after307 = try rule.follow(post, to: "/other", from: post.url!, status: 307)
        #expect(after307.httpMethod == "POST")
        #expect(after307.httpBody == Data("{}".utf8))
    }

    @Test func tooManyRedirectsIsAnError() async throws {
        let transport = InMemoryTransport { request in .init(status: 302, headers: ["Location": request.url!.path + "x"]) }
        let client = Self.client(transport) { $0.retry.maxAttempts = 1 }
        await #expect {
            _ = try await client.graph("a")
        } throws: { error in
            guard case JSONAPIClientError.transport(_, let message, _) = error else { return false }
            return message.contains("more than 20 redirects")
        }
        #expect(transport.requests.count == 21)
    }

    @Test func aConnectionLostBeforeTheBodyIsRetried() async throws {
        let calls = ResponseLog.Values()
        let transport = InMemoryTransport { _ in
            calls.add(1)
            if calls.all.count == 1 { throw TransportError(.connectionLost, "connection reset by peer") }
            return .init(status: 200, headers: Self.jsonAPI, body: Self.document(5))
        }
        let graph = try await Self.client(transport).graph("articles")
        #expect(graph.primary.count == 5)
        #expect(transport.requests.count == 2)
    }

    @Test func transportFailuresKeepTheirKind() async throws {
        for (kind, check) in [
            (TransportError.Kind.timedOut, { (e: JSONAPIClientError) in if case .timedOut = e { true } else { false } }),
            (.deadlineExceeded, { e in if case .deadlineExceeded = e { true } else { false } }),
            (.tls, { e in if case .transport(_, let m, _) = e { m == "TLS: bad certificate" } else { false } }),
        ] {
            let transport = InMemoryTransport { _ in throw TransportError(kind, "TLS: bad certificate") }
            let client = Self.client(transport) { $0.retry.maxAttempts = 1 }
            await #expect {
                _ = try await client.graph("articles")
            } throws: { error in
                (error as? JSONAPIClientError).map(check) ?? false
            }
        }
    }

    @Test func cancellingTheTaskStopsTheBody() async throws {
        let started = ResponseLog.Values()
        let transport = InMemoryTransport { _ in
            started.add(1)
            return .init(status: 200, headers: Self.jsonAPI, body: Self.document(20000), chunkSize: 64)
        }
        let client = Self.client(transport)
        let task = Task { try await client.graph("articles") }
        while started.all.isEmpty || transport.chunksTaken < 10 { try await Task.sleep(nanoseconds: 1_000_000) }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
        #expect(transport.chunksTaken < Self.document(20000).count / 64)
    }

    /// Both built-in transports return a redirect as it is; the client follows it (and
    /// judges it) itself.
    @Test(arguments: ["curl", "URLSession"])
    func redirectsComeBackToTheClient(_ name: String) async throws {
        let s = try OriginServers()
        let log = ResponseLog()
        var c = JSONAPIClient.Configuration()
        if name == "URLSession" { c.transport = URLSessionTransport() }
        c.observeResponse = { log.record($0) }
        let client = JSONAPIClient(baseURL: URL(string: s.a)!, configuration: c)
        let graph = try await client.graph("redirect", query: JSONAPIQuery().parameter("to", "/doc?id=moved").parameter("status", "308"))
        #expect(graph.primary.map(\.id) == ["moved"])
        #expect(log.statuses == [308, 200])
        #expect(log.all.map(\.url.path) == ["/redirect", "/doc"])
        await #expect {
            _ = try await client.graph("redirect", query: JSONAPIQuery().parameter("to", "\(s.b)/doc"))
        } throws: { error in
            guard case JSONAPIClientError.refusedLocation(_, let to, _, _) = error else { return false }
            return to == "\(s.b)/doc"
        }
        #expect(try await s.seen(s.b).isEmpty)
    }

    @Test func urlSessionCannotPinHere() async throws {
        var tls = JSONAPIClient.TLSOptions()
        tls.pinnedPublicKeys = ["*": "sha256//" + String(repeating: "A", count: 43) + "="]
        let transport = URLSessionTransport(tls: tls)
        await #expect {
            _ = try await transport.send(URLRequest(url: URL(string: "https://127.0.0.1:9/")!), limits: TransportLimits(idleTimeout: 1, deadline: 1))
        } throws: { error in
            (error as? TransportError)?.kind == .tls
        }
    }
}

extension ResponseLog {
    /// Integers recorded from any thread.
    final class Values: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [Int] = []
        func add(_ value: Int) { lock.withLock { values.append(value) } }
        var all: [Int] { lock.withLock { values } }
    }
}

extension EndToEnd {
    /// The default transport (libcurl on Linux) and URLSession's against the test server:
    /// backpressure, the overall deadline, and the same documents from both.
    @Suite struct Transport {
        #if os(Linux)
        /// The peak resident memory of process `pid`, in bytes (`VmHWM`).
        static func peakResident(_ pid: Int32) -> Int? {
            guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
                let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
            else { return nil }
            return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 }
        }

        @Test func aSlowlyReadOutputKeepsMemoryBounded() async throws {
            let megabytes = 128
            let p = Process()
            p.executableURL = jsonapiBinary.deletingLastPathComponent().appendingPathComponent("jsonapi-fetch")
            p.arguments = [try TestServer.url.appendingPathComponent("test/big").absoluteString + "?mb=\(megabytes)", "--format", "ndjson", "--resources-only"]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            p.standardInput = FileHandle.nullDevice
            try p.run()
            // Nobody reads the output for 4 s: the pipe fills, the writer blocks, and the
            // transfer must pause instead of holding the body.
            try await Task.sleep(nanoseconds: 4_000_000_000)
            let stalled = try #require(Self.peakResident(p.processIdentifier))
            var lines = 0
            while true {
                let data = out.fileHandleForReading.readData(ofLength: 1 << 16)
                if data.isEmpty { break }
                lines += data.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
            }
            p.waitUntilExit()
            #expect(p.terminationStatus == 0)
            #expect(lines > 600_000, "the whole body was read")
            // Under AddressSanitizer (`Scripts/asan.sh`, where the command is built with it too)
            // the runtime and its shadow add about 44 MiB from the start (`jsonapi validate` of a
            // small document: 64 MiB resident against 20): allowed for; a body held whole would
            // still be 128 MiB past either bound.
            let bound = (96 << 20) + (Self.underAddressSanitizer ? 48 << 20 : 0)
            #expect(stalled < bound, "\(stalled >> 20) MiB resident while the output was not read (a \(megabytes) MiB body)")
        }

        /// Whether this process, and so the command built with it, runs under AddressSanitizer.
        static var underAddressSanitizer: Bool { dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil }
        #endif

        @Test func theDeadlineStopsASteadilyTricklingResponse() async throws {
            let client = try testClient {
                $0.timeout = 2
                $0.resourceTimeout = 2
                $0.retry.maxAttempts = 1
            }
            let start = Date()
            await #expect {
                _ = try await client.graph("test/trickle", query: JSONAPIQuery().parameter("every", "0.25").parameter("count", "200"))
            } throws: { error in
                guard case JSONAPIClientError.deadlineExceeded(_, let seconds, _) = error else { return false }
                return seconds == 2
            }
            #expect(Date().timeIntervalSince(start) < 20)
            // A response that waits 3 s before its head, under a deadline of 1 s.
            let slow = try testClient {
                $0.resourceTimeout = 1
                $0.retry.maxAttempts = 1
            }
            await #expect {
                _ = try await slow.graph("test/slow", query: JSONAPIQuery().parameter("seconds", "3"))
            } throws: { error in
                if case JSONAPIClientError.deadlineExceeded = error { true } else { false }
            }
            // Within the deadline, the same trickle succeeds.
            let patient = try testClient { $0.timeout = 2 }
            let graph = try await patient.graph("test/trickle", query: JSONAPIQuery().parameter("every", "0.2").parameter("count", "4"))
            #expect(graph.primary.isEmpty && graph.documents.count == 1)
        }

        @Test func theCommandTakesADeadline() throws {
            let url = try TestServer.url.appendingPathComponent("test/trickle").absoluteString + "?every=0.25&count=200"
            let r = try jsonapi(["fetch", url, "--deadline", "1.5", "--attempts", "1"])
            #expect(r.status == 2)
            #expect(r.stderr.contains("took longer than the deadline of 1.5 s"), "\(r.stderr)")
            let bad = try jsonapi(["fetch", url, "--pinnedpubkey", "sha256//nope"])
            #expect(bad.status == 2)
            #expect(bad.stderr.contains("--pinnedpubkey takes sha256//BASE64"), "\(bad.stderr)")
        }

        @Test func urlSessionAndCurlReadTheSamePages() async throws {
            let query = JSONAPIQuery().including("author").page(.number(1, size: 50))
            let curl = try testClient()
            let session = try testClient { $0.transport = URLSessionTransport() }
            let a = try await curl.graph("articles", query: query, pages: .all(maxPages: 4))
            let b = try await session.graph("articles", query: query, pages: .all(maxPages: 4))
            #expect(a.primary.count == 200)
            #expect(a.primary.compactMap(\.id) == b.primary.compactMap(\.id))
            #expect(a.resources(ofType: "authors").count == b.resources(ofType: "authors").count)
            // Errors come back the same way too.
            for client in [curl, session] {
                await #expect {
                    _ = try await client.resource(type: "articles", id: "999999")
                } throws: { error in
                    (error as? JSONAPIClientError)?.status == 404
                }
            }
        }
    }
}
