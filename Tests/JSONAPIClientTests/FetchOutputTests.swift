import Foundation
import Testing

/// What `jsonapi fetch` writes is never lost: each page's lines go out as the page ends, a
/// crawl that reaches the page limit says so with exit 2, and a failed write is an error.
@Suite struct FetchOutput {
    @Test func aCrawlStopsWithAnErrorAtThePageLimit() async throws {
        let s = try OriginServers()
        let r = try jsonapi(["fetch", "\(s.a)/endless", "--all-pages", "--page-limit", "5", "--format", "ndjson", "--resources-only"])
        #expect(r.status == 2)
        #expect(r.stderr.contains("stopped at the page limit, 5 pages, while links.next leads on"), "\(r.stderr)")
        #expect(r.lines.count == 5, "what was read before the limit was not written")
        // --max-pages stops on purpose: a warning, exit 0.
        let capped = try jsonapi(["fetch", "\(s.a)/endless", "--max-pages", "3", "--format", "ndjson", "--resources-only"])
        #expect(capped.status == 0)
        #expect(capped.lines.count == 3)
        #expect(capped.stderr.contains("warning: stopped after 3 pages (--max-pages)"))
    }

    @Test func everyPageReachesTheOutputAsItEnds() async throws {
        // Page 4 hangs: pages 1-3 must be in the output file while the crawl still runs.
        let s = try OriginServers(hangSeconds: 1500)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-flush-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("out.ndjson")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        let p = Process()
        p.executableURL = jsonapiBinary
        p.arguments = ["fetch", "\(s.a)/endless?hang=4", "--all-pages", "--format", "ndjson", "--resources-only", "--timeout", "300"]
        p.standardOutput = try FileHandle(forWritingTo: out)
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        defer {
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
        }
        try await Polling.until(polls: 1_800, every: .milliseconds(50)) { try await s.seen(s.a).count >= 4 }
        // Pages 1 to 4, then page 4 only: where this test's task waited minutes for a thread
        // (the whole suite under AddressSanitizer), the crawl's 300 s timeout had asked for
        // the hanging page again (its retry).
        let seen = try await s.seen(s.a).map(\.path)
        #expect(seen.count >= 4 && Set(seen.prefix(4)).count == 4, "the crawl did not reach page 4: \(seen)")
        #expect(seen.dropFirst(3).allSatisfy { $0 == seen[3] }, "\(seen)")
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(p.isRunning)
        let lines = try String(contentsOf: out, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3, "pages read are held back: \(lines)")
        #expect(lines.last?.contains(#""id":"3""#) == true)
    }

    @Test func aFullDiskIsAnError() throws {
        let s = try OriginServers()
        let p = Process()
        p.executableURL = jsonapiBinary
        p.arguments = ["fetch", "\(s.a)/endless", "--max-pages", "3", "--format", "ndjson"]
        p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        let err = Pipe()
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit)
        #expect(p.terminationStatus == 2, "\(stderr)")
        #expect(stderr.contains("No space left on device"), "\(stderr)")
    }
}
