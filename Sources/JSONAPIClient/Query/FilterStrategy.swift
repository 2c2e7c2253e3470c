/// One filter condition: a field, an optional operator (`icontains`, `gte`, `in`…) and one
/// or more values. JSON:API reserves the `filter` family of parameters and leaves their
/// shape to the server: a ``FilterStrategy`` writes a condition the way a server expects.
public struct Filter: Sendable, Hashable {
    /// The field filtered on (`author.name` for a related field).
    public var field: String
    /// The operator, when the server takes one (`gt`, `contains`).
    public var op: String?
    /// The values (several are written comma-separated).
    public var values: [String]

    /// A filter on `field` with several values.
    public init(_ field: String, op: String? = nil, _ values: [String]) {
        self.field = field
        self.op = op
        self.values = values
    }

    /// A filter on `field` with one value.
    public init(_ field: String, op: String? = nil, _ value: String) {
        self.init(field, op: op, [value])
    }
}

/// How a ``Filter`` becomes query parameters.
///
/// | strategy | `Filter("rating", op: "gte", "4")` |
/// |---|---|
/// | ``brackets`` (the default) | `filter[rating][gte]=4` |
/// | ``dotted`` (django-filter, djangorestframework-jsonapi) | `filter[rating.gte]=4` |
/// | ``custom(_:)`` | whatever the closure returns |
///
/// Several values are joined with literal commas (`filter[id]=1,2,3`); a comma inside one
/// value is percent-encoded.
public struct FilterStrategy: Sendable {
    let items: @Sendable (Filter) -> [QueryItem]

    /// Builds each condition's parameters with `items` (``QueryItem/init(_:list:)`` writes a
    /// comma-separated list).
    public static func custom(_ items: @escaping @Sendable (Filter) -> [QueryItem]) -> FilterStrategy {
        FilterStrategy(items: items)
    }

    /// `filter[field]=v` and `filter[field][op]=v`.
    public static let brackets = FilterStrategy { f in
        var name = "filter[\(f.field)]"
        if let op = f.op { name += "[\(op)]" }
        return [QueryItem(name, list: f.values)]
    }

    /// `filter[field]=v` and `filter[field.op]=v`.
    public static let dotted = FilterStrategy { f in
        [QueryItem("filter[\(f.field)\(f.op.map { "." + $0 } ?? "")]", list: f.values)]
    }
}
