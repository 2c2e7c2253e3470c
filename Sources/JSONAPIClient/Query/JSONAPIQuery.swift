import Foundation

/// The query of a JSON:API fetch: `include`, sparse fieldsets (`fields[TYPE]`), filters,
/// `sort`, a page, and any other parameters, written in that order and percent-encoded.
///
/// ```swift
/// let query = JSONAPIQuery()
///     .including("author", "comments.author")
///     .fields("articles", "title", "author")
///     .filter("rating", op: "gte", "4")
///     .sorted(by: "-published_at", "title")
///     .page(.number(1, size: 100))
/// query.percentEncodedQuery
/// // include=author,comments.author&fields%5Barticles%5D=title,author&filter%5Brating%5D%5Bgte%5D=4&sort=-published_at,title&page%5Bnumber%5D=1&page%5Bsize%5D=100
/// ```
public struct JSONAPIQuery: Sendable {
    /// Relationship paths for `include` (dotted: `comments.author`).
    public var include: [String] = []
    /// Sparse fieldsets, one per type, in the order they were set.
    public private(set) var fieldsets: [(type: String, fields: [String])] = []
    /// Filters, written as the strategy says.
    public var filters: [Filter] = []
    /// How filters are written into the query (`filter[field]=value` by default).
    public var filterStrategy: FilterStrategy = .brackets
    /// Sort fields; a leading `-` sorts descending.
    public var sort: [String] = []
    /// The page to ask for, when any.
    public var page: PageRequest?
    /// Other parameters, written last.
    public var parameters: [QueryItem] = []

    /// An empty query.
    public init() {}

    // MARK: Building

    /// Adds `include` paths.
    public func including(_ paths: String...) -> JSONAPIQuery { including(paths) }

    /// The query with these relationship paths added to `include`.
    public func including(_ paths: [String]) -> JSONAPIQuery {
        var q = self
        q.include += paths
        return q
    }

    /// Sets the fieldset of `type` (replacing an earlier one).
    public func fields(_ type: String, _ fields: String...) -> JSONAPIQuery { self.fields(type, fields) }

    /// The query with a sparse fieldset for `type`.
    public func fields(_ type: String, _ fields: [String]) -> JSONAPIQuery {
        var q = self
        q.setFields(type, fields)
        return q
    }

    /// Sets the fieldset of `type` (replacing an earlier one).
    public mutating func setFields(_ type: String, _ fields: [String]) {
        if let i = fieldsets.firstIndex(where: { $0.type == type }) {
            fieldsets[i].fields = fields
        } else {
            fieldsets.append((type, fields))
        }
    }

    /// Adds a filter condition.
    public func filter(_ field: String, op: String? = nil, _ values: String...) -> JSONAPIQuery {
        filter(Filter(field, op: op, values))
    }

    /// The query with `filter` added.
    public func filter(_ filter: Filter) -> JSONAPIQuery {
        var q = self
        q.filters.append(filter)
        return q
    }

    /// Writes filters with `strategy`.
    public func filterStrategy(_ strategy: FilterStrategy) -> JSONAPIQuery {
        var q = self
        q.filterStrategy = strategy
        return q
    }

    /// Adds sort fields (`-name` for descending).
    public func sorted(by fields: String...) -> JSONAPIQuery {
        var q = self
        q.sort += fields
        return q
    }

    /// The query asking for `page`.
    public func page(_ page: PageRequest) -> JSONAPIQuery {
        var q = self
        q.page = page
        return q
    }

    /// Adds another parameter (`name` and `value` unencoded).
    public func parameter(_ name: String, _ value: String) -> JSONAPIQuery {
        var q = self
        q.parameters.append(QueryItem(name, value))
        return q
    }

    // MARK: Output

    /// The parameters, decoded, in the order they are written.
    public var items: [QueryItem] {
        var out: [QueryItem] = []
        if !include.isEmpty { out.append(QueryItem("include", list: include)) }
        for f in fieldsets { out.append(QueryItem("fields[\(f.type)]", list: f.fields)) }
        for f in filters { out += filterStrategy.items(f) }
        if !sort.isEmpty { out.append(QueryItem("sort", list: sort)) }
        out += page?.items ?? []
        out += parameters
        return out
    }

    /// The query component, percent-encoded (without the `?`); empty when there are no
    /// parameters.
    public var percentEncodedQuery: String { items.map(\.encoded).joined(separator: "&") }

    /// `url` with this query appended to its own (an existing query is kept in front).
    public func applied(to url: URL) -> URL {
        let query = percentEncodedQuery
        guard !query.isEmpty, var c = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        if let existing = c.percentEncodedQuery, !existing.isEmpty {
            c.percentEncodedQuery = existing + "&" + query
        } else {
            c.percentEncodedQuery = query
        }
        return c.url ?? url
    }
}
