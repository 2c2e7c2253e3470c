import Foundation
import Testing
@testable import JSONAPIStream
import JSONAPIBenchmarking

/// Decoding many resources on several cores (``Graph/decodeConcurrently(_:options:)``): the
/// same array, and the same first error, as on one thread.
@Suite struct ParallelDecodingTests {
    struct Article: Decodable, Equatable, Sendable {
        struct Dimensions: Decodable, Equatable, Sendable { var width: Int; var height: Double; var ratio: Double }
        var id: String
        var title: String
        var body: String
        var quote: String
        var views: Int
        var score: JSONNumber
        var publishedAt: Date
        var tagsList: [String]
        var dimensions: Dimensions
        /// Resolved through the graph: the included person.
        var author: Person
        /// Resolved through the graph; each comment names this article back (no cycle: an
        /// identifier).
        var comments: [Comment]
        var tags: [ResourceIdentifier]
    }
    struct Person: Decodable, Equatable, Sendable { var id: String; var firstName: String; var email: String; var age: Int }
    struct Comment: Decodable, Equatable, Sendable { var id: String; var body: String; var likes: Int; var article: ResourceIdentifier }

    /// A generated compound document of `n` articles (2 comments each), as text.
    static func generated(_ n: Int, seed: UInt64 = 7) throws -> String {
        let writer = ByteWriter()
        try DocumentGenerator(resources: n, seed: seed).write(to: writer)
        return writer.string
    }

    static var camel: DecodingOptions {
        var o = DecodingOptions()
        o.keys = .camelCase
        return o
    }

    @Test func sameModelsAsOneThread() throws {
        let g = try graph(Self.generated(3000))
        let one = try g.decode([Article].self, options: Self.camel)
        let many = try g.decodeConcurrently([Article].self, options: Self.camel)
        #expect(one.count == 3000)
        #expect(many == one)
        // Spot checks against the lazy accessors, so that equal arrays are also right ones.
        for i in [0, 255, 256, 1777, 2999] {
            let r = g.primary[i]
            #expect(many[i].id == r.id && many[i].title == r.attributes["title"]?.string)
            #expect(many[i].author.id == r.relationship("author")?.identifiers.first?.id)
            #expect(many[i].comments.map { $0.article.id } == [r.id, r.id])
        }
        // By type: included resources too (6,000 comments).
        let comments = try g.decodeConcurrently(Comment.self, ofType: "comments", options: Self.camel)
        #expect(comments.count == 6000)
        #expect(comments == (try g.decode(Comment.self, ofType: "comments", options: Self.camel)))
        // The form with the type inferred from the result.
        let inferred: [Article] = try g.decodeConcurrently(options: Self.camel)
        #expect(inferred == one)
    }

    /// Puts a number where `title` is a string in the articles with these ids.
    static func breakTitles(_ text: String, ids: [Int]) -> String {
        var text = text
        for id in ids {
            let good = #"{"type":"articles","id":"\#(id)","attributes":{"title":"#
            let range = text.range(of: good)!
            text.replaceSubrange(range, with: good + "7,\"was\":")
        }
        return text
    }

    @Test(arguments: [[1500, 2900, 1800], [2, 2999], [2999], [1024, 1025]])
    func firstFailureInOrder(ids: [Int]) throws {
        let g = try graph(Self.breakTitles(Self.generated(3000), ids: ids))
        let one = decodingError { try g.decode([Article].self, options: Self.camel) }
        let many = decodingError { try g.decodeConcurrently([Article].self, options: Self.camel) }
        let first = ids.min()!
        #expect(message(try #require(one)).hasPrefix("articles/\(first) /attributes/title: expected String"))
        #expect(message(try #require(many)) == message(try #require(one)))
        #expect(path(try #require(many)) == ["\(first - 1)", "title"])
        #expect(kind(try #require(many)) == "typeMismatch")
    }

