import Testing

@testable import JSONAPIStream

/// The graph's records are most of its memory beside its values: their sizes, and the packed
/// fields that keep them small (a type with the flags, a name with the kind, spans and
/// positions in 32-bit halves) give back what was put in, at the edges of their ranges.
struct GraphRecordTests {
    @Test func recordsTakeNoMoreThanTheirFields() {
        #expect(MemoryLayout<GraphStorage.ResourceRecord>.stride == 64)
        #expect(MemoryLayout<GraphStorage.RelationshipRecord>.stride == 28)
        #expect(MemoryLayout<GraphStorage.LinkageRecord>.stride == 16)
        #expect(MemoryLayout<PackedSpan>.alignment == 4 && MemoryLayout<PackedPosition>.alignment == 4)
    }

    @Test func aResourceKeepsItsTypeAndFlagsApart() throws {
        let last = UInt32(GraphStorage.maxSymbols - 1)
        var r = GraphStorage.ResourceRecord(
            type: last, key: 7, lidKey: GraphStorage.noKey, attributes: .none, links: .none, meta: .none,
            position: try #require(PackedPosition(SourcePosition(offset: 5_000_000_000, line: 2, column: 4_000_000_000))),
            relationshipStart: 11, relationshipCount: 2, arrayIndex: -1, flags: 0xFF)
        #expect(r.type == last && r.flags == 0xFF)
        r.flags = GraphStorage.ResourceRecord.primary
        #expect(r.type == last && r.flags == GraphStorage.ResourceRecord.primary)
        let zero = GraphStorage.ResourceRecord(
            type: 0, key: 0, lidKey: 0, attributes: .none, links: .none, meta: .none, position: PackedPosition(longIndex: 9),
            relationshipStart: 0, relationshipCount: 0, arrayIndex: 0, flags: 0x7F)
        #expect(zero.type == 0 && zero.flags == 0x7F)
        #expect(r.position.position == SourcePosition(offset: 5_000_000_000, line: 2, column: 4_000_000_000))
        #expect(zero.position.position == nil && zero.position.longIndex == 9)
        #expect(r.key == 7 && r.relationshipStart == 11 && r.relationshipCount == 2 && r.arrayIndex == -1)
    }

    /// A resource's document is not in its record but found from its row: the documents that
    /// added rows, where they began. A document whose resources all repeat earlier ones adds
    /// none, and its repeats keep their first document (a repeat within one document is R22,
    /// across two N01).
    @Test func aResourceDocumentIsFoundFromItsRow() throws {
        // Each with attributes: a repeat of an identifier alone is merged without a word.
        func a(_ id: Int, _ n: Int) -> String { #"{"type":"a","id":"\#(id)","attributes":{"n":\#(n)}}"# }
        let text =
            #"{"data":["# + a(1, 0) + "," + a(2, 0) + "]}\n"
            + #"{"data":["# + a(1, 1) + "]}\n"
            + #"{"data":["# + a(3, 2) + "," + a(2, 2) + "]}\n"
            + #"{"data":["# + a(4, 3) + "," + a(4, 3) + "]}"
        let graph = try Graph(bytes: Array(text.utf8))
        let s = graph.storage
        #expect(s.resources.count == 4 && s.documents.count == 4)
        #expect((0..<4).map { s.document(ofRow: $0) } == [0, 0, 2, 3])
        #expect(s.documentStarts.count == 3)
        #expect(graph.warnings.map(\.rule) == [.N01, .N01, .R22])
    }

    @Test func aRelationshipKeepsItsNameAndKindApart() {
        let last = UInt32(GraphStorage.maxSymbols - 1)
        for kind in [LinkageKind.absent, .null, .toOne, .toMany] {
            for name in [0, 1, last] {
                let r = GraphStorage.RelationshipRecord(links: .none, meta: .none, name: name, targetStart: .max, targetCount: 3, kind: kind)
                #expect(r.name == name && r.kind == kind && r.targetStart == .max && r.targetCount == 3)
            }
        }
    }

    @Test func spansComeBackWhole() throws {
        // The largest start and count a packed span holds, one past each, and a long span.
        let edge = ValueSpan(start: (1 << 39) - 1, count: (1 << 24) - 2)
        let packed = try #require(PackedSpan(edge))
        #expect(packed.short == edge && !packed.isNone)
        #expect(PackedSpan(ValueSpan(start: 1 << 39, count: 1)) == nil)
        #expect(PackedSpan(ValueSpan(start: 0, count: (1 << 24) - 1)) == nil)
        let long = PackedSpan(longIndex: 123_456)
        #expect(long.short == nil && long.longIndex == 123_456 && !long.isNone)
        #expect(PackedSpan.none.isNone && PackedSpan.none != packed)
        #expect(PackedSpan(ValueSpan(start: 1, count: 2)) == PackedSpan(ValueSpan(start: 1, count: 2)))
    }

    /// Past 2^24 distinct type and relationship names a record could not hold a symbol:
    /// the build stops with an error at the resource that brought one too many, instead of
    /// keeping a record that names another. (2^24 names are too many for a test; the sink's
    /// limit is lowered to 3 here: `articles`, `author` and `people` fit, `comments` does not.)
    @Test func oneNameTooManyIsAnErrorAtItsResource() throws {
        #expect(GraphStorage.maxSymbols == 1 << 24)
        let first = #"{"data":[{"type":"articles","id":"1","relationships":{"author":{"data":{"type":"people","id":"9"}}}},"#
        let text = first + "\n" + #"{"type":"comments","id":"2"}]}"#
        let fits = GraphParser()
        fits.sink.symbolLimit = 4
        try fits.feed(Array(text.utf8))
        #expect(try fits.finish().count == 2)

        let parser = GraphParser()
        parser.sink.symbolLimit = 3
        do {
            try parser.feed(Array(text.utf8))
            _ = try parser.finish()
            Issue.record("four names under a limit of three went through")
        } catch {
            #expect(error.diagnostic?.rule == .J12)
            #expect(error.diagnostic?.message == "more than 3 distinct type and relationship names (the graph's limit)")
            #expect(error.diagnostic?.location.line == 2)
            #expect(error.diagnostic?.pointer == "/data/1")
        }
    }
}
