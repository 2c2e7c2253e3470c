import Foundation
import Testing
@testable import JSONAPIStream

/// The repository root (two levels above this file's folder).
let repositoryRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func corpusURL(_ path: String) -> URL { repositoryRoot.appendingPathComponent("Corpus").appendingPathComponent(path) }

func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

/// Parses `input` as JSON values, fed in chunks of `chunk` bytes (0: whole).
func parseJSON(_ input: [UInt8], chunk: Int = 0, options: ParseOptions = .default) -> Result<[JSONValue], JSONAPIError> {
    let receiver = JSONValueReceiver(options: options)
    let parser = JSONStreamParser(outlet: receiver, options: options)
    do throws(JSONAPIError) {
        try feedChunked(input, chunk: chunk) { (b) throws(JSONAPIError) in try parser.feed(b) }
        try parser.finish()
        return .success(receiver.values)
    } catch {
        return .failure(error)
    }
}

/// Reads `inputs` (name, bytes) into `reader`, each `chunk` bytes at a time (0: whole).
func readInputs(_ inputs: [(String, [UInt8])], chunk: Int, into reader: some StreamingReader) throws(JSONAPIError) {
    for (name, bytes) in inputs {
        try reader.beginInput(named: name)
        try feedChunked(bytes, chunk: chunk) { (b) throws(JSONAPIError) in try reader.feed(b) }
        try reader.endInput()
    }
}

func feedChunked(_ input: [UInt8], chunk: Int, _ feed: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void) throws(JSONAPIError) {
    var result: JSONAPIError? = nil
    input.withUnsafeBytes { all in
        let size = chunk <= 0 ? max(all.count, 1) : chunk
        var i = 0
        while i < all.count {
            let end = min(i + size, all.count)
            do throws(JSONAPIError) { try feed(UnsafeRawBufferPointer(rebasing: all[i..<end])) } catch { result = error; return }
            i = end
        }
    }
    if let result { throw result }
}

extension Result {
    var error: Failure? { if case .failure(let e) = self { e } else { nil } }
    var value: Success? { if case .success(let v) = self { v } else { nil } }
}

extension JSONAPIError {
    var rule: Rule? { diagnostic?.rule }
    var location: SourcePosition? { diagnostic?.location }
}

/// How a parallel-reader test gives its inputs: fed in chunks, read whole in place, or
/// written to files and read from them as `jsonapi` reads them (into blocks that batches view).
enum InputReading: CustomStringConvertible {
    case fed, whole, files

    var description: String {
        switch self {
        case .fed: ""
        case .whole: ", read whole"
        case .files: ", read from files"
        }
    }
}

/// Writes `inputs` (name, bytes) to files of a new temporary folder and calls `read` with
/// each, in order, as a `.file` source and the read size (`chunk`, 0: a whole file at once);
/// the folder is removed afterwards. `names` gets the name of each input by its file's path
/// before it is read, for ``renamed(_:_:)`` (also when reading throws).
func readFromFiles(
    _ inputs: [(String, [UInt8])], chunk: Int, names: inout [String: String], _ read: (InputSource, Int) throws(JSONAPIError) -> Void
) throws(JSONAPIError) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-files-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    for (i, (name, bytes)) in inputs.enumerated() {
        let path = dir.appendingPathComponent("\(i).json").path
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { throw JSONAPIError.input("cannot write \(path)") }
        names[path] = name
        try read(.file(path), chunk <= 0 ? max(bytes.count, 1) : chunk)
    }
}

/// `d` naming its input by `names` (a file's path to the input's name) where it names one.
func renamed(_ d: Diagnostic, _ names: [String: String]) -> Diagnostic {
    var d = d
    if let s = d.source, let name = names[s] { d.source = name }
    return d
}

/// `error` naming its input by `names` where it names one.
func renamed(_ error: JSONAPIError?, _ names: [String: String]) -> JSONAPIError? {
    guard let error, let d = error.diagnostic, let s = d.source, let name = names[s] else { return error }
    return error.withSource(name)
}

/// The checks of an input cut in smaller pieces at its end (``ParallelReader/cutTarget(at:)``):
/// `known`, the sizes of the pieces cut with the input's size known, are `fed`'s (the same
/// input's, its size not known, every one at least `batch`) until the last bytes, then at least
/// three smaller and smaller ones (within one `piece`, an element's or a document's bytes),
/// none below an eighth of `batch`. Returns the full ones and the smaller ones.
@discardableResult
func expectCutSmallerAtTheEnd(
    fed: [Int], known: [Int], batch: Int, piece: Int, _ what: String, sourceLocation: SourceLocation = #_sourceLocation
) -> (full: ArraySlice<Int>, tail: ArraySlice<Int>) {
    #expect(fed.count >= 15 && fed.allSatisfy { $0 >= batch }, "fed: \(fed)", sourceLocation: sourceLocation)
    let full = known.prefix { $0 >= batch - piece }
    #expect(
        full.count >= fed.count - 12 && Array(full.dropLast()) == Array(fed.prefix(full.count - 1)), "\(what): \(known)",
        sourceLocation: sourceLocation)
    let tail = known.dropFirst(full.count)
    #expect(tail.count >= 3, "\(what): \(known)", sourceLocation: sourceLocation)
    #expect(tail.allSatisfy { $0 >= batch / 8 }, "\(what): \(known)", sourceLocation: sourceLocation)
    #expect(zip(tail, tail.dropFirst()).allSatisfy { $1 <= $0 + piece }, "\(what): \(known)", sourceLocation: sourceLocation)
    return (full, tail)
}
