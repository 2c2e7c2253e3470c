import Foundation
import Testing

@testable import JSONAPIStream

/// Decoding many models reuses a keyed container per key type once nothing holds it
/// (``KeyedContainerCache``). Reuse must never change a container someone still holds, and
/// must not outlive the decode.
@Suite struct KeyedContainerReuseTests {
    /// `n` articles, each with a tree of nested objects three deep in its attributes (the
    /// same model, so the same key type, open three times at once), a `title` before it and
    /// a `rank` after it.
    static func document(_ n: Int) -> String {
        let articles = (0..<n).map { i in
            #"{"type":"articles","id":"\#(i)","attributes":{"title":"title \#(i)","tree":{"name":"a\#(i)","child":{"name":"b\#(i)","child":{"name":"c\#(i)"}}},"rank":\#(i)}}"#
        }
        return #"{"data":[\#(articles.joined(separator: ","))]}"#
    }

    /// Its child is declared (so decoded) before its name: the name is read from the
    /// container after the child's own container has been made and used.
    final class Tree: Decodable, Sendable {
        let child: Tree?
        let name: String
        var names: [String] { [name] + (child?.names ?? []) }
    }

    struct Article: Decodable, Sendable {
        let id: String
        let tree: Tree
        let title: String
    }

    /// Any value, read member by member through keyed containers of one key type (so one
    /// kept container for every object in a resource, nested ones open at once). Not
    /// `JSONValue`, whose `init(from:)` reads this library's decoder's stored value whole,
    /// without a container; its branch for other decoders has the same shape as this.
    indirect enum Dyn: Decodable, Equatable, Sendable {
        case object([String: Dyn])
        case array([Dyn])
        case string(String)
        case number(Double)
        case bool(Bool)
        case null

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(from decoder: any Decoder) throws {
            if let c = try? decoder.container(keyedBy: Key.self) {
                var members: [String: Dyn] = [:]
                for key in c.allKeys {
                    // Relationships as their identifiers (a related resource decoded as a
                    // model could be a cycle or missing).
                    if let one = try? c.decode(ResourceIdentifier.self, forKey: key) {
                        members[key.stringValue] = .string("\(one.type)/\(one.id ?? one.lid ?? "")")
                    } else if let many = try? c.decode([ResourceIdentifier].self, forKey: key) {
                        members[key.stringValue] = .array(many.map { .string("\($0.type)/\($0.id ?? $0.lid ?? "")") })
                    } else {
                        members[key.stringValue] = (try? c.decode(Dyn.self, forKey: key)) ?? .string("<unreadable>")
                    }
                }
                self = .object(members)
            } else if var c = try? decoder.unkeyedContainer() {
                var elements: [Dyn] = []
                while !c.isAtEnd { elements.append(try c.decode(Dyn.self)) }
                self = .array(elements)
            } else {
                let c = try decoder.singleValueContainer()
                if c.decodeNil() {
                    self = .null
                } else if let b = try? c.decode(Bool.self) {
                    self = .bool(b)
                } else if let n = try? c.decode(Double.self) {
                    self = .number(n)
                } else {
                    self = .string((try? c.decode(String.self)) ?? "<unreadable>")
                }
            }
        }
    }

    /// Every resource of every corpus document and of a generated one, decoded by type
    /// (containers kept) and one at a time (no cache): the same values.
    @Test func everyCorpusResourceDecodesAsWithoutReuse() throws {
        var inputs = try CorpusTests.files("documents").map { name in
            (name, try String(contentsOf: corpusURL("documents/\(name)"), encoding: .utf8))
        }
        inputs.append(("generated", try ParallelDecodingTests.generated(200)))
        var resources = 0
        for (name, input) in inputs {
            // (The corpus holds documents a graph refuses in its default mode as well.)
            guard let g = try? graph(input) else { continue }
            for type in g.types {
                let one = try g.resources(ofType: type).map { try $0.decode(Dyn.self) }
                #expect(try g.decode(Dyn.self, ofType: type) == one, "\(name), \(type)")
                resources += one.count
            }
        }
        #expect(resources > 600)
    }

