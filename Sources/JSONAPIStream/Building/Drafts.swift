/// A range of bytes in the builder's scratch arena (raw, unescaped UTF-8: type names, ids,
/// relationship names).
struct ScratchSpan: Hashable {
    var start: Int32
    var count: Int32
    static let none = ScratchSpan(start: 0, count: -1)
    var isNone: Bool { count < 0 }
    var range: Range<Int> { Int(start)..<Int(start) + Int(max(count, 0)) }
}

/// A range of bytes in the value store holding minified JSON text (`count` -1: none).
struct ValueSpan: Hashable, Sendable {
    var start: Int
    var count: Int
    static let none = ValueSpan(start: 0, count: -1)
    var isNone: Bool { count < 0 }
    var range: Range<Int> { start..<start + max(count, 0) }
    init(start: Int, count: Int) {
        self.start = start
        self.count = count
    }
}

/// What a relationship's `data` member was.
public enum LinkageKind: UInt8, Sendable, Hashable, BitwiseCopyable {
    /// No `data` member (links or meta only).
    case absent
    /// `"data": null`: an empty to-one relationship.
    case null
    /// One resource identifier object: a to-one relationship.
    case toOne
    /// An array of resource identifier objects (possibly empty): a to-many relationship.
    case toMany
}

/// How the document's primary data was shaped.
public enum PrimaryDataShape: UInt8, Sendable, Hashable {
    /// No `data` member.
    case absent
    /// `"data": null`.
    case null
    /// One resource object.
    case single
    /// An array of resource objects (possibly empty).
    case many
}

/// A resource identifier object inside resource linkage, as parsed.
struct IdentifierDraft {
    var type = ScratchSpan.none
    var id = ScratchSpan.none
    var lid = ScratchSpan.none
    var meta = ValueSpan.none
    /// Other members (`"name":value` spans in the store).
    var extras: Range<Int32> = 0..<0
}

/// A relationship object, as parsed.
struct RelationshipDraft {
    var name = ScratchSpan.none
    var kind = LinkageKind.absent
    var targets: Range<Int32> = 0..<0
    var links = ValueSpan.none
    var meta = ValueSpan.none
    var extras: Range<Int32> = 0..<0
}

/// A resource object from primary data or `included`, complete, as a sink receives it.
///
/// Spans point into the builder's scratch arena (type, id, lid, relationship names) and
/// value store (attributes, links, meta, extra members). They stay valid during the sink
/// call; after it, the value store keeps them only when the sink says it keeps values.
struct ResourceDraft {
    var type = ScratchSpan.none
    var id = ScratchSpan.none
    var lid = ScratchSpan.none
    var attributes = ValueSpan.none
    var links = ValueSpan.none
    var meta = ValueSpan.none
    var relationships: Range<Int32> = 0..<0
    var extras: Range<Int32> = 0..<0
    var isPrimary = false
    /// In `atomic:results` (a result's data), not in `data` or `included`.
    var inResults = false
    /// Whether the resource object had a `relationships` member (possibly empty).
    var hadRelationships = false
    /// Index in the `data` or `included` array, or -1 for a single primary resource.
    var arrayIndex: Int32 = -1
    var position = SourcePosition.start
    var documentIndex = 0
    /// Where the value store stood when this resource began.
    var storeMark = 0

    var place: ResourcePlace { inResults ? .result(index: arrayIndex) : .resource(primary: isPrimary, index: arrayIndex) }

    /// `/data`, `/data/3` or `/included/7`.
    var pointer: String { place.pointer }
}

/// Where a resource object is in its document, kept as two numbers: the JSON pointer text is
/// made only when a diagnostic needs it (making it for every resource cost a string each).
enum ResourcePlace: Hashable, Sendable {
    /// The document itself (its top-level members).
    case document
    /// In `data` (or `included`), at `index`; -1 for the single primary resource.
    case resource(primary: Bool, index: Int32)
    /// The `data` of the result at `index` of `atomic:results`.
    case result(index: Int32)

    /// Whether this is a result's data in `atomic:results`.
    var isResult: Bool {
        if case .result = self { return true }
        return false
    }

    /// `""`, `/data`, `/data/3` or `/included/7`.
    var pointer: String {
        switch self {
        case .document: return ""
        case .resource(let primary, let index):
            let base = primary ? "/data" : "/included"
            return index >= 0 ? "\(base)/\(index)" : base
        case .result(let index): return "/atomic:results/\(index)/data"
        }
    }
}

/// Everything of one document except its resources, at the document's end.
struct DocumentDraft {
    var index = 0
    var position = SourcePosition.start
    var primaryShape = PrimaryDataShape.absent
    var hasIncluded = false
    var meta = ValueSpan.none
    var links = ValueSpan.none
    var jsonapi = ValueSpan.none
    var errors = ValueSpan.none
    /// Unknown and `@`-members of the top level (`"name":value` spans in the store).
    var extras: [ValueSpan] = []
    /// Under the Atomic Operations extension: which of `extras` is `atomic:operations`, and
    /// which `atomic:results` (-1: none).
    var atomicOperations: Int32 = -1
    var atomicResults: Int32 = -1
    /// Where the `atomic:operations` member began (for the extension's rules).
    var atomicOperationsPosition = SourcePosition.start
    var hasData: Bool { primaryShape != .absent }
}
