import Foundation
import Testing
@testable import JSONAPIStream

/// `--hash` writes a line's canonical form from the resource's parts when it can (names as
/// they are, no unknown members) and otherwise reads the line's text again. Here every digest
/// is recomputed the second way from the line as written: both must agree.
struct ContentHashTests {
    /// Relationships out of order (more than sixteen in one resource, which are sorted another
    /// way), names that need escaping, identifiers with `lid` and `meta`, relationships with
    /// only links or meta, `null` data, a resource without attributes, a `lid` resource.
    static let shapes = #"""
        {"data":[
          {"type":"a","id":"1","attributes":{"z":1,"a":{"y":[{"q":1,"p":2}],"x":null}},
           "relationships":{
             "zeta":{"meta":{"n":1},"links":{"self":"/s"},"data":{"type":"b","id":"2","meta":{"w":1,"v":2}}},
             "alpha":{"data":[{"type":"b","lid":"l1"},{"type":"b","id":"3","lid":"l3","meta":{"k":true}}]},
             "mid":{"data":null},
             "only-links":{"links":{"related":"/r"}},
             "esc\u00e9\"q":{"data":{"type":"t\"y","id":"i\\d"}},
             "esc":{"meta":{}}
           },
           "links":{"self":"/a/1"},"meta":{"b":1,"a":2}},
          {"type":"a","lid":"new","relationships":{
             "r16":{"data":null},"r15":{"data":null},"r14":{"data":null},"r13":{"data":null},
             "r12":{"data":null},"r11":{"data":null},"r10":{"data":null},"r9":{"data":null},
             "r8":{"data":null},"r7":{"data":null},"r6":{"data":null},"r5":{"data":null},
             "r4":{"data":null},"r3":{"data":null},"r2":{"data":null},"r1":{"data":null},
             "r0":{"data":null},"r":{"data":null}}},
          {"type":"a","id":"4","attributes":{},"relationships":{}}
        ]}
        """#

    static let inputs: [String] = CorpusTests.files("documents").map { "documents/\($0)" } + ["shapes"]

    @Test(arguments: inputs)
    func digestsFromPartsMatchDigestsFromText(_ name: String) throws {
        let input = name == "shapes" ? Array(Self.shapes.utf8) : Array(try Data(contentsOf: corpusURL(name)))
        var options = OutputOptions()
        options.hash = true
        let out = ByteWriter()
        let n = Normalizer(format: .ndjson, out: out, output: options)
        try n.beginInput(named: name)
        try feedChunked(input, chunk: 0) { (b) throws(JSONAPIError) in try n.feed(b) }
        try n.finish()
        var canonicalizer = Canonical()
        let hasher = try SHA256Hasher()
        var lines = 0
        for line in out.string.split(separator: "\n") where !line.hasPrefix(#"{"document""#) {
            // `{…,"hash":"<64 digits>"}`: the digest, and the line without `primary` and `hash`.
            let bytes = Array(line.utf8)
            let suffix = #","hash":""#.utf8.count + 64 + 2
            try #require(bytes.count > suffix)
            let digest = String(decoding: bytes[(bytes.count - 66)..<(bytes.count - 2)], as: UTF8.self)
            var text = String(decoding: bytes[..<(bytes.count - suffix)], as: UTF8.self) + "}"
            let primary = try #require(text.range(of: #","primary":true"#) ?? text.range(of: #","primary":false"#))
            text.removeSubrange(primary)
            var canonical = ByteArena(capacity: 256)
            Array(text.utf8).withUnsafeBytes { canonicalizer.form($0, 0..<$0.count, into: &canonical) }
            let expected = canonical.withBytes { hasher.hex($0) }
            #expect(digest == expected, "\(name): \(line)")
            lines += 1
        }
        if name == "shapes" { #expect(lines == 3) }
    }
}
