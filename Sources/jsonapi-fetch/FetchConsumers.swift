// Where a crawl's pages go: the normalizer's writers, or a database.
import ArgumentParser
import Foundation
import JSONAPIClient
import JSONAPICommandSupport
import JSONAPILoad
import JSONAPIStream

/// The normalizer as the crawl's consumer: after each page's document ends, what it wrote
/// (whole lines) goes out, so a crawl that fails or is killed later has lost nothing it read.
final class PageFlushingConsumer: DocumentConsumer {
    let normalizer: Normalizer
    let writer: ByteWriter
    let flushes: Bool

    init(normalizer: Normalizer, writer: ByteWriter, flushes: Bool) {
        self.normalizer = normalizer
        self.writer = writer
        self.flushes = flushes
    }

    func beginDocument(named name: String) throws(JSONAPIError) { try normalizer.beginDocument(named: name) }

    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) { try normalizer.feed(chunk) }

    func endDocument() throws(JSONAPIError) -> DocumentTopLevel? {
        let top = try normalizer.endDocument()
        if flushes { try writer.flush() }
        return top
    }

    var resourcesRead: Int { normalizer.resourcesRead }
}

/// Feeds each fetched page to a ``DocumentStream`` whose sink is the database loader: one
/// input, one document, one transaction per page.
final class LoadingConsumer: DocumentConsumer {
    let stream: DocumentStream
    let loader: any DatabaseLoader
    /// Whether stored pages are revalidated with their ETags (not after --restart).
    let revalidates: Bool

    init(loader: any DatabaseLoader, options: DocumentOptions, revalidates: Bool) {
        self.loader = loader
        self.revalidates = revalidates
        stream = DocumentStream(options: options, keyedSinks: [loader])
        stream.recordsTopLevel = true
    }

    /// Keeps the page's ETag, stored with it when its document commits.
    func beginDocument(named name: String, headers: [String: String]) throws(JSONAPIError) {
        loader.nextPageETag = headers["etag"]
        try beginDocument(named: name)
    }

    /// The page's ETag and `links.next` from the database, when it was loaded before.
    func storedPage(at url: URL) throws(JSONAPIError) -> StoredPage? {
        guard revalidates, let page = try loader.storedPage(url: SQLiteLoader.crawlEndpoint(url)) else { return nil }
        return StoredPage(etag: page.etag, next: page.next)
    }

    /// An unchanged page: the crawl's place moves on; nothing else is written.
    func pageUnchanged(at url: URL, _ page: StoredPage) throws(JSONAPIError) {
        try loader.recordUnchangedPage(url: SQLiteLoader.crawlEndpoint(url), next: page.next)
    }

    func beginDocument(named name: String) throws(JSONAPIError) {
        loader.beginInput()
        // The page's URL names the document in the database: without user and password.
        try stream.beginInput(named: URL(string: name).map(SQLiteLoader.crawlEndpoint) ?? name)
    }

    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) { try stream.feed(chunk) }

    func endDocument() throws(JSONAPIError) -> DocumentTopLevel? {
        try stream.endInput()
        return stream.lastDocument
    }

    var resourcesRead: Int { stream.resourcesRead }
}
