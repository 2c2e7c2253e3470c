import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Testing
@testable import JSONAPIClient

/// `client.resourceStream(...)`: a response body through the client as an `AsyncSequence`,
/// in bounded memory (the body waits while the loop falls behind), pages followed, failures
/// and cancellation.
struct ClientResourceStreamTests {
    static func describe(_ event: ResourceStream.Event) -> String {
        switch event {
        case .resource(let r): "\(r.identifier) \(r.isPrimary) \(r.attributes?.jsonText ?? "-")"
        case .document(let d): "document \(d.index) \(d.primaryShape) \(d.links?.jsonText ?? "-")"
        case .warning(let w): "warning \(w.rule) \(w.message)"
        }
    }

    /// The events `ResourceStream` gives for the same bytes, as one input.
    static func expected(_ bytes: [UInt8]) async throws -> [String] {
        var out: [String] = []
        for try await e in ResourceStream(.bytes(bytes, name: "x")) { out.append(describe(e)) }
        return out
    }

    @Test func aBodyGivesTheEventsResourceStreamGivesForItsBytes() async throws {
        let body = Transports.document(300)
        let transport = InMemoryTransport { _ in .init(status: 200, headers: Transports.jsonAPI, body: body, chunkSize: 700) }
        let client = Transports.client(transport)
        var seen: [String] = []
        for try await e in try client.resourceStream("articles") { seen.append(Self.describe(e)) }
        #expect(seen == (try await Self.expected(body)))
        #expect(seen.count == 301)
    }

    /// A loop that stops taking: the client stops reading the body (well before its end),
    /// then reads the rest as the loop goes on.
    @Test func aSlowLoopHoldsTheBodyBack() async throws {
        let body = Transports.document(20_000)
        let chunks = (body.count + 99) / 100
        let transport = InMemoryTransport { _ in .init(status: 200, headers: Transports.jsonAPI, body: body, chunkSize: 100) }
        let client = Transports.client(transport)
        var iterator = try client.resourceStream("articles").makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first.map(Self.describe)?.hasPrefix("articles/1 true") == true)
        try await Task.sleep(for: .milliseconds(300))
        let takenWhileWaiting = transport.chunksTaken
        // About 256 resources of ~70 bytes wait: a few hundred chunks of 100 bytes, not 14,000.
        #expect(takenWhileWaiting < chunks / 10, "\(takenWhileWaiting) of \(chunks) chunks read while the loop waited")
        var count = 1
        while let e = try await iterator.next() {
            if case .resource = e { count += 1 }
        }
        #expect(count == 20_000)
        #expect(transport.chunksTaken == chunks)
    }

    @Test func pagesAreFollowedInOrder() async throws {
        let transport = InMemoryTransport { request in
            let page = request.url?.query?.contains("page=2") == true ? 2 : 1
            let next = page == 1 ? #","links":{"next":"https://api.example.com/articles?page=2"}"# : ""
            let doc = #"{"data":[{"type":"articles","id":"\#(page)"}]\#(next)}"#
            return .init(status: 200, headers: Transports.jsonAPI, body: Array(doc.utf8), chunkSize: 5)
        }
        let client = Transports.client(transport)
        var ids: [String] = []
        var documents = 0
        for try await e in try client.resourceStream("articles", pages: .all()) {
            switch e {
            case .resource(let r): ids.append(r.id ?? "-")
            case .document: documents += 1
            case .warning: break
            }
        }
        #expect(ids == ["1", "2"] && documents == 2)
    }

    @Test func aServerErrorEndsTheLoopWithItsErrorObjects() async throws {
        let errors = #"{"errors":[{"status":"404","title":"Not Found","detail":"no such articles"}]}"#
        let transport = InMemoryTransport { _ in .init(status: 404, headers: Transports.jsonAPI, body: Array(errors.utf8)) }
        let client = Transports.client(transport)
        var events = 0
        do {
            for try await _ in try client.resourceStream("articles") { events += 1 }
            Issue.record("a 404 ends the loop with an error")
        } catch let error as JSONAPIClientError {
            #expect(events == 0)
            #expect(error.status == 404, "\(error)")
            #expect(error.errorObjects.first?.detail == "no such articles", "\(error)")
        }
    }

    /// Leaving the loop early cancels the transfer: no more of the body is read.
    @Test func leavingTheLoopStopsTheTransfer() async throws {
        let body = Transports.document(20_000)
        let transport = InMemoryTransport { _ in .init(status: 200, headers: Transports.jsonAPI, body: body, chunkSize: 100) }
        let client = Transports.client(transport)
        let task = Task {
            var n = 0
            for try await _ in try client.resourceStream("articles").resources {
                n += 1
                if n == 10 { break }
            }
            return n
        }
        #expect(try await task.value == 10)
        try await Task.sleep(for: .milliseconds(200))
        let after = transport.chunksTaken
        try await Task.sleep(for: .milliseconds(200))
        #expect(transport.chunksTaken == after && after < body.count / 100 / 10, "\(after) chunks")
    }
}
