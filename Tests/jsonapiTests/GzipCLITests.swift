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

    /// A named pipe (or a shell's `<(...)`) is read as it comes, like standard input: nothing
    /// opens it before its turn (which would take its first bytes, or wait for a writer that
    /// has already gone), neither for its size, nor its compression, nor (denormalize) to
    /// see whether it is a database. Each run has `timeout -s KILL` around it, so that such a wait fails
    /// the test instead of hanging it.
    @Test func commandsReadANamedPipe() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let plain = repositoryRoot.appendingPathComponent("Corpus/documents/spec-compound.json").path
        let gz = dir.appendingPathComponent("doc.json.gz").path
        let gzip = Process()
        gzip.executableURL = URL(fileURLWithPath: "/bin/sh")
        gzip.arguments = ["-c", #"gzip -n -c "$1" > "$2""#, "sh", plain, gz]
        try gzip.run()
        gzip.waitUntilExit()
        let fifo = dir.appendingPathComponent("in").path
        #expect(mkfifo(fifo, 0o600) == 0)
        // `command` on `source` written into the FIFO by a writer beside it, as a shell
        // pipeline's would be: its status and output (the FIFO's path read as `source`).
        func throughFIFO(_ command: [String], _ source: String) throws -> (Int32, String) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            // (The writer's own output goes to /dev/null before it opens the FIFO, so that
            // a writer left waiting does not hold the output pipe open.)
            let script = #"src=$1 fifo=$2 bin=$3; shift 3; cat "$src" >/dev/null >"$fifo" & exec timeout -s KILL 60 "$bin" "$@""#
            p.arguments = ["-c", script, "sh", source, fifo, jsonapiBinary.path] + command + [fifo]
            let out = Pipe()
            p.standardOutput = out
            p.standardError = FileHandle.nullDevice
            p.standardInput = FileHandle.nullDevice
            try p.run()
            let got = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            // A writer still waiting for a reader (the command did not read its turn)
            // is let go: this open pairs with it, and it ends on the closed FIFO.
            let release = open(fifo, O_RDONLY | O_NONBLOCK)
            if release >= 0 { close(release) }
            return (p.terminationStatus, got.replacingOccurrences(of: fifo, with: source))
        }
        for command in [["normalize", "--format", "ndjson"], ["normalize"], ["validate"]] {
            let expected = try run(command + [plain])
            for source in [plain, gz] {
                let (status, got) = try throughFIFO(command, source)
                #expect(status == expected.status, "\(command) \(source) (9: killed after 60 s)")
                #expect(got.replacingOccurrences(of: gz, with: plain) == expected.out, "\(command) \(source)")
            }
        }
        // denormalize tells a database from a document by its first bytes: a FIFO is a
        // document, and its first bytes stay in it.
        let normalized = dir.appendingPathComponent("normalized.json").path
        try run(["normalize", plain]).stdout.write(to: URL(fileURLWithPath: normalized))
        let expected = try run(["denormalize", normalized])
        #expect(expected.status == 0 && !expected.out.isEmpty)
        let (status, got) = try throughFIFO(["denormalize"], normalized)
        #expect(status == 0, "denormalize: status \(status)")
        #expect(got == expected.out)
    }
}
