// The one door to C: the only file that imports CYajl. No yajl type leaves it.
internal import CYajl
internal import CPlatform

/// An owner of one `yajl_handle`.
///
/// yajl calls the non-capturing `@convention(c)` trampolines below with the receiver as its
/// context pointer; each trampoline recovers the receiver without retaining it and makes one
/// method call. The pipeline's recorder has C callbacks instead (``TapeRecorder``), with its
/// state as the context. String and key pointers are valid only during that call.
///
/// Options: numbers arrive as text through `yajl_number` (exact; the int and double
/// callbacks lose data), yajl's own UTF-8 validation is off because ``LexicalScanner``
/// validates more strictly (`J02`), and several values per input are allowed on request.
/// A handle is never reused after an error or after ``complete()`` (`J09`).
final class YajlParser {
    enum Status { case ok, cancelled, error, outOfMemory }

    private let handle: yajl_handle

    /// A parser that reports events to `receiver`. Invariant: the caller keeps the receiver
    /// alive for as long as it calls ``parse(_:)`` or ``complete()`` (the stream parser holds
    /// its outlet); yajl's context is an unretained pointer to it.
    init(receiver: JSONEventReceiver, multipleValues: Bool) {
        let ctx = Unmanaged.passUnretained(receiver).toOpaque()
        handle = Self.allocate(receiver is DocumentBuilder ? builderCallbacks : eventCallbacks, ctx)
        Self.configure(handle, multipleValues: multipleValues)
    }

    /// A parser that appends events to a tape (the parsing side of the pipeline). Invariant:
    /// the caller keeps the recorder (and so its state, yajl's context) alive for as long as
    /// it parses.
    init(recorder: TapeRecorder, multipleValues: Bool) {
        handle = Self.allocate(recorderCallbacks, UnsafeMutableRawPointer(recorder.state))
        Self.configure(handle, multipleValues: multipleValues)
    }

    /// A parser with no-op callbacks: the floor every other measurement is compared with.
    init(bareMultipleValues multipleValues: Bool, validateStrings: Bool) {
        handle = Self.allocate(bareCallbacks, nil)
        Self.configure(handle, multipleValues: multipleValues)
        if !validateStrings { _ = jsonapi_yajl_config(handle, yajl_dont_validate_strings, 1) }
    }

    /// A handle whose allocations go through the budget's functions (`CPlatform/memory.c`).
    private static func allocate(_ callbacks: UnsafeMutablePointer<yajl_callbacks>, _ ctx: UnsafeMutableRawPointer?) -> yajl_handle {
        var funcs = yajl_alloc_funcs(malloc: jsonapi_yajl_malloc, realloc: jsonapi_yajl_realloc, free: jsonapi_yajl_free, ctx: nil)
        // yajl copies the functions into the handle. It returns NULL only when its first
        // small allocation fails, and then nothing can proceed.
        guard let h = yajl_alloc(callbacks, &funcs, ctx) else { MemoryBudget.outOfMemory(needing: 4096) }
        return h
    }

    private static func configure(_ handle: yajl_handle, multipleValues: Bool) {
        _ = jsonapi_yajl_config(handle, yajl_dont_validate_strings, 1)
        if multipleValues { _ = jsonapi_yajl_config(handle, yajl_allow_multiple_values, 1) }
    }

    deinit { yajl_free(handle) }

