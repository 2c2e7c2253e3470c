import JSONAPIBenchmarking
import Testing

@testable import JSONAPIStream

/// The flat object's entries written on several threads (``FlatJSONWriter``: blocks of
/// ``FlatJSONWriter/blockRows`` rows of a type, each written into a buffer of its own and
/// appended in order) must be the bytes one thread writes, whatever the options.
struct FlatJSONThreadsTests {
    static func normalize(
        _ bytes: [UInt8], output: OutputOptions = OutputOptions(), options: DocumentOptions = DocumentOptions(), threads: Int
    ) -> (text: String, quoted: Int, error: JSONAPIError?) {
        let out = ByteWriter()
        var o = options
        o.parse.workers = 1
        let n = Normalizer(format: .json, out: out, output: output, document: o)
        n.flatJSONThreads = threads
        var error: JSONAPIError?
        do throws(JSONAPIError) {
            try n.read(.bytes(bytes, name: "input"), chunkSize: 1 << 16)
            try n.finish()
        } catch let e {
            error = e
        }
        return (out.string, n.numbersQuoted, error)
    }

    @Test func generatedDocumentsGiveTheSameBytesOnAnyNumberOfThreads() throws {
        let writer = ByteWriter()
        try DocumentGenerator(resources: 2500, seed: 3).write(to: writer)
        let bytes = writer.bytes
        // Types of more rows than two blocks, not a whole number of blocks: blocks start and
        // end inside a type, and the last is short.
        let rows = try Graph(bytes: bytes).storage.rowsByType.map(\.count)
        let block = FlatJSONWriter.blockRows
        #expect(rows.contains { $0 >= FlatJSONWriter.sideBySideRows && $0 % block != 0 }, "\(rows)")

        var safe = OutputOptions()
        safe.numbers = .safe
        // Formatted names: the bodies can fail, so the dry run writes them all too.
        var snake = OutputOptions()
        snake.keys = .snake
        var selected = OutputOptions()
        selected.types = ["articles", "comments"]
        selected.keepFields = ["articles": ["title", "author"]]
        for (name, output) in [("default", OutputOptions()), ("numbers safe", safe), ("snake", snake), ("selected", selected)] {
            let one = Self.normalize(bytes, output: output, threads: 1)
            #expect(one.error == nil, "\(name): \(String(describing: one.error))")
            #expect(one.text.count > 1_000_000)
            if output.numbers == .safe { #expect(one.quoted > 0) }
            for threads in [2, 3] {
                let many = Self.normalize(bytes, output: output, threads: threads)
                // Compared as a boolean: a difference would print megabytes.
                let same = many.text == one.text
                #expect(same, "\(name), \(threads) threads")
                #expect(many.quoted == one.quoted, "\(name), \(threads) threads")
                #expect(many.error == nil)
            }
        }
    }

    /// Types of a whole number of blocks (one and two more than the fewest written side by
    /// side), and one row either side, with a lid among the ids (an entry that ends with
    /// `"lid"`) and resources repeated (merged into their first row): the same bytes.
    @Test(arguments: [1, 2])
    func blockBoundariesGiveTheSameBytes(_ extra: Int) throws {
        let block = FlatJSONWriter.blockRows
        let blocks = FlatJSONWriter.sideBySideRows / block + extra
        for count in [blocks * block - 1, blocks * block, blocks * block + 1] {
            var text = #"{"data":["#
            for i in 0..<count {
                if i > 0 { text += "," }
                let lid = i == block ? #","lid":"l\#(i)""# : ""
                text += #"{"type":"a","id":"\#(i)"\#(lid),"attributes":{"n":\#(i),"s":"\#(i % 7)"}}"#
            }
            text += #"],"included":[{"type":"b","id":"1"},{"type":"a","id":"5","attributes":{"again":true}}]}"#
            let bytes = Array(text.utf8)
            let one = Self.normalize(bytes, threads: 1)
            #expect(one.error == nil, "\(String(describing: one.error))")
            #expect(one.text.contains(#""lid":"l\#(block)""#) && one.text.contains(#""again":true"#))
            for threads in [2, 4] {
                let many = Self.normalize(bytes, threads: threads)
                let same = many.text == one.text
                #expect(same, "\(count) rows, \(threads) threads")
            }
        }
    }

    /// A key the flat object cannot hold (N04: two resources of a type without id or lid)
    /// fails before anything is written, on one thread or several.
    @Test func aKeyTheObjectCannotHoldFailsTheSameWay() throws {
        let block = FlatJSONWriter.blockRows
        // The two without id or lid are in the last block of a type written side by side.
        let count = FlatJSONWriter.sideBySideRows + block
        let (first, second) = (count - block / 2, count - block / 2 + 100)
        var text = #"{"data":["#
        for i in 0..<count {
            if i > 0 { text += "," }
            text += i == first || i == second ? #"{"type":"a","attributes":{"n":\#(i)}}"# : #"{"type":"a","id":"\#(i)"}"#
        }
        text += "]}"
        var create = DocumentOptions()
        create.context = .create
        create.validation = .lenient
        let one = Self.normalize(Array(text.utf8), options: create, threads: 1)
        let two = Self.normalize(Array(text.utf8), options: create, threads: 2)
        #expect(one.error?.diagnostic?.rule == .N04, "\(String(describing: one.error))")
        #expect(two.error == one.error)
        #expect(one.text.isEmpty && two.text.isEmpty)
    }
}
