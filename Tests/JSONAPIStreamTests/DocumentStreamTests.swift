import Foundation
import Testing

@testable import JSONAPIStream
import JSONAPIBenchmarking

/// `DocumentStream` with the user's own sinks: the same resources, in the same order, with
/// the same content as the library's writers get, at every read size.
@Suite struct DocumentStreamTests {
    /// Keeps what it is given (copies: the views are only valid during the call).
    final class Recorder: StreamSink {
        var resources: [(identifier: ResourceIdentifier, primary: Bool, pointer: String, document: Int, text: String)] = []
        var documents: [(index: Int, shape: PrimaryDataShape, meta: JSONValue?)] = []
        var failAt: Int? = nil

        func resource(_ r: ResourceView) throws(JSONAPIError) {
            if resources.count == failAt { throw JSONAPIError.input("the sink refused resource \(resources.count)") }
            resources.append((r.identifier, r.isPrimary, r.pointer, r.documentIndex, r.jsonText))
        }

        func document(_ d: DocumentView) throws(JSONAPIError) {
            documents.append((d.index, d.primaryShape, d.meta))
        }
    }

    static func generated(_ resources: Int) throws -> [UInt8] {
        let writer = ByteWriter()
        try DocumentGenerator(resources: resources, seed: 5).write(to: writer)
        return writer.bytes
    }

    /// Each resource's JSON text is its NDJSON line without `primary`: the writers and user
    /// sinks see the same thing.
    @Test func resourcesAreWhatTheWritersSee() throws {
        let input = try Array(Data(contentsOf: corpusURL("documents/spec-compound.json")))
        let recorder = Recorder()
        let stream = DocumentStream(sinks: [recorder])
        try stream.feed(input)
        try stream.finish()
        let out = ByteWriter()
        let normalizer = Normalizer(format: .ndjson, out: out, output: OutputOptions())
        try normalizer.read(.bytes(input, name: "doc"))
        try normalizer.finish()
        let lines = try JSONValue.parseAll(out.bytes).compactMap { line -> JSONValue? in
            guard case .object(let o) = line, o["document"] == nil else { return nil }
            return .object(JSONObject(o.members.filter { $0.key != "primary" }))
        }
        #expect(recorder.resources.map { try! JSONValue(parsing: Array($0.text.utf8)) } == lines)
        #expect(recorder.resources.map(\.identifier.description) == ["articles/1", "people/9", "comments/5", "comments/12"])
        #expect(recorder.resources.map(\.primary) == [true, false, false, false])
        #expect(recorder.resources.map(\.pointer) == ["/data/0", "/included/0", "/included/1", "/included/2"])
        #expect(recorder.documents.count == 1 && recorder.documents[0].shape == .many && recorder.documents[0].index == 0)
    }

    /// Read sizes from one byte to the whole input (and so both the one-thread and the
    /// two-thread path) give the same resources and documents.
    @Test func everyReadSizeGivesTheSame() throws {
        let input = try Self.generated(300) + Array("\n".utf8) + Self.generated(20)
        var results: [[String]] = []
        for size in [input.count, 1 << 16, 4097, 333, 1] {
            let recorder = Recorder()
            let stream = DocumentStream(sinks: [recorder])
            try feedChunked(input, chunk: size) { (b) throws(JSONAPIError) in try stream.feed(b) }
            try stream.finish()
            #expect(recorder.documents.map(\.index) == [0, 1])
            results.append(recorder.resources.map { "\($0.document) \($0.text)" })
        }
        #expect(results.count == 5 && results.allSatisfy { $0 == results[0] } && results[0].count > 300)
    }