    /// Parses `buffer`; the corresponding C function is `yajl_parse`.
    func parse(_ buffer: UnsafeRawBufferPointer) -> Status {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return .ok }
        return Self.status(jsonapi_yajl_parse_guarded(handle, base.assumingMemoryBound(to: UInt8.self), buffer.count, 0))
    }

    /// Ends the input; the corresponding C function is `yajl_complete_parse`.
    func complete() -> Status { Self.status(jsonapi_yajl_parse_guarded(handle, nil, 0, 1)) }

    /// Bytes of the current buffer consumed so far; during a callback, the offset just past
    /// the token being reported. The corresponding C function is `yajl_get_bytes_consumed`.
    var bytesConsumed: Int { yajl_get_bytes_consumed(handle) }

    /// The handle, opaque, for the tape recorder's C callbacks, which ask yajl for its byte
    /// count themselves.
    var opaqueHandle: OpaquePointer { handle }

    /// yajl's last error: its own words, without their verbose excerpt, and what they say.
    func lastError() -> YajlError {
        guard let text = yajl_get_error(handle, 0, nil, 0) else { return YajlError(message: "syntax error") }
        defer { yajl_free_error(handle, text) }
        var message = String(cString: text)
        while message.last == "\n" { message.removeLast() }
        return YajlError(message: message)
    }

    /// `jsonapi_yajl_parse_guarded`'s result: yajl's status, or -1 when yajl's allocator
    /// refused (the budget) or failed; the handle is then spent.
    private static func status(_ s: Int32) -> Status {
        switch s {
        case Int32(yajl_status_ok.rawValue): .ok
        case Int32(yajl_status_client_canceled.rawValue): .cancelled
        case -1: .outOfMemory
        default: .error
        }
    }
}

// MARK: - Trampolines

@inline(__always)
private func unsafeReceiver(_ ctx: UnsafeMutableRawPointer?) -> Unmanaged<JSONEventReceiver> {
    // Invariant: ctx is the receiver passed to yajl_alloc, kept alive by the YajlParser's owner.
    Unmanaged<JSONEventReceiver>.fromOpaque(ctx.unsafelyUnwrapped)
}

@inline(__always)
private func result(_ ok: Bool) -> Int32 { ok ? 1 : 0 }

/// The callbacks table. yajl keeps the *pointer* (not a copy), so it lives for the whole
/// process; a table on the stack works in debug builds and crashes in release builds.
nonisolated(unsafe) private let eventCallbacks: UnsafeMutablePointer<yajl_callbacks> = {
    let table = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)
    table.initialize(
        to: yajl_callbacks(
            yajl_null: { ctx in
                result(unsafeReceiver(ctx)._withUnsafeGuaranteedRef { $0.receiveNull() })
            },
            yajl_boolean: { ctx, value in
                result(unsafeReceiver(ctx)._withUnsafeGuaranteedRef { $0.receiveBool(value != 0) })
            },
            yajl_integer: nil,
            yajl_double: nil,
            yajl_number: { ctx, text, length in
                result(
                    unsafeReceiver(ctx)._withUnsafeGuaranteedRef {
                        $0.receiveNumber(UnsafeRawBufferPointer(start: text, count: length))
                    })
            },
            yajl_string: { ctx, bytes, length in
                result(
                    unsafeReceiver(ctx)._withUnsafeGuaranteedRef {
                        $0.receiveString(UnsafeRawBufferPointer(start: bytes, count: length))
                    })
            },
            yajl_start_map: { ctx in
                result(unsafeReceiver(ctx)._withUnsafeGuaranteedRef { $0.receiveStartObject() })
            },
            yajl_map_key: { ctx, bytes, length in
                result(
                    unsafeReceiver(ctx)._withUnsafeGuaranteedRef {
                        $0.receiveKey(UnsafeRawBufferPointer(start: bytes, count: length))
                    })
            },
            yajl_end_map: { ctx in
                result(unsafeReceiver(ctx)._withUnsafeGuaranteedRef { $0.receiveEndObject() })
            },
            yajl_start_array: { ctx in
                result(unsafeReceiver(ctx)._withUnsafeGuaranteedRef { $0.receiveStartArray() })
            },
            yajl_end_array: { ctx in
                result(unsafeReceiver(ctx)._withUnsafeGuaranteedRef { $0.receiveEndArray() })
            }
        ))
    return table
}()

@inline(__always)
private func unsafeBuilder(_ ctx: UnsafeMutableRawPointer?) -> Unmanaged<DocumentBuilder> {
    // Invariant: ctx is the builder passed to yajl_alloc (the table is chosen by the
    // receiver's class), kept alive by the YajlParser's owner.
    Unmanaged<DocumentBuilder>.fromOpaque(ctx.unsafelyUnwrapped)
}

