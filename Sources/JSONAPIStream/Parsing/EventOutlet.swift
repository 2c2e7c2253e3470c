/// Where a ``JSONStreamParser`` sends yajl's events, and what it asks of that side. Two
/// conformers, so the parser has one initializer and no mode branches:
///
/// - ``JSONEventReceiver`` (the document builder, the validator's and the denormalizer's
///   receivers): yajl calls it directly, one event at a time, on the parsing thread;
/// - ``TapeRecorder``: yajl's events are appended to a tape that another thread replays into
///   the builder (``PipelineEngine``).
///
/// The parser calls these once per piece of input or once per failure, never per token.
protocol EventOutlet: AnyObject {
    /// A yajl handle whose callbacks deliver to this outlet. The parser that asks keeps the
    /// outlet alive for as long as it keeps the handle.
    func makeYajl(multipleValues: Bool) -> YajlParser

    /// The positions of the input now being parsed (one per input).
    func attach(_ positions: StreamPositions)
    /// The parser that owns `positions` is done: forget them, unless others replaced them.
    func detach(_ positions: StreamPositions)

    /// A piece (whose first byte is at absolute `base`) is about to be handed to yajl;
    /// `newlines` are the input's line feeds not yet summarised, ascending.
    func willParse(_ piece: UnsafeRawBufferPointer, base: Int, newlines: [Int])

    /// yajl completes the input (`yajl_complete_parse`): every token ends at `inputEnd`.
    func setCompleting(_ on: Bool, inputEnd: Int)

    /// The nesting depth of the value being parsed, where this side follows it as events
    /// arrive (then a truncated input names its open containers, and trailing content is
    /// placed exactly); `nil` when it does not.
    var openDepth: Int? { get }

    /// The JSON pointer a failure reported now should carry, or `nil` when this side cannot
    /// say (the events are still on their way to the builder, which completes it).
    func pointer(for request: PointerRequest) -> String?

    /// A failure this side reported during `yajl_parse` (a handler's diagnostic, an error a
    /// consumer threw, or an escape check), which wins over yajl's status.
    var reportedFailure: OutletFailure? { get }

    /// The input ended without error; false when this side refuses it (its
    /// ``reportedFailure`` says why).
    func endOfInput() -> Bool
}

/// A failure an ``EventOutlet`` reported.
enum OutletFailure {
    /// An error a consumer threw (an output error), rethrown as it is.
    case thrown(JSONAPIError)
    /// A complete diagnostic (its input's name may still be missing).
    case diagnosed(Diagnostic)
    /// A rule, message and offset whose pointer the parser asks for (`request`).
    case located(Rule, String, offset: Int, request: PointerRequest)
}

extension JSONEventReceiver: EventOutlet {
    func makeYajl(multipleValues: Bool) -> YajlParser {
        YajlParser(receiver: self, multipleValues: multipleValues)
    }

    func attach(_ positions: StreamPositions) { self.positions = positions }

    func detach(_ positions: StreamPositions) {
        if self.positions === positions { self.positions = nil }
    }

    @inline(__always)
    func willParse(_ piece: UnsafeRawBufferPointer, base: Int, newlines: [Int]) {
        sourceStart = UnsafeRawPointer(piece.baseAddress!)
        sourceEnd = UnsafeRawPointer(piece.baseAddress! + piece.count)
    }

    func setCompleting(_ on: Bool, inputEnd: Int) {}

    var openDepth: Int? { depth }

    func pointer(for request: PointerRequest) -> String? {
        switch request {
        case .nextValue: nextValuePointer()
        case .container: containerPointer()
        default: currentPointer()
        }
    }

    var reportedFailure: OutletFailure? {
        if let thrown { return .thrown(thrown) }
        return failure.map { .diagnosed($0) }
    }

    func endOfInput() -> Bool { onEndOfInput() }
}
