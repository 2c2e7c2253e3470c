import Foundation
import Testing
@testable import JSONAPIStream

/// `--numbers safe`: a number a reader parsing it into a double would change is written as a
/// string of its exact text; every other number as it is.
@Suite struct SafeNumberPolicy {
    @Test(arguments: [
        "0", "-0", "0.0", "1", "-1", "0.1", "3.19", "1.10", "2.5e-3", "1e10", "1E+2", "123456789012345",
        "9007199254740992", "1152921504606846976", "1e300", "1.7976931348623157e308", "5e-324",
        "0.30000000000000004", "1e22", "100000000000000000000000",
    ])
    func safe(_ text: String) {
        #expect(Array(text.utf8).withUnsafeBytes { SafeNumbers.isSafe($0) }, "\(text)")
    }

    @Test(arguments: [
        "9007199254740993", "1e400", "-1e400", "1e-400", "123456789012345678901234567890",
        "0.1000000000000000055511151231257827", "1.00000000000000001", "18446744073709551617",
        "1" + String(repeating: "0", count: 400),
    ])
    func unsafe(_ text: String) {
        #expect(!Array(text.utf8).withUnsafeBytes { SafeNumbers.isSafe($0) }, "\(text)")
    }

    @Test func unsafeNumbersBecomeStringsEverywhere() throws {
        let input =
            #"{"data":[{"type":"a","id":"1","attributes":{"big":9007199254740993,"ok":9007199254740992,"inf":1e400,"list":[1,1e-400,"1e400"],"o":{"n":-1e400}},"meta":{"m":123456789012345678901234567890}}],"meta":{"total":1e999},"links":{"self":"/x"}}"#
        var o = OutputOptions()
        o.numbers = .safe
        let out = ByteWriter()
        let n = Normalizer(format: .ndjson, out: out, output: o, document: .default, duplicates: .last)
        try n.beginInput(named: "t")
        try feedChunked(bytes(input), chunk: 7) { (b) throws(JSONAPIError) in try n.feed(b) }
        try n.endInput()
        try n.finish()
        #expect(n.numbersQuoted == 6)
        #expect(
            out.string
                == #"{"type":"a","id":"1","primary":true,"attributes":{"big":"9007199254740993","ok":9007199254740992,"inf":"1e400","list":[1,"1e-400","1e400"],"o":{"n":"-1e400"}},"relationships":{},"meta":{"m":"123456789012345678901234567890"}}"#
                + "\n"
                + #"{"document":{"data":[{"type":"a","id":"1"}],"meta":{"total":"1e999"},"links":{"self":"/x"}}}"# + "\n")
        // Flat JSON, and exact (the default) keeps the text.
        let flat = try normalize(input, format: .json, output: o)
        #expect(flat.contains(#""big":"9007199254740993","ok":9007199254740992"#) && flat.contains(#""total":"1e999""#), "\(flat)")
        #expect(try normalize(input, format: .json).contains(#""big":9007199254740993"#))
        // Only the records whose input had such numbers are changed: per resource, per
        // document line, across documents and read sizes.
        let several =
            #"{"data":[{"type":"a","id":"1","attributes":{"x":1}},{"type":"a","id":"2","attributes":{"x":1e400}}],"meta":{"n":2}}"# + "\n"
            + #"{"meta":{"n":1e-999}}"# + "\n" + #"{"data":{"type":"a","id":"3","attributes":{"x":18446744073709551617}}}"#
        for chunk in [1, 5, 1 << 20] {
            let text = try normalize(several, output: o, chunk: chunk)
            #expect(
                text == #"{"type":"a","id":"1","primary":true,"attributes":{"x":1},"relationships":{}}"# + "\n"
                    + #"{"type":"a","id":"2","primary":true,"attributes":{"x":"1e400"},"relationships":{}}"# + "\n"
                    + #"{"document":{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"}],"meta":{"n":2}}}"# + "\n"
                    + #"{"document":{"data":null,"meta":{"n":"1e-999"}}}"# + "\n"
                    + #"{"type":"a","id":"3","primary":true,"attributes":{"x":"18446744073709551617"},"relationships":{}}"# + "\n"
                    + #"{"document":{"data":{"type":"a","id":"3"}}}"# + "\n", "read size \(chunk): \(text)")
        }
        let severalFlat = try normalize(several, format: .json, output: o)
        #expect(
            severalFlat.hasSuffix(
                #""resources":{"a":{"1":{"attributes":{"x":1},"relationships":{}},"2":{"attributes":{"x":"1e400"},"relationships":{}},"3":{"attributes":{"x":"18446744073709551617"},"relationships":{}}}},"meta":{"n":"1e-999"}}"#
                    + "\n"), "\(severalFlat)")
        // Every line parses, and a reader that takes numbers as doubles changes none.
        for line in out.string.split(separator: "\n") {
            let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
            #expect(value is [String: Any])
        }
    }
}
