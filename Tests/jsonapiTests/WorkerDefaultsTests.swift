import Foundation
import JSONAPICommandSupport
import JSONAPIStream
import Testing

/// `normalize`'s default for NDJSON and edge lines on two cores: two workers for one large
/// file document, and for many documents in files of 32 MiB or more together; `validate`'s:
/// two workers from 3 MiB; one reader otherwise (`WorkerOptions.twoWorkersByDefault`, `WorkerOptions.largeDump`).
struct WorkerDefaultsTests {
    @Test func twoWorkersOnlyForLargeFilesOnTwoCores() {
        let large = ParseOptions.largeInputBytes
        #expect(large == 3 << 20)
        #expect(WorkerOptions.twoWorkersByDefault(cores: 2, inputBytes: large))
        #expect(WorkerOptions.twoWorkersByDefault(cores: 2, inputBytes: 1 << 30))
        #expect(!WorkerOptions.twoWorkersByDefault(cores: 2, inputBytes: large - 1))
        // Size unknown (standard input, a pipe): the library's default.
        #expect(!WorkerOptions.twoWorkersByDefault(cores: 2, inputBytes: nil))
        // One core, or 3 and more (where the library's default is already a worker per core).
        for cores in [1, 3, 4, 16] { #expect(!WorkerOptions.twoWorkersByDefault(cores: cores, inputBytes: 1 << 30)) }
    }

    @Test func theFilesSizesAddUpAndUnknownSizesGiveNone() throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("a.json"), b = dir.appendingPathComponent("b.json")
        try Data(count: 1000).write(to: a)
        try Data(count: 234).write(to: b)
        let options = try WorkerOptions.parse([])
        // The sources as the command makes them from its file arguments.
        func sources(_ files: [String]) throws -> [InputSource] { try InputOptions.parse(files).sources }
        func workers(_ files: [String]) throws -> (Int?, Bool) {
            let o = options.applied(toLinesOf: DocumentOptions(), sources: try sources(files))
            return (o.parse.workers, o.parse.largeDocumentsOnly)
        }
        // Small files: the library's default, whatever the cores.
        #expect(try workers([a.path, b.path]) == (nil, false))
        #expect(try workers([]) == (nil, false))
        #expect(try workers(["-"]) == (nil, false))
        // A file of more than 3 MiB: on two cores, two workers for one large document.
        let big = dir.appendingPathComponent("big.json")
        try Data(count: 13 << 20).write(to: big)
        let expected: (Int?, Bool) = ParseOptions.usableCores == 2 ? (2, true) : (nil, false)
        #expect(try workers([big.path]) == expected)
        // From 32 MiB (the files together), many documents too.
        #expect(WorkerOptions.largeDump == 32 << 20)
        let huge = dir.appendingPathComponent("huge.json")
        try Data(count: 20 << 20).write(to: huge)
        #expect(try workers([big.path, huge.path]) == (ParseOptions.usableCores == 2 ? (2, false) : (nil, false)))
        #expect(try workers([huge.path]) == expected)
        // `validate`: two workers from 3 MiB, for many documents and one large document alike.
        func validating(_ files: [String]) throws -> (Int?, Bool) {
            let o = options.applied(toValidating: DocumentOptions(), sources: try sources(files))
            return (o.parse.workers, o.parse.largeDocumentsOnly)
        }
        #expect(try validating([a.path, b.path]) == (nil, false))
        #expect(try validating([big.path]) == (ParseOptions.usableCores == 2 ? (2, false) : (nil, false)))
        #expect(try validating([big.path, "-"]) == (nil, false))
        #expect(try validating([big.path, huge.path]) == (ParseOptions.usableCores == 2 ? (2, false) : (nil, false)))
        #expect(try WorkerOptions.parse(["--workers", "1"]).applied(toValidating: DocumentOptions(), sources: try sources([big.path])).parse.workers == 1)
        // With standard input among the files, or a FIFO, the size is not known.
        #expect(try workers([big.path, "-"]) == (nil, false))
        let fifo = dir.appendingPathComponent("fifo")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        #expect(try workers([big.path, fifo.path]) == (nil, false))
        // A compressed file: its size says nothing of the bytes read.
        let gz = dir.appendingPathComponent("big.json.gz")
        try (Data([0x1F, 0x8B]) + Data(count: 13 << 20)).write(to: gz)
        #expect(try workers([gz.path]) == (nil, false))
        // --workers wins; so does --concurrency sequential (one thread).
        let asked = try WorkerOptions.parse(["--workers", "1"]).applied(toLinesOf: DocumentOptions(), sources: try sources([big.path]))
        #expect(asked.parse.workers == 1 && !asked.parse.largeDocumentsOnly)
        var sequential = DocumentOptions()
        sequential.parse.concurrency = .sequential
        #expect(options.applied(toLinesOf: sequential, sources: try sources([big.path])).parse.workers == nil)
    }

