import Foundation
import Testing

/// Inputs that used to take quadratic time: a document line with 100,000 identifiers (each
/// append copied the array: 14.7 s for 50,000), and a normalize | denormalize round trip.
@Suite struct LinearPaths {
    @Test func denormalizeOneHundredThousandIdentifiers() throws {
        let n = 100_000
        var line = #"{"document":{"data":["#
        for i in 0..<n { line += (i == 0 ? "" : ",") + #"{"type":"things","id":"\#(i)"}"# }
        line += "]}}\n"
        let r = try run(["denormalize"], stdin: Data(line.utf8))
        #expect(r.status == 0, "\(r.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let data = try #require(document["data"] as? [[String: Any]])
        #expect(data.count == n)
        #expect(data.last?["id"] as? String == String(n - 1))
    }

    @Test func normalizeThenDenormalizeManyResources() throws {
        let n = 30_000
        var doc = #"{"data":["#
        for i in 0..<n { doc += (i == 0 ? "" : ",") + #"{"type":"things","id":"\#(i)","attributes":{"n":\#(i)}}"# }
        doc += "]}"
        // Files, not standard input: normalize writes while it reads, and a pipe fed whole
        // before it is read would fill.
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("doc.json")
        let lines = dir.appendingPathComponent("doc.ndjson")
        try Data(doc.utf8).write(to: input)
        let normalized = try run(["normalize", "--format", "ndjson", "-o", lines.path, input.path])
        #expect(normalized.status == 0)
        let back = try run(["denormalize", lines.path])
        #expect(back.status == 0, "\(back.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: back.stdout) as? [String: Any])
        let data = try #require(document["data"] as? [[String: Any]])
        #expect(data.count == n)
        #expect((data[12_345]["attributes"] as? [String: Any])?["n"] as? Int == 12_345)
    }

    /// `--hash` at depth 100,000: the canonical form is built without recursion (it used to
    /// recurse once per level, and rescan each level's text: 50 µs a level) and its digest is
    /// the one Python's hashlib gives for the same canonical text.
    @Test func hashAtDepthOneHundredThousand() throws {
        let d = 100_000
        let doc =
            #"{"data":{"type":"a","id":"1","attributes":{"deep":"#
            + String(repeating: #"{"b":1,"a":"#, count: d) + "0" + String(repeating: "}", count: d) + "}}}"
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("deep.json")
        try Data(doc.utf8).write(to: input)
        let r = try run(["normalize", "--format", "ndjson", "--hash", "--resources-only", "--max-depth", "200000", input.path])
        #expect(r.status == 0, "\(r.stderr)")
        let canonical =
            #"{"attributes":{"deep":"# + String(repeating: #"{"a":"#, count: d) + "0"
            + String(repeating: #","b":1}"#, count: d) + #"},"id":"1","relationships":{},"type":"a"}"#
        let expected = try Process.sha256(canonical)
        #expect(r.out.hasSuffix(#""hash":"\#(expected)"}"# + "\n"), "\(r.out.suffix(120))")
    }
}
