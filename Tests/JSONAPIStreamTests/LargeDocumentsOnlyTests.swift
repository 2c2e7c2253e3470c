import Testing

@testable import JSONAPIStream

/// Workers for one large document only (``ParseOptions/largeDocumentsOnly``, what
/// `jsonapi normalize` picks for NDJSON and edges of a large file on two cores): an input of
/// many documents stays on one reader, decided at its first document's end; one large
/// document is read a range of its elements per worker. Either way the bytes are one reader's.
struct LargeDocumentsOnlyTests {
    static func normalize(_ input: [UInt8], chunk: Int, largeOnly: Bool, format: OutputFormat = .ndjson) -> (Normalizer, String) {
        BatchWindowTests.normalizeOnTwoWorkers(input, chunk: chunk, format: format, largeDocumentsOnly: largeOnly)
    }

    @Test(arguments: [0, 7, 4096])
    func manyDocumentsStayOnOneReader(chunk: Int) {
        let input = BatchWindowTests.dump(documents: 60, resources: 4)
        let one = ParallelReaderTests.run([("input", input)], workers: 1, chunk: 0, batch: 900, continuation: 20_000, decision: 20_000)
        #expect(one.error == nil)
        let (n, output) = Self.normalize(input, chunk: chunk, largeOnly: true)
        #expect(!n.isReadByWorkers && !n.readsElementRanges)
        #expect(output == one.output)
        // Without the flag the same input goes to the workers, whole documents each.
        let (all, allOutput) = Self.normalize(input, chunk: chunk, largeOnly: false)
        #expect(all.isReadByWorkers && !all.readsElementRanges)
        #expect(allOutput == one.output)
    }

    @Test(arguments: [OutputFormat.ndjson, .edges])
    func oneLargeDocumentIsReadByRanges(format: OutputFormat) {
        // One document of about 40 KB, twice the decision size: no document ends before it.
        var text = #"{"data":["#
        for r in 0..<300 {
            text +=
                (r == 0 ? "" : ",")
                + #"{"type":"articles","id":"\#(r)","attributes":{"title":"a title of some length","n":\#(r)},"relationships":{"author":{"data":{"type":"people","id":"\#(r % 7)"}}}}"#
        }
        text += "]}\n"
        let input = Array(text.utf8)
        let one = ParallelReaderTests.run(
            [("input", input)], format: format, workers: 1, chunk: 0, batch: 900, continuation: 20_000, decision: 20_000)
        #expect(one.error == nil)
        for chunk in [0, 4096] {
            let (n, output) = Self.normalize(input, chunk: chunk, largeOnly: true, format: format)
            #expect(n.isReadByWorkers && n.readsElementRanges)
            #expect(output == one.output, "read size \(chunk)")
        }
    }

    /// A batch of small documents read in large pieces takes the room for what it holds: the
    /// room for the most a batch may hold (8 batch sizes, `continuationBytes`) is for a
    /// document that does not end in the piece. (That room, reserved before the piece was cut,
    /// held 2 MiB per batch in flight with 1 MiB reads: a dump on 2 workers peaked at 44 MiB
    /// instead of 29.)
    @Test func smallDocumentsInLargePiecesTakeTheRoomTheyNeed() {
        let input = BatchWindowTests.dump(documents: 200, resources: 2)
        let (n, _) = Self.normalize(input, chunk: 64 * 1024, largeOnly: false)
        #expect(n.isReadByWorkers)
        #expect(n.largestBatchRoom > 0 && n.largestBatchRoom <= 4 * 900, "\(n.largestBatchRoom) bytes of room")
        // A document that does not end within a piece still takes the room at once.
        let large = BatchWindowTests.dump(documents: 3, resources: 60)
        let (m, _) = Self.normalize(large + input, chunk: 64 * 1024, largeOnly: false)
        #expect(m.isReadByWorkers)
        #expect(m.largestBatchRoom >= 20_000)
    }
}
