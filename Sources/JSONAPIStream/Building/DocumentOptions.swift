/// How JSON:API rule violations are treated.
public enum ValidationMode: String, Sendable, Hashable, CaseIterable {
    /// Only what is needed to build the graph is checked: JSON rules, and resources that
    /// cannot be keyed. Fastest.
    case off
    /// Every checkable rule is reported as a warning; nothing is dropped. The default.
    case lenient
    /// Every rule violation is an error that stops the parse.
    case strict
}

/// Which kind of document is being read; request documents have rules of their own
/// (`C01`–`C03`) and may carry resources without `id`.
public enum DocumentContext: String, Sendable, Hashable, CaseIterable {
    case response
    case create
    case update
    case relationshipUpdate = "relationship-update"
}

/// How documents are read and checked.
public struct DocumentOptions: Sendable, Hashable {
    /// How the JSON is read: limits, byte order mark, duplicate member names.
    public var parse = ParseOptions()
    /// How JSON:API rule violations are treated (warnings by default).
    public var validation = ValidationMode.lenient
    /// What kind of document is read: a response, or a request payload (which has rules of its own).
    public var context = DocumentContext.response
    /// Namespaces of the extensions applied to the documents (`ns` in `ns:member`), so that
    /// their members are accepted (R41).
    public var extensions: Set<String> = []
    /// Accept `included` resources that primary data does not reach (the spec's exception
    /// for sparse fieldsets, R23).
    public var allowsPartialLinkage = false
    /// Check the compound-document rules R22 and R23, which need a set of every resource
    /// key of a document (memory grows with the number of resources). On by default in
    /// strict mode.
    public var checksCompoundRules: Bool? = nil

    /// The defaults.
    public init() {}

    /// The defaults: lenient, a response, the default limits.
    public static let `default` = DocumentOptions()

    var compoundRules: Bool { checksCompoundRules ?? (validation == .strict) }

    /// Apply the checks kept for strict mode (custom link names, `@`-member names) while
    /// still collecting findings as warnings: what `validate` does. Keys inside attribute
    /// values and `meta` objects are never checked (any JSON).
    var strictChecks = false

    /// How many warnings a reader words (message, place, pointer) before it hands the rest to
    /// the handler as ``Diagnostic/textless(_:)``, counted but not worded: what a command
    /// that prints the first thousand warnings and counts the rest asks for, so that a
    /// document with a warning on every resource does not pay for texts no one reads. Never
    /// fewer than the thousand a graph keeps (``Graph/warnings``).
    ///
    /// Each reader counts its own (each worker reads its part of the input in order), so the
    /// first N warnings of the whole input are always worded: a reader's N+1st has N before it.
    package var warningTexts = Int.max

    /// ``warningTexts``, never fewer than the thousand a graph keeps.
    var wordedWarnings: Int { max(warningTexts, GraphSink.keptWarnings) }
}

extension DocumentOptions {
    /// Whether workers may write output for the caller to append (lines, tables): a duplicate
    /// policy other than `last` and a resource limit need every document in one place, so
    /// those keep one reader.
    private func workersMayWrite(duplicates: DuplicatePolicy) -> Bool {
        duplicates == .last && parse.limits.maxResources == nil
    }

    /// The workers of a reader whose workers write tables for the caller to append
    /// (``workersMayWrite(duplicates:)``).
    func writingWorkers(duplicates: DuplicatePolicy) -> Int {
        workersMayWrite(duplicates: duplicates) ? parse.effectiveWorkers : 1
    }

    /// ``writingWorkers(duplicates:)`` for lines, with the default on `cores` cores for one
    /// large document (``ParseOptions/largeDocumentWorkers(cores:)``).
    func lineWorkers(duplicates: DuplicatePolicy, cores: Int) -> (count: Int, from: Int?) {
        workersMayWrite(duplicates: duplicates) ? parse.largeDocumentWorkers(cores: cores) : (1, nil)
    }

    /// Whether one large document may be read by workers a range of its elements each: not
    /// a request document (C01-C03 need its one primary resource in one place). The
    /// compound-document rules R22 and R23 are checked by the caller's validator from what the
    /// workers gather (``CompoundFacts``).
    var splitsElements: Bool { context == .response }

    /// These options for one of the workers' streams (``ParseOptions/workers``): it reads its
    /// batches on its own thread, one stream, no workers of its own.
    var forWorker: DocumentOptions {
        var o = self
        o.parse.workers = 1
        o.parse.concurrency = .sequential
        return o
    }
}