/// The same callbacks for the document builder, the receiver of every command that reads
/// JSON:API documents. Its class is final, so here each callback jumps to one builder function
/// per event (`yajlKey` and its kin, below), with the event's entry point and handler inlined
/// there (in `eventCallbacks` the handler is reached through the class's table). A C function
/// pointer cannot be generic, hence a second table rather than one over a type parameter.
nonisolated(unsafe) private let builderCallbacks: UnsafeMutablePointer<yajl_callbacks> = {
    let table = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)
    table.initialize(
        to: yajl_callbacks(
            yajl_null: { ctx in unsafeBuilder(ctx)._withUnsafeGuaranteedRef { DocumentBuilder.yajlNull($0) } },
            yajl_boolean: { ctx, value in unsafeBuilder(ctx)._withUnsafeGuaranteedRef { DocumentBuilder.yajlBool($0, value) } },
            yajl_integer: nil,
            yajl_double: nil,
            yajl_number: { ctx, text, length in unsafeBuilder(ctx)._withUnsafeGuaranteedRef { DocumentBuilder.yajlNumber($0, text, length) } },
            yajl_string: { ctx, bytes, length in unsafeBuilder(ctx)._withUnsafeGuaranteedRef { DocumentBuilder.yajlString($0, bytes, length) } },
            yajl_start_map: { ctx in unsafeBuilder(ctx)._withUnsafeGuaranteedRef { DocumentBuilder.yajlStartObject($0) } },
            yajl_map_key: { ctx, bytes, length in unsafeBuilder(ctx)._withUnsafeGuaranteedRef { DocumentBuilder.yajlKey($0, bytes, length) } },
            yajl_end_map: { ctx in unsafeBuilder(ctx)._withUnsafeGuaranteedRef { DocumentBuilder.yajlEndObject($0) } },
            yajl_start_array: { ctx in unsafeBuilder(ctx)._withUnsafeGuaranteedRef { DocumentBuilder.yajlStartArray($0) } },
            yajl_end_array: { ctx in unsafeBuilder(ctx)._withUnsafeGuaranteedRef { DocumentBuilder.yajlEndArray($0) } }
        ))
    return table
}()

/// The document builder's entry points for yajl, one per event: each is one function with
/// the event's handling inlined (the builder's `on…` handlers are `@inline(__always)`, but
/// `onKey`, which the compiler keeps a call whatever it is marked), returning yajl's continue
/// (1) or stop (0), so that the C callback above is no more than a jump to it. They are
/// static, with the builder as their first argument, in the register yajl's context comes in:
/// as methods, the builder went in the register Swift keeps `self` in, which a C caller
/// expects preserved, so each callback was a frame of its own that saved it and called on
/// (12 instructions per event; NDJSON on 2 workers, 16 MB: 57.5 to 56.9 instructions per
/// byte, and to 55.6 with the handlers inlined).
extension DocumentBuilder {
    @inline(never) fileprivate static func yajlNull(_ b: DocumentBuilder) -> Int32 { result(b.receiveNull()) }
    @inline(never) fileprivate static func yajlBool(_ b: DocumentBuilder, _ value: Int32) -> Int32 { result(b.receiveBool(value != 0)) }
    @inline(never) fileprivate static func yajlNumber(_ b: DocumentBuilder, _ text: UnsafePointer<CChar>?, _ length: Int) -> Int32 {
        result(b.receiveNumber(UnsafeRawBufferPointer(start: text, count: length)))
    }
    @inline(never) fileprivate static func yajlString(_ b: DocumentBuilder, _ bytes: UnsafePointer<UInt8>?, _ length: Int) -> Int32 {
        result(b.receiveString(UnsafeRawBufferPointer(start: bytes, count: length)))
    }
    @inline(never) fileprivate static func yajlStartObject(_ b: DocumentBuilder) -> Int32 { result(b.receiveStartObject()) }
    @inline(never) fileprivate static func yajlKey(_ b: DocumentBuilder, _ bytes: UnsafePointer<UInt8>?, _ length: Int) -> Int32 {
        let name = UnsafeRawBufferPointer(start: bytes, count: length)
        let escaped = !b.isFromSource(name)
        return result(
            b.receiveMemberName(name, escaped: escaped, prefix: escaped ? ShortName.prefix(name) : ShortName.prefix(name, readableUpTo: b.sourceEnd)))
    }
    @inline(never) fileprivate static func yajlEndObject(_ b: DocumentBuilder) -> Int32 { result(b.receiveEndObject()) }
    @inline(never) fileprivate static func yajlStartArray(_ b: DocumentBuilder) -> Int32 { result(b.receiveStartArray()) }
    @inline(never) fileprivate static func yajlEndArray(_ b: DocumentBuilder) -> Int32 { result(b.receiveEndArray()) }
}

