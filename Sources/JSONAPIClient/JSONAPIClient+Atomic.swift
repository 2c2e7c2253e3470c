import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream

extension JSONAPIClient {
    /// Sends `operations` (JSON:API's Atomic Operations extension) to the server's operations
    /// endpoint, `path` relative to the base URL, as one request: the server does them all or
    /// none.
    ///
    /// ```swift
    /// var operations = AtomicOperations()
    /// try operations.add(author)        // lid "a1"
    /// try operations.add(article)       // its author: {"type":"authors","lid":"a1"}
    /// let results = try await client.send(operations)
    /// print(results.ids["a1"] ?? "")    // the id the server gave the author
    /// ```
    ///
    /// The request and the response are of ``JSONAPIStream/AtomicOperations/mediaType``. A
    /// failing operation comes back as ``JSONAPIClientError/server(_:)``, its error's
    /// `source.pointer` naming the operation (`/atomic:operations/1/data/attributes/title`).
    ///
    /// - Returns: One result per operation (none for a `204 No Content`), with the ids the
    ///   server gave the resources added under a `lid`.
    /// - Throws: ``JSONAPIClientError``, or `CancellationError`.
    public func send(_ operations: AtomicOperations, to path: String = "operations") async throws -> AtomicResults {
        let url = try url(path)
        var request = Self.request(url, method: "POST", body: operations.document())
        request.setValue(AtomicOperations.mediaType, forHTTPHeaderField: "Content-Type")
        request.setValue(AtomicOperations.mediaType, forHTTPHeaderField: "Accept")
        // The results are read whole (the streaming parsers do not read them): bounded by the
        // documents' input limit, 64 MiB when none is set.
        let collector = BodyCollector(limit: configuration.documentOptions.parse.limits.maxInputBytes ?? 64 << 20)
        let slot = PageSlot(name: "POST \(url.absoluteString)", consumer: ConsumerBox(collector, progress: nil))
        let response = try await transport.send(request, slot: slot, conditional: false)
        guard try await transport.consume(url, { () throws(JSONAPIError) in try slot.finish() }) != nil, response.status != 204 else {
            return AtomicResults()
        }
        let body = collector.bytes
        do throws(JSONAPIError) {
            return try AtomicResults(parsing: body, operations: operations, options: configuration.documentOptions)
        } catch {
            throw JSONAPIClientError.invalidDocument(url: url, error: error)
        }
    }
}

/// A response body kept whole (bounded), for a document the streaming parsers do not read
/// (`atomic:results`). Used on the request sender's queue only.
final class BodyCollector: DocumentConsumer, @unchecked Sendable {
    private let limit: Int
    private(set) var bytes: [UInt8] = []

    init(limit: Int) { self.limit = limit }

    func beginDocument(named name: String) throws(JSONAPIError) { bytes = [] }

    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        guard bytes.count + chunk.count <= limit else {
            throw JSONAPIError.input("the response is larger than \(limit) bytes")
        }
        bytes.append(contentsOf: chunk)
    }

    func endDocument() throws(JSONAPIError) -> DocumentTopLevel? { nil }

    var resourcesRead: Int { 0 }
}
