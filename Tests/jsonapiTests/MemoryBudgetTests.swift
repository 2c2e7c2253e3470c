import Foundation
import Testing

/// Running out of memory is an error with the input position (exit 1, `J12`), never a
/// signal: under an address-space limit (`ulimit -v`) in a child process, for one long
/// string and for many resources, and under `--max-memory`.
@Suite(.serialized) struct MemoryBudgetRuns {
    struct Outcome {
        var status: Int32
        var reason: Process.TerminationReason
        var stderr: String
    }

    /// Runs `jsonapi arguments` under `ulimit -v kib` (none when nil), output discarded.
    static func run(_ arguments: [String], addressSpaceKiB kib: Int?) throws -> Outcome {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        let limit = kib.map { "ulimit -v \($0) && " } ?? ""
        p.arguments = ["-c", "\(limit)exec \"$0\" \"$@\"", jsonapiBinary.path] + arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        let err = Pipe()
        p.standardError = err
        try p.run()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Outcome(status: p.terminationStatus, reason: p.terminationReason, stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func temporaryDirectory() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-memory-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    static func expectBudgetError(_ o: Outcome, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(o.reason == .exit, "\(what): ended by signal \(o.status)", sourceLocation: sourceLocation)
        #expect(o.status == 1, "\(what): exit \(o.status): \(o.stderr)", sourceLocation: sourceLocation)
        #expect(o.stderr.contains("J12"), "\(what): \(o.stderr)", sourceLocation: sourceLocation)
        #expect(o.stderr.contains("memory") && o.stderr.contains("byte "), "\(what): \(o.stderr)", sourceLocation: sourceLocation)
    }

    /// A read buffer the system refuses (the largest `--chunk-size`, 1 GiB, under a 700 MB
    /// address-space limit): J12 and status 1, not a crash; with room, the same output.
    @Test func aReadBufferTheSystemRefuses() throws {
        let o = try Self.run(["normalize", "--chunk-size", "1073741824", "Corpus/documents/spec-compound.json"], addressSpaceKiB: 700_000)
        #expect(o.reason == .exit, "ended by signal \(o.status)")
        #expect(o.status == 1 && o.stderr.contains("J12") && o.stderr.contains("1073741824"), "exit \(o.status): \(o.stderr)")
        let fits = try Self.run(["normalize", "--chunk-size", "1048576", "Corpus/documents/spec-compound.json"], addressSpaceKiB: 700_000)
        #expect(fits.status == 0, "\(fits.stderr)")
    }

    /// A 60 MiB string, under the 64 MiB string limit: it used to need 337 MB resident (yajl's
    /// doubling copy), and died of SIGSEGV inside yajl under `ulimit -v 250000`.
    @Test func aLongStringUnderAnAddressSpaceLimit() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("long.json")
        var document = Data(#"{"data":{"type":"t","id":"1","attributes":{"s":""#.utf8)
        document.append(Data(repeating: UInt8(ascii: "a"), count: 60 << 20))
        document.append(Data(#""}}}"#.utf8))
        try document.write(to: file)
        for command in [["validate"], ["normalize", "--format", "ndjson"], ["normalize", "--format", "json"], ["stats"]] {
            let o = try Self.run(command + [file.path], addressSpaceKiB: 250_000)
            Self.expectBudgetError(o, "\(command)")
            // The position is where the string starts (byte 46), in the value it belongs to.
            #expect(o.stderr.contains("byte 4") && o.stderr.contains("/data/attributes/s"), "\(command): \(o.stderr)")
        }
        // With room for it, the same document goes through.
        let fits = try Self.run(["validate", file.path], addressSpaceKiB: 700_000)
        #expect(fits.reason == .exit && fits.status == 0, "\(fits.status): \(fits.stderr)")
    }

    /// Many resources: the graph outgrows the budget; the run stops at a position in the
    /// input instead of aborting in an allocation.
    @Test func manyResourcesUnderAnAddressSpaceLimit() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("many.json")
        let generate = Process()
        generate.executableURL = jsonapiBinary
        generate.arguments = ["generate", "--resources", "40000"]
        _ = FileManager.default.createFile(atPath: file.path, contents: nil)
        generate.standardOutput = try FileHandle(forWritingTo: file)
        try generate.run()
        generate.waitUntilExit()
        #expect(generate.terminationStatus == 0)
        for command in [["stats"], ["normalize", "--format", "json"]] {
            // 150,000 KiB of address space. The debug build's graph of this 70 MB document ran
            // out at 170,000 and went through at 210,000; its NDJSON ran out at 75,000. (With
            // 20,000 resources and 170,000 KiB before, the graph went through once the command
            // stopped linking Foundation, which had taken about 45 MiB of address space at start.)
            let o = try Self.run(command + [file.path], addressSpaceKiB: 150_000)
            Self.expectBudgetError(o, "\(command)")
        }
        // NDJSON streams: it keeps no graph, and the same limit is enough.
        let streamed = try Self.run(["normalize", "--format", "ndjson", file.path], addressSpaceKiB: 150_000)
        #expect(streamed.reason == .exit && streamed.status == 0, "\(streamed.status): \(streamed.stderr)")
        let fits = try Self.run(["stats", file.path], addressSpaceKiB: 1_000_000)
        #expect(fits.reason == .exit && fits.status == 0, "\(fits.status): \(fits.stderr)")
        // --max-memory: resident memory on top of what the process holds at start.
        let capped = try Self.run(["stats", "--max-memory", "8M", file.path], addressSpaceKiB: nil)
        Self.expectBudgetError(capped, "--max-memory 8M")
        #expect(capped.stderr.contains("resident"), "\(capped.stderr)")
        let roomy = try Self.run(["stats", "--max-memory", "2G", file.path], addressSpaceKiB: nil)
        #expect(roomy.status == 0, "\(roomy.stderr)")
        let bad = try Self.run(["stats", "--max-memory", "12Q", file.path], addressSpaceKiB: nil)
        #expect(bad.status == 2 && bad.stderr.contains("--max-memory"), "\(bad.stderr)")
    }
}
