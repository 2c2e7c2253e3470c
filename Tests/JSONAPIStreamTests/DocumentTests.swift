import Foundation
import Testing
@testable import JSONAPIStream
@testable import JSONAPIBenchmarking

/// Normalizes `input` in memory and returns the output text.
func normalize(
    _ input: String, format: OutputFormat = .ndjson, output: OutputOptions = OutputOptions(),
    document: DocumentOptions = .default, duplicates: DuplicatePolicy = .last, chunk: Int = 0,
    warnings: UnsafeMutablePointer<[Diagnostic]>? = nil
) throws(JSONAPIError) -> String {
    let out = ByteWriter()
    let n = Normalizer(format: format, out: out, output: output, document: document, duplicates: duplicates)
    n.onDiagnostic = { d in warnings?.pointee.append(d) }
    try n.beginInput(named: "test")
    try feedChunked(bytes(input), chunk: chunk) { (b) throws(JSONAPIError) in try n.feed(b) }
    try n.endInput()
    try n.finish()
    return out.string
}

func graph(_ input: String, options: DocumentOptions = .default, duplicates: DuplicatePolicy = .last, chunk: Int = 0) throws(JSONAPIError) -> Graph {
    let p = GraphParser(options: options, duplicates: duplicates)
    try feedChunked(bytes(input), chunk: chunk) { (b) throws(JSONAPIError) in try p.feed(b) }
    let g = try p.finish()
    g.checkInvariants()
    return g
}

struct DocumentTests {
    // MARK: - Member order