    /// An error thrown by the model's own `init(from:)` is the first one in order, too.
    @Test func modelErrorsInOrder() throws {
        struct Refused: Error, Equatable { var id: String }
        struct Picky: Decodable, Sendable {
            enum Keys: String, CodingKey { case id }
            init(from decoder: any Decoder) throws {
                let id = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .id)
                if id.hasSuffix("7") && id.count == 4 { throw Refused(id: id) }
            }
        }
        let g = try graph(Self.generated(3000))
        let error = decodingError { try g.decodeConcurrently([Picky].self) }
        #expect(error as? Refused == Refused(id: "1007"))
    }

    /// The models decoded before a failure are freed with the error, on one thread and on
    /// several: each model holds an object that counts its own lifetimes. (One thread decodes
    /// straight into the array's storage; an array that stopped one model short would leak
    /// that model, one that went one too far would free memory never initialized.)
    @Test func modelsBeforeAFailureAreFreed() throws {
        final class Counted: @unchecked Sendable {
            static let lock = NSLock()
            nonisolated(unsafe) static var alive = 0
            init() { Self.change(+1) }
            deinit { Self.change(-1) }
            static func change(_ n: Int) {
                lock.lock()
                alive += n
                lock.unlock()
            }
        }
        struct Held: Decodable, Sendable {
            enum Keys: String, CodingKey { case id }
            let counted = Counted()
            init(from decoder: any Decoder) throws {
                let id = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .id)
                if id == "1500" { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "refused")) }
            }
        }
        let g = try graph(Self.generated(2000))
        #expect(decodingError { try g.decode([Held].self) } != nil)
        #expect(decodingError { try g.decode(Held.self, ofType: "articles") } != nil)
        #expect(decodingError { try g.decodeConcurrently([Held].self) } != nil)
        #expect(Counted.alive == 0, "models decoded before the failure were not freed")
        let whole = try g.decode(Held.self, ofType: "comments")
        #expect(Counted.alive == whole.count && whole.count == 4000)
    }

    // MARK: - Which threads decode

    /// The threads `init(from:)` ran on, passed to the models through `userInfo`.
    final class ThreadLog: @unchecked Sendable {
        static let key = CodingUserInfoKey(rawValue: "threads")!
        private let lock = NSLock()
        private var threads = Set<ObjectIdentifier>()
        private let second = DispatchSemaphore(value: 0)
        /// Whether the first resource waits until another thread has decoded one.
        let waits: Bool

        init(waits: Bool) { self.waits = waits }

        func note(first: Bool) {
            lock.lock()
            let isNew = threads.insert(ObjectIdentifier(Thread.current)).inserted
            let count = threads.count
            lock.unlock()
            if isNew && count == 2 { second.signal() }
            // Whichever thread takes the first run holds it until another thread has decoded
            // a resource of a later run, or 10 s have passed: on one thread, the count stays 1.
            if first && waits { _ = second.wait(timeout: .now() + 10) }
        }

        var count: Int { lock.lock(); defer { lock.unlock() }; return threads.count }
    }

    struct Probe: Decodable, Sendable {
        enum Keys: String, CodingKey { case id }
        init(from decoder: any Decoder) throws {
            let id = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .id)
            (decoder.userInfo[ThreadLog.key] as! ThreadLog).note(first: id == "1")
        }
    }

    static func threads(_ n: Int, waits: Bool = false, decode: (Graph, DecodingOptions) throws -> Int) throws -> Int {
        let g = try graph(Self.generated(n, seed: 1))
        let log = ThreadLog(waits: waits)
        var o = DecodingOptions()
        o.userInfo[ThreadLog.key] = log
        #expect(try decode(g, o) == n)
        return log.count
    }

    @Test func threadsUsed() throws {
        // `decode`, or fewer resources than the threshold: the caller's thread only.
        #expect(try Self.threads(4_000) { try $0.decode([Probe].self, options: $1).count } == 1)
        #expect(try Self.threads(4_000) { try $0.decode(Probe.self, ofType: "articles", options: $1).count } == 1)
        #expect(try Self.threads(ParallelDecoding.threshold - 1) { try $0.decodeConcurrently([Probe].self, options: $1).count } == 1)
        // Enough resources on a machine with more than one core: another thread decodes some
        // (the first run waits for it).
        if ParallelDecoding.processors > 1 {
            #expect(try Self.threads(4_000, waits: true) { try $0.decodeConcurrently([Probe].self, options: $1).count } > 1)
            #expect(try Self.threads(4_000, waits: true) { try $0.decodeConcurrently(Probe.self, ofType: "articles", options: $1).count } > 1)
        }
    }
}
