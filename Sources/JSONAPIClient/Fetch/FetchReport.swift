import JSONAPIStream

/// Which pages a fetch reads.
public struct PageFollowing: Sendable, Hashable {
    /// Pages at most (`Int.max`: until `links.next` is absent or `null`).
    public var maxPages: Int
    /// Requests in flight at most. Pages after the current one are fetched ahead only when
    /// their addresses can be predicted (one integer page parameter that moves by a fixed
    /// step, and a `links.last`); they wait in a buffer (memory, then a temporary file)
    /// until their turn, so documents still reach the consumer in page order.
    public var concurrency: Int
    /// Whether the crawl follows `links.prev` instead of `links.next` (a cursor-paginated
    /// collection read backwards from a `page[before]`).
    public var backwards: Bool

    /// Follows up to `maxPages` pages with up to `concurrency` requests in flight (each at
    /// least 1), through `links.prev` when `backwards`.
    public init(maxPages: Int = .max, concurrency: Int = 4, backwards: Bool = false) {
        self.maxPages = max(1, maxPages)
        self.concurrency = max(1, concurrency)
        self.backwards = backwards
    }

    /// Only the page asked for.
    public static let first = PageFollowing(maxPages: 1, concurrency: 1)

    /// Every page, following `links.next` (`links.prev` when `backwards`).
    public static func all(maxPages: Int = .max, concurrency: Int = 4, backwards: Bool = false) -> PageFollowing {
        PageFollowing(maxPages: maxPages, concurrency: concurrency, backwards: backwards)
    }
}

/// How far a fetch has come; handed to a progress callback as the body streams.
public struct FetchProgress: Sendable, Hashable {
    /// Pages whose documents are complete.
    public var pages: Int
    /// Resources read (primary and included).
    public var resources: Int
    /// Body bytes read.
    public var bytes: Int
    /// Seconds since the fetch started.
    public var seconds: Double

    /// Body megabytes (10⁶ bytes) per second.
    public var megabytesPerSecond: Double { seconds > 0 ? Double(bytes) / 1e6 / seconds : 0 }
}

/// What a fetch did.
public struct FetchReport: Sendable {
    /// Pages read, in order.
    public var pages: Int
    /// Resources read (primary and included, each occurrence).
    public var resources: Int
    /// Body bytes read.
    public var bytes: Int
    /// Requests sent, retries and pages fetched ahead but not used included.
    public var requests: Int
    /// Pages answered `304 Not Modified`: revalidated responses of the cache, or pages
    /// unchanged since the consumer stored them (``DocumentConsumer/storedPage(at:)``).
    public var notModified: Int
    /// Pages answered by the cache without a request (fresh, or under
    /// ``CachePolicy/onlyIfCached``).
    public var fromCache: Int
    /// Seconds from the first request to the end of the last body.
    public var seconds: Double
    /// The top-level `links` and `meta` of the last page.
    public var lastDocument: DocumentTopLevel?
    /// Whether the crawl stopped at ``PageFollowing/maxPages`` with a `links.next` left.
    public var truncated: Bool

    /// Resources per second.
    public var resourcesPerSecond: Double { seconds > 0 ? Double(resources) / seconds : 0 }
}