    @Test func memberOrderDoesNotMatter() throws {
        let canonical = """
            {"data":{"type":"articles","id":"1","attributes":{"title":"T"},"relationships":{"author":{"data":{"type":"people","id":"9"}}}},
             "included":[{"type":"people","id":"9","attributes":{"name":"N"}}],"meta":{"m":1}}
            """
        let shuffled = """
            {"meta":{"m":1},"included":[{"attributes":{"name":"N"},"id":"9","type":"people"}],
             "data":{"relationships":{"author":{"data":{"id":"9","type":"people"}}},"attributes":{"title":"T"},"id":"1","type":"articles"}}
            """
        // The same resources with the same lines (types and ids come in first-seen order).
        let a = try normalize(canonical).split(separator: "\n").sorted()
        let b = try normalize(shuffled).split(separator: "\n").sorted()
        #expect(a == b)
        // NDJSON keeps input order: included before data streams first.
        let lines = try normalize(shuffled).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix(#"{"type":"people","id":"9","primary":false"#))
        #expect(lines[1].hasPrefix(#"{"type":"articles","id":"1","primary":true"#))
        #expect(lines[2] == #"{"document":{"data":{"type":"articles","id":"1"},"meta":{"m":1}}}"#)
    }

    // MARK: - Primary data shapes

    @Test func primaryDataShapesAreKept() throws {
        #expect(try normalize(#"{"data":null}"#, format: .json) == #"{"data":null,"resources":{}}"# + "\n")
        #expect(try normalize(#"{"data":[]}"#, format: .json) == #"{"data":[],"resources":{}}"# + "\n")
        #expect(try normalize(#"{"meta":{"a":1}}"#, format: .json) == #"{"data":null,"resources":{},"meta":{"a":1}}"# + "\n")
        #expect(
            try normalize(#"{"data":{"type":"a","id":"1"}}"#, format: .json)
                == #"{"data":{"type":"a","id":"1"},"resources":{"a":{"1":{"attributes":{},"relationships":{}}}}}"# + "\n")
        #expect(try normalize(#"{"data":null}"#) == #"{"document":{"data":null}}"# + "\n")
        #expect(try normalize(#"{"data":[]}"#) == #"{"document":{"data":[]}}"# + "\n")
    }

    @Test func severalDocumentsConcatenatePrimaryLinkage() throws {
        let input = """
            {"data":{"type":"a","id":"1"}}
            {"data":null}
            {"data":[{"type":"a","id":"2"},{"type":"a","id":"3"}]}
            {"data":[]}
            """
        let flat = try normalize(input, format: .json)
        #expect(flat.hasPrefix(#"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"},{"type":"a","id":"3"}],"#))
        let nd = try normalize(input).split(separator: "\n").filter { $0.hasPrefix(#"{"document""#) }
        #expect(
            nd == [
                #"{"document":{"data":{"type":"a","id":"1"}}}"#, #"{"document":{"data":null}}"#,
                #"{"document":{"data":[{"type":"a","id":"2"},{"type":"a","id":"3"}]}}"#, #"{"document":{"data":[]}}"#,
            ])
    }

    // MARK: - Relationships

    @Test func absentAndNullLinkageDiffer() throws {
        let input =
            #"{"data":{"type":"a","id":"1","relationships":{"x":{"links":{"related":"/x"}},"y":{"data":null},"z":{"data":[]},"w":{"meta":{"n":1},"data":{"type":"b","id":"2","meta":{"k":true}}}}}}"#
        let line = try normalize(input).split(separator: "\n")[0]
        #expect(
            line
                == #"{"type":"a","id":"1","primary":true,"attributes":{},"relationships":{"x":{"links":{"related":"/x"}},"y":{"data":null},"z":{"data":[]},"w":{"data":{"type":"b","id":"2","meta":{"k":true}},"meta":{"n":1}}}}"#
        )
        let g = try graph(input)
        let r = try #require(g[type: "a", id: "1"])
        #expect(r.relationship("x")?.kind == .absent)
        #expect(r.relationship("y")?.kind == .null)
        #expect(r.relationship("z")?.kind == .toMany)
        #expect(r.relationship("w")?.linkage.first?.meta?["k"]?.bool == true)
        #expect(r.relationship("w")?.resource == nil)
    }

    @Test func cyclesAreEdges() throws {
        let input = #"{"data":{"type":"a","id":"1","relationships":{"b":{"data":{"type":"b","id":"1"}}}},"included":[{"type":"b","id":"1","relationships":{"a":{"data":{"type":"a","id":"1"}}}}]}"#
        let g = try graph(input)
        let a = try #require(g[type: "a", id: "1"])
        let b = try #require(a.relationship("b")?.resource)
        #expect(b.relationship("a")?.resource == a)
        #expect(g.statistics.unreachableIncluded == 0)
    }

    // MARK: - lid

    @Test func lidKeysAndIdentifiers() throws {
        var o = DocumentOptions()
        o.context = .create
        let input = #"{"data":{"type":"a","lid":"tmp-1","relationships":{"b":{"data":{"type":"b","lid":"tmp-2"}}}},"included":[{"type":"b","lid":"tmp-2","attributes":{"n":1}}]}"#
        let nd = try normalize(input, document: o).split(separator: "\n")
        #expect(nd[0] == #"{"type":"a","lid":"tmp-1","primary":true,"attributes":{},"relationships":{"b":{"data":{"type":"b","lid":"tmp-2"}}}}"#)
        let g = try graph(input, options: o)
        let a = try #require(g[type: "a", lid: "tmp-1"])
        #expect(a.id == nil && a.lid == "tmp-1")
        #expect(a.relationship("b")?.resource?.attributes["n"]?.number?.intValue == 1)
        let flat = try normalize(input, format: .json, document: o)
        #expect(flat.contains(#""a":{"tmp-1":{"attributes":{},"relationships":{"b":{"data":{"type":"b","lid":"tmp-2"}}},"lid":"tmp-1"}}"#))
    }

    @Test func bothIdAndLidKeepBoth() throws {
        let input = #"{"data":{"type":"a","id":"1","lid":"x"}}"#
        #expect(try normalize(input).hasPrefix(#"{"type":"a","id":"1","lid":"x","primary":true"#))
        let g = try graph(input)
        #expect(g[type: "a", id: "1"] == g[type: "a", lid: "x"])
    }

    // MARK: - Nothing is dropped

    @Test func unknownAndAtMembersAreKeptInPlace() throws {
        var warnings: [Diagnostic] = []
        let input =
            #"{"@context":"x","data":{"type":"a","id":"1","@r":1,"extra":{"k":[1]},"attributes":{"@a":2},"relationships":{"r":{"data":{"type":"b","id":"2","@i":3,"odd":4},"@rel":5,"count":6}}},"other":true}"#
        let nd = try normalize(input, warnings: &warnings).split(separator: "\n")
        #expect(nd[0] == #"{"type":"a","id":"1","primary":true,"attributes":{"@a":2},"relationships":{"r":{"data":{"type":"b","id":"2","@i":3,"odd":4},"@rel":5,"count":6}},"@r":1,"extra":{"k":[1]}}"#)
        #expect(nd[1] == #"{"document":{"data":{"type":"a","id":"1"},"@context":"x","other":true}}"#)
        // Unknown members are reported in lenient mode (R05, R14, R21); @-members are not.
        #expect(Set(warnings.map(\.rule)) == [.R05, .R14, .R21])
        #expect(warnings.count == 4)
        let g = try graph(input)
        #expect(g[type: "a", id: "1"]?.otherMembers.map(\.name) == ["@r", "extra"])
        #expect(g.documents[0].otherMembers.map(\.name) == ["@context", "other"])
    }

    /// The graph's records keep a span in 8 bytes and a position in 16; a value of 16 MiB or
    /// more, one past 2^39 bytes into the store, or a position past line or column
    /// 2^32 - 2 (a line of more than 4 GiB) is kept aside, and reads back the same.
    @Test func packedSpansAndPositionsHoldEveryValue() {
        let s = GraphStorage()
        let cases = [
            ValueSpan(start: 0, count: 0), ValueSpan(start: 7, count: (1 << 24) - 2), ValueSpan(start: (1 << 39) - 1, count: 1),
            ValueSpan(start: 3, count: (1 << 24) - 1), ValueSpan(start: 1 << 39, count: 2), ValueSpan(start: 1, count: 1 << 33), .none,
        ]
        let packed = cases.map { s.pack($0) }
        #expect(packed.map { s.span($0) } == cases)
        #expect(s.longSpans.count == 3)
        #expect(packed[6] == .none && packed[6].isNone && !packed[0].isNone)
        let positions = [
            SourcePosition.start, SourcePosition(offset: 9_000_000_000, line: 4_294_967_294, column: 4_294_967_294),
            SourcePosition(offset: 5_000_000_000, line: 1, column: 5_000_000_001), SourcePosition(offset: 1 << 40, line: 1 << 33, column: 3),
        ]
        #expect(positions.map { s.position(s.pack($0)) } == positions)
        #expect(s.longPositions.count == 2)
    }

    @Test func valuesOfSixteenMebibytesAndMoreSurviveMergesAndMergedGraphs() throws {
        let long = String(repeating: "x", count: (1 << 24) + 5)
        let input = """
            {"data":[{"type":"a","id":"1","attributes":{"s":"\(long)"},"meta":{"m":1}},{"type":"a","id":"2","attributes":{"t":1}}]}
            {"data":{"type":"a","id":"1","attributes":{"u":2},"relationships":{"r":{"data":null,"meta":{"long":"\(long)"}}}}}
            """
        for g in [try graph(input), try graph(input).merging(graph(#"{"data":{"type":"a","id":"3"}}"#))] {
            let a = try #require(g[type: "a", id: "1"])
            #expect(a.attributes["s"]?.string == long)
            #expect(a.attributes["u"]?.jsonText == "2")
            #expect(a.meta?.jsonText == #"{"m":1}"#)
            #expect(a.relationship("r")?.meta?["long"]?.string?.count == long.count)
            #expect(g[type: "a", id: "2"]?.attributes.jsonText == #"{"t":1}"#)
            #expect(g.storage.longSpans.count >= 2)  // the attributes and the relationship's meta
        }
    }

    @Test func exactValuesAreCopied() throws {
        let input = #"{"data":{"type":"a","id":"1","attributes":{"n":[1.10,-0,1e400,123456789012345678901234567890],"s":"q\"b\\s\/\u00e9\ud83d\ude00\u0001\n","Title":1,"title":2}}}"#
        let line = try normalize(input).split(separator: "\n")[0]
        #expect(line.contains(#""attributes":{"n":[1.10,-0,1e400,123456789012345678901234567890],"s":"q\"b\\s/é😀\u0001\n","Title":1,"title":2}"#))
    }

    // MARK: - Duplicates

    @Test func duplicatesMergeMemberByMember() throws {
        let input = """
            {"data":[{"type":"a","id":"1","attributes":{"x":1,"y":2},"relationships":{"r":{"data":null}},"meta":{"m":1}}]}
            {"data":[{"type":"a","id":"1","attributes":{"z":3,"x":10},"relationships":{"s":{"data":[]},"r":{"links":{"self":"/r"}}}}]}
            """
        var warnings: [Diagnostic] = []
        let flat = try normalize(input, format: .json, warnings: &warnings)
        #expect(flat.contains(#""1":{"attributes":{"x":10,"y":2,"z":3},"relationships":{"r":{"links":{"self":"/r"}},"s":{"data":[]}},"meta":{"m":1}}"#))
        #expect(warnings.map(\.rule) == [.N01])
        #expect(warnings[0].message.contains("1:"))  // names the first place
        let first = try normalize(input, format: .json, duplicates: .first)
        #expect(first.contains(#""1":{"attributes":{"x":1,"y":2,"z":3},"relationships":{"r":{"data":null},"s":{"data":[]}},"meta":{"m":1}}"#))
        #expect(throws: JSONAPIError.self) { try normalize(input, format: .json, duplicates: .error) }
        // NDJSON writes the later occurrence again.
        let nd = try normalize(input).split(separator: "\n").filter { !$0.hasPrefix(#"{"document""#) }
        #expect(nd.count == 2)
        // ...or skips it with --on-duplicate first.
        let ndFirst = try normalize(input, duplicates: .first).split(separator: "\n").filter { !$0.hasPrefix(#"{"document""#) }
        #expect(ndFirst.count == 1)
    }

    /// Unknown members (`@`-members here) of a resource, its relationships and their
    /// identifiers follow the merge: the resource's by name, a relationship's and its
    /// identifiers' with the relationship object that wins. Three occurrences, so that a merge
    /// also moves what an earlier merge wrote.
    @Test func duplicatesMergeUnknownMembersAtEveryLevel() throws {
        let input = """
            {"data":{"type":"a","id":"1","@x":1,"relationships":{"r":{"data":{"type":"b","id":"2","@i":"one"},"@rel":1},"t":{"data":[{"type":"b","id":"3","@k":1}]}}}}
            {"data":{"type":"a","id":"1","@x":2,"@y":3,"relationships":{"r":{"data":{"type":"b","id":"2","@i":"two","@j":true},"@rel":2},"s":{"data":[],"@s":0}}}}
            {"data":{"type":"a","id":"1","@z":4,"relationships":{"t":{"data":[{"type":"b","id":"4","@k":2},{"type":"b","id":"5"}]}}}}
            """
        let last = try normalize(input, format: .json)
        #expect(
            last.contains(
                #""1":{"attributes":{},"relationships":{"r":{"data":{"type":"b","id":"2","@i":"two","@j":true},"@rel":2},"t":{"data":[{"type":"b","id":"4","@k":2},{"type":"b","id":"5"}]},"s":{"data":[],"@s":0}},"@x":2,"@y":3,"@z":4}"#
            ), "\(last)")
        let first = try normalize(input, format: .json, duplicates: .first)
        #expect(
            first.contains(
                #""1":{"attributes":{},"relationships":{"r":{"data":{"type":"b","id":"2","@i":"one"},"@rel":1},"t":{"data":[{"type":"b","id":"3","@k":1}]},"s":{"data":[],"@s":0}},"@x":1,"@y":3,"@z":4}"#
            ), "\(first)")
        // The same through the public graph, and after merging graphs.
        for g in [try graph(input), try graph(input).merging(graph(input))] {
            let a = try #require(g[type: "a", id: "1"])
            #expect(a.otherMembers.map { "\($0.name)=\($0.value.jsonText)" } == ["@x=2", "@y=3", "@z=4"])
            #expect(a.relationship("r")?.otherMembers.map { "\($0.name)=\($0.value.jsonText)" } == ["@rel=2"])
            #expect(a.relationship("s")?.otherMembers.map(\.name) == ["@s"])
            #expect(a.relationship("t")?.otherMembers.isEmpty == true)
        }
    }

    /// A duplicate skipped under `--on-duplicate first` writes no line, but stays in its
    /// document's primary data (found by the roundtrip fuzzer).
    @Test func aSkippedDuplicateKeepsItsPlaceInThePrimaryData() throws {
        let input = #"{"data":[{"type":"a","id":"1"}]}"# + "\n" + #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"}]}"# + "\n" + #"{"data":{"type":"a","id":"1"}}"#
        let lines = try normalize(input, duplicates: .first).split(separator: "\n").map(String.init)
        #expect(lines.filter { !$0.hasPrefix(#"{"document""#) }.count == 2)
        #expect(lines.contains(#"{"document":{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"}]}}"#), "\(lines)")
        #expect(lines.contains(#"{"document":{"data":{"type":"a","id":"1"}}}"#), "\(lines)")
    }

    @Test func strictModeRefusesDuplicatesWithinOneDocumentOnly() throws {
        var strict = DocumentOptions()
        strict.validation = .strict
        let twoDocuments = "{\"data\":{\"type\":\"a\",\"id\":\"1\",\"attributes\":{\"v\":1}}}\n{\"data\":{\"type\":\"a\",\"id\":\"1\",\"attributes\":{\"v\":2}}}"
        #expect(try normalize(twoDocuments, format: .json, document: strict).contains(#""v":2"#))
        let oneDocument = #"{"data":{"type":"a","id":"1","attributes":{"v":1}},"included":[{"type":"a","id":"1","attributes":{"v":2}}]}"#
        do {
            _ = try normalize(oneDocument, format: .json, document: strict)
            Issue.record("expected R22")
        } catch {
            #expect(error.rule == .R22)
        }
    }

    // MARK: - What cannot be normalized

    @Test(arguments: [
        (#"{"data":{"id":"1"}}"#, Rule.R09),
        (#"{"data":{"type":"a"}}"#, .R10),
        (#"{"data":{"type":1,"id":"1"}}"#, .R11),
        (#"{"data":{"type":["a"],"id":"1"}}"#, .R11),
        (#"{"data":"1"}"#, .R06),
        (#"{"data":[null]}"#, .R06),
        (#"{"data":null,"included":{"type":"a","id":"1"}}"#, .R07),
        (#"{"data":{"type":"a","id":"1","attributes":[]}}"#, .R15),
        (#"{"data":{"type":"a","id":"1","relationships":{"r":"x"}}}"#, .R16),
        (#"{"data":{"type":"a","id":"1","relationships":{"r":{"data":"9"}}}}"#, .R20),
        (#"{"data":{"type":"a","id":"1","relationships":{"r":{"data":{"type":"b"}}}}}"#, .R13),
        (#"[{"type":"a","id":"1"}]"#, .R01),
    ])
    func unkeyableDocumentsAreErrorsInEveryMode(_ input: String, _ rule: Rule) {
        for mode in ValidationMode.allCases {
            var o = DocumentOptions()
            o.validation = mode
            for format in OutputFormat.allCases {
                do {
                    _ = try normalize(input, format: format, document: o)
                    Issue.record("\(input) was accepted in \(mode) mode as \(format)")
                } catch {
                    #expect(error.rule == rule, "\(input): \(error)")
                }
            }
        }
    }

    /// R17 is settled by a filter of the attribute names in the usual case (no clash): every
    /// clash must still be found, whatever the names' lengths (the filter hashes the first
    /// eight bytes, the last eight of up to sixteen, and the length) and however many names
    /// share the filter's bits.
    @Test func fieldNamespaceClashesAreFoundAmongManyNames() throws {
        var rng = SplitMix64(seed: 17)
        func name(_ length: Int) -> String {
            String((0..<length).map { _ in "abcdefgh".randomElement(using: &rng)! })
        }
        for round in 0..<300 {
            let attributes = (0..<Int.random(in: 0...30, using: &rng)).map { _ in name(Int.random(in: 1...40, using: &rng)) }
            var relationships = (0..<Int.random(in: 0...6, using: &rng)).map { _ in name(Int.random(in: 1...40, using: &rng)) }
            if round % 3 == 0, let a = attributes.randomElement(using: &rng) { relationships.append(a) }
            if round % 7 == 0 { relationships.append(["type", "id"].randomElement(using: &rng)!) }
            let uniqueAttributes = Array(Set(attributes)).sorted()
            let uniqueRelationships = Array(Set(relationships)).sorted()
            let a = uniqueAttributes.map { #""\#($0)":1"# }.joined(separator: ",")
            let r = uniqueRelationships.map { #""\#($0)":{"data":null}"# }.joined(separator: ",")
            let input = #"{"data":{"type":"t","id":"1","attributes":{\#(a)},"relationships":{\#(r)}}}"#
            var warnings: [Diagnostic] = []
            _ = try normalize(input, warnings: &warnings)
            let expected =
                Set(uniqueAttributes).intersection(uniqueRelationships).count
                + uniqueRelationships.filter { $0 == "type" || $0 == "id" }.count
            #expect(warnings.filter { $0.rule == .R17 }.count == expected, "\(input)")
        }
    }

    @Test func lenientModeWarnsAndKeeps_strictModeStops() throws {
        let input = #"{"data":{"type":"a.b","id":"1","attributes":{"first.name":"x"},"relationships":{"r":{}}},"links":{"self":42}}"#
        var warnings: [Diagnostic] = []
        let out = try normalize(input, warnings: &warnings)
        #expect(out.contains(#""first.name":"x""#))
        #expect(warnings.map(\.rule) == [.R12, .R38, .R18, .R26])
        var strict = DocumentOptions()
        strict.validation = .strict
        do {
            _ = try normalize(input, document: strict)
            Issue.record("expected an error")
        } catch {
            #expect(error.rule == .R12)
            #expect(error.location == SourcePosition(offset: 16, line: 1, column: 17))
            #expect(error.diagnostic?.pointer == "/data/type")
        }
    }

    // MARK: - Lines

    /// A resource line with a type, id and relationship name that need escaping, and every
    /// shape of relationship object: to-one with meta, to-many (with a lid and an
    /// identifier's meta), empty, null with links, and links and meta without data. The
    /// writer puts a linkage entry's type together with what precedes it (`{"data":{"type":`,
    /// `,{"type":`) and a relationship's name with its comma and colon.
    @Test func aLineWritesEscapedNamesAndEveryRelationshipShape() throws {
        let doc = #"""
            {"data":{"type":"a\"t","id":"1\\2","attributes":{"x":1},"relationships":{"r\"q":{"data":{"type":"p\u0001","id":"9"},"meta":{"m":true}},"many":{"data":[{"type":"c","id":"c\"1"},{"type":"c","lid":"l1","meta":{"k":2}}]},"empty":{"data":[]},"nul":{"data":null,"links":{"self":"/s"}},"only":{"links":{"related":"/r"},"meta":{"n":1}}}},"included":[{"type":"p\u0001","id":"9"},{"type":"c","id":"c\"1"}]}
            """#
        let lines = try normalize(doc).split(separator: "\n").map(String.init)
        #expect(
            lines == [
                #"{"type":"a\"t","id":"1\\2","primary":true,"attributes":{"x":1},"relationships":{"r\"q":{"data":{"type":"p\u0001","id":"9"},"meta":{"m":true}},"many":{"data":[{"type":"c","id":"c\"1"},{"type":"c","lid":"l1","meta":{"k":2}}]},"empty":{"data":[]},"nul":{"data":null,"links":{"self":"/s"}},"only":{"links":{"related":"/r"},"meta":{"n":1}}}}"#,
                #"{"type":"p\u0001","id":"9","primary":false,"attributes":{},"relationships":{}}"#,
                #"{"type":"c","id":"c\"1","primary":false,"attributes":{},"relationships":{}}"#,
                #"{"document":{"data":{"type":"a\"t","id":"1\\2"}}}"#,
            ])
    }

    // MARK: - Streaming never hands out half a resource

    @Test func truncationAtEveryByteGivesWholeResourcesOnly() throws {
        let doc =
            #"{"data":[{"type":"a","id":"1","attributes":{"t":"x\u00e9"}},{"type":"a","id":"2","relationships":{"r":{"data":[{"type":"b","id":"3"}]}}}],"included":[{"type":"b","id":"3"}],"meta":{"n":[1,2]}}"#
        let full = bytes(doc)
        let fullLines = try normalize(doc).split(separator: "\n").map(String.init)
        for cut in 0..<full.count {
            let out = ByteWriter()
            let n = Normalizer(format: .ndjson, out: out)
            var failed = false
            do throws(JSONAPIError) {
                try n.beginInput(named: "cut")
                try feedChunked(Array(full[..<cut]), chunk: 0) { (b) throws(JSONAPIError) in try n.feed(b) }
                try n.finish()
            } catch {
                failed = true
                #expect(error.rule == .J09, "cut at \(cut): \(error)")
            }
            #expect(failed, "a document cut at byte \(cut) was accepted")
            // Whatever was written is a prefix of the full output, in whole lines.
            let text = out.string
            #expect(text.isEmpty || text.hasSuffix("\n"))
            let lines = text.split(separator: "\n").map(String.init)
            #expect(Array(fullLines.prefix(lines.count)) == lines, "cut at \(cut)")
        }
    }

    // MARK: - Reads of any size give the same graph

    @Test func readSizeDoesNotChangeTheResult() throws {
        let doc = try String(contentsOf: corpusURL("documents/spec-compound.json"), encoding: .utf8)
        let whole = try normalize(doc, format: .json)
        let wholeND = try normalize(doc, format: .ndjson)
        for size in 1...31 {
            #expect(try normalize(doc, format: .json, chunk: size) == whole)
            #expect(try normalize(doc, format: .ndjson, chunk: size) == wholeND)
        }
    }
}

/// The benchmark generator's SplitMix64 as a `RandomNumberGenerator`, so that a failing case
/// can be run again.
extension SplitMix64: RandomNumberGenerator {}
