import Foundation
import Testing
@testable import JSONAPIStream

/// `normalize --split-by-type` on workers (``TableSplitter`` with ``ParseOptions/workers``):
/// the same files with the same bytes, the same warnings and the same first error as one
/// reader, for any read size and number of workers. Small batch sizes put the corpus dump
/// through the workers' paths; the caller numbers each row in its type and settles the
/// columns from the names in input order.
struct ParallelTablesTests {
    struct Run: Equatable {
        /// Every file of the directory, by name, as text.
        var files: [String: String]
        var error: JSONAPIError?
        var warnings: [Diagnostic]
        var byWorkers: Bool
        /// Workers read ranges of the elements of large documents.
        var byElements = false
        /// ``TableSplitter/rowsTaken``.
        var rowsTaken = 0
    }

    /// Splits `inputs` (name, bytes) with `workers`, feeding `chunk` bytes at a time; on an
    /// error, the tables as they stand (``TableSplitter/finishAfterFailure()``).
    static func run(
        _ inputs: [(String, [UInt8])], format: TableFormat = .ndjson, output: OutputOptions = TableSplitter.defaultOutput,
        workers: Int, chunk: Int, options: DocumentOptions = DocumentOptions(), duplicates: DuplicatePolicy = .last,
        batch: Int = 900, continuation: Int = 1000, decision: Int = 4000
    ) throws -> Run {
        var o = options
        o.parse.workers = workers
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tables-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let s = try TableSplitter(directory: dir, format: format, output: output, document: o, duplicates: duplicates)
        s.tuneWorkers(batchBytes: batch, continuationBytes: continuation, decisionBytes: decision)
        var warnings: [Diagnostic] = []
        s.onDiagnostic = { warnings.append($0) }
        var failure: JSONAPIError? = nil
        do throws(JSONAPIError) {
            for (name, bytes) in inputs {
                try s.beginInput(named: name)
                try feedChunked(bytes, chunk: chunk) { (b) throws(JSONAPIError) in try s.feed(b) }
                try s.endInput()
            }
            try s.finish()
        } catch {
            failure = error
            try s.finishAfterFailure()
        }
        var files: [String: String] = [:]
        for f in try FileManager.default.contentsOfDirectory(atPath: dir) {
            files[f] = try String(contentsOfFile: dir + "/" + f, encoding: .utf8)
        }
        return Run(files: files, error: failure, warnings: warnings, byWorkers: s.isReadByWorkers, byElements: s.readsElementRanges, rowsTaken: s.rowsTaken)
    }

