/// The arenas a finished draft's spans point into: type names, ids, lids and relationship
/// names in `scratch`; recorded values in `store`; a resource's relationships, their
/// identifiers and the unknown members in the three tables.
///
/// The builder owns them and lends them to its sink for the duration of each call; a sink
/// reads the draft's parts here and never sees the builder. Only the graph's duplicate
/// merge writes (it rewrites the store from the resource's `storeMark` on).
struct DraftArenas: ~Copyable {
    /// The value store: minified JSON of every recorded value.
    var store = ByteArena(capacity: 1 << 20)
    /// Raw type names, ids, lids and relationship names of the current resource.
    var scratch = ByteArena(capacity: 4096)
    /// The current resource's relationships (``ResourceDraft/relationships`` indexes them).
    var relationshipDrafts = UnsafeStack<RelationshipDraft>(capacity: 16)
    /// The current resource's identifiers (``RelationshipDraft/targets`` indexes them).
    var identifierDrafts = UnsafeStack<IdentifierDraft>(capacity: 64)
    /// `"name":value` spans of unknown members (resource, relationship, identifier, document).
    var memberSpans = UnsafeStack<ValueSpan>(capacity: 16)
}

/// Receives what a ``DocumentBuilder`` finishes: each resource as soon as its object closes,
/// and each document's top-level members when the document closes, with the arenas their
/// spans point into.
///
/// The graph, the streaming writers and the validator are sinks; a ``SinkGroup`` feeds
/// several at once.
protocol DocumentSink: AnyObject {
    /// Whether value-store spans must stay valid after a resource call returns. When no sink
    /// keeps them, the builder reuses the store for the next resource (bounded memory).
    var keepsValues: Bool { get }
    /// A resource, whose object has just closed. `arenas` is `inout` for the graph's
    /// duplicate merge alone (see ``DraftArenas``).
    func resource(_ resource: ResourceDraft, in arenas: inout DraftArenas) throws(JSONAPIError)
    /// A document's top-level members, once it has closed.
    func document(_ document: DocumentDraft, in arenas: borrowing DraftArenas) throws(JSONAPIError)
    /// Where the builder tells each resource key as soon as it knows it (see ``KeyHints``);
    /// `nil` for sinks that do not look keys up in a large table.
    var keyHints: KeyHints? { get }
}

extension DocumentSink {
    var keyHints: KeyHints? { nil }
}

/// Two sinks fed in order (a validator's and the reader's own). Held in `let`s, so that each
/// resource is passed to them without retaining them (iterating an array of sinks copied, and
/// so retained and released, each one per resource).
final class SinkGroup: DocumentSink {
    let first: any DocumentSink
    let second: any DocumentSink
    let keepsValues: Bool

    init(_ first: any DocumentSink, _ second: any DocumentSink) {
        self.first = first
        self.second = second
        self.keepsValues = first.keepsValues || second.keepsValues
        // The builder holds one sink's hints; the other's are chained to it, so that every
        // large key table (a validator's beside a graph's) is hinted.
        if let a = first.keyHints, let b = second.keyHints { a.chain(b) }
        self.keyHints = first.keyHints ?? second.keyHints
    }

    let keyHints: KeyHints?

    func resource(_ resource: ResourceDraft, in arenas: inout DraftArenas) throws(JSONAPIError) {
        try first.resource(resource, in: &arenas)
        try second.resource(resource, in: &arenas)
    }

    func document(_ document: DocumentDraft, in arenas: borrowing DraftArenas) throws(JSONAPIError) {
        try first.document(document, in: arenas)
        try second.document(document, in: arenas)
    }
}
