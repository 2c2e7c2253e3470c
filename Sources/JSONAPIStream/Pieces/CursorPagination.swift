/// The "Cursor Pagination" profile
/// (<https://jsonapi.org/profiles/ethanresnick/cursor-pagination>): `page[size]`,
/// `page[after]` and `page[before]` in the query, each item's cursor in its
/// `meta.page.cursor`, what the server says of the page in the document's `meta.page`, and the
/// profile's four kinds of error.
///
/// ```swift
/// let page = CursorPagination.Page(graph.meta)
/// if page.rangeTruncated { print("more items in the range than one page holds") }
/// let last = graph.primary.last?.pageCursor   // for page[after]
/// for error in graph.errors {
///     if case .maxSizeExceeded(let max)? = error.cursorPaginationError { print("at most \(max ?? 0)") }
/// }
/// ```
public enum CursorPagination {
    /// The profile's URI, as `jsonapi.profile`, the `profile` media-type parameter and
    /// `links.profile` name it.
    public static let profile = "https://jsonapi.org/profiles/ethanresnick/cursor-pagination"

    /// What a page's document says of the page (`meta.page`).
    public struct Page: Sendable, Hashable {
        /// `rangeTruncated`: a request with both `page[after]` and `page[before]` found more
        /// items between them than the page holds (the page has the first ones).
        public var rangeTruncated: Bool
        /// `total`: the exact number of items in the collection, when the server says.
        public var total: Int?
        /// `estimatedTotal.bestGuess`: the server's estimate of the number of items.
        public var estimatedTotal: Int?

        /// The members of `meta` (a document's top-level `meta`); all absent when it has no
        /// `page` object.
        public init(_ meta: LazyValue?) {
            let page = meta?["page"]
            rangeTruncated = page?["rangeTruncated"]?.bool ?? false
            total = page?["total"]?.number?.intValue
            estimatedTotal = page?["estimatedTotal"]?["bestGuess"]?.number?.intValue
        }

        /// A page description with these members.
        public init(rangeTruncated: Bool = false, total: Int? = nil, estimatedTotal: Int? = nil) {
            self.rangeTruncated = rangeTruncated
            self.total = total
            self.estimatedTotal = estimatedTotal
        }
    }
}

/// The profile's errors, told by their `links.type` (the profile's URI followed by
/// `/max-size-exceeded`, `/invalid-parameter-value`, `/range-pagination-not-supported` or
/// `/unsupported-sort`; a `code` with that last segment counts too).
public enum CursorPaginationError: Sendable, Hashable {
    /// `page[size]` is larger than the server allows; `maxSize` is the largest it allows
    /// (`meta.page.maxSize`), when it says.
    case maxSizeExceeded(maxSize: Int?)
    /// A page parameter (`source.parameter`: `page[size]`, `page[after]`, `page[before]`) has
    /// a value the server cannot use.
    case invalidParameterValue(parameter: String?)
    /// The server does not take `page[after]` and `page[before]` together.
    case rangePaginationNotSupported
    /// The server cannot paginate the collection in the order `sort` asks for.
    case unsupportedSort
}

extension ErrorObject {
    /// The Cursor Pagination profile's error this one is, if any.
    public var cursorPaginationError: CursorPaginationError? {
        let prefix = CursorPagination.profile + "/"
        var kind: Substring?
        if let type = links["type"]?.href {
            var href = Substring(type)
            if href.hasPrefix("http://") { href = Substring("https://" + href.dropFirst(7)) }
            if href.hasPrefix(prefix) { kind = href.dropFirst(prefix.count) }
        }
        if kind == nil, let code { kind = Substring(code) }
        switch kind {
        case "max-size-exceeded": return .maxSizeExceeded(maxSize: meta?["page"]?["maxSize"]?.numberValue?.intValue)
        case "invalid-parameter-value": return .invalidParameterValue(parameter: source?.parameter)
        case "range-pagination-not-supported": return .rangePaginationNotSupported
        case "unsupported-sort": return .unsupportedSort
        default: return nil
        }
    }
}

extension Resource {
    /// The item's cursor under the Cursor Pagination profile (`meta.page.cursor`): the value
    /// for `page[after]` (items after it) or `page[before]`.
    public var pageCursor: String? { meta?["page"]?["cursor"]?.string }
}