/// Callbacks of the parsing side of the pipeline: each event goes to the tape. They are C
/// (`CPlatform/recorder.c`); their context is the recorder's state.
nonisolated(unsafe) private let recorderCallbacks: UnsafeMutablePointer<yajl_callbacks> = {
    let table = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)
    table.initialize(
        to: yajl_callbacks(
            yajl_null: jsonapi_record_null,
            yajl_boolean: jsonapi_record_boolean,
            yajl_integer: nil,
            yajl_double: nil,
            yajl_number: jsonapi_record_number,
            yajl_string: jsonapi_record_string,
            yajl_start_map: jsonapi_record_start_map,
            yajl_map_key: jsonapi_record_key,
            yajl_end_map: jsonapi_record_end_map,
            yajl_start_array: jsonapi_record_start_array,
            yajl_end_array: jsonapi_record_end_array
        ))
    return table
}()

/// An error yajl reported. yajl has no error codes, only English messages; they are read
/// here and only here.
struct YajlError {
    enum Kind {
        /// The input ended inside a value (`premature EOF`).
        case prematureEnd
        /// Something after the one top-level value (`trailing garbage`).
        case trailingGarbage
        /// A token that cannot follow a member value (`after key and value, inside map`).
        case afterMemberValue
        /// A token not allowed where it is (`unallowed token at this point`).
        case unallowedToken
        /// Other grammar errors: after an array element, a member name that is not a string,
        /// a missing colon.
        case grammar
        /// A token yajl could not read (`invalid token`).
        case invalidToken
        /// A lexical problem (yajl's offset for those is loose).
        case lexical
    }

    /// yajl's words (`parse error: …`, `lexical error: …`).
    let message: String
    let kind: Kind

    init(message: String) {
        self.message = message
        if message.contains("premature EOF") {
            kind = .prematureEnd
        } else if message.contains("trailing garbage") {
            kind = .trailingGarbage
        } else if message.contains("after key and value") {
            kind = .afterMemberValue
        } else if message.contains("unallowed token") {
            kind = .unallowedToken
        } else if message.contains("after array element") || message.contains("invalid object key")
            || message.contains("separated by a colon")
        {
            kind = .grammar
        } else if message.contains("invalid token") {
            kind = .invalidToken
        } else {
            kind = .lexical
        }
    }

    /// A grammar error names a token that lexed fine.
    var isGrammar: Bool { kind == .afterMemberValue || kind == .unallowedToken || kind == .grammar }
}

/// No-op callbacks for the floor measurement: every event is delivered and ignored.
nonisolated(unsafe) private let bareCallbacks: UnsafeMutablePointer<yajl_callbacks> = {
    let table = UnsafeMutablePointer<yajl_callbacks>.allocate(capacity: 1)
    table.initialize(
        to: yajl_callbacks(
            yajl_null: { _ in 1 },
            yajl_boolean: { _, _ in 1 },
            yajl_integer: nil,
            yajl_double: nil,
            yajl_number: { _, _, _ in 1 },
            yajl_string: { _, _, _ in 1 },
            yajl_start_map: { _ in 1 },
            yajl_map_key: { _, _, _ in 1 },
            yajl_end_map: { _ in 1 },
            yajl_start_array: { _ in 1 },
            yajl_end_array: { _ in 1 }
        ))
    return table
}()
