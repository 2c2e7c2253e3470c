import Foundation
import Testing

/// Every command that reads documents takes gzip input as it is (a file or standard input).
@Suite struct GzipCLI {
    @Test func commandsReadGzipInput() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-gz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let plain = dir.appendingPathComponent("doc.json")
        try Data(contentsOf: repositoryRoot.appendingPathComponent("Corpus/documents/spec-compound.json")).write(to: plain)
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/gzip")
        gzip.arguments = ["-k", "-n", plain.path]
        try gzip.run()
        gzip.waitUntilExit()
        let compressed = plain.path + ".gz"
        for command in [["normalize"], ["normalize", "--format", "ndjson"], ["stats"], ["validate"]] {
            let a = try run(command + [plain.path])
            let b = try run(command + [compressed])
            #expect(a.status == b.status, "\(command): \(b.stderr)")
            // stats' first line has the time taken.
            let strip = { (r: RunResult) in command == ["stats"] ? String(r.out.drop { $0 != "\n" }) : r.out }
            #expect(strip(a) == strip(b), "\(command)")
        }
        // zstd too.
        let zstd = Process()
        zstd.executableURL = URL(fileURLWithPath: "/usr/bin/zstd")
        zstd.arguments = ["-q", "-k", plain.path]
        try zstd.run()
        zstd.waitUntilExit()
        #expect(try run(["normalize", plain.path + ".zst"]).stdout == (try run(["normalize", plain.path])).stdout)
        let fromStdin = try run(["normalize", "-"], stdin: try Data(contentsOf: URL(fileURLWithPath: compressed)))
        #expect(fromStdin.stdout == (try run(["normalize", plain.path])).stdout)
        // A truncated file: exit 2 and what is wrong.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: compressed))
        let cut = dir.appendingPathComponent("cut.json.gz")
        try bytes.prefix(bytes.count / 2).write(to: cut)
        let r = try run(["normalize", cut.path])
        #expect(r.status == 2 && r.stderr.contains("gzip stream ends inside a member"), "\(r.status): \(r.stderr)")
    }
}
