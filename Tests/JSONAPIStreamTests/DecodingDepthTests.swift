import Foundation
import Testing
@testable import JSONAPIStream

/// Recursive models over long chains: a model that decodes its related resource as its own
/// model, or a value nested far down, must end in a `DecodingError` when the thread's stack
/// runs short, never in a crash; and a thread with room decodes the whole chain. Over
/// relationships that multiply the paths to a resource, a recursive model must stop at
/// `DecodingOptions.maxResolvedResources`, never take exponential time and memory.
@Suite struct DecodingDepthTests {
    /// `n/0 → n/1 → … → n/(count-1)`, each pointing at the next through `next`.
    static func chain(_ count: Int) throws -> Graph {
        var s = #"{"data":{"type":"n","id":"0","relationships":{"next":{"data":"# + (count > 1 ? #"{"type":"n","id":"1"}"# : "null") + "}}},\"included\":["
        for i in 1..<count {
            if i > 1 { s += "," }
            let next = i + 1 < count ? #"{"type":"n","id":"\#(i + 1)"}"# : "null"
            s += #"{"type":"n","id":"\#(i)","attributes":{"v":\#(i)},"relationships":{"next":{"data":\#(next)}}}"#
        }
        s += "]}"
        return try Graph(json: s)
    }

    final class Node: Decodable, @unchecked Sendable {
        let id: String
        let next: Node?
        var length: Int {
            var n = 0
            var x: Node? = self
            while let y = x { n += 1; x = y.next }
            return n
        }
    }

    final class Tree: Decodable, @unchecked Sendable { let c: [Tree] }
    struct Holder: Decodable, @unchecked Sendable { let tree: Tree }

    /// Runs `body` on a thread with a stack of `kib` KiB and returns its result.
    final class Box<T>: @unchecked Sendable {
        var value: T?
        let done = DispatchSemaphore(value: 0)
    }

    static func onThread<T>(stack kib: Int, _ body: @escaping @Sendable () -> T) -> T {
        let box = Box<T>()
        let thread = Thread {
            box.value = body(); box.done.signal()
        }
        thread.stackSize = kib * 1024
        thread.start()
        box.done.wait()
        return box.value!
    }

    static func result<T>(_ body: () throws -> T) -> Result<T, any Error> {
        do { return .success(try body()) } catch { return .failure(error) }
    }

    @Test func aLongChainOnASmallStackIsAnErrorNotACrash() throws {
        let g = try Self.chain(2_000)
        let r = Self.onThread(stack: 512) { Self.result { try g.decode(Node.self).length } }
        guard case .failure(let error) = r else { Issue.record("decoded \(r) on a 512 KiB stack"); return }
        #expect(kind(error) == "dataCorrupted")
        let text = message(error)
        #expect(text.contains("would overflow this thread's stack"), "\(text)")
        #expect(text.contains("decode long chains of relationships as ResourceIdentifier or ToOne/ToMany handles"))
        // The place names the resource it stopped at, the one before and the first, not all.
        #expect(text.hasPrefix("n/"))
        #expect(text.contains("more resources …"))
        #expect(text.contains("(reached from n/0 /relationships/next/data)"))
        #expect(text.count < 600, "\(text.count) characters")
        // Where it stops depends on the build's frame sizes (debug, release, sanitizers), but
        // always some way down the chain, and the message says how far.
        #expect(path(error).count >= 5 && path(error).allSatisfy { $0 == "next" })
        #expect(text.contains("(\(path(error).count) coding keys deep), through \(path(error).count) related resources"), "\(text)")
    }

    @Test func theSameChainDecodesWhereTheStackHasRoom() throws {
        let g = try Self.chain(2_000)
        let r = Self.onThread(stack: 64 * 1024) { Self.result { try g.decode(Node.self).length } }
        #expect(try r.get() == 2_000)
    }

