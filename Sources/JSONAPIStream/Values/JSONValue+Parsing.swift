extension JSONValue {
    /// Parses one JSON text (any top-level value) with the same checks as documents get:
    /// strict UTF-8, paired surrogates, limits, no duplicate member names by default.
    ///
    /// - Throws: ``JSONAPIError/syntax(_:)`` with the rule, position and pointer.
    public init(parsing bytes: some Collection<UInt8>, options: ParseOptions = .default) throws(JSONAPIError) {
        self = try Self.parseOne(bytes, options: options, storedValue: false)
    }

    /// Parses one JSON text that is a value stored whole (an attribute's value, `meta`, a
    /// JSON column of a loaded database): under ``DuplicateMemberPolicy/allowInValues`` a
    /// repeated member name is kept at every level, the top one included, as it was when the
    /// value was read from its document.
    public init(parsingStoredValue bytes: some Collection<UInt8>, options: ParseOptions) throws(JSONAPIError) {
        self = try Self.parseOne(bytes, options: options, storedValue: true)
    }

    private static func parseOne(_ bytes: some Collection<UInt8>, options: ParseOptions, storedValue: Bool) throws(JSONAPIError) -> JSONValue {
        var options = options
        options.multipleDocuments = false
        let builder = JSONValueReceiver(options: options)
        builder.storesEverything = storedValue
        let parser = JSONStreamParser(outlet: builder, options: options)
        try withContiguousBytes(of: bytes) { (b) throws(JSONAPIError) in try parser.feed(b) }
        try parser.finish()
        return builder.values.first ?? .null
    }

    /// Parses every JSON text in `bytes` (several values, concatenated or one per line).
    public static func parseAll(_ bytes: some Collection<UInt8>, options: ParseOptions = .default) throws(JSONAPIError) -> [JSONValue] {
        var options = options
        options.multipleDocuments = true
        let builder = JSONValueReceiver(options: options)
        let parser = JSONStreamParser(outlet: builder, options: options)
        try withContiguousBytes(of: bytes) { (b) throws(JSONAPIError) in try parser.feed(b) }
        try parser.finish()
        return builder.values
    }
}

/// Builds ``JSONValue`` trees from events.
///
/// The values of every open container wait on one stack (with their member names beside
/// them); a container is made from its slice when it closes. Each value is appended once and
/// moved once, so building is linear in the input: appending to a container held inside an
/// enum on a stack would copy it on every append (quadratic for a long array).
final class JSONValueReceiver: JSONEventReceiver {
    /// An open container: where its values start on `pending`.
    private struct Frame {
        var isObject: Bool
        var start: Int
        /// The member name the container itself goes under in its parent.
        var key: String
    }
    private var frames: [Frame] = []
    private var pending: [JSONValue] = []
    /// Member names of `pending`'s values (empty for array elements).
    private var names: [String] = []
    private var key = ""
    var values: [JSONValue] = []
    /// Treat every object as a stored value (for ``DuplicateMemberPolicy/allowInValues``).
    var storesEverything = false

    override func isInsideStoredValue() -> Bool { storesEverything }

    private func add(_ v: JSONValue) -> Bool {
        guard let top = frames.last else {
            values.append(v)
            return true
        }
        pending.append(v)
        names.append(top.isObject ? key : "")
        return true
    }

    override func onStartObject() -> Bool {
        frames.append(Frame(isObject: true, start: pending.count, key: key))
        return true
    }
    override func onStartArray() -> Bool {
        frames.append(Frame(isObject: false, start: pending.count, key: key))
        return true
    }
    override func onKey(_ name: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        key = String(decoding: name, as: UTF8.self)
        return true
    }
    override func onEndObject() -> Bool {
        guard let f = frames.popLast(), f.isObject else { return false }
        var o = JSONObject()
        o.reserveCapacity(pending.count - f.start)
        for i in f.start..<pending.count { o.append(names[i], pending[i]) }
        pending.removeSubrange(f.start...)
        names.removeSubrange(f.start...)
        key = f.key
        return add(.object(o))
    }
    override func onEndArray() -> Bool {
        guard let f = frames.popLast(), !f.isObject else { return false }
        let a = Array(pending[f.start...])
        pending.removeSubrange(f.start...)
        names.removeSubrange(f.start...)
        key = f.key
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