    /// A to-many relationship's related models (articles with trees, nested containers of one
    /// key type open at once), decoded together (containers kept) and one at a time: the same
    /// values.
    @Test func aRelationshipsModelsDecodeAsWithoutReuse() throws {
        let n = 200
        let linkage = (0..<n).map { #"{"type":"articles","id":"\#($0)"}"# }.joined(separator: ",")
        let articles = Self.document(n).dropFirst(#"{"data":"#.count).dropLast()
        let input = #"{"data":{"type":"blogs","id":"1","relationships":{"articles":{"data":[\#(linkage)]}}},"included":\#(articles)}"#
        struct Blog: Decodable { var articles: ToMany<Dyn> }
        let blog = try graph(input).primary[0].decode(Blog.self)
        let one = try blog.articles.resources.map { try #require($0).decode(Dyn.self) }
        #expect(one.count == n)
        #expect(try blog.articles.decode() == one)
    }

    /// Nested objects of one model, open at the same time: each level reads its own members.
    @Test func containersOpenAtOnceAreNeverShared() throws {
        let g = try graph(Self.document(600))
        let one = try g.decode([Article].self)
        let many = try g.decodeConcurrently([Article].self)
        let byType = try g.decode(Article.self, ofType: "articles")
        for articles in [one, many, byType] {
            #expect(articles.count == 600)
            for (i, a) in articles.enumerated() {
                #expect(a.id == "\(i)" && a.title == "title \(i)")
                #expect(a.tree.names == ["a\(i)", "b\(i)", "c\(i)"])
            }
        }
    }

    /// The same tree read through ``JSONAPIReader``s (their tables are kept and refilled the
    /// same way), child before name; and the article's `rank` after the tree.
    final class TreeReading: JSONAPIReadable, Sendable {
        let child: TreeReading?
        let name: String
        init(reading r: JSONAPIReader) throws {
            child = try r.readIfPresent("child")
            name = try r.read("name")
        }
        var names: [String] { [name] + (child?.names ?? []) }
    }

    struct ArticleReading: JSONAPIReadable, Sendable {
        let tree: TreeReading
        let rank: Int
        init(reading r: JSONAPIReader) throws {
            tree = try r.read("tree")
            rank = try r.read("rank")
        }
    }

    @Test func readersOpenAtOnceAreNeverShared() throws {
        let g = try graph(Self.document(600))
        for articles in [try g.decode([ArticleReading].self), try g.decodeConcurrently([ArticleReading].self)] {
            #expect(articles.count == 600)
            for (i, a) in articles.enumerated() {
                #expect(a.rank == i && a.tree.names == ["a\(i)", "b\(i)", "c\(i)"])
            }
        }
    }

    /// The graph is freed once dropped after decodes that kept containers and reader tables
    /// (each holds its decoder, which holds the graph, until the decode ends).
    @Test func theGraphIsFreedAfterDecodes() throws {
        weak var storage: GraphStorage?
        var kept: [Any] = []
        do {
            let g = try graph(Self.document(300))
            storage = g.storage
            kept.append(try g.decode([Article].self))
            kept.append(try g.decode([ArticleReading].self))
            kept.append(try g.decodeConcurrently([ArticleReading].self))
            kept.append(try g.decode(ArticleReading.self, ofType: "articles"))
        }
        #expect(kept.count == 4)
        #expect(storage == nil, "a decode left its decoder, and so the graph, alive")
    }

    /// Keeps the container it was given: read again after the whole decode, each must still
    /// answer for its own resource, not for a later one.
    struct Keeper: Decodable {
        enum Keys: String, CodingKey { case id, title }
        nonisolated(unsafe) static var kept: [KeyedDecodingContainer<Keys>] = []
        let id: String
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Keys.self)
            id = try c.decode(String.self, forKey: .id)
            if Int(id)! % 3 == 0 { Self.kept.append(c) }
        }
    }

    @Test func aContainerAModelKeepsStaysItsOwn() throws {
        let g = try graph(Self.document(300))
        Keeper.kept = []
        let models = try g.decode([Keeper].self)
        #expect(models.count == 300 && Keeper.kept.count == 100)
        for (k, c) in Keeper.kept.enumerated() {
            let id = 3 * k
            #expect(try c.decode(String.self, forKey: .id) == "\(id)")
            #expect(try c.decode(String.self, forKey: .title) == "title \(id)")
        }
        Keeper.kept = []
    }

    /// The decoder and its kept containers are freed when the decode returns, and when it
    /// throws: a kept container's table holds its decoder, a cycle only the end of the decode
    /// breaks.
    final class Watch: @unchecked Sendable {
        /// The id of the resource whose model throws, if any.
        let failAt: String?
        init(failAt: String?) { self.failAt = failAt }
        private let lock = NSLock()
        private var decoders: [Weak] = []
        struct Weak { weak var object: AnyObject? }
        func note(_ d: any Decoder) {
            lock.lock()
            decoders.append(Weak(object: d as AnyObject))
            lock.unlock()
        }
        var alive: Int {
            lock.lock()
            defer { lock.unlock() }
            return decoders.filter { $0.object != nil }.count
        }
        var seen: Int {
            lock.lock()
            defer { lock.unlock() }
            return decoders.count
        }
        static let key = CodingUserInfoKey(rawValue: "watch")!
    }

    struct Watched: Decodable, Sendable {
        enum Keys: String, CodingKey { case id, tree }
        let tree: Tree
        init(from decoder: any Decoder) throws {
            let watch = decoder.userInfo[Watch.key] as! Watch
            watch.note(decoder)
            let c = try decoder.container(keyedBy: Keys.self)
            if try c.decode(String.self, forKey: .id) == watch.failAt {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "refused"))
            }
            tree = try c.decode(Tree.self, forKey: .tree)
        }
    }

    @Test func decodersAreFreedAfterwards() throws {
        let g = try graph(Self.document(2000))
        for fails in [false, true] {
            let watch = Watch(failAt: fails ? "1500" : nil)
            var options = DecodingOptions.default
            options.userInfo[Watch.key] = watch
            let decodes: [() throws -> Int] = [
                { try g.decode([Watched].self, options: options).count },
                { try g.decodeConcurrently([Watched].self, options: options).count },
                { try g.decode(Watched.self, ofType: "articles", options: options).count },
            ]
            for decode in decodes {
                if fails {
                    #expect(decodingError { try decode() } != nil)
                } else {
                    #expect(try decode() == 2000)
                }
            }
            #expect(watch.seen > 0)
            #expect(watch.alive == 0, "a decoder outlived its decode (fails: \(fails))")
        }
    }
}
