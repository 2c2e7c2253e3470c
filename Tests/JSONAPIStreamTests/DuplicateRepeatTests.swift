import Foundation
import Testing

@testable import JSONAPIStream

/// A resource that comes again with the same member names in the same order (a crawl's pages
/// include the same resources, as they were or with a few values changed) is merged without
/// taking its objects apart name by name (``StoredJSON/sameNames(_:_:_:)``, relationships
/// merged in place). Whatever single place the later occurrence changes, the merged resource
/// is the later one under `last` and the earlier one under `first`, as the merge name by name
/// makes it, on one reader and on workers.
@Suite struct DuplicateRepeatTests {
    /// The earlier occurrence: a value in each place a later one may change.
    static let base =
        #"{"type":"people","id":"7","attributes":{"name":"Ada","age":36,"tags":["a","b"],"address":{"city":"London","zip":"N1"}},"#
        + #""relationships":{"friends":{"data":[{"type":"people","id":"8","meta":{"since":1}},{"type":"people","id":"9"}],"#
        + #""links":{"self":"/p/7/f"},"meta":{"count":2}},"boss":{"data":{"type":"people","id":"1"}}},"#
        + #""links":{"self":"/p/7"},"meta":{"rev":1}}"#

    /// Later occurrences with the same names as `base` in the same order where the merge goes
    /// by name (attributes, links, meta, relationships): the first is `base` itself, each
    /// other differs from it in one place.
    static let repeats: [(String, String)] = [
        ("the same", base),
        ("an attribute's value", base.replacingOccurrences(of: #""age":36"#, with: #""age":37"#)),
        ("an attribute of the same length", base.replacingOccurrences(of: #""Ada""#, with: #""Eve""#)),
        ("an array's order", base.replacingOccurrences(of: #"["a","b"]"#, with: #"["b","a"]"#)),
        ("names inside a value", base.replacingOccurrences(of: #"{"city":"London","zip":"N1"}"#, with: #"{"zip":"N1","city":"London"}"#)),
        ("an escaped string", base.replacingOccurrences(of: #""Ada""#, with: #""A\"a""#)),
        ("the resource's links", base.replacingOccurrences(of: #""/p/7"}"#, with: #""/p/7?v=2"}"#)),
        ("the resource's meta", base.replacingOccurrences(of: #""rev":1"#, with: #""rev":2"#)),
        ("a target's id", base.replacingOccurrences(of: #""id":"9""#, with: #""id":"10""#)),
        ("a target's type", base.replacingOccurrences(of: #"{"type":"people","id":"9"}"#, with: #"{"type":"robots","id":"9"}"#)),
        ("a target's meta", base.replacingOccurrences(of: #""since":1"#, with: #""since":2"#)),
        ("a target's meta dropped", base.replacingOccurrences(of: #","meta":{"since":1}"#, with: "")),
        ("a target fewer", base.replacingOccurrences(of: #",{"type":"people","id":"9"}"#, with: "")),
        ("a relationship's links", base.replacingOccurrences(of: #""/p/7/f""#, with: #""/p/7/g""#)),
        ("a relationship's meta", base.replacingOccurrences(of: #""count":2"#, with: #""count":3"#)),
        ("to-one becomes to-many", base.replacingOccurrences(of: #"{"data":{"type":"people","id":"1"}}"#, with: #"{"data":[{"type":"people","id":"1"}]}"#)),
        ("to-one becomes empty", base.replacingOccurrences(of: #"{"data":{"type":"people","id":"1"}}"#, with: #"{"data":null}"#)),
        ("a lid", base.replacingOccurrences(of: #""id":"7","#, with: #""id":"7","lid":"l7","#)),
    ]

    /// `people` 7 of `graph`'s flat object, as minified JSON (members in their order).
    static func person(_ g: Graph) throws -> String {
        let flat = try GraphMergingTests.flat(g)
        let value = try #require(try parseJSON(bytes(flat)).get().first)
        return try #require(value["resources"]?["people"]?["7"]).jsonText
    }

    /// The graph of `documents`, one per line, or (`oneDocument`) of one document including
    /// their resources, on `workers`.
    static func read(_ resources: [String], oneDocument: Bool, workers: Int, policy: DuplicatePolicy) throws -> Graph {
        var input = ""
        if oneDocument {
            input = #"{"data":{"type":"articles","id":"1"},"included":[\#(resources.joined(separator: ","))]}"#
        } else {
            for (i, r) in resources.enumerated() {
                input += #"{"data":[{"type":"articles","id":"\#(i)","relationships":{"author":{"data":{"type":"people","id":"7"}}}}],"included":[\#(r)]}"# + "\n"
            }
        }
        var options = DocumentOptions()
        options.parse.multipleDocuments = !oneDocument
        options.parse.workers = workers
        let parser = GraphParser(options: options, duplicates: policy)
        // Small batches: each document, or each resource of the one document, is a worker's.
        // (Workers decide on the first bytes: past the first documents' boundary, or the one
        // document's first bytes, which hold none.)
        if workers > 1 { parser.tuneWorkers(batchBytes: 200, continuationBytes: 1600, decisionBytes: oneDocument ? 16 : 2000) }
        try bytes(input).withUnsafeBytes { try parser.feed($0) }
        let g = try parser.finish()
        g.checkInvariants()
        return g
    }

    @Test(arguments: [1, 2], [false, true])
    func theLaterOccurrenceWinsUnderLastAndTheEarlierUnderFirst(workers: Int, oneDocument: Bool) throws {
        let alone = try Self.person(Self.read([Self.base], oneDocument: oneDocument, workers: 1, policy: .last))
        for (change, later) in Self.repeats {
            let laterAlone = try Self.person(Self.read([later], oneDocument: oneDocument, workers: 1, policy: .last))
            if change != "the same" { #expect(laterAlone != alone, "\(change): the change shows in the output") }
            let last = try Self.read([Self.base, later], oneDocument: oneDocument, workers: workers, policy: .last)
            #expect(try Self.person(last) == laterAlone, "\(change)")
            let first = try Self.read([Self.base, later], oneDocument: oneDocument, workers: workers, policy: .first)
            // (A lid the earlier occurrence lacks is taken under either policy, so that an
            // identifier by lid finds the resource: there the person is the later one.)
            #expect(try Self.person(first) == (change == "a lid" ? laterAlone : alone), "\(change)")
            #expect(last.warningCount == 1 && first.warningCount == 1, "\(change): one repeat, one warning")
            #expect(last.storage.duplicateCount == 1, "\(change)")
            // And the value store is the merge name by name's, byte for byte.
            for (policy, taken) in [(DuplicatePolicy.last, last), (.first, first)] {
                let byName = try DuplicateMerger.$takesRepeatsWhole.withValue(false) {
                    try Self.read([Self.base, later], oneDocument: oneDocument, workers: workers, policy: policy)
                }
                #expect(taken.storage.values.withBytes { Array($0) } == byName.storage.values.withBytes { Array($0) }, "\(change), \(policy)")
            }
        }
    }

    /// A resource repeated as it was, a thousand times, keeps one copy's values and rows, and
    /// so does one repeated with one value changed each time (the last one's).
    @Test(arguments: [1, 2])
    func repeatsKeepOneCopy(workers: Int) throws {
        let one = try Self.read([Self.base], oneDocument: false, workers: 1, policy: .last).storage
        let same = try Self.read(Array(repeating: Self.base, count: 1000), oneDocument: false, workers: workers, policy: .last)
        let changing = (0..<1000).map { Self.base.replacingOccurrences(of: #""age":36"#, with: #""age":\#(100 + $0 % 900)"#) }
        let changed = try Self.read(changing, oneDocument: false, workers: workers, policy: .last)
        for g in [same, changed] {
            let s = g.storage
            #expect(s.duplicateCount == 999 && g.warningCount == 999)
            // Each page's article has its author relationship and linkage; the person's are one copy.
            #expect(s.relationships.count - 999 == one.relationships.count && s.linkage.count - 999 == one.linkage.count)
            // The articles' values (none) and one person's: a few bytes more for a longer age.
            #expect(s.values.count <= one.values.count + 1, "value store \(s.values.count) bytes, one copy \(one.values.count)")
        }
        #expect(try Self.person(changed) == Self.person(Self.read([changing[999]], oneDocument: false, workers: 1, policy: .last)))
        #expect(try Self.person(same) == Self.person(Self.read([Self.base], oneDocument: false, workers: 1, policy: .last)))
    }

    /// Every corpus document merged with itself (each resource repeated as it was) and with
    /// the next one: the graph is the merge name by name's, to the byte of its value store.
    @Test(arguments: GraphMergingTests.pairs)
    func theGraphIsTheMergeByNamesOwn(_ a: String, _ b: String) throws {
        for policy in [DuplicatePolicy.last, .first] {
            func read() throws -> Graph {
                let parser = GraphParser(options: GraphMergingTests.options, duplicates: policy)
                try parser.read(InputSource(path: GraphMergingTests.path(a)))
                try parser.read(InputSource(path: GraphMergingTests.path(b)))
                let g = try parser.finish()
                g.checkInvariants()
                return g
            }
            let whole = try read()
            let byName = try DuplicateMerger.$takesRepeatsWhole.withValue(false) { try read() }
            let (x, y) = (whole.storage, byName.storage)
            #expect(try GraphMergingTests.flat(whole) == GraphMergingTests.flat(byName), "\(a) + \(b), \(policy)")
            #expect(x.values.withBytes { Array($0) } == y.values.withBytes { Array($0) }, "\(a) + \(b), \(policy)")
            #expect(
                x.resources.count == y.resources.count && x.relationships.count == y.relationships.count && x.linkage.count == y.linkage.count
                    && x.members.count == y.members.count && x.duplicateCount == y.duplicateCount && whole.warningCount == byName.warningCount,
                "\(a) + \(b), \(policy)")
        }
    }

    @Test func sameNamesComparesTheTopLevelNamesInOrder() {
        let cases: [(String, String, Bool)] = [
            (#"{"a":1,"b":2}"#, #"{"a":3,"b":[4,{"c":5}]}"#, true),
            (#"{}"#, #"{}"#, true),
            (#"{"a":{"x":1}}"#, #"{"a":{"y":1,"z":2}}"#, true),
            (#"{"a":"x,\"b\":1","c":2}"#, #"{"a":"y","c":3}"#, true),
            (#"{"a\"b":1}"#, #"{"a\"b":2}"#, true),
            (#"{"a":1,"b":2}"#, #"{"b":2,"a":1}"#, false),
            (#"{"a":1}"#, #"{"a":1,"b":2}"#, false),
            (#"{"a":1,"b":2}"#, #"{"a":1}"#, false),
            (#"{}"#, #"{"a":1}"#, false),
            (#"{"ab":1}"#, #"{"ac":1}"#, false),
            (#"{"a":1}"#, #"{"aa":1}"#, false),
        ]
        for (a, b, expected) in cases {
            let text = Array((a + b).utf8)
            text.withUnsafeBytes { all in
                let first = 0..<a.utf8.count
                let second = a.utf8.count..<text.count
                #expect(StoredJSON.sameNames(all, first, second) == expected, "\(a) against \(b)")
                #expect(StoredJSON.sameNames(all, second, first) == expected, "\(b) against \(a)")
            }
        }
    }
}
