internal import CPlatform

/// Finds where the top-level values of an input end (`jsonapi_split_scan` in CPlatform:
/// quotes, escapes and brackets followed as JSON has them, 64 bytes at a time), counting
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
    /// scans them all and returns `nil`. `variant` (tests): 0 the fastest way, 1 a byte at a
    /// time, 2 SSE2 blocks, 3 AVX2 blocks (`jsonapi_split_scan`'s `variant`).
    mutating func scan(_ bytes: UnsafeRawBufferPointer, cutAfter: Int, variant: Int32 = 0) -> Int? {
        guard let p = bytes.baseAddress, bytes.count > 0 else { return nil }
        var cut = 0
        guard jsonapi_split_scan(p, bytes.count, cutAfter, &state, &cut, variant) != 0 else { return nil }
        lastCut = bytes[cut - 1]
        return cut
    }
}

/// Finds where the elements of each document's top-level `data` and `included` arrays may be
/// cut apart (`jsonapi_element_scan` in CPlatform), so that one large document is read by
/// several workers, a range of whole elements each (``ElementRange``), and its other bytes
/// by the caller's stream. A document whose top level holds `atomic` or a `\u` escape outside
/// those arrays keeps them whole: its `jsonapi` member may apply Atomic Operations, which
/// changes how the resources after it read.
struct ElementSplitter {
    enum Stop {
        /// An array opens: it ends just after its `[`.
        case open(Int)
        /// Just after a comma between two elements.
        case next(Int)
        /// At the `]` that closes the array (already scanned).
        case close(Int)
    }

    private var state = jsonapi_element_state()

    /// Offset of the next byte to scan.
    var offset: Int { Int(state.offset) }
    /// Top-level objects and arrays begun so far.
    var documents: Int { Int(state.documents) }
    /// Line of the next byte, and the offset where that line starts.
    var line: Int { Int(state.lines) + 1 }
    var lineStart: Int { Int(state.line_start) }
    /// Index, in its array, of the element after the last cut.
    var element: Int { Int(state.elements) }
    /// Whether the array being split is `included` (else `data`).
    var inIncluded: Bool { state.splitting == 2 }

    /// Scans `bytes` (which follow those scanned before) up to the next place to cut, where
    /// commas count only after index `cutFrom`; `nil` when it scanned them all. `variant`
    /// (tests): 0 the fastest way, 1 a byte at a time, 2 SSE2 blocks, 3 AVX2 blocks
    /// (`jsonapi_element_scan`'s `variant`).
    mutating func scan(_ bytes: UnsafeRawBufferPointer, cutFrom: Int, variant: Int32 = 0) -> Stop? {
        guard let p = bytes.baseAddress, bytes.count > 0 else { return nil }
        var cut = 0
        switch Int(jsonapi_element_scan(p, bytes.count, cutFrom, &state, &cut, variant)) {
        case Int(JSONAPI_ELEMENTS_OPEN): return .open(cut)
        case Int(JSONAPI_ELEMENTS_NEXT): return .next(cut)
        case Int(JSONAPI_ELEMENTS_CLOSE): return .close(cut)
        default: return nil
        }
    }
}
