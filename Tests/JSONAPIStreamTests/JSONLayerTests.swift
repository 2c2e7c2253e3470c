import Foundation
import Testing
@testable import JSONAPIStream

/// The JSON layer on its own: each J rule, positions, and independence from the read size.
struct JSONLayerTests {
    /// Parses `input` whole and at read sizes 1...31, with small reads gathered (as by
    /// default), handed over as they come (`coalesceBytes` = the read size), and parsed in
    /// place after the first bytes of each read (`coalesceBytes` below the read size: the
    /// last read's tail goes to yajl with that many bytes of the next); every outcome must be
    /// identical. Returns the (common) outcome.
    func parseAtAllSizes(_ input: [UInt8], options: ParseOptions = .default, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Result<[JSONValue], JSONAPIError> {
        let whole = parseJSON(input, chunk: 0, options: options)
        for size in 1...31 {
            for coalesce in [options.coalesceBytes, size, max(1, size / 3)] {
                var o = options
                o.coalesceBytes = coalesce
                let r = parseJSON(input, chunk: size, options: o)
                switch (whole, r) {
                case (.success(let a), .success(let b)):
                    #expect(a == b, "values differ at read size \(size), coalescing \(coalesce)", sourceLocation: sourceLocation)
                case (.failure(let a), .failure(let b)):
                    #expect(a == b, "errors differ at read size \(size), coalescing \(coalesce): \(a) vs \(b)", sourceLocation: sourceLocation)
                default:
                    Issue.record("outcome differs at read size \(size), coalescing \(coalesce): \(whole) vs \(r)", sourceLocation: sourceLocation)
                }
            }
        }
        return whole
    }

    func expectError(_ input: [UInt8], _ rule: Rule, line: Int = 1, column: Int, options: ParseOptions = .default, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let r = parseAtAllSizes(input, options: options, sourceLocation: sourceLocation)
        guard let e = r.error, let d = e.diagnostic else {
            Issue.record("expected \(rule) at \(line):\(column), got \(r)", sourceLocation: sourceLocation)
            return
        }
        #expect(d.rule == rule, "\(d)", sourceLocation: sourceLocation)
        #expect(d.location.line == line && d.location.column == column, "\(d)", sourceLocation: sourceLocation)
        #expect(d.severity == .error, sourceLocation: sourceLocation)
    }

    func expectValue(_ input: [UInt8], _ expected: String, options: ParseOptions = .default, sourceLocation: Testing.SourceLocation = #_sourceLocation) {
        let r = parseAtAllSizes(input, options: options, sourceLocation: sourceLocation)
        #expect(r.value?.map(\.jsonText) == [expected], "\(r)", sourceLocation: sourceLocation)
    }

    // MARK: - J00 plain syntax, with positions

    @Test func syntaxErrorsPointAtTheOffendingToken() {
        expectError(bytes(#"{"a" 1}"#), .J00, column: 6)
        expectError(bytes("[1,]"), .J00, column: 4)
        expectError(bytes("[1 2]"), .J00, column: 4)
        expectError(bytes("{\"a\":1,\n  \"b\" \"c\"}"), .J00, line: 2, column: 7)
        expectError(bytes("[01]"), .J00, column: 2)
        expectError(bytes("[1.]"), .J00, column: 2)
        expectError(bytes("[-]"), .J00, column: 2)
        expectError(bytes("[.5]"), .J00, column: 2)
        expectError(bytes("[1e]"), .J00, column: 2)
        expectError(bytes(#"["\x"]"#), .J00, column: 3)
        expectError(bytes(#"["\u12G4"]"#), .J00, column: 3)
        expectError(bytes("[tru]"), .J00, column: 2)
        expectError(bytes("[nulll]"), .J00, column: 2)
        expectError(bytes("{'a':1}"), .J00, column: 2)
        expectError(bytes("[\"a\tb\"]"), .J00, column: 4)
        expectError(bytes("{}x"), .J00, column: 3)
    }

    /// Tokens glued together without a delimiter, and errors whose place yajl reports
    /// loosely: the same error at the same place whatever the read size (cases the chunking
    /// fuzzer found).
    @Test func gluedTokensAndLooseOffsetsAtEveryReadSize() {
        expectError(bytes(#"{"a":"b"]"#), .J00, column: 9)  // yajl steps back after a member value
        expectError(bytes(#"{"a":[]]"#), .J00, column: 8)
        expectError(bytes(#"{"a":"b" ""}"#), .J00, column: 10)
        expectError(bytes(#"{8"a"}"#), .J00, column: 2)  // a number glued to a string
        expectError(bytes("{8\u{F4}\u{90}"), .J00, column: 2)  // ...and to a bad byte: the earlier error wins
        expectError([0x7B, 0x30, 0x00, 0x22], .J00, column: 2)  // {0 NUL "
        expectError([0x30, 0x2D, 0x22, 0x83], .J00, column: 2)  // 0-" then a stray continuation byte
        expectError(bytes(#"f""#), .J00, column: 1)
        expectError(bytes(#"1.""#), .J00, column: 1)
        expectError(bytes(#"{0m""#), .J00, column: 2)  // 0 is no key, before m is no token
        expectError(bytes("{\"a\":/}"), .J00, column: 6)  // not a comment: a character JSON lacks
        expectError(bytes("[/"), .J00, column: 2)
        expectError(bytes("{}/"), .J00, column: 3)
        expectError(bytes("4z%"), .J00, column: 2)
        expectError([0xC3, 0xA5], .J01, column: 1)  // a whole character outside a string
        expectError([0x5B, 0x30, 0xE5], .J02, column: 3)  // a character cut off by the end
    }

    @Test func singleValueModeRefusesTrailingContent() {
        var o = ParseOptions()
        o.multipleDocuments = false
        expectError(bytes("[][]"), .J00, column: 3, options: o)
        expectError(bytes("{} {}"), .J00, column: 4, options: o)
        expectValue(bytes(" [1] \n"), "[1]", options: o)
    }

    @Test func severalValuesAreAcceptedByDefault() {
        let r = parseAtAllSizes(bytes("{\"a\":1}{\"b\":2}\n[3]\n\"x\" 4"))
        #expect(r.value?.map(\.jsonText) == [#"{"a":1}"#, #"{"b":2}"#, "[3]", #""x""#, "4"])
    }

    // MARK: - J01 whitespace

    @Test func onlyJSONWhitespaceBetweenTokens() {
        expectError([0x5B, 0x0C, 0x5D], .J01, column: 2)  // form feed
        expectError([0x5B, 0x0B, 0x5D], .J01, column: 2)  // vertical tab
        expectError([0x5B, 0xC2, 0xA0, 0x5D], .J01, column: 2)  // no-break space
        expectError([0x5B, 0x00, 0x5D], .J01, column: 2)  // NUL
        expectValue(bytes("[ \t\r\n1 ]"), "[1]")
    }

    // MARK: - J02 UTF-8

    @Test(arguments: [
        ("overlong 2-byte", [0xC0, 0xAF] as [UInt8]),
        ("overlong C1", [0xC1, 0xBF]),
        ("overlong 3-byte", [0xE0, 0x80, 0xAF]),
        ("overlong 4-byte", [0xF0, 0x80, 0x80, 0xAF]),
        ("overlong NUL", [0xC0, 0x80]),
        ("encoded surrogate", [0xED, 0xA0, 0x80]),
        ("CESU-8 pair", [0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]),
        ("above U+10FFFF", [0xF4, 0x90, 0x80, 0x80]),
        ("F5 lead", [0xF5, 0x80, 0x80, 0x80]),
        ("bare continuation", [0x80]),
        ("truncated sequence", [0xE2, 0x82]),
        ("FF", [0xFF]),
    ])
    func invalidUTF8IsRefusedInStringsAndKeys(_ name: String, _ sequence: [UInt8]) {
        // In a string value: the error points at the first byte that cannot be right.
        let value = bytes(#"["ab"#) + sequence + bytes(#""]"#)
        let r = parseAtAllSizes(value)
        #expect(r.error?.rule == .J02, "\(name): \(r)")
        #expect((r.error?.location?.column ?? 0) >= 5, "\(name): \(r)")
        // In a member name.
        let key = bytes(#"{"k"#) + sequence + bytes(#"":1}"#)
        #expect(parseAtAllSizes(key).error?.rule == .J02, "\(name) in a key")
    }

    @Test func utf8BoundariesAreAccepted() {
        let samples: [[UInt8]] = [[0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xEF, 0xBF, 0xBF], [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xEE, 0x80, 0x80]]
        for s in samples {
            let r = parseAtAllSizes(bytes(#"[""#) + s + bytes(#""]"#))
            #expect(r.value?.first?[0]?.stringValue.map { Array($0.utf8) } == s)
        }
    }

    /// Ill-formed UTF-8 is reported at the lead byte of the sequence.
    @Test func utf8ErrorsPointAtTheLeadByte() {
        // "ab" then C0 (never valid as a lead byte): column of C0.
        expectError(bytes(#"["ab"#) + [0xC0, 0xAF] + bytes(#""]"#), .J02, column: 5)
        // E0 80: E0 is a fine lead, 80 is below its allowed A0..BF: still E0's column.
        expectError(bytes(#"["ab"#) + [0xE0, 0x80, 0xAF] + bytes(#""]"#), .J02, column: 5)
        // A truncated sequence: the lead byte.
        expectError(bytes(#"["ab"#) + [0xE2, 0x82] + bytes(#"y"]"#), .J02, column: 5)
        // Outside a string: ill-formed is J02, well-formed but not whitespace is J01.
        expectError(bytes("[") + [0xFF] + bytes("]"), .J02, column: 2)
        expectError(bytes("[") + [0xC2, 0xA0] + bytes("]"), .J01, column: 2)
    }

    // MARK: - J03 surrogates

    @Test func unpairedSurrogatesAreRefused() {
        expectError(bytes(#"["\ud800"]"#), .J03, column: 3)
        expectError(bytes(#"["\udc00"]"#), .J03, column: 3)
        expectError(bytes(#"["\ud800\u0041"]"#), .J03, column: 3)
        expectError(bytes(#"["\ud800x"]"#), .J03, column: 3)
        expectError(bytes(#"["\ud800\n"]"#), .J03, column: 3)
        expectError(bytes(#"["\uD83D\uD83D"]"#), .J03, column: 3)
        expectError(bytes(#"{"\udfff":1}"#), .J03, column: 3)
    }

    @Test func pairedSurrogatesDecode() {
        expectValue(bytes(#"["\ud83d\ude00 \u00e9\u0000\/"]"#), "[\"😀 é\\u0000/\"]")
        expectValue(bytes(#"["\uDBFF\uDFFF"]"#), "[\"\u{10FFFF}\"]")
    }

    // MARK: - J04 numbers stay text

    @Test func numbersKeepTheirExactText() {
        let texts = ["-0", "1.10", "1e400", "-1E-400", "123456789012345678901234567890", "-9223372036854775809", "0.1", "2E+7", "0", "1.5e-3"]
        for t in texts { expectValue(bytes("[\(t)]"), "[\(t)]") }
    }

    // MARK: - J05 depth

    @Test func depthLimitIsAnErrorNotACrash() {
        var o = ParseOptions()
        o.limits.maxDepth = 3
        expectValue(bytes("[[[1]]]"), "[[[1]]]", options: o)
        expectError(bytes("[[[[1]]]]"), .J05, column: 4, options: o)
        expectError(bytes(#"{"a":{"b":{"c":{}}}}"#), .J05, column: 16, options: o)
        // 100,000 levels with the default limit of 512: a J05 error, quickly.
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 100_000) + [UInt8](repeating: UInt8(ascii: "]"), count: 100_000)
        let r = parseJSON(deep, chunk: 4096)
        #expect(r.error?.rule == .J05)
        #expect(r.error?.location?.column == 513)
    }

    // MARK: - J06 token limits

    @Test func tokenLimitsAreEachTheirOwnError() {
        var o = ParseOptions()
        o.limits.maxStringBytes = 8
        o.limits.maxKeyBytes = 4
        o.limits.maxNumberLength = 5
        expectValue(bytes(#"["12345678"]"#), #"["12345678"]"#, options: o)
        expectError(bytes(#"["123456789"]"#), .J06, column: 2, options: o)
        expectError(bytes(#"{"abcde":1}"#), .J06, column: 2, options: o)
        expectValue(bytes(#"{"abcd":12345}"#), #"{"abcd":12345}"#, options: o)
        expectError(bytes("[123456]"), .J06, column: 2, options: o)
        // The limit holds while the string is still arriving: the parser stops without
        // waiting for its end.
        let long = bytes("[\"") + [UInt8](repeating: UInt8(ascii: "a"), count: 100)
        #expect(parseJSON(long, chunk: 7, options: o).error?.rule == .J06)
    }

    /// J07: a long string split into many small reads is parsed in linear time (yajl only
    /// ever sees whole tokens). Not a timed test: 16 MiB in 4 KiB reads would take minutes
    /// if every read rescanned the token.
    @Test func longTokensInSmallReadsStayLinear() throws {
        let n = 16 << 20
        var input = bytes(#"[""#)
        input += [UInt8](repeating: UInt8(ascii: "x"), count: n)
        input += bytes(#"\n"]"#)
        let r = parseJSON(input, chunk: 4096)
        let s = try #require(r.value?.first?[0]?.stringValue)
        #expect(s.utf8.count == n + 1)
    }

    // MARK: - J09 truncation

    @Test func truncationIsAnErrorAtTheEnd() {
        expectError(bytes("{"), .J09, column: 2)
        expectError(bytes(#"{"a":"#), .J09, column: 6)
        expectError(bytes(#"["abc"#), .J09, column: 6)
        expectError(bytes("[1,2"), .J09, column: 5)
        expectError(bytes("[tr"), .J09, column: 4)
        expectError(bytes(""), .J09, column: 1)
        expectError(bytes("  \n "), .J09, line: 2, column: 2)
        expectValue(bytes("12"), "12")
    }

    // MARK: - J10 byte order mark

    @Test func byteOrderMarkPolicy() {
        let input: [UInt8] = [0xEF, 0xBB, 0xBF] + bytes("[1]")
        expectError(input, .J10, column: 1)
        var o = ParseOptions()
        o.byteOrderMark = .strip
        expectValue(input, "[1]", options: o)
        // Offsets still count the mark's bytes.
        let bad: [UInt8] = [0xEF, 0xBB, 0xBF] + bytes("[1,]")
        let r = parseAtAllSizes(bad, options: o)
        #expect(r.error?.location == SourcePosition(offset: 6, line: 1, column: 7))
        // A lone EF is not a mark: it is ill-formed UTF-8.
        expectError([0xEF] + bytes("[1]"), .J02, column: 1)
    }

    // MARK: - J11 duplicate member names

    @Test func duplicateNamesAreRefused() {
        expectError(bytes(#"{"a":1,"b":2,"a":3}"#), .J11, column: 14)
        // Equal after unescaping.
        expectError(bytes(#"{"a":1,"\u0061":3}"#), .J11, column: 8)
        // In a nested object the scope is that object.
        expectValue(bytes(#"{"a":{"a":1},"b":{"a":2}}"#), #"{"a":{"a":1},"b":{"a":2}}"#)
        // Large objects switch to a hash table: still found.
        var big = "{"
        for i in 0..<100 { big += "\"k\(i)\":\(i)," }
        big += "\"k57\":0}"
        let r = parseJSON(bytes(big))
        #expect(r.error?.rule == .J11)
        #expect(r.error?.diagnostic?.pointer == "/k57")
    }

    @Test func namesDifferingOnlyInCaseStayDistinct() {
        expectValue(bytes(#"{"title":1,"Title":2}"#), #"{"title":1,"Title":2}"#)
    }

    // MARK: - J08 positions do not depend on reads

    @Test func positionsAreAbsoluteAcrossLinesAndReads() {
        let input = bytes("{\n  \"a\": [1, 2,\n    3,\n    ]\n}")
        expectError(input, .J00, line: 4, column: 5)
        let r = parseJSON(input, chunk: 3)
        #expect(r.error?.location?.offset == 27)
    }
}
