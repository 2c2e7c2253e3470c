import Foundation
import Testing

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// The `jsonapi` binary built next to the test bundle.
let jsonapiBinary: URL = {
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("jsonapi")
        if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    return repositoryRoot.appendingPathComponent(".build/debug/jsonapi")
}()

struct RunResult {
    var status: Int32
    var stdout: Data
    var stderr: String
    var out: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs `jsonapi` with `arguments`, feeding `stdin`, in the repository root; as another user
/// (through `runuser`, when the tests run as root) with `user`; with `environment` added to
/// this process's.
@discardableResult
func run(_ arguments: [String], stdin: Data? = nil, user: String? = nil, environment: [String: String] = [:]) throws -> RunResult {
    let p = Process()
    if !environment.isEmpty { p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
    var shared: URL? = nil
    defer { if let shared { try? FileManager.default.removeItem(at: shared.deletingLastPathComponent()) } }
    if let user {
        p.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
        let copy = try sharedBinary()
        shared = copy
        p.arguments = ["-u", user, "--", copy.path] + arguments
    } else {
        p.executableURL = jsonapiBinary
        p.arguments = arguments
    }
    p.currentDirectoryURL = repositoryRoot
    let out = Pipe()
    let err = Pipe()
    p.standardOutput = out
    p.standardError = err
    let input = Pipe()
    p.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try p.run()
    // Write standard input and read both output pipes concurrently, so that none fills up
    // while another waits (a child that writes as it reads would otherwise block on a full
    // output pipe while this waits to write the rest of its input). A child that exits
    // without reading its input must get one that fits in the pipe (SIGPIPE otherwise).
    final class Box: @unchecked Sendable { var data = Data() }
    let errBox = Box()
    let group = DispatchGroup()
    if let stdin {
        let writer = input.fileHandleForWriting
        group.enter()
        DispatchQueue.global().async {
            try? writer.write(contentsOf: stdin)
            try? writer.close()
            group.leave()
        }
    }
    group.enter()
    DispatchQueue.global().async {
        errBox.data = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    p.waitUntilExit()
    return RunResult(status: p.terminationStatus, stdout: outData, stderr: String(decoding: errBox.data, as: UTF8.self))
}

/// A copy of the binary that any user can run (removed by `run` after use) (the build directory may be private, as in a
/// clone under `mktemp -d`).
func sharedBinary() throws -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-tests-shared-\(UUID().uuidString)")
    let copy = dir.appendingPathComponent("jsonapi")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    try FileManager.default.copyItem(at: jsonapiBinary, to: copy)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: copy.path)
    return copy
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// Every `.json` file below `folder` of the corpus, as paths relative to the repository.
func corpusFiles(_ folder: String) -> [String] {
    let base = repositoryRoot.appendingPathComponent("Corpus").appendingPathComponent(folder)
    guard let e = FileManager.default.enumerator(atPath: base.path) else { return [] }
    return e.compactMap { $0 as? String }.filter { $0.hasSuffix(".json") }.sorted().map { "Corpus/\(folder)/\($0)" }
}
