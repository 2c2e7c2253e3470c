import Testing

@testable import JSONAPIStream

/// The writers read a draft's relationships, identifiers and unknown members in place
/// (``DraftAccess``) unless a caller asked for the lists first (``ListAccess``): both ways
/// must write the same bytes.
struct ResourcePartsTests {
    /// For each resource: its NDJSON line and edge lines written from the draft in place,
    /// then again once the lists are made; and the lists themselves as text.
    final class TwoWays: DocumentSink, InputLabelled {
        let keepsValues = false
        var sourceName: String?
        let parts = ResourceParts()
        let inPlace = ByteWriter()
        let fromLists = ByteWriter()
        var lists: [String] = []
        var resources = 0
        var linesInPlace = 0

        func resource(_ r: ResourceDraft, in a: inout DraftArenas) throws(JSONAPIError) {
            resources += 1
            let first = ResourceWriter(out: inPlace, options: OutputOptions())
            parts.fill(r, in: a)
            if parts.readsDraft { linesInPlace += 1 }
            try first.writeLine(parts)
            try first.writeEdges(parts)
            let second = ResourceWriter(out: fromLists, options: OutputOptions())
            parts.fill(r, in: a)
            // Asking for the lists makes them; the writers then read them.
            let relationships = parts.relationships
            #expect(!parts.readsDraft)
            try second.writeLine(parts)
            try second.writeEdges(parts)
            func text(_ b: UnsafeRawBufferPointer?) -> String { b.map { String(decoding: $0, as: UTF8.self) } ?? "-" }
            for rel in relationships {
                let ids = rel.targets.map { k in
                    let t = parts.identifiers[k]
                    return [text(t.type), text(t.id), text(t.lid), text(t.meta)].joined(separator: "|")
                        + t.extras.map { parts.extras[$0] }.map(text).joined()
                }
                lists.append("\(text(rel.name)) \(rel.kind) [\(ids.joined(separator: ","))] \(rel.extras.map { text(parts.extras[$0]) })")
            }
            lists.append("resource extras \(parts.resourceExtras.map { text(parts.extras[$0]) })")
        }

        func document(_ document: DocumentDraft, in arenas: borrowing DraftArenas) throws(JSONAPIError) {}
    }

    static let document = #"""
        {"data":[
          {"type":"a\"rt","id":"1","x-extra":{"k":[1]},
           "attributes":{"title":"T"},
           "relationships":{
             "one":{"data":{"type":"p","id":"9","meta":{"m":1},"x-id":true},"links":{"self":"/s"},"x-rel":"r"},
             "many":{"data":[{"type":"c","id":"1"},{"type":"c","lid":"l2"},{"type":"c","id":"3","x-a":1,"x-b":2}],"meta":{"n":3}},
             "none":{"data":null},
             "linksOnly":{"links":{"related":"/r"}},
             "empty":{"data":[]}
           },
           "links":{"self":"/a/1"},"meta":{"v":2}},
          {"type":"b","id":"2"}
        ],
        "included":[{"type":"p","id":"9","relationships":{"back":{"data":{"type":"a\"rt","id":"1","x-back":null}}}}]}
        """#

    @Test func theDraftInPlaceAndTheListsWriteTheSameBytes() throws {
        var o = DocumentOptions()
        // Unknown members are warnings, not errors, outside strict mode; every rule still runs.
        o.parse.workers = 1
        let sink = TwoWays()
        let stream = DocumentStream(options: o, sink: sink)
        stream.onDiagnostic = { _ in }
        try stream.feed(Array(Self.document.utf8))
        try stream.finish()
        #expect(sink.resources == 3)
        #expect(sink.linesInPlace == 3)
        let inPlace = sink.inPlace.string
        #expect(inPlace == sink.fromLists.string)
        // The resource lines (edge lines repeat identifiers and meta) hold every part once.
        let lines = inPlace.split(separator: "\n").filter { $0.hasPrefix(#"{"type":"#) }.joined(separator: "\n")
        #expect(inPlace.split(separator: "\n").count == lines.split(separator: "\n").count + 5)
        for piece in [
            #""x-extra":{"k":[1]}"#, #""x-rel":"r""#, #""x-id":true"#, #""meta":{"m":1}"#, #""x-a":1,"x-b":2"#, #""lid":"l2""#,
            #""none":{"data":null}"#, #""linksOnly":{"links":{"related":"/r"}}"#, #""empty":{"data":[]}"#, #""x-back":null"#,
        ] {
            #expect(lines.components(separatedBy: piece).count == 2, "\(piece) in \(lines)")
        }
        // The escaped type: a resource's and an identifier's.
        #expect(lines.components(separatedBy: #""type":"a\"rt""#).count == 3)
        #expect(
            sink.lists.prefix(6) == [
                #"one toOne [p|9|-|{"m":1}"x-id":true] ["\"x-rel\":\"r\""]"#,
                #"many toMany [c|1|-|-,c|-|l2|-,c|3|-|-"x-a":1"x-b":2] []"#,
                "none null [] []",
                "linksOnly absent [] []",
                "empty toMany [] []",
                #"resource extras ["\"x-extra\":{\"k\":[1]}"]"#,
            ])
    }

    /// `--keep-fields` filters the lists: the draft is made into lists first.
    @Test func keepingFieldsMakesTheLists() throws {
        final class Kept: DocumentSink, InputLabelled {
            let keepsValues = false
            var sourceName: String?
            let parts = ResourceParts()
            let out = ByteWriter()
            func resource(_ r: ResourceDraft, in a: inout DraftArenas) throws(JSONAPIError) {
                parts.fill(r, in: a)
                parts.keepFields([Array("many".utf8), Array("title".utf8)])
                #expect(!parts.readsDraft)
                try ResourceWriter(out: out, options: OutputOptions()).writeLine(parts)
            }
            func document(_ document: DocumentDraft, in arenas: borrowing DraftArenas) throws(JSONAPIError) {}
        }
        let sink = Kept()
        let stream = DocumentStream(options: DocumentOptions(), sink: sink)
        stream.onDiagnostic = { _ in }
        try stream.feed(Array(Self.document.utf8))
        try stream.finish()
        let first = sink.out.string.split(separator: "\n")[0]
        #expect(first.contains(#""relationships":{"many":{"#) && !first.contains(#""one":"#) && first.contains(#""title":"T""#))
    }
}