    /// End to end: the input `generate arguments` writes (over `atLeast` bytes) as NDJSON and
    /// edges, by default and on one reader: the same bytes.
    static func expectSameLinesByDefault(generating arguments: [String], atLeast: Int) throws {
        let generated = try run(["generate"] + arguments)
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(generated.stdout.count > atLeast)
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("input.json").path
        try generated.stdout.write(to: URL(fileURLWithPath: path))
        for format in ["ndjson", "edges"] {
            let byDefault = try run(["normalize", "--format", format, path])
            let one = try run(["normalize", "--format", format, "--workers", "1", path])
            #expect(byDefault.status == 0 && one.status == 0, "\(byDefault.stderr) \(one.stderr)")
            #expect(byDefault.stdout == one.stdout && byDefault.stdout.count > 1 << 20, "\(format)")
        }
    }

    /// A generated document over 3 MiB (on this 2-core machine the default reads it on two
    /// workers, a range of elements each).
    @Test func aLargeFileWritesTheSameLinesByDefault() throws {
        try Self.expectSameLinesByDefault(generating: ["--resources", "4000", "--seed", "3"], atLeast: ParseOptions.largeInputBytes)
    }

    /// A dump of many documents over 32 MiB (two workers by default on this 2-core machine,
    /// each a run of whole documents).
    @Test func aLargeDumpWritesTheSameLinesByDefault() throws {
        try Self.expectSameLinesByDefault(
            generating: ["--resources", "20000", "--documents", "600", "--seed", "4"], atLeast: WorkerOptions.largeDump)
    }

    /// `validate` of a dump over 3 MiB and of one large document (two workers by default on
    /// this 2-core machine, for both): the same findings and exit status as on one reader,
    /// with an invalid document among the dump's.
    @Test func validateFindsTheSameByDefault() throws {
        let dump = try run(["generate", "--resources", "4000", "--documents", "150", "--seed", "5"])
        let one = try run(["generate", "--resources", "4000", "--seed", "6"])
        #expect(dump.status == 0 && one.status == 0)
        #expect(dump.stdout.count > ParseOptions.largeInputBytes && one.stdout.count > ParseOptions.largeInputBytes)
        var lines = String(decoding: dump.stdout, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        // A type with a character member names may not hold (R12), in the 100th document.
        lines[99] = lines[99].replacingOccurrences(of: #""type":"people""#, with: #""type":"pe+ople""#)
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let dumpPath = dir.appendingPathComponent("dump.json").path, onePath = dir.appendingPathComponent("one.json").path
        try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: dumpPath))
        try one.stdout.write(to: URL(fileURLWithPath: onePath))
        for (path, invalid) in [(dumpPath, true), (onePath, false)] {
            let byDefault = try run(["validate", path])
            let single = try run(["validate", "--workers", "1", path])
            #expect(byDefault.status == single.status && single.status == (invalid ? 1 : 0), "\(path): \(single.stderr)")
            #expect(byDefault.stderr == single.stderr, "\(path)")
            if invalid { #expect(single.stderr.contains("pe+ople")) }
        }
    }
}
