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
