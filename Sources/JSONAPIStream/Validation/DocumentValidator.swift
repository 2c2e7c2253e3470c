/// Checks documents against every rule this library knows (J, R, and C in a request
/// context) and returns all findings, instead of stopping at the first.
///
/// JSON syntax errors end the check of an input (nothing after them can be read); rule
/// violations are all collected, with position and JSON pointer. An input of many documents,
/// or one large response, is checked on workers as ``ParseOptions/workers`` says, with the
/// same findings in the same order.
///
/// ```swift
/// let findings = DocumentValidator().validate(.file("doc.json"))
/// for d in findings { print(d) }
/// ```
public final class DocumentValidator {
    /// How documents are read and which rules apply.
    public let options: DocumentOptions
    /// Whether only JSON syntax is checked (any top-level value).
    public let syntaxOnly: Bool

    /// - Parameters:
    ///   - options: limits, context and extensions; the validation mode is ignored (every
    ///     finding is collected).
    ///   - syntaxOnly: check JSON alone (J rules): one JSON text per input, any top-level
    ///     value. The way to run a JSON conformance suite.
    public init(options: DocumentOptions = .default, syntaxOnly: Bool = false) {
        var o = options
        o.validation = .lenient
        o.strictChecks = true
        if o.checksCompoundRules == nil { o.checksCompoundRules = true }
        if syntaxOnly { o.parse.multipleDocuments = false }
        self.options = o
        self.syntaxOnly = syntaxOnly
    }

    /// Every finding for `source`, in input order. Rule violations and syntax errors have
    /// severity `.error`; notices (a stripped byte order mark) `.warning`. Input errors (a
    /// missing file) throw.
    public func validate(_ source: InputSource, chunkSize: Int = 1 << 20) throws(JSONAPIError) -> [Diagnostic] {
        var findings: [Diagnostic] = []
        func collect(_ d: Diagnostic) {
            var d = d
            if d.rule.rawValue.hasPrefix("N") { d.severity = .warning } else { d.severity = .error }
            if d.source == nil { d.source = source.name }
            findings.append(d)
        }
        do throws(JSONAPIError) {
            if syntaxOnly {
                // Plain RFC 8259 JSON: a repeated member name is valid there (only I-JSON
                // refuses it), so it is a warning, not an error.
                var parse = options.parse
                parse.duplicateMembers = .allowInValues
                let receiver = SyntaxReceiver(options: parse)
                receiver.onWarning = { d in
                    var d = d
                    d.source = source.name
                    findings.append(d)
                }
                let parser = JSONStreamParser(outlet: receiver, options: parse)
                parser.sourceName = source.name
                try source.read(chunkSize: chunkSize) { (chunk) throws(JSONAPIError) in try parser.feed(chunk) }
                try parser.finish()
                parser.notices.forEach(collect)
            } else {
                // The stream puts the validator (rules across resources) in front of a sink
                // that keeps nothing: only the findings are wanted.
                // Many documents are read on workers, the findings delivered in input order.
                let one = options.forWorker
                let workers = options.parse.largeDocumentWorkers()
                let reader = ParallelReader(
                    workers: workers.count, largeDocumentsFrom: workers.from, batchBytes: options.parse.workerBatchBytes,
                    sequential: DocumentStream(options: options, sink: NullSink(), requiresKeys: false),
                    makeWorker: {
                        let s = DocumentStream(options: one, sink: NullSink(), requiresKeys: false)
                        return ParallelWorker(stream: s, out: nil, owner: nil, observe: { s.onDiagnostic = $0 })
                    },
                    deliver: { _ in })
                // One large document: ranges of its elements on workers too.
                reader.follow(options)
                reader.sequential.onDiagnostic = { collect($0) }
                reader.onDiagnostic = { collect($0) }
                try source.withBytesInMemory { (bytes) throws(JSONAPIError) in
                    // Workers read bytes in memory where they are: they stop before the view ends.
                    defer { reader.abandon() }
                    if let bytes {
                        try reader.readWhole(bytes, name: source.name, chunkSize: chunkSize)
                    } else {
                        try reader.read(source, chunkSize: chunkSize)
                    }
                    try reader.finish()
                }
            }
        } catch {
            switch error {
            case .syntax(let d), .document(let d): collect(d)
            case .input, .misuse: throw error
            }
        }
        return findings
    }
}

/// Checks JSON alone: every object is a plain value, so ``DuplicateMemberPolicy/allowInValues``
/// allows repeated names anywhere.
final class SyntaxReceiver: JSONEventReceiver {
    /// Receives a warning for each repeated member name.
    var onWarning: ((Diagnostic) -> Void)?

    override func isInsideStoredValue() -> Bool { true }

    override func onAllowedDuplicate(_ name: UnsafeRawBufferPointer) -> Bool {
        onWarning?(duplicateWarning(name, " (valid JSON, but readers disagree on which value counts; a JSON:API document may not repeat names)"))
        return true
    }
}