    @Test func aDeeplyNestedValueOnASmallStackIsAnErrorNotACrash() throws {
        let depth = 400
        let tree = String(repeating: #"{"c":["#, count: depth - 1) + #"{"c":[]}"# + String(repeating: "]}", count: depth - 1)
        var options = DocumentOptions()
        options.parse.limits.maxDepth = 2 * depth + 10
        let g = try Graph(json: #"{"data":{"type":"t","id":"1","attributes":{"tree":"# + tree + "}}}", options: options)
        let small = Self.onThread(stack: 256) { Self.result { try g.primary[0].decode(Holder.self) } }
        guard case .failure(let error) = small else { Issue.record("decoded on a 256 KiB stack"); return }
        #expect(kind(error) == "dataCorrupted")
        #expect(message(error).hasPrefix("t/1 /attributes/tree/c/0/c/0/"))
        #expect(message(error).hasSuffix("would overflow this thread's stack (\(path(error).count) coding keys deep); decode on a thread with a larger stack"))
        let large = Self.onThread(stack: 64 * 1024) { Self.result { try g.primary[0].decode(Holder.self) } }
        var levels = 0
        var t: Tree? = try large.get().tree
        while let x = t { levels += 1; t = x.c.first }
        #expect(levels == depth)
    }

    @Test func concurrentDecodingStopsTheSameWay() throws {
        // 1,100 primary resources (enough to decode on several threads), each pointing into
        // one chain of 30,000: too long for any thread's stack, so every resource fails, and
        // the error is the first resource's, as on one thread.
        var s = #"{"data":["#
        for i in 0..<1_100 {
            if i > 0 { s += "," }
            s += #"{"type":"p","id":"\#(i)","relationships":{"next":{"data":{"type":"n","id":"1"}}}}"#
        }
        s += #"],"included":["#
        let tail = 30_000
        for i in 1...tail {
            if i > 1 { s += "," }
            s += #"{"type":"n","id":"\#(i)","relationships":{"next":{"data":"# + (i < tail ? #"{"type":"n","id":"\#(i + 1)"}"# : "null") + "}}}"
        }
        s += "]}"
        let g = try Graph(json: s)
        let error = try #require(decodingError { try g.decodeConcurrently([Node].self) })
        #expect(kind(error) == "dataCorrupted")
        #expect(message(error).contains("(reached from p/0 /relationships/next/data)"), "\(message(error).prefix(300))")
        #expect(message(error).contains("would overflow this thread's stack"))
        #expect(path(error).first == "0")
    }

    @Test func longChainsOfPlacesAreShortened() throws {
        // A type mismatch six resources down the chain: the message names the resource, the
        // one before it, how many were skipped and the first.
        final class Strict: Decodable { let v: String?; let next: Strict? }
        let g = try Self.chain(8)
        let error = try #require(decodingError { try g.decode(Strict.self) })
        #expect(message(error) == "n/1 /attributes/v (reached from n/0 /relationships/next/data): expected String, found number 1")
        // Deeper: the last resource's attribute is fine, but a model that wants an Int id...
        final class Deep: Decodable { let id: Int; let next: Deep? }
        let g2 = try Graph(
            json:
                #"{"data":{"type":"n","id":"0","relationships":{"next":{"data":{"type":"n","id":"1"}}}},"included":[{"type":"n","id":"1","relationships":{"next":{"data":{"type":"n","id":"2"}}}},{"type":"n","id":"2","relationships":{"next":{"data":{"type":"n","id":"3"}}}},{"type":"n","id":"3","relationships":{"next":{"data":{"type":"n","id":"4"}}}},{"type":"n","id":"4","relationships":{"next":{"data":{"type":"n","id":"x5"}}}},{"type":"n","id":"x5","relationships":{"next":{"data":null}}}]}"#
        )
        let e2 = try #require(decodingError { try g2.decode(Deep.self) })
        #expect(message(e2).hasPrefix("n/x5 /id (reached from n/4 /relationships/next/data (reached from … 3 more resources … (reached from n/0 /relationships/next/data))): "), "\(message(e2))")
        #expect(path(e2) == ["next", "next", "next", "next", "next", "id"])
    }

    /// `layers` layers of two resources `a<i>`, `b<i>`; each links (`kids`) to both of the
    /// next layer. `primary` primary resources each link to both of layer 0.
    static func lattice(layers: Int, primary: Int = 1) throws -> Graph {
        func pair(_ i: Int) -> String { i < layers ? #"[{"type":"n","id":"a\#(i)"},{"type":"n","id":"b\#(i)"}]"# : "[]" }
        let data = (0..<primary).map { #"{"type":"p","id":"\#($0)","relationships":{"kids":{"data":\#(pair(0))}}}"# }
        var included: [String] = []
        for i in 0..<layers {
            for n in ["a", "b"] { included.append(#"{"type":"n","id":"\#(n)\#(i)","relationships":{"kids":{"data":\#(pair(i + 1))}}}"#) }
        }
        return try Graph(json: #"{"data":["# + data.joined(separator: ",") + #"],"included":["# + included.joined(separator: ",") + "]}")
    }

    final class Lattice: Decodable, @unchecked Sendable {
        let id: String
        let kids: [Lattice]
        var count: Int { 1 + kids.reduce(0) { $0 + $1.count } }
    }

    @Test func relationshipsThatMultiplyPathsStopAtTheLimit() throws {
        // 30 layers: 2^31 - 2 paths below the primary resource, from 6 KB of JSON.
        let g = try Self.lattice(layers: 30)
        let error = try #require(decodingError { try g.decode([Lattice].self) })
        #expect(kind(error) == "dataCorrupted")
        // The automatic limit: 4 per resource (61) and per linkage entry (2 from the primary
        // resource, 2 from each resource of the 29 layers that have a next one), plus 10,000.
        let limit = 4 * (61 + 2 + 29 * 2 * 2) + 10_000
        #expect(message(error).contains("this decode has decoded \(limit) related resources as models, the limit (DecodingOptions.maxResolvedResources)"), "\(message(error).prefix(400))")
        #expect(message(error).hasSuffix("Decode such relationships as ResourceIdentifier or ToOne/ToMany handles, or raise the limit"))
        #expect(path(error).first == "0" && path(error).dropFirst().allSatisfy { $0 == "kids" || Int($0) != nil })
    }

    @Test func theLimitCountsEachRelatedResourceDecodedAsAModel() throws {
        // 4 layers: 2 + 4 + 8 + 16 = 30 related resources decoded below the primary one.
        let g = try Self.lattice(layers: 4)
        var options = DecodingOptions()
        options.maxResolvedResources = 30
        #expect(try g.decode([Lattice].self, options: options).map(\.count) == [31])
        options.maxResolvedResources = 29
        #expect(message(try #require(decodingError { try g.decode([Lattice].self, options: options) })).contains("decoded 29 related resources"))
        // No limit, and a lattice the automatic one allows (2^13 - 2 = 8,190 paths).
        options.maxResolvedResources = .max
        #expect(try g.decode([Lattice].self, options: options).map(\.count) == [31])
        #expect(try Self.lattice(layers: 12).decode([Lattice].self).map(\.count) == [8_191])
        // Identifiers are not models: no limit applies to them.
        struct Flat: Decodable { let kids: [ResourceIdentifier] }
        options.maxResolvedResources = 0
        #expect(try Self.lattice(layers: 30).decode([Flat].self, options: options).map(\.kids.count) == [2])
    }

    @Test func eachElementHasItsOwnBudgetOnOneThreadAndOnSeveral() throws {
        // 1,100 primary resources (enough for several threads), each with 62 related resources
        // below it: a limit of 62 decodes them all, either way; 61 stops at element 0, with the
        // same error either way.
        let g = try Self.lattice(layers: 5, primary: 1_100)
        var options = DecodingOptions()
        options.maxResolvedResources = 62
        #expect(try g.decode([Lattice].self, options: options).allSatisfy { $0.count == 63 })
        #expect(try g.decodeConcurrently([Lattice].self, options: options).allSatisfy { $0.count == 63 })
        options.maxResolvedResources = 61
        let one = try #require(decodingError { try g.decode([Lattice].self, options: options) })
        let many = try #require(decodingError { try g.decodeConcurrently([Lattice].self, options: options) })
        #expect(message(one) == message(many) && path(one) == path(many) && path(one).first == "0")
    }
}
