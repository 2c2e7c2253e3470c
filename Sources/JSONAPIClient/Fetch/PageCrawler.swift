import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Logging

/// Reads a paginated collection: each page's body streams into the consumer, in page order,
/// and the page's `links.next` (read from the consumer once the page's document is
/// complete) names the one after it.
///
/// With ``PageFollowing/concurrency`` above 1 and predictable page URLs (see
/// ``PagePredictor``), that many pages are requested at once: the page whose turn it is
/// streams straight into the consumer, the ones after it wait in a ``PageBuffer``. Each
/// page's `links.next` is checked against the prediction; a mismatch cancels the pages
/// fetched ahead and the crawl goes on one page at a time.
final class PageCrawler: Sendable {
    private let transport: RequestSender
    private let following: PageFollowing
    private let consumer: ConsumerBox
    private let makeRequest: @Sendable (URL) -> URLRequest
    private let counter = RequestCounter()
    private let ahead = AheadPages()

    init(transport: RequestSender, following: PageFollowing, consumer: ConsumerBox, makeRequest: @escaping @Sendable (URL) -> URLRequest) {
        self.transport = transport
        self.following = following
        self.consumer = consumer
        self.makeRequest = makeRequest
    }

    /// Reads the page at `first` and, as ``PageFollowing`` says, the pages after it.
    ///
    /// - Throws: ``JSONAPIClientError``, or `CancellationError`.
    func run(from first: URL) async throws -> FetchReport {
        let start = DispatchTime.now().uptimeNanoseconds
        let ahead = ahead
        defer { ahead.cancelAll() }
        return try await withTaskCancellationHandler {
            try await crawl(from: first, start: start)
        } onCancel: {
            ahead.cancelAll()
        }
    }

    private func crawl(from first: URL, start: UInt64) async throws -> FetchReport {
        let consumer = consumer
        var url: URL? = first
        var previous: URL?
        let home = Origin(first)
        var index = 0
        var notModified = 0
        var fromCache = 0
        var seen: Set<String> = []
        // Forwards through links.next, backwards through links.prev.
        let onward = following.backwards ? "prev" : "next"
        var predicting = following.concurrency > 1 && !following.backwards
        var resized = false
        var predictor: (PagePredictor, base: Int)?
        var lastDocument: DocumentTopLevel?
        var truncated = false
        while let current = url {
            try Task.checkCancellation()
            guard index < following.maxPages else {
                truncated = true
                break
            }
            guard seen.insert(current.absoluteString).inserted else {
                throw JSONAPIClientError.pagination("links.\(onward) of page \(index) leads back to \(current.absoluteString), a page already read")
            }
            // A page the consumer stored: asked for with its ETag, and skipped when unchanged.
            let stored = try await transport.consume(current) { () throws(JSONAPIError) in try consumer.consumer.storedPage(at: current) }
            if stored != nil && predicting {
                // Revalidating goes one page at a time: pages fetched ahead come in full.
                predicting = false
                predictor = nil
                ahead.cancelAll()
            }
            let slot: PageSlot
            let response: RequestSender.Response
            let early = stored == nil ? ahead.take(index) : nil
            if let page = early, sameRequest(page.url, current) {
                slot = page.slot
                try await transport.consume(current) { () throws(JSONAPIError) in try slot.attach(consumer) }
                response = try await withTaskCancellationHandler {
                    try await page.task.value
                } onCancel: {
                    page.task.cancel()
                }
            } else {
                early?.task.cancel()
                if ahead.cancelAll() > 0 || early != nil {
                    // The server's links differ from the prediction: no more guessing.
                    transport.configuration.logger.debug("links.next differs from the predicted page; reading one page at a time from here")
                    predicting = false
                    predictor = nil
                }
                slot = PageSlot(name: current.absoluteString, consumer: consumer)
                var request = makeRequest(current)
                if let stored { request.setValue(stored.etag, forHTTPHeaderField: "If-None-Match") }
                do {
                    response = try await transport.send(
                        request, slot: slot, conditional: true, counter: counter, home: home, linkedFrom: previous,
                        what: index == 0 ? "the request" : "links.\(onward) of page \(index)")
                } catch let error as JSONAPIClientError {
                    // The Cursor Pagination profile's max-size-exceeded with the largest size
                    // allowed: asked again once at that size.
                    guard !resized, let (smaller, size) = Self.resized(current, after: error) else { throw error }
                    resized = true
                    transport.configuration.logger.warning(
                        "the server allows at most \(size) items per page (max-size-exceeded); asking again with page[size]=\(size)")
                    seen.remove(current.absoluteString)
                    url = smaller
                    continue
                }
            }
            if response.notModified { notModified += 1 }
            if response.fromCache { fromCache += 1 }
            if let stored, response.notModified {
                try await transport.consume(current) { () throws(JSONAPIError) in try consumer.consumer.pageUnchanged(at: current, stored) }
                index += 1
                previous = current
                url = stored.next.flatMap { URL(string: $0, relativeTo: current)?.absoluteURL }
                continue
            }
            guard let top = try await transport.consume(current, { () throws(JSONAPIError) in try slot.finish() }) else {
                throw JSONAPIClientError.notJSONAPI(
                    HTTPFailure(
                        status: response.status, method: "GET", url: current, contentType: response.headers["content-type"],
                        excerpt: "(no body)", attempts: response.attempts))
            }
            response.cacheWriter?.keep(logger: transport.configuration.logger)
            lastDocument = top
            index += 1
            if transport.configuration.logger.logLevel <= .info {
                let progress = try await transport.onQueue { consumer.snapshot }
                transport.configuration.logger.info(
                    "page \(index) read: \(current.absoluteString)",
                    metadata: [
                        "resources": "\(progress.resources)", "bytes": "\(progress.bytes)", "seconds": "\(RequestLog.seconds(progress.seconds))",
                        "status": "\(response.status)",
                    ])
            }
            let next = top?.link(onward).flatMap { URL(string: $0, relativeTo: current)?.absoluteURL }
            if predicting, let next {
                if predictor == nil {
                    let last = top?.link("last").flatMap { URL(string: $0, relativeTo: current)?.absoluteURL }
                    predictor = PagePredictor(current: current, next: next, last: last).map { ($0, index) }
                    if predictor != nil {
                        transport.configuration.logger.debug(
                            "page addresses are predictable (links.next and links.last): up to \(following.concurrency) pages requested at once")
                    }
                }
                if let (p, base) = predictor, !Task.isCancelled { schedule(p, base: base, from: index, home: home) }
            }
            previous = current
            url = next
        }
        let resources = try await transport.onQueue { consumer.consumer.resourcesRead }
        let bytes = try await transport.onQueue { consumer.bytes }
        return FetchReport(
            pages: index, resources: resources, bytes: bytes, requests: counter.value,
            notModified: notModified, fromCache: fromCache, seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9,
            lastDocument: lastDocument, truncated: truncated)
    }

