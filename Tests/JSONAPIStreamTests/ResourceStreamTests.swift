import Foundation
import Testing
import JSONAPIStream

/// `ResourceStream`: resources as they close and documents as they end, as an
/// `AsyncSequence`, from files (compressed too), bytes and asynchronous byte sequences.
struct ResourceStreamTests {
    static let compound = corpusURL("documents/spec-compound.json").path

    /// What a stream gives, as text: one line per event.
    static func lines(_ stream: ResourceStream) async throws -> [String] {
        var out: [String] = []
        for try await event in stream {
            switch event {
            case .resource(let r):
                out.append("\(r.identifier) primary=\(r.isPrimary) \(r.pointer) \(r.attributes?.jsonText ?? "-") \(r.relationships.map(\.name))")
            case .document(let d):
                out.append("document \(d.index) \(d.primaryShape) meta=\(d.meta?.jsonText ?? "-") errors=\(d.errors.count)")
            case .warning(let w):
                out.append("warning \(w)")
            }
        }
        return out
    }

    @Test func aFileGivesItsResourcesInDocumentOrderThenTheDocument() async throws {
        let lines = try await Self.lines(ResourceStream(contentsOf: Self.compound))
        let graph = try Graph(contentsOf: Self.compound)
        // Every resource of the graph, in document order (primary first), then the document.
        #expect(lines.count == graph.count + 1)
        #expect(lines.last?.hasPrefix("document 0 many") == true, "\(lines.last ?? "")")
        let streamed = lines.dropLast().map { String($0.prefix { $0 != " " }) }
        #expect(streamed == graph.resources.map(\.description))
        #expect(lines[0].hasPrefix("articles/1 primary=true /data/0"))
        #expect(lines[0].contains(#"{"title":"JSON:API paints my bikeshed!"}"#))
    }

