import Testing
@testable import JSONAPIStream

/// yajl copies the first token of every buffer it is given into a buffer of its own, which
/// grows by doubling: a long string at the start of a buffer cost 2 to 3 times its size. The
/// stream parser never starts a buffer with a string, so yajl lexes every string in place.
@Suite struct LongTokens {
    @Test(arguments: [0, 1 << 20, 65_536, 4097, 333])
    func yajlNeverCopiesALongString(readSize: Int) throws {
        let text = String(repeating: "abcdefgh", count: 1 << 20)  // 8 MiB
        let document = bytes(#"{"data":{"type":"t","id":"1","attributes":{"s":"\#(text)","n":[1,"\#(text)"]}}}"#)
        MemoryBudget.resetYajlPeak()
        let result = parseJSON(document, chunk: readSize)
        let peak = MemoryBudget.yajlPeakBytes
        guard case .success(let values) = result else { Issue.record("\(result)"); return }
        let attributes = values.first?["data"]?["attributes"]
        #expect(attributes?["s"] == .string(text))
        #expect(attributes?["n"]?[1] == .string(text))
        // Without the rule, yajl held at least the 8 MiB string (16 MiB after doubling).
        #expect(peak < 1 << 20, "yajl held \(peak) bytes at once (read size \(readSize))")
    }
}
