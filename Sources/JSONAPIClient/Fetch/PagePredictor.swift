import Foundation

/// Predicts the addresses of the pages after the current one, so they can be fetched
/// ahead: when two consecutive page URLs differ in exactly one query parameter, an integer
/// that moves by a fixed step (`page[number]` 2 → 3, `page[offset]` 100 → 200), and the
/// server's `links.last` names the end in the same parameter. Cursor pages, or links of any
/// other shape, give no predictor: those crawls follow `links.next` one page at a time.
struct PagePredictor: Sendable {
    /// The URL of the page the values count from, with its query items.
    private let template: URL
    private let items: [QueryItem]
    private let parameter: String
    private let start: Int
    private let step: Int
    private let end: Int

    /// From the URL of one page, the next one's, and `links.last`.
    init?(current: URL, next: URL, last: URL?) {
        guard let last, sameResource(current, next), sameResource(next, last),
            let a = PagePredictor.items(current), let b = PagePredictor.items(next), let l = PagePredictor.items(last),
            a.count == b.count
        else { return nil }
        var moving: (name: String, from: Int, to: Int)?
        for (x, y) in zip(a.sorted(by: PagePredictor.order), b.sorted(by: PagePredictor.order)) {
            guard x.name == y.name else { return nil }
            if x.value == y.value { continue }
            guard moving == nil, let from = Int(x.value), let to = Int(y.value), to > from else { return nil }
            moving = (x.name, from, to)
        }
        guard let moving, let end = l.first(where: { $0.name == moving.name }).flatMap({ Int($0.value) }), end >= moving.to else { return nil }
        template = next
        items = b
        parameter = moving.name
        start = moving.to
        step = moving.to - moving.from
        self.end = end
    }

    /// The URL `k` pages after the `next` page given at creation (`k = 0` is that page);
    /// `nil` past `links.last`.
    func url(after k: Int) -> URL? {
        let (product, overflow) = step.multipliedReportingOverflow(by: k)
        guard !overflow, start <= end - product else { return nil }
        let value = start + product
        guard var c = URLComponents(url: template, resolvingAgainstBaseURL: true) else { return nil }
        c.percentEncodedQuery = items.map { $0.name == parameter ? QueryItem(parameter, String(value)).encoded : $0.encoded }
            .joined(separator: "&")
        return c.url
    }

    private static func items(_ url: URL) -> [QueryItem]? {
        let query = URLComponents(url: url, resolvingAgainstBaseURL: true)?.percentEncodedQuery ?? ""
        return QueryEncoding.items(ofEncodedQuery: query)
    }

    private static func order(_ a: QueryItem, _ b: QueryItem) -> Bool {
        a.name == b.name ? a.value < b.value : a.name < b.name
    }
}

/// Whether two URLs name the same resource: scheme, host, port and path.
func sameResource(_ a: URL, _ b: URL) -> Bool {
    guard let x = URLComponents(url: a, resolvingAgainstBaseURL: true), let y = URLComponents(url: b, resolvingAgainstBaseURL: true) else { return false }
    return x.scheme?.lowercased() == y.scheme?.lowercased() && x.host?.lowercased() == y.host?.lowercased()
        && x.port == y.port && x.percentEncodedPath == y.percentEncodedPath
}

/// Whether two URLs ask for the same thing: the same resource and the same query items in
/// any order, compared decoded (`%2C` and `,` are the same).
func sameRequest(_ a: URL, _ b: URL) -> Bool {
    guard sameResource(a, b) else { return false }
    let qa = URLComponents(url: a, resolvingAgainstBaseURL: true)?.percentEncodedQuery ?? ""
    let qb = URLComponents(url: b, resolvingAgainstBaseURL: true)?.percentEncodedQuery ?? ""
    guard let x = QueryEncoding.items(ofEncodedQuery: qa), let y = QueryEncoding.items(ofEncodedQuery: qb) else { return qa == qb }
    func key(_ i: QueryItem) -> String { i.name + "\u{0}" + i.value }
    return x.map(key).sorted() == y.map(key).sorted()
}