    @Test func everyWayInGivesTheSameEvents() async throws {
        let expected = try await Self.lines(ResourceStream(contentsOf: Self.compound))
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.compound)))
        // Bytes in memory, read 7 bytes at a time.
        #expect(try await Self.lines(ResourceStream(.bytes(bytes, name: "doc"), chunkSize: 7)) == expected)
        // An asynchronous byte sequence, one byte per element, in chunks of 5.
        let asyncBytes = AsyncStream<UInt8> { c in
            for b in bytes { c.yield(b) }
            c.finish()
        }
        #expect(try await Self.lines(ResourceStream(bytes: asyncBytes, chunkSize: 5)) == expected)
        // A gzip-compressed file.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let gz = dir.appendingPathComponent("doc.json.gz")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["sh", "-c", "gzip -c \"$0\" > \"$1\"", Self.compound, gz.path]
        try p.run()
        p.waitUntilExit()
        #expect(try await Self.lines(ResourceStream(contentsOf: gz.path, chunkSize: 64)) == expected)
        // Any read size, the largest too: read at most `InputSource.maxChunkSize` at a time,
        // with nothing set aside for it up front (Int.max trapped reserving its buffer).
        #expect(try await Self.lines(ResourceStream(contentsOf: Self.compound, chunkSize: .max)) == expected)
        #expect(try await Self.lines(ResourceStream(.bytes(bytes, name: "doc"), chunkSize: .max)) == expected)
        let again = AsyncStream<UInt8> { c in
            for b in bytes { c.yield(b) }
            c.finish()
        }
        #expect(try await Self.lines(ResourceStream(bytes: again, chunkSize: .max)) == expected)
    }

    @Test func severalDocumentsAndOnlyResources() async throws {
        let two = #"{"data":{"type":"a","id":"1"}}{"errors":[{"status":"404"}]}{"data":[{"type":"b","id":"2"}],"meta":{"n":1}}"#
        let lines = try await Self.lines(ResourceStream(.bytes(Array(two.utf8), name: "three")))
        #expect(
            lines == [
                "a/1 primary=true /data - []", "document 0 single meta=- errors=0", "document 1 absent meta=- errors=1",
                "b/2 primary=true /data/0 - []", #"document 2 many meta={"n":1} errors=0"#,
            ])
        var ids: [String] = []
        for try await r in ResourceStream(.bytes(Array(two.utf8), name: "three")).resources { ids.append(r.description) }
        #expect(ids == ["a/1", "b/2"])
    }

    @Test func anErrorComesAfterWhatWasReadBeforeIt() async throws {
        let cut = #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"},{"type":"a","#
        var seen: [String] = []
        do {
            for try await r in ResourceStream(.bytes(Array(cut.utf8), name: "cut.json"), chunkSize: 4).resources { seen.append(r.description) }
            Issue.record("no error")
        } catch let error as JSONAPIError {
            #expect(error.description.contains("cut.json:1:"), "\(error)")
        }
        #expect(seen == ["a/1", "a/2"])
    }

    /// An endless collection, produced as it is read: `{"data":[{"type":"a","id":"0"},…`.
    struct EndlessBytes: AsyncSequence, Sendable {
        typealias Element = UInt8
        struct AsyncIterator: AsyncIteratorProtocol {
            var pending = Array(#"{"data":["#.utf8)
            var at = 0
            var next = 0
            mutating func next() async -> UInt8? {
                if at == pending.count {
                    pending = Array(#"{"type":"a","id":"\#(next)"},"#.utf8)
                    next += 1
                    at = 0
                }
                at += 1
                return pending[at - 1]
            }
        }
        func makeAsyncIterator() -> AsyncIterator { AsyncIterator() }
    }

    /// A consumer that stops early: cancelling its task ends the iteration with
    /// `CancellationError`, even over an endless input.
    @Test func cancellationEndsAnEndlessStream() async throws {
        let task = Task {
            var count = 0
            for try await _ in ResourceStream(bytes: EndlessBytes(), chunkSize: 256).resources {
                count += 1
                if count == 1_000 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return count
        }
        do {
            let count = try await task.value
            Issue.record("ended without an error after \(count)")
        } catch is CancellationError {
        }
    }

    /// In lenient mode each warning comes as an event, where it was found (before the resource
    /// that breaks the rule), the same warnings `DocumentStream` reports; in strict mode the
    /// first is the error that ends the iteration, after the resources before it.
    @Test func warningsComeInOrderAndStrictModeStops() async throws {
        let text = #"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2","attributes":{"a+b":1}},{"type":"a","id":"3"}]}"#
        let bytes = Array(text.utf8)
        let lines = try await Self.lines(ResourceStream(.bytes(bytes, name: "doc"), chunkSize: 5))
        #expect(lines.count == 5, "\(lines)")
        #expect(lines[0].hasPrefix("a/1 "))
        #expect(lines[1].hasPrefix("warning doc:1:67: warning[R38]"), "\(lines[1])")
        #expect(lines[2].hasPrefix("a/2 ") && lines[3].hasPrefix("a/3 ") && lines[4].hasPrefix("document 0"))

        var reported: [Diagnostic] = []
        let stream = DocumentStream(sinks: [])
        stream.onDiagnostic = { reported.append($0) }
        try stream.read(.bytes(bytes, name: "doc"))
        try stream.finish()
        #expect(lines[1] == "warning \(reported[0])" && reported.count == 1)

        var strict = DocumentOptions()
        strict.validation = .strict
        var seen: [String] = []
        do {
            for try await event in ResourceStream(.bytes(bytes, name: "doc"), options: strict) {
                if case .resource(let r) = event { seen.append(r.identifier.description) }
                if case .warning = event { Issue.record("no warnings under strict") }
            }
            Issue.record("strict mode stops")
        } catch let error as JSONAPIError {
            #expect(seen == ["a/1"])
            #expect(error.diagnostic?.rule == reported[0].rule)
        }
    }

    /// The README's example, run from the repository's root as written there, prints what
    /// its comments show.
    @Test func readmeExamplePrintsWhatTheReadmeShows() async throws {
        var printed: [String] = []
        func print(_ items: Any...) { printed.append(items.map { "\($0)" }.joined(separator: " ")) }
        for try await event in ResourceStream(contentsOf: repositoryRoot.appendingPathComponent("Corpus/documents/spec-compound.json").path) {
            switch event {
            case .resource(let r): print(r.identifier, r.isPrimary)
            case .document(let d): print(d.primaryShape, d.errors)
            case .warning(let w): print(w)
            }
        }
        #expect(Array(printed.prefix(2)) == ["articles/1 true", "people/9 false"])
        #expect(printed.last == "many []")
        let readme = try String(contentsOf: repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.contains("print(r.identifier, r.isPrimary)   // articles/1 true, people/9 false, …"))
        #expect(readme.contains("print(d.primaryShape, d.errors)    // many []"))
        #expect(readme.contains("case .warning(let w): print(w)"))
    }
}