    /// The same files with the same text, and as many rows taken; names the files that differ.
    static func expectSameFiles(_ many: Run, _ one: Run, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(many.rowsTaken == one.rowsTaken, "\(what): rows taken", sourceLocation: sourceLocation)
        #expect(Set(many.files.keys) == Set(one.files.keys), "\(what): other files", sourceLocation: sourceLocation)
        for (file, text) in one.files.sorted(by: { $0.key < $1.key }) where many.files[file] != text {
            Issue.record("\(what): \(file) differs", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: [TableFormat.ndjson, .csv])
    func manyDocumentsGiveTheSameTables(_ format: TableFormat) throws {
        let input = [("dump", ParallelReaderTests.dump)]
        let one = try Self.run(input, format: format, workers: 1, chunk: 0)
        #expect(one.error == nil)
        #expect(!one.byWorkers)
        #expect(one.rowsTaken > 100)
        // Many types, rows numbered in each, relationships and edges.
        #expect(one.files.count > 20, "\(one.files.keys.sorted())")
        #expect((one.files["_edges.\(format.rawValue)"] ?? "").count > 1_000)
        #expect(one.files["_documents.\(format.rawValue)"]?.contains("from_row") == false)
        for workers in [2, 3] {
            for chunk in [0, 7, 4096] {
                let many = try Self.run(input, format: format, workers: workers, chunk: chunk)
                #expect(many.byWorkers, "\(workers) workers, read size \(chunk)")
                #expect(many.error == nil)
                #expect(many.warnings == one.warnings, "\(format), \(workers) workers, read size \(chunk): warnings differ")
                Self.expectSameFiles(many, one, "\(format), \(workers) workers, read size \(chunk)")
            }
        }
    }

    /// Columns depend on every row before: a name's first appearance orders the columns, a
    /// name equal to an earlier column's ignoring case goes to `_other`, a column's type is
    /// the union of its values' kinds, and `_missing` appears when some row lacks a column.
    /// Documents that each see a different part of that history, far apart in the input,
    /// give the tables one reader gives.
    @Test func columnsAreSettledInInputOrder() throws {
        var docs: [String] = []
        for i in 0..<400 {
            let attributes: String
            switch i % 5 {
            case 0: attributes = #"{"Name":"a\#(i)","n":\#(i)}"#
            case 1: attributes = #"{"name":"b","n":1.5,"z\#(i % 7)":true}"#
            case 2: attributes = #"{"NAME":null,"Name":"c","_x":1}"#
            case 3: attributes = #"{"n":"text","nested":{"a":[1,2]}}"#
            default: attributes = #"{"n":123456789012345678901234567890}"#
            }
            let type = i % 3 == 0 ? "people" : "things"
            let linkage = #"{"data":[{"type":"people","id":"\#(i / 2)"},{"type":"things","id":"\#(i / 3)"}]}"#
            docs.append(
                #"{"data":{"type":"\#(type)","id":"\#(i)","attributes":\#(attributes),"relationships":{"r":\#(linkage)}},"meta":{"page":\#(i)}}"#)
        }
        let input = [("docs", Array(docs.joined(separator: "\n").utf8))]
        for format in [TableFormat.ndjson, .csv] {
            let one = try Self.run(input, format: format, workers: 1, chunk: 0)
            #expect(one.error == nil)
            #expect(one.files["people.\(format.rawValue)"]?.contains("_missing") == true)
            let schema = try #require(one.files["_schema.json"])
            #expect(schema.contains(#""name":"n","type":"json""#), "\(schema)")
            for workers in [2, 3] {
                let many = try Self.run(input, format: format, workers: workers, chunk: 333)
                #expect(many.byWorkers)
                Self.expectSameFiles(many, one, "\(format), \(workers) workers")
            }
        }
    }

    /// `--keys`: two attribute names that become one are an error (N04) whether the name has
    /// a column or goes to `_other`; in the middle of many documents, the same error at the
    /// same place, and the same whole rows before it.
    @Test func twoNamesThatBecomeOneFailAtTheSamePlace() throws {
        var output = TableSplitter.defaultOutput
        output.keys = .camel
        // (Some corpus documents have names that --keys camel makes one.)
        func documents(_ range: Range<Int>) -> [UInt8] {
            Array(
                range.map {
                    #"{"data":{"type":"people","id":"\#($0)","attributes":{"first_name":"n\#($0)","age":\#($0)},"relationships":{"best_friend":{"data":{"type":"people","id":"\#($0 + 1)"}}}}}"#
                }.joined(separator: "\n").utf8)
        }
        let prefix = documents(0..<60) + [0x0A]
        let suffix = documents(60..<90)
        // A column's name; a name that goes to _other ("iD" folds to "id").
        for attributes in [#"{"first_name":"a","firstName":"b"}"#, #"{"i_d":1,"iD":2}"#] {
            let bad = Array(#"{"data":{"type":"people","id":"1","attributes":\#(attributes)}}"#.utf8)
            let input = [("in.json", prefix + bad + [0x0A] + suffix)]
            let one = try Self.run(input, output: output, workers: 1, chunk: 0)
            let error = try #require(one.error, "\(attributes)")
            #expect(error.diagnostic?.rule == .N04)
            #expect(error.diagnostic?.pointer == "/data/attributes")
            for workers in [2, 3] {
                let many = try Self.run(input, output: output, workers: workers, chunk: 11)
                #expect(many.byWorkers)
                #expect(many.error == one.error)
                #expect(many.warnings == one.warnings)
                Self.expectSameFiles(many, one, "\(attributes), \(workers) workers")
            }
        }
    }

    /// Each invalid fixture in the middle of the dump: the same first error, the same
    /// warnings, and the same whole rows kept before it.
    @Test(arguments: CorpusTests.manifest("invalid").map(\.0))
    func anInvalidDocumentAmongManyFailsTheSameWay(_ name: String) throws {
        let (o, input) = try ParallelReaderTests.amongMany(invalid: name)
        let one = try Self.run(input, workers: 1, chunk: 0, options: o)
        for (workers, chunk) in [(2, 0), (3, 11)] {
            let many = try Self.run(input, workers: workers, chunk: chunk, options: o)
            #expect(many.error == one.error, "\(name), \(workers) workers: \(String(describing: many.error)) vs \(String(describing: one.error))")
            #expect(many.warnings == one.warnings, "\(name), \(workers) workers: warnings differ")
            Self.expectSameFiles(many, one, "\(name), \(workers) workers: tables differ")
        }
    }

    /// One large document, a range of its elements per worker (tiny batches make every corpus
    /// document large): the same files, warnings and first error, the primary linkage of the
    /// ranges in the document's row; in strict mode, the same rows before the same first error.
    @Test(arguments: ElementRangeTests.corpusFiles("documents") + ElementRangeTests.corpusFiles("valid") + ElementRangeTests.corpusFiles("invalid"))
    func oneLargeDocumentGivesTheSameTables(_ path: String) throws {
        guard path.hasSuffix(".json") else { return }
        let input = [(path, Array(try Data(contentsOf: corpusURL(path))))]
        var lenient = DocumentOptions()
        lenient.validation = .lenient
        var compound = lenient
        compound.checksCompoundRules = true
        // Strict: a violation of the compound rules (R22) found by the caller in a range's
        // facts stops the read at that resource, and the range's rows are cut there.
        var strict = DocumentOptions()
        strict.validation = .strict
        for (what, options) in [("lenient", lenient), ("compound rules as warnings", compound), ("strict", strict)] {
            let one = try Self.run(input, workers: 1, chunk: 0, options: options)
            for size in ElementRangeTests.sizes {
                for chunk in [0, 7] {
                    let many = try Self.run(
                        input, workers: 2, chunk: chunk, options: options, batch: size.batch, continuation: size.continuation, decision: 16)
                    let how = "\(path), \(what), batches of \(size.batch), reads of \(chunk)"
                    #expect(many.error == one.error, "\(how): \(String(describing: many.error)) vs \(String(describing: one.error))")
                    #expect(many.warnings == one.warnings, "\(how): warnings differ")
                    Self.expectSameFiles(many, one, how)
                }
            }
        }
    }

    @Test func largeDocumentsAreReadByElements() throws {
        let doc = Array(ElementRangeTests.large(40).utf8)
        for input in [[("large", doc)], [("three", doc + [0x0A] + doc + doc)]] {
            let one = try Self.run(input, workers: 1, chunk: 0)
            #expect(one.error == nil)
            #expect(one.files["_documents.ndjson"]?.contains(#"{\"type\":\"a\",\"id\":\"39\"}]"#) == true)
            for workers in [2, 3] {
                let many = try Self.run(input, workers: workers, chunk: 64, batch: 40, continuation: 120, decision: 16)
                #expect(many.byElements, "\(input[0].0), \(workers) workers")
                Self.expectSameFiles(many, one, "\(input[0].0), \(workers) workers")
            }
            // Strict mode: by elements too.
            var strict = DocumentOptions()
            strict.validation = .strict
            let strictOne = try Self.run(input, workers: 1, chunk: 0, options: strict)
            let checked = try Self.run(input, workers: 2, chunk: 0, options: strict, batch: 40, continuation: 120, decision: 16)
            #expect(checked.byElements)
            #expect(checked.error == strictOne.error)
            Self.expectSameFiles(checked, strictOne, "\(input[0].0), strict")
        }
    }

    /// Strict mode, one large document: a resource repeated in the middle of `included`
    /// (R22) is found by the caller in a range's facts, and the read stops there. The range's
    /// rows are cut at that resource in every table (type tables with their spilled rows and
    /// the attribute names only later resources brought, relationships and edges), as one
    /// reader stops writing; ranges of every size put the cut in every place.
    @Test func aViolationInARangeCutsItsRowsThere() throws {
        func resource(_ t: String, _ i: Int) -> String {
            let names = t == "c" ? #","x\#(i)":\#(i),"late\#(i % 4)":"v""# : ""
            return #"{"type":"\#(t)","id":"\#(i)","attributes":{"s":"[{,\"]}","n":\#(i)\#(names)},"relationships":{"r":{"data":[{"type":"a","id":"\#(i)"},{"type":"b","id":"\#(i + 1)"}]}}}"#
        }
        let data = (0..<30).map { resource("a", $0) }
        var included = (0..<30).map { resource($0 % 2 == 0 ? "b" : "c", $0) }
        included.insert(resource("b", 4), at: 17)
        let doc = #"{"data":["# + data.joined(separator: ",") + #"],"included":["# + included.joined(separator: ",") + "]}"
        let input = [("large.json", Array(doc.utf8))]
        var strict = DocumentOptions()
        strict.validation = .strict
        let one = try Self.run(input, workers: 1, chunk: 0, options: strict)
        #expect(one.error?.diagnostic?.rule == .R22, "\(String(describing: one.error))")
        // Everything before the repeated resource, nothing after it.
        #expect(one.rowsTaken == 30 + 17, "\(one.rowsTaken)")
        #expect(one.files["c.ndjson"]?.contains("x15") == true)
        #expect(one.files["c.ndjson"]?.contains("x17") == false)
        for batch in [150, 300, 700, 1500] {
            for workers in [2, 3] {
                let many = try Self.run(input, workers: workers, chunk: 0, options: strict, batch: batch, continuation: batch * 3, decision: 16)
                let how = "batches of \(batch), \(workers) workers"
                #expect(many.byElements, "\(how)")
                #expect(many.error == one.error, "\(how): \(String(describing: many.error))")
                #expect(many.warnings == one.warnings, "\(how): warnings differ")
                Self.expectSameFiles(many, one, how)
            }
        }
    }

    /// The type tables are rewritten from their spills side by side at the end: a table that
    /// cannot be written fails the run with the error of the first such table in order (the
    /// one a table-by-table rewrite meets first). Here `b` and `c` cannot be created (a
    /// directory has their names).
    @Test func aTableThatCannotBeWrittenFailsAsTheFirstInOrder() throws {
        var docs: [String] = []
        for i in 0..<300 {
            docs.append(#"{"data":{"type":"\#(["a", "b", "c", "d"][i % 4])","id":"\#(i)","attributes":{"n":\#(i)}}}"#)
        }
        let input = Array(docs.joined(separator: "\n").utf8)
        for concurrency in [ParseConcurrency.automatic, .sequential] {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tables-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
            defer { try? FileManager.default.removeItem(atPath: dir) }
            for blocked in ["c.ndjson", "b.ndjson"] {
                try FileManager.default.createDirectory(atPath: dir + "/" + blocked, withIntermediateDirectories: false)
            }
            var o = DocumentOptions()
            o.parse.concurrency = concurrency
            let s = try TableSplitter(directory: dir, document: o)
            try feedChunked(input, chunk: 0) { (b) throws(JSONAPIError) in try s.feed(b) }
            var failure: JSONAPIError? = nil
            do throws(JSONAPIError) { try s.finish() } catch { failure = error }
            let message = "\(String(describing: failure))"
            #expect(message.contains("cannot create \(dir)/b.ndjson"), "\(concurrency): \(message)")
            // The table before it is whole (those after it may or may not have been written:
            // the command removes the directory of a failed run).
            let text = try String(contentsOfFile: dir + "/a.ndjson", encoding: .utf8)
            #expect(text.split(separator: "\n").count == 75, "\(concurrency)")
        }
    }

    /// Several inputs: each document's row names its own input, numbered across all of them.
    @Test func severalInputsKeepTheirNamesAndNumbers() throws {
        let cut = ParallelReaderTests.boundary(near: 9000)
        let dump = ParallelReaderTests.dump
        let inputs = [("first.json", Array(dump[..<cut])), ("second.json", Array(dump[cut...])), ("third.json", Array(dump[..<cut]))]
        let one = try Self.run(inputs, format: .csv, workers: 1, chunk: 0)
        #expect(one.error == nil)
        let documents = try #require(one.files["_documents.csv"])
        #expect(documents.contains(",second.json,") && documents.contains(",third.json,"))
        for workers in [2, 3] {
            let many = try Self.run(inputs, format: .csv, workers: workers, chunk: 4096)
            #expect(many.byWorkers)
            Self.expectSameFiles(many, one, "\(workers) workers")
        }
    }

    /// The integers the tables write (`from_row`, `position`, `count`, `document`) without a
    /// `String`: the same text as `String(n)` for every kind of number.
    @Test func integersAreWrittenAsStringWritesThem() {
        var numbers = [Int.min, Int.min + 1, -100, -99, -10, -9, -1, 0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 123_456_789, Int.max - 1, Int.max]
        var seeded = XorShift(seed: 5)
        for _ in 0..<2000 { numbers.append(Int(truncatingIfNeeded: seeded.next()) >> Int(seeded.next() % 64)) }
        for n in numbers {
            var a = ByteArena(capacity: 16)
            a.appendDecimal(n)
            #expect(a.string(0..<a.count) == String(n))
        }
    }

    /// A selection of types and fields, and exact numbers, on workers.
    @Test func selectionsAndNumbersGiveTheSameTables() throws {
        var output = OutputOptions()
        output.types = ["articles", "people", "comments"]
        output.keepFields = ["articles": ["title", "author"]]
        let input = [("dump", ParallelReaderTests.dump)]
        let one = try Self.run(input, output: output, workers: 1, chunk: 0)
        #expect(one.error == nil)
        let many = try Self.run(input, output: output, workers: 2, chunk: 4096)
        #expect(many.byWorkers)
        Self.expectSameFiles(many, one, "selection")
    }

    /// A duplicate policy other than `last` and a resource limit need every document in one
    /// place: one reader, the same tables.
    @Test func whatNeedsEveryDocumentKeepsOneReader() throws {
        let input = [("dump", ParallelReaderTests.dump)]
        var limited = DocumentOptions()
        limited.parse.limits.maxResources = 1_000_000
        for (options, duplicates) in [(DocumentOptions(), DuplicatePolicy.first), (limited, .last)] {
            let one = try Self.run(input, workers: 1, chunk: 0, options: options, duplicates: duplicates)
            let two = try Self.run(input, workers: 2, chunk: 0, options: options, duplicates: duplicates)
            #expect(!two.byWorkers)
            Self.expectSameFiles(two, one, "\(duplicates)")
        }
        #expect(try Self.run(input, workers: 2, chunk: 0).byWorkers)
    }
}