    /// Parts read one at a time: an attribute by its (escaped) name, relationships with their
    /// linkage, links and meta; numbers with their exact text.
    @Test func partsOfAResource() throws {
        final class Parts: StreamSink {
            var seen: [String] = []
            func resource(_ r: ResourceView) throws(JSONAPIError) {
                seen.append("\(r.type) \(r.id ?? "-") \(r.lid ?? "-")")
                seen.append("price \(r.attribute("price")?.jsonText ?? "none")")
                seen.append("a\"b \(r.attribute("a\"b")?.jsonText ?? "none")")
                seen.append("missing \(r.attribute("missing")?.jsonText ?? "none")")
                for rel in r.relationships {
                    seen.append("\(rel.name) \(rel.kind) \(rel.targets.map(\.description)) \(rel.meta?.jsonText ?? "-")")
                }
                seen.append("links \(r.links?.jsonText ?? "-") meta \(r.meta?.jsonText ?? "-")")
            }
            func document(_ d: DocumentView) throws(JSONAPIError) {
                seen.append("document \(d.meta?.jsonText ?? "-") \(d.otherMembers.map(\.name))")
            }
        }
        let parts = Parts()
        let stream = DocumentStream(sinks: [parts])
        try stream.feed(
            Array(
                #"""
                {"data":{"type":"t","id":"1","attributes":{"price":19.990,"a\"b":[1e400]},
                  "relationships":{"one":{"data":{"type":"u","lid":"x"}},"many":{"data":[],"meta":{"n":0}},"none":{"data":null}},
                  "links":{"self":"/t/1"},"meta":{"m":1}},"meta":{"page":2},"@ext":true}
                """#.utf8))
        try stream.finish()
        #expect(
            parts.seen == [
                "t 1 -", "price 19.990", #"a"b [1e400]"#, "missing none",
                #"one toOne ["u/lid:x"] -"#, #"many toMany [] {"n":0}"#, "none null [] -",
                #"links {"self":"/t/1"} meta {"m":1}"#,
                #"document {"page":2} ["@ext"]"#,
            ])
    }

    /// A sink that throws stops the read with its error; warnings go to `onDiagnostic`; the
    /// stream refuses to be fed after `finish`.
    @Test func errorsWarningsAndMisuse() throws {
        let input = try Self.generated(50)
        let recorder = Recorder()
        recorder.failAt = 3
        let stream = DocumentStream(sinks: [recorder])
        #expect(throws: JSONAPIError.self) {
            try stream.feed(input)
            try stream.finish()
        }
        #expect(recorder.resources.count == 3)

        var warnings: [Rule] = []
        let lenient = DocumentStream(sinks: [Recorder()])
        lenient.onDiagnostic = { warnings.append($0.rule) }
        try lenient.feed(Array(#"{"data":{"type":"a","id":1}}"#.utf8))
        try lenient.finish()
        #expect(warnings == [.R11])
        #expect(throws: JSONAPIError.self) { try lenient.feed(Array("{}".utf8)) }

        var strict = DocumentOptions()
        strict.validation = .strict
        let refusing = DocumentStream(options: strict, sinks: [Recorder()])
        #expect(throws: JSONAPIError.self) {
            try refusing.feed(Array(#"{"data":{"type":"a","id":1}}"#.utf8))
            try refusing.finish()
        }
    }

    /// An identifier or a resource without `type` reaches your sinks in lenient mode (with an
    /// R13 or R09 warning) and with validation off: its type is empty, as the view shows it
    /// and writes it, and nothing crashes (the fuzz target that compares workers with one
    /// reader found a crash here). Strict mode refuses it.
    @Test func aTypelessIdentifierOrResourceHasAnEmptyType() throws {
        let text = #"{"data":{"type":"articles","id":"1","relationships":{"author":{"data":{"id":"9"}},"tags":{"data":[{"type":"tags","id":"2"},{"lid":"x"}]}}},"included":[{"id":"7"}]}"#
        for validation in [ValidationMode.lenient, .off] {
            var o = DocumentOptions()
            o.validation = validation
            let recorder = Recorder()
            var relationships: [StreamedRelationship] = []
            final class Relationships: StreamSink {
                var seen: [[StreamedRelationship]] = []
                func resource(_ r: ResourceView) throws(JSONAPIError) { seen.append(r.relationships) }
            }
            let rels = Relationships()
            let stream = DocumentStream(options: o, sinks: [recorder, rels])
            var warnings: [Rule] = []
            stream.onDiagnostic = { warnings.append($0.rule) }
            try stream.feed(Array(text.utf8))
            try stream.finish()
            relationships = rels.seen[0]
            #expect(recorder.resources.count == 2)
            #expect(
                relationships.map(\.targets) == [
                    [ResourceIdentifier(type: "", id: "9", lid: nil)], [ResourceIdentifier(type: "tags", id: "2", lid: nil), ResourceIdentifier(type: "", id: nil, lid: "x")],
                ])
            #expect(recorder.resources[0].text.contains(#""author":{"data":{"type":"","id":"9"}}"#), "\(recorder.resources[0].text)")
            #expect(recorder.resources[1].identifier == ResourceIdentifier(type: "", id: "7", lid: nil))
            #expect(warnings == (validation == .off ? [] : [.R13, .R13, .R09]), "\(validation): \(warnings)")
        }
        var strict = DocumentOptions()
        strict.validation = .strict
        let refusing = DocumentStream(options: strict, sinks: [Recorder()])
        #expect(throws: JSONAPIError.self) {
            try refusing.feed(Array(text.utf8))
            try refusing.finish()
        }
    }

    /// The README's example, as it is there.
    @Test func theReadmeExample() throws {
        final class Titles: StreamSink {
            var titles: [String] = []
            func resource(_ r: ResourceView) throws(JSONAPIError) {
                if r.type == "articles", case .string(let title)? = r.attribute("title") { titles.append(title) }
            }
        }
        let titles = Titles()
        let stream = DocumentStream(sinks: [titles])
        try stream.read(.file(corpusURL("documents/spec-compound.json").path))
        try stream.finish()
        #expect(titles.titles == ["JSON:API paints my bikeshed!"])
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for line in [
            #"if r.type == "articles", case .string(let title)? = r.attribute("title") { titles.append(title) }"#,
            "let stream = DocumentStream(sinks: [titles])",
        ] {
            #expect(readme.contains(line), "README lacks \(line)")
        }
    }
}
