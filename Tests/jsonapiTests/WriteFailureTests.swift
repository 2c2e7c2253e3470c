import Foundation
import Testing

/// Every write is checked (a full disk is exit 2 with the reason, never a lost output with
/// exit 0, never a trap), and a run stopped by a signal leaves no temporary file behind.
@Suite struct WriteFailures {
    /// Runs `jsonapi` with standard output on /dev/full.
    static func runIntoFullDisk(_ arguments: [String]) throws -> (status: Int32, reason: Process.TerminationReason, stderr: String) {
        let p = Process()
        p.executableURL = jsonapiBinary
        p.arguments = arguments
        p.currentDirectoryURL = repositoryRoot
        p.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: "/dev/full"))
        let err = Pipe()
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, p.terminationReason, String(decoding: stderr, as: UTF8.self))
    }

    @Test(arguments: [
        ["normalize", "Corpus/documents/spec-compound.json"],
        ["normalize", "--format", "ndjson", "Corpus/documents/spec-compound.json"],
        ["normalize", "--format", "edges", "Corpus/documents/spec-compound.json"],
        ["normalize", "--format", "ndjson", "-o", "/dev/full", "Corpus/documents/spec-compound.json"],
        ["denormalize", "Corpus/gold/spec-compound.ndjson"],
        ["validate", "--format", "json", "Corpus/invalid/R09-primary.json"],
        ["stats", "Corpus/documents/spec-compound.json"],
        ["stats", "--format", "json", "Corpus/documents/spec-compound.json"],
        ["generate", "--resources", "3"],
        ["bench", "Corpus/documents/spec-compound.json", "--passes", "yajl", "--runs", "1", "--quiet"],
    ])
    func aFullDiskIsAnError(_ arguments: [String]) throws {
        for file in arguments where file.hasPrefix("Corpus/") {
            #expect(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(file).path), "\(file) is missing")
        }
        let r = try Self.runIntoFullDisk(arguments)
        #expect(r.reason == .exit, "\(arguments) ended by a signal (\(r.status))")
        #expect(r.status == 2, "\(arguments): exit \(r.status), \(r.stderr)")
        #expect(r.stderr.contains("No space left on device"), "\(arguments): \(r.stderr)")
    }

    /// A `normalize -o` run reading from a pipe that stays open: it has started writing (its
    /// temporary file exists) and waits for more input.
    final class OpenRun {
        let process = Process()
        let input = Pipe()
        let directory: URL

        init(into directory: URL) throws {
            self.directory = directory
            process.executableURL = jsonapiBinary
            process.arguments = ["normalize", "--format", "ndjson", "-o", directory.appendingPathComponent("out.ndjson").path]
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            var text = #"{"data":["#
            for i in 0..<2000 { text += #"{"type":"things","id":"\#(i)","attributes":{"n":\#(i)}},"# }
            try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        }

        /// The temporary files next to the target.
        func temporaryFiles() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix(".out.ndjson.tmp-") }
        }

        func waitForTemporaryFile() throws -> String {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                if let name = try temporaryFiles().first { return name }
                usleep(20_000)
            }
            throw CancellationError()
        }

        /// Ends the document and the input.
        func finish() throws {
            try input.fileHandleForWriting.write(contentsOf: Data(#"{"type":"things","id":"last"}]}"#.utf8))
            try input.fileHandleForWriting.close()
            process.waitUntilExit()
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
    }

    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aSignalRemovesTheTemporaryFile(_ signal: Int32) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let run = try OpenRun(into: dir)
        let name = try run.waitForTemporaryFile()
        #expect(name.hasPrefix(".out.ndjson.tmp-\(run.process.processIdentifier)-"), "the temporary file does not name its writer")
        kill(run.process.processIdentifier, signal)
        run.process.waitUntilExit()
        #expect(run.process.terminationReason == .uncaughtSignal)
        #expect(run.process.terminationStatus == signal, "the run did not end by the signal it got")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == [], "left behind after signal \(signal)")
    }

    /// A FIFO named like a temporary file of the target is left alone, and the run does not
    /// wait on it (looking for abandoned files opened it, which waits for a writer). Under
    /// `timeout -s KILL`, so that such a wait fails the test instead of hanging it.
    @Test func aFIFONamedLikeATemporaryFileDoesNotStopTheRun() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent(".out.ndjson.tmp-999999-fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let target = dir.appendingPathComponent("out.ndjson").path
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
        p.arguments = ["-s", "KILL", "60", jsonapiBinary.path, "normalize", "--format", "ndjson", "-o", target, "Corpus/documents/spec-compound.json"]
        p.currentDirectoryURL = repositoryRoot
        p.standardInput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0, "status \(p.terminationStatus) (killed after 60 s: it waited on the FIFO)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == [".out.ndjson.tmp-999999-fifo", "out.ndjson"])
        #expect(try run(["normalize", "--format", "ndjson", "Corpus/documents/spec-compound.json"]).stdout == (try Data(contentsOf: URL(fileURLWithPath: target))))
    }

    @Test func aFileLeftBySIGKILLIsRemovedByTheNextRunButNotALiveOne() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let killed = try OpenRun(into: dir)
        let left = try killed.waitForTemporaryFile()
        kill(killed.process.processIdentifier, SIGKILL)
        killed.process.waitUntilExit()
        #expect(try killed.temporaryFiles() == [left], "SIGKILL cannot be caught: the file stays until the next run")

        // A run in progress to the same target.
        let live = try OpenRun(into: dir)
        let liveName = try live.waitForTemporaryFile { $0 != left }
        // Another run to the same target: removes the dead writer's file, not the live one's.
        let target = dir.appendingPathComponent("out.ndjson").path
        let r = try run(["normalize", "--format", "ndjson", "-o", target, "Corpus/documents/spec-compound.json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try live.temporaryFiles() == [liveName])
        try live.finish()
        #expect(live.process.terminationStatus == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.ndjson"])
        let lines = try String(contentsOfFile: target, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2002, "the live run's output is not whole")
    }
}

extension WriteFailures.OpenRun {
    func waitForTemporaryFile(where accept: (String) -> Bool) throws -> String {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let name = try temporaryFiles().first(where: accept) { return name }
            usleep(20_000)
        }
        throw CancellationError()
    }
}
