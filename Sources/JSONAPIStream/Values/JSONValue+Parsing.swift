extension JSONValue {
    /// Parses one JSON text (any top-level value) with the same checks as documents get:
    /// strict UTF-8, paired surrogates, limits, no duplicate member names by default.
    ///
    /// - Throws: ``JSONAPIError/syntax(_:)`` with the rule, position and pointer.
    public init(parsing bytes: some Collection<UInt8>, options: ParseOptions = .default) throws(JSONAPIError) {
        var options = options
        options.multipleDocuments = false
        let builder = JSONValueReceiver(options: options)
        let parser = JSONStreamParser(receiver: builder, options: options)
        try withContiguousBytes(of: bytes) { (b) throws(JSONAPIError) in try parser.feed(b) }
        try parser.finish()
        self = builder.values.first ?? .null
    }

    /// Parses every JSON text in `bytes` (several values, concatenated or one per line).
    public static func parseAll(_ bytes: some Collection<UInt8>, options: ParseOptions = .default) throws(JSONAPIError) -> [JSONValue] {
        var options = options
        options.multipleDocuments = true
        let builder = JSONValueReceiver(options: options)
        let parser = JSONStreamParser(receiver: builder, options: options)
        try withContiguousBytes(of: bytes) { (b) throws(JSONAPIError) in try parser.feed(b) }
        try parser.finish()
        return builder.values
    }
}

/// Builds ``JSONValue`` trees from events.
final class JSONValueReceiver: JSONEventReceiver {
    private enum Open {
        case array([JSONValue])
        case object(JSONObject, key: String?)
    }
    private var stack: [Open] = []
    var values: [JSONValue] = []
    /// Treat every object as a stored value (for ``DuplicateMemberPolicy/allowInValues``).
    var storesEverything = false

    override func isInsideStoredValue() -> Bool { storesEverything }

    private func add(_ v: JSONValue) -> Bool {
        guard let top = stack.popLast() else {
            values.append(v)
            return true
        }
        switch top {
        case .array(var a):
            a.append(v)
            stack.append(.array(a))
        case .object(var o, let key):
            o.append(key ?? "", v)
            stack.append(.object(o, key: nil))
        }
        return true
    }

    override func onStartObject() -> Bool { stack.append(.object(JSONObject(), key: nil)); return true }
    override func onStartArray() -> Bool { stack.append(.array([])); return true }
    override func onKey(_ name: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        guard case .object(let o, _) = stack.popLast() else { return false }
        stack.append(.object(o, key: String(decoding: name, as: UTF8.self)))
        return true
    }
    override func onEndObject() -> Bool {
        guard case .object(let o, _) = stack.popLast() else { return false }
        return add(.object(o))
    }
    override func onEndArray() -> Bool {
        guard case .array(let a) = stack.popLast() else { return false }
        return add(.array(a))
    }
    override func onString(_ value: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        add(.string(String(decoding: value, as: UTF8.self)))
    }
    override func onNumber(_ text: UnsafeRawBufferPointer) -> Bool {
        add(.number(JSONNumber(uncheckedText: String(decoding: text, as: UTF8.self))))
    }
    override func onBool(_ value: Bool) -> Bool { add(.bool(value)) }
    override func onNull() -> Bool { add(.null) }
}
