import JSONAPIStream

/// Where fetched documents go. Each response body is one input, fed chunk by chunk as it
/// arrives from the network; the consumer never sees a whole body at once.
///
/// ``JSONAPIStream/GraphParser`` (a graph of every page) and ``JSONAPIStream/Normalizer``
/// (NDJSON, flat JSON or edges, written as they stream) are consumers. Calls come from one
/// internal queue, one at a time, never concurrently.
public protocol DocumentConsumer: AnyObject {
    /// Starts one response body; positions in its errors count from its first byte.
    func beginDocument(named name: String) throws(JSONAPIError)
    /// The next piece of the body, valid only during the call.
    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError)
    /// Ends the body and returns the top-level `links` and `meta` of its document (the
    /// crawl reads `links.next` here).
    func endDocument() throws(JSONAPIError) -> DocumentTopLevel?
    /// Resources read so far, for progress reports.
    var resourcesRead: Int { get }
}

extension GraphParser: DocumentConsumer {
    /// Starts a response body as a new input named `name` (the URL), recording its top level.
    public func beginDocument(named name: String) throws(JSONAPIError) {
        recordsTopLevel = true
        try beginInput(named: name)
    }

    /// Ends the body and returns its document's top-level `links` and `meta`.
    public func endDocument() throws(JSONAPIError) -> DocumentTopLevel? {
        try endInput()
        return lastDocument
    }
}

extension Normalizer: DocumentConsumer {
    /// Starts a response body as a new input named `name` (the URL), recording its top level.
    public func beginDocument(named name: String) throws(JSONAPIError) {
        recordsTopLevel = true
        try beginInput(named: name)
    }

    /// Ends the body and returns its document's top-level `links` and `meta`.
    public func endDocument() throws(JSONAPIError) -> DocumentTopLevel? {
        try endInput()
        return lastDocument
    }
}