    /// `url` with its `page[size]` lowered to the largest size a Cursor Pagination
    /// max-size-exceeded `error` allows, and that size; `nil` when the error is another, says
    /// no size, or the size asked for is not larger.
    static func resized(_ url: URL, after error: JSONAPIClientError) -> (URL, Int)? {
        let sizes = error.cursorPaginationErrors.compactMap { e -> Int? in
            if case .maxSizeExceeded(let size?) = e, size >= 1 { return size }
            return nil
        }
        guard let size = sizes.min(), var parts = URLComponents(url: url, resolvingAgainstBaseURL: true),
            var items = parts.percentEncodedQueryItems,
            let i = items.firstIndex(where: { $0.name.removingPercentEncoding == "page[size]" }),
            let asked = items[i].value.flatMap({ Int($0) }), asked > size
        else { return nil }
        items[i].value = String(size)
        parts.percentEncodedQueryItems = items
        return parts.url.map { ($0, size) }
    }

    /// Requests pages `head ..< head + concurrency` not yet requested, as far as the
    /// predictor (and ``PageFollowing/maxPages``) reach.
    private func schedule(_ predictor: PagePredictor, base: Int, from head: Int, home: Origin?) {
        let end = min(following.maxPages, head + following.concurrency)
        guard head < end else { return }
        for index in head..<end where !ahead.contains(index) {
            guard let url = predictor.url(after: index - base) else { return }
            let slot = PageSlot(name: url.absoluteString)
            let request = makeRequest(url)
            let transport = transport
            let counter = counter
            let task = Task {
                try await transport.send(request, slot: slot, conditional: true, counter: counter, home: home, what: "a predicted page")
            }
            ahead.keep(index, AheadPage(url: url, slot: slot, task: task))
        }
    }
}

/// A page requested before its turn.
struct AheadPage: Sendable {
    var url: URL
    var slot: PageSlot
    var task: Task<RequestSender.Response, Error>
}

/// The pages requested ahead, by page index; safe to cancel from any thread.
final class AheadPages: @unchecked Sendable {
    private let lock = NSLock()
    private var pages: [Int: AheadPage] = [:]

    func keep(_ index: Int, _ page: AheadPage) { lock.withLock { pages[index] = page } }

    func take(_ index: Int) -> AheadPage? { lock.withLock { pages.removeValue(forKey: index) } }

    func contains(_ index: Int) -> Bool { lock.withLock { pages[index] != nil } }

    /// Cancels every page requested ahead; returns how many there were.
    @discardableResult
    func cancelAll() -> Int {
        let all = lock.withLock { () -> [AheadPage] in
            defer { pages.removeAll() }
            return Array(pages.values)
        }
        for p in all { p.task.cancel() }
        return all.count
    }
}
