/// Which page to ask for. JSON:API reserves the `page` family of parameters; these are the
/// strategies servers use.
public enum PageRequest: Sendable, Hashable {
    /// `page[number]` (from 1) and `page[size]`.
    case number(Int, size: Int? = nil)
    /// `page[offset]` (from 0) and `page[limit]`.
    case offset(Int, limit: Int)
    /// `page[cursor]` (opaque; `nil` for the first page) and `page[size]`. Cursor pages are
    /// followed through `links.next` only: their addresses cannot be predicted.
    case cursor(String?, size: Int? = nil)
    /// The Cursor Pagination profile's `page[size]`, `page[after]` and `page[before]`
    /// (``JSONAPIStream/CursorPagination``): the items after one cursor, before another, or
    /// (both) between them. Followed through `links.next` (or `links.prev` backwards).
    case cursorProfile(size: Int? = nil, after: String? = nil, before: String? = nil)
    /// Parameters of another shape.
    case custom([QueryItem])

    /// The first page of `size` items under a strategy.
    public static func first(_ strategy: PageStrategy, size: Int) -> PageRequest {
        switch strategy {
        case .number: .number(1, size: size)
        case .offset: .offset(0, limit: size)
        case .cursor: .cursor(nil, size: size)
        case .cursorProfile: .cursorProfile(size: size)
        }
    }

    var items: [QueryItem] {
        switch self {
        case .number(let n, let size):
            return [QueryItem("page[number]", String(n))] + (size.map { [QueryItem("page[size]", String($0))] } ?? [])
        case .offset(let offset, let limit):
            return [QueryItem("page[offset]", String(offset)), QueryItem("page[limit]", String(limit))]
        case .cursor(let cursor, let size):
            return (cursor.map { [QueryItem("page[cursor]", $0)] } ?? []) + (size.map { [QueryItem("page[size]", String($0))] } ?? [])
        case .cursorProfile(let size, let after, let before):
            return (size.map { [QueryItem("page[size]", String($0))] } ?? []) + (after.map { [QueryItem("page[after]", $0)] } ?? [])
                + (before.map { [QueryItem("page[before]", $0)] } ?? [])
        case .custom(let items):
            return items
        }
    }
}

/// The page strategies, by name (the command's `--pagination`).
public enum PageStrategy: String, Sendable, CaseIterable {
    case number, offset
    /// `page[cursor]` (Django REST framework's cursor pagination).
    case cursor
    /// The Cursor Pagination profile's `page[size]`, `page[after]`, `page[before]`.
    case cursorProfile = "cursor-profile"
}
