import Foundation
import Testing
@testable import JSONAPIStream

/// A resource merged again and again keeps one copy: the flat JSON of 80,000 copies of a
/// 1 KB resource used to hold 203 MB (every merge appended the new occurrence and the merged
/// result); now the graph's tables stay the size of one copy.
@Suite struct DuplicateMemory {
    static func resource(_ i: Int, text: String) -> String {
        #"{"type":"people","id":"7","attributes":{"name":"\#(text)","n":\#(i % 3)},"#
            + #""relationships":{"friends":{"data":[{"type":"people","id":"8","meta":{"since":\#(i % 2)}}],"links":{"self":"/p/7/f"}}},"# + #""meta":{"m":1},"x-extra":\#(i % 2)}"#
    }

    /// A graph keeps the first thousand warnings and counts all. Past those, with no handler
    /// to read them, a duplicate's warning is counted without its text being made; the count,
    /// the kept warnings and the graph are the same as with a handler, which gets every one.
    @Test(arguments: [1, 2])
    func warningsPastTheKeptOnesAreCounted(workers: Int) throws {
        let pages = 1_500
        var input = ""
        for i in 0..<pages {
            input += #"{"data":[{"type":"articles","id":"\#(i)"}],"included":[{"type":"people","id":"7","attributes":{"n":\#(i)}}]}"# + "\n"
        }
        var options = DocumentOptions()
        options.parse.multipleDocuments = true
        options.parse.workers = workers
        func read(handler: ((Diagnostic) -> Void)?) throws -> Graph {
            let parser = GraphParser(options: options)
            if let handler { parser.onWarning = handler }
            if workers > 1 { parser.tuneWorkers(batchBytes: 4096, continuationBytes: 32768, decisionBytes: 8192) }
            try Array(input.utf8).withUnsafeBytes { try parser.feed($0) }
            return try parser.finish()
        }
        var handed: [Diagnostic] = []
        let seen = try read { handed.append($0) }
        let unseen = try read(handler: nil)
        // people 7 comes again on every page after the first: a warning each (N01).
        #expect(seen.warningCount == pages - 1 && unseen.warningCount == pages - 1)
        #expect(handed.count == pages - 1 && handed.allSatisfy { $0.rule == .N01 && $0.message.contains("appears again") })
        #expect(seen.warnings.count == 1000 && unseen.warnings.map(\.description) == seen.warnings.map(\.description))
        #expect(unseen.warnings.map(\.description) == handed.prefix(1000).map(\.description))
        #expect(try GraphMergingTests.flat(unseen) == GraphMergingTests.flat(seen))
    }

    @Test(arguments: [true, false])
    func eightyThousandCopiesTakeTheRoomOfOne(oneDocument: Bool) throws {
        let text = String(repeating: "abcdefgh", count: 112)  // about 1 KB per copy
        let copies = 80_000
        var input = ""
        if oneDocument {
            input = #"{"data":{"type":"articles","id":"1"},"included":["#
            for i in 0..<copies { input += (i > 0 ? "," : "") + Self.resource(i, text: text) }
            input += "]}"
        } else {
            for i in 0..<copies { input += #"{"data":[\#(Self.resource(i, text: text))]}"# + "\n" }
        }
        var options = DocumentOptions()
        options.parse.multipleDocuments = !oneDocument
        let g = try graph(input, options: options)
        let s = g.storage
        #expect(s.resources.count == (oneDocument ? 2 : 1))
        #expect(s.duplicateCount == copies - 1)
        // One copy's values (about 1.1 KB), not 80,000 of them.
        #expect(s.values.count < 4096, "value store \(s.values.count) bytes")
        #expect(
            s.relationships.count <= 2 && s.linkage.count <= 2 && s.members.count <= 2,
            "rows: \(s.relationships.count) relationships, \(s.linkage.count) linkage, \(s.members.count) members")
        // And the merged resource is the last copy's (the later members win).
        let flat = try normalize(input, format: .json, document: options)
        let lastAlone =
            oneDocument
            ? #"{"data":{"type":"articles","id":"1"},"included":[\#(Self.resource(copies - 1, text: text))]}"#
            : #"{"data":[\#(Self.resource(copies - 1, text: text))]}"#
        let expected = try normalize(lastAlone, format: .json)
        // The resources object is the same as for the last copy alone.
        func resources(_ text: String) -> Substring {
            let start = text.range(of: #""resources":"#)!.upperBound
            let end = text.range(of: #","meta""#, range: start..<text.endIndex)?.lowerBound ?? text.endIndex
            return text[start..<end]
        }
        #expect(resources(flat) == resources(expected))
    }

    /// Merges that change, add and drop nothing give what merging into fresh storage gives,
    /// whether the replacement fits over the old value or not.
    @Test func mergesReuseOnlyWhatFits() throws {
        let input = """
            {"data":[{"type":"a","id":"1","attributes":{"x":"long long long","y":2},"relationships":{"r":{"data":[{"type":"b","id":"1"},{"type":"b","id":"2"}],"meta":{"k":"vvvvvvvv"}}},"links":{"self":"/a/1"},"q":1}]}
            {"data":[{"type":"c","id":"5","attributes":{"v":1}}]}
            {"data":[{"type":"a","id":"1","attributes":{"x":"s"},"relationships":{"r":{"data":[{"type":"b","id":"3"}],"meta":{"k":"v"}},"t":{"data":null}},"q":22}]}
            {"data":[{"type":"a","id":"1","attributes":{"z":[1,2,3],"x":"a much longer value than before"},"relationships":{"r":{"data":[{"type":"b","id":"4","meta":{"w":1}},{"type":"b","id":"5"},{"type":"b","id":"6"}]}},"links":{"related":"/x"},"q":333,"p":0}]}
            """
        var options = DocumentOptions()
        options.parse.multipleDocuments = true
        let flat = try normalize(input, format: .json, document: options)
        #expect(
            flat.contains(
                #""1":{"attributes":{"x":"a much longer value than before","y":2,"z":[1,2,3]},"relationships":{"r":{"data":[{"type":"b","id":"4","meta":{"w":1}},{"type":"b","id":"5"},{"type":"b","id":"6"}]},"t":{"data":null}},"links":{"self":"/a/1","related":"/x"},"q":333,"p":0}"#
            ), "\(flat)")
        #expect(flat.contains(#""5":{"attributes":{"v":1},"relationships":{}}"#), "\(flat)")
        let first = try normalize(input, format: .json, document: options, duplicates: .first)
        #expect(
            first.contains(
                #""1":{"attributes":{"x":"long long long","y":2,"z":[1,2,3]},"relationships":{"r":{"data":[{"type":"b","id":"1"},{"type":"b","id":"2"}],"meta":{"k":"vvvvvvvv"}},"t":{"data":null}},"links":{"self":"/a/1","related":"/x"},"q":1,"p":0}"#
            ), "\(first)")
        // The same at every read size, and the tables stay consistent (checkInvariants).
        for chunk in [1, 7, 64] {
            #expect(try normalize(input, format: .json, document: options, chunk: chunk) == flat)
            _ = try graph(input, options: options, chunk: chunk)
        }
    }
}
