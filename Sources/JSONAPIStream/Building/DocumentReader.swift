/// Reads one input after another through one ``DocumentBuilder`` into its sink: each input
/// gets its own ``JSONStreamParser`` (positions restart per input); documents, resources and
/// the value store carry on, so several inputs merge.
final class DocumentReader {
    let options: DocumentOptions
    let builder: DocumentBuilder
    @exclusivity(unchecked) private var stream: JSONStreamParser?
    @exclusivity(unchecked) private(set) var bytesRead = 0
    @exclusivity(unchecked) private var spent: JSONAPIError?

    init(options: DocumentOptions, sink: any DocumentSink, requiresKeys: Bool = true) {
        self.options = options
        self.builder = DocumentBuilder(options: options, sink: sink, requiresKeys: requiresKeys)
    }

    /// Receives warnings as they are found.
    var onDiagnostic: ((Diagnostic) -> Void)? {
        get { builder.onDiagnostic }
        set { builder.onDiagnostic = newValue }
    }

    /// Starts the next input, ending the current one first.
    func begin(sourceName: String?) throws(JSONAPIError) {
        if stream != nil { try end() }
        let s = JSONStreamParser(receiver: builder, options: options.parse)
        s.sourceName = sourceName
        stream = s
    }

    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        if let spent { throw spent }
        if stream == nil { try begin(sourceName: nil) }
        bytesRead += chunk.count
        do { try stream!.feed(chunk) } catch { spent = error; throw error }
    }

    /// Ends the current input: anything left open is an error.
    func end() throws(JSONAPIError) {
        if let spent { throw spent }
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
    public func withSourceIfMissing(_ name: String) -> JSONAPIError {
        switch self {
        case .syntax(let d), .document(let d): d.source == nil ? withSource(name) : self
        default: self
        }
    }
}
