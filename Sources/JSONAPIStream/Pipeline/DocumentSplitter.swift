internal import CPlatform

/// Finds where the top-level values of an input end (`jsonapi_split_scan` in CPlatform:
/// quotes, escapes and brackets followed as JSON has them, 32 bytes at a time), counting
/// documents and lines on the way. Anything else is the parser's to check: on input that is
/// not JSON the places found are still places to cut, and the parser of the batch that holds
/// the first error reports it.
struct DocumentSplitter {
    private var state = jsonapi_split_state()

    /// Offset of the next byte to scan.
    var offset: Int { Int(state.offset) }
    /// Top-level objects and arrays begun so far.
    var documents: Int { Int(state.documents) }
    /// Line of the next byte, and the offset where that line starts.
    var line: Int { Int(state.lines) + 1 }
    var lineStart: Int { Int(state.line_start) }
    /// The bracket that closed the last top-level value found (`nil` before the first).
    private(set) var lastCut: UInt8?

    /// Scans `bytes` (which follow those scanned before) up to the first top-level value that
    /// ends after index `cutAfter`, and returns the index just after its closing bracket; or
    /// scans them all and returns `nil`.
    mutating func scan(_ bytes: UnsafeRawBufferPointer, cutAfter: Int) -> Int? {
        guard let p = bytes.baseAddress, bytes.count > 0 else { return nil }
        var cut = 0
        guard jsonapi_split_scan(p, bytes.count, cutAfter, &state, &cut) != 0 else { return nil }
        lastCut = bytes[cut - 1]
        return cut
    }
}
