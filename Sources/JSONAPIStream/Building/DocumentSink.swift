/// Receives what a ``DocumentBuilder`` finishes: each resource as soon as its object closes,
/// and each document's top-level members when the document closes.
///
/// The graph, the streaming writers and the validator are sinks; a ``SinkGroup`` feeds
/// several at once. Sinks read the spans of a draft through the builder (`scratch`,
/// `store`, `relationshipDrafts`, `identifierDrafts`, `memberSpans`) during the call.
protocol DocumentSink: AnyObject {
    /// Whether value-store spans must stay valid after a resource call returns. When no sink
    /// keeps them, the builder reuses the store for the next resource (bounded memory).
    var keepsValues: Bool { get }
    func resource(_ resource: ResourceDraft, from builder: DocumentBuilder) throws(JSONAPIError)
    func document(_ document: DocumentDraft, from builder: DocumentBuilder) throws(JSONAPIError)
}

/// Several sinks fed in order.
final class SinkGroup: DocumentSink {
    let sinks: [any DocumentSink]
    let keepsValues: Bool

    init(_ sinks: [any DocumentSink]) {
        self.sinks = sinks
        self.keepsValues = sinks.contains { $0.keepsValues }
    }

    func resource(_ resource: ResourceDraft, from builder: DocumentBuilder) throws(JSONAPIError) {
        for s in sinks { try s.resource(resource, from: builder) }
    }

    func document(_ document: DocumentDraft, from builder: DocumentBuilder) throws(JSONAPIError) {
        for s in sinks { try s.document(document, from: builder) }
    }
}
