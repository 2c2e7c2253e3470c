/// Which page to ask for. JSON:API reserves the `page` family of parameters; these are the
/// three strategies servers use.
public enum PageRequest: Sendable, Hashable {
    /// `page[number]` (from 1) and `page[size]`.
    case number(Int, size: Int? = nil)
    /// `page[offset]` (from 0) and `page[limit]`.
    case offset(Int, limit: Int)
    /// `page[cursor]` (opaque; `nil` for the first page) and `page[size]`. Cursor pages are
    /// followed through `links.next` only: their addresses cannot be predicted.
    case cursor(String?, size: Int? = nil)
    /// Parameters of another shape.
    case custom([QueryItem])

    /// The first page of `size` items under a strategy.
    public static func first(_ strategy: PageStrategy, size: Int) -> PageRequest {
        switch strategy {
        case .number: .number(1, size: size)
        case .offset: .offset(0, limit: size)
        case .cursor: .cursor(nil, size: size)
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
        case .custom(let items):
            return items
        }
    }
}

/// The page strategies, by name (the command's `--pagination`).
public enum PageStrategy: String, Sendable, CaseIterable {
    case number, offset, cursor
}
