/// What the library's readers have in common: inputs fed chunk by chunk, each a run of
/// documents, the top level of the last document, a count of resources. ``DocumentStream``,
/// ``GraphParser`` and ``Normalizer`` are readers, so that code that feeds bytes as they
/// arrive (the client's crawl, a user's transport) serves any of them the same way.
public protocol StreamingReader: AnyObject {
    /// Starts an input; positions in its diagnostics count from its first byte, and its
    /// name (a path, a URL) is their source.
    func beginInput(named name: String?) throws(JSONAPIError)
    /// The next bytes of the input, valid only during the call; any split is allowed.
    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError)
    /// Ends the input: what it holds must be whole documents.
    func endInput() throws(JSONAPIError)
    /// Whether each document's top-level `links` and `meta` are kept in ``lastDocument``.
    var recordsTopLevel: Bool { get set }
    /// The top-level `links` and `meta` of the last document read, with ``recordsTopLevel``.
    var lastDocument: DocumentTopLevel? { get }
    /// Resources read so far, in all inputs.
    var resourcesRead: Int { get }
}

extension DocumentStream: StreamingReader {}
extension GraphParser: StreamingReader {}
extension Normalizer: StreamingReader {}
