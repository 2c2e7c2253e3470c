/// Reads one input after another through one ``DocumentBuilder`` into its sink: each input
/// gets its own ``JSONStreamParser`` (positions restart per input); documents, resources and
/// the value store carry on, so several inputs merge.
final class DocumentReader {
    let options: DocumentOptions
    let builder: DocumentBuilder
    @exclusivity(unchecked) private var stream: JSONStreamParser?
    @exclusivity(unchecked) private(set) var bytesRead = 0
    @exclusivity(unchecked) private var spent: JSONAPIError?
    /// Two threads, once chosen (at the first read of the first input).
    private var engine: PipelineEngine?
    private var decided = false
    /// The input begun but not yet fed (the mode is chosen at its first read).
    private var pendingName: String??

    init(options: DocumentOptions, sink: any DocumentSink, requiresKeys: Bool = true) {
        self.options = options
        self.builder = DocumentBuilder(options: options, sink: sink, requiresKeys: requiresKeys)
    }

    deinit { engine?.close() }

    /// Whether parsing and building run on two threads.
    var isPipelined: Bool { engine != nil }

    /// Resources built so far; safe to read from the calling thread while it feeds.
    var resourcesBuilt: Int { engine?.resourcesBuilt ?? builder.resourcesBuilt }

    /// Ends the building thread, if any (after the last input).
    func close() { engine?.close() }

    /// In automatic mode, the first read from which a second thread builds. 64 KiB is what a
    /// full pipe gives (standard input from another program, which used to stay on one thread
    /// at two thirds of the speed); smaller first reads are small documents.
    static let pipelinedFirstRead = 64 * 1024

    private func decide(firstRead: Int) {
        guard !decided else { return }
        decided = true
        // One JSON text (syntax checks, `JSONValue(parsing:)`): one thread, which knows the
        // nesting depth that placing trailing content needs.
        guard options.parse.multipleDocuments else { return }
        switch options.parse.concurrency {
        case .sequential: return
        case .automatic: if firstRead < Self.pipelinedFirstRead { return }
        case .pipelined: break
        }
        engine = PipelineEngine(options: options, builder: builder)
    }

    private func startPending(firstRead: Int) {
        guard let name = pendingName else { return }
        pendingName = nil
        decide(firstRead: firstRead)
        if let engine {
            engine.begin(sourceName: name)
        } else {
            let s = JSONStreamParser(receiver: builder, options: options.parse)
            s.sourceName = name
            stream = s
        }
    }

    /// Receives warnings as they are found.
    var onDiagnostic: ((Diagnostic) -> Void)? {
        get { builder.onDiagnostic }
        set { builder.onDiagnostic = newValue }
    }

    /// Starts the next input, ending the current one first.
    func begin(sourceName: String?) throws(JSONAPIError) {
        if stream != nil || pendingName != nil || engineInputOpen { try end() }
        pendingName = .some(sourceName)
    }

    private var engineInputOpen = false

    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        if let spent { throw spent }
        if stream == nil && pendingName == nil && !engineInputOpen { try begin(sourceName: nil) }
        if pendingName != nil {
            startPending(firstRead: chunk.count)
            engineInputOpen = engine != nil
        }
        bytesRead += chunk.count
        if let engine {
            do { try engine.feed(chunk) } catch { spent = error; throw error }
            return
        }
        do { try stream!.feed(chunk) } catch { spent = error; throw error }
    }

    /// Ends the current input: anything left open is an error.
    func end() throws(JSONAPIError) {
        if let spent { throw spent }
        if pendingName != nil {
            // Nothing was read: finish an empty input (an error) on this thread.
            startPending(firstRead: 0)
            engineInputOpen = engine != nil
        }
        if let engine, engineInputOpen {
            engineInputOpen = false
            do { try engine.end() } catch {
                spent = error
                throw error
            }
            return
        }
        guard let s = stream else { return }
        stream = nil
        do {
            try s.finish()
        } catch {
            spent = error
            throw error
        }
        for n in s.notices {
            var n = n
            n.source = s.sourceName
            builder.onDiagnostic?(n)
        }
    }

    /// Reads `source` whole, as one input.
    func read(_ source: InputSource, chunkSize: Int = 1 << 20) throws(JSONAPIError) {
        try begin(sourceName: source.name)
        do {
            try source.read(chunkSize: chunkSize) { (chunk) throws(JSONAPIError) in try self.feed(chunk) }
        } catch {
            throw error.withSourceIfMissing(source.name)
        }
        try end()
    }
}

extension JSONAPIError {
    /// The same error, naming `name` as its input unless it names one already.
    public func withSourceIfMissing(_ name: String) -> JSONAPIError {
        switch self {
        case .syntax(let d), .document(let d): d.source == nil ? withSource(name) : self
        default: self
        }
    }
}
