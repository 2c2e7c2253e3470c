import Foundation
import JSONAPIStream

/// Where fetched documents go. Each response body is one input, fed chunk by chunk as it
/// arrives from the network; the consumer never sees a whole body at once.
///
/// ``JSONAPIStream/GraphParser`` (a graph of every page) and ``JSONAPIStream/Normalizer``
/// (NDJSON, flat JSON or edges, written as they stream) are consumers. Calls come from one
/// internal queue, one at a time, never concurrently.
public protocol DocumentConsumer: AnyObject {
    /// Starts one response body; positions in its errors count from its first byte.
    func beginDocument(named name: String) throws(JSONAPIError)
    /// The next piece of the body, valid only during the call.
    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError)
    /// Ends the body and returns the top-level `links` and `meta` of its document (the
    /// crawl reads `links.next` here).
    func endDocument() throws(JSONAPIError) -> DocumentTopLevel?
    /// Resources read so far, for progress reports.
    var resourcesRead: Int { get }

    /// Starts one response body, with the response's headers (names in lower case): a
    /// consumer that stores pages keeps the `etag` here. By default, ``beginDocument(named:)``.
    func beginDocument(named name: String, headers: [String: String]) throws(JSONAPIError)
    /// What the consumer stored of the page at `url` when it read it before: a crawl then asks
    /// for the page with `If-None-Match` and, when the server answers `304 Not Modified`,
    /// calls ``pageUnchanged(at:_:)`` and goes on to the stored `next` without a body. By
    /// default nil: every page is requested in full.
    func storedPage(at url: URL) throws(JSONAPIError) -> StoredPage?
    /// The page at `url` is unchanged since it was stored (`304 Not Modified`): no body comes.
    /// By default, nothing.
    func pageUnchanged(at url: URL, _ page: StoredPage) throws(JSONAPIError)
}

extension DocumentConsumer {
    /// Starts the body without looking at the headers.
    public func beginDocument(named name: String, headers: [String: String]) throws(JSONAPIError) {
        try beginDocument(named: name)
    }

    /// No page is stored: every page is requested in full.
    public func storedPage(at url: URL) throws(JSONAPIError) -> StoredPage? { nil }

    /// Nothing to do.
    public func pageUnchanged(at url: URL, _ page: StoredPage) throws(JSONAPIError) {}
}

/// A page a consumer read before and stored: enough to revalidate it (`If-None-Match`) and,
/// when it is unchanged, to go on without its body.
public struct StoredPage: Sendable, Hashable {
    /// The page's `ETag` when it was read.
    public var etag: String
    /// The page's `links.next` (absolute, or relative to the page's URL), nil for the last page.
    public var next: String?

    /// A stored page with its ETag and `links.next`.
    public init(etag: String, next: String?) {
        self.etag = etag
        self.next = next
    }
}

/// Any of the library's readers is a consumer: each response body is one input, named by its
/// URL, with its top level recorded for the crawl.
extension DocumentConsumer where Self: StreamingReader {
    /// Starts a response body as a new input named `name` (the URL), recording its top level.
    public func beginDocument(named name: String) throws(JSONAPIError) {
        recordsTopLevel = true
        try beginInput(named: name)
    }

    /// Ends the body and returns its document's top-level `links` and `meta`.
    public func endDocument() throws(JSONAPIError) -> DocumentTopLevel? {
        try endInput()
        return lastDocument
    }
}

extension GraphParser: DocumentConsumer {}
extension Normalizer: DocumentConsumer {}
extension DocumentStream: DocumentConsumer {}
