/// Reads `normalize` output for a ``Denormalizer``: each top-level value is a record.
///
/// Resource lines (NDJSON's records but one per document) are most of any such input. One
/// whose first member is `type` is read straight into JSON text: its members, minified, as
/// ``JSONTextWriter`` would write them, without a `JSONValue` tree in between. When it ends,
/// the denormalizer wraps the members it keeps into a small document for its graph parser
/// (``resourceLine``). Every other record (a document line, an operation line, a flat
/// object, a resource line that starts with another member) is built as a `JSONValue`, as
/// before, and handed to ``tree``. A record read as a line but found to be another kind (a
/// member that takes precedence over `type`, such as `document`, comes later) is parsed
/// again from its text into a `JSONValue`.
///
/// The JSON rules (syntax, limits, duplicate names) are this receiver's own, so problems are
/// reported where they are in the input, whichever way the record is read.
final class NormalizedRecordReader: JSONEventReceiver {
    /// A resource line read as text: its members, and which of them it keeps.
    struct Line: ~Copyable {
        /// The members, minified and comma-separated (without the braces).
        var text = ByteArena(capacity: 4096)
        /// Each member's bytes in `text` (its name, colon and value).
        var members: [Range<Int>] = []
        /// The members `normalize` adds (`primary`, `hash`), which do not go back.
        var added: [Bool] = []
        var hasID = false
        var hasLid = false
        /// A member that makes the record another kind (`resources`, `document`,
        /// `operation`): it is then read as a tree after all.
        var isOtherKind = false

        mutating func reset() {
            text.truncate(to: 0)
            members.removeAll(keepingCapacity: true)
            added.removeAll(keepingCapacity: true)
            hasID = false
            hasLid = false
            isOtherKind = false
        }
    }

    private enum Mode {
        /// A top-level object opened; its first member decides.
        case undecided
        case line
        case tree
    }

    private let builder: JSONValueReceiver
    // Unchecked: touched at every event, by this receiver only (on the parsing thread).
    @exclusivity(unchecked) private var mode = Mode.tree
    @exclusivity(unchecked) private var start = SourcePosition.start
    /// The resource line being read (valid in ``resourceLine`` until the next record).
    @exclusivity(unchecked) var line = Line()
    /// Whether the next member or element needs a comma before it (inside the line).
    @exclusivity(unchecked) private var needsComma = false
    /// Where the member being read starts in `line.text`.
    @exclusivity(unchecked) private var memberStart = 0

    /// A resource line is complete (`line` holds it); false stops the parse.
    var resourceLine: ((borrowing Line, SourcePosition) -> Bool)?
    /// Any other record is complete; false stops the parse.
    var tree: ((JSONValue, SourcePosition) -> Bool)?

    override init(options: ParseOptions) {
        builder = JSONValueReceiver(options: options)
        super.init(options: options)
    }

    // MARK: - Events

    override func onStartObject() -> Bool {
        if levels.count == 1 {
            start = currentLocation()
            mode = .undecided
            return true
        }
        if mode == .line {
            separate()
            line.text.append(UInt8(ascii: "{"))
            needsComma = false
            return true
        }
        return builder.onStartObject()
    }

    override func onStartArray() -> Bool {
        if levels.count == 1 {
            start = currentLocation()
            mode = .tree
            return builder.onStartArray()
        }
        if mode == .line {
            separate()
            line.text.append(UInt8(ascii: "["))
            needsComma = false
            return true
        }
        return builder.onStartArray()
    }

    override func onKey(_ name: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        if mode == .undecided {
            if memoryEqual(name, staticBytes("type")) {
                mode = .line
                line.reset()
                needsComma = false
            } else {
                mode = .tree
                if !builder.onStartObject() { return false }
            }
        }
        guard mode == .line else { return builder.onKey(name, escaped: escaped) }
        if levels.count == 1 {
            if needsComma { line.text.append(UInt8(ascii: ",")) }
            memberStart = line.text.count
            let isAdded = memoryEqual(name, staticBytes("primary")) || memoryEqual(name, staticBytes("hash"))
            line.added.append(isAdded)
            if memoryEqual(name, staticBytes("id")) { line.hasID = true }
            if memoryEqual(name, staticBytes("lid")) { line.hasLid = true }
            if memoryEqual(name, staticBytes("resources")) || memoryEqual(name, staticBytes("document")) || memoryEqual(name, staticBytes("operation")) {
                line.isOtherKind = true
            }
        } else {
            separate()
        }
        JSONEscaping.appendQuoted(name, to: &line.text)
        line.text.append(UInt8(ascii: ":"))
        needsComma = false
        return true
    }

    override func onEndObject() -> Bool {
        if levels.count == 1 {
            if mode == .line { return endLine() }
            // `{}`: no member decided.
            if mode == .undecided {
                mode = .tree
                if !builder.onStartObject() { return false }
            }
            return builder.onEndObject() && emitTree()
        }
        if mode == .line {
            line.text.append(UInt8(ascii: "}"))
            return afterValue(closed: true)
        }
        return builder.onEndObject()
    }

    override func onEndArray() -> Bool {
        if levels.count == 1 { return builder.onEndArray() && emitTree() }
        if mode == .line {
            line.text.append(UInt8(ascii: "]"))
            return afterValue(closed: true)
        }
        return builder.onEndArray()
    }

    override func onString(_ value: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        guard levels.count > 0 else { return builder.onString(value, escaped: escaped) && emitTree(scalar: true) }
        guard mode == .line else { return builder.onString(value, escaped: escaped) }
        separate()
        JSONEscaping.appendQuoted(value, to: &line.text)
        return afterValue()
    }

    override func onNumber(_ text: UnsafeRawBufferPointer) -> Bool {
        guard levels.count > 0 else { return builder.onNumber(text) && emitTree(scalar: true) }
        guard mode == .line else { return builder.onNumber(text) }
        separate()
        line.text.append(text)
        return afterValue()
    }

    override func onBool(_ value: Bool) -> Bool {
        guard levels.count > 0 else { return builder.onBool(value) && emitTree(scalar: true) }
        guard mode == .line else { return builder.onBool(value) }
        separate()
        line.text.append(value ? "true" : "false")
        return afterValue()
    }

    override func onNull() -> Bool {
        guard levels.count > 0 else { return builder.onNull() && emitTree(scalar: true) }
        guard mode == .line else { return builder.onNull() }
        separate()
        line.text.append("null")
        return afterValue()
    }

    // MARK: - The line

    @inline(__always)
    private func separate() {
        if needsComma { line.text.append(UInt8(ascii: ",")) }
    }

    /// After a value inside the line (`closed`: a container, whose level is still counted
    /// while it closes): a member of the record ends when its value does.
    @inline(__always)
    private func afterValue(closed: Bool = false) -> Bool {
        needsComma = true
        if levels.count == (closed ? 2 : 1) { line.members.append(memberStart..<line.text.count) }
        return true
    }

    private func endLine() -> Bool {
        if line.isOtherKind {
            // Read as a tree after all: the record's own text, every member in it.
            var text = ByteArena(capacity: line.text.count + 2)
            text.append(UInt8(ascii: "{"))
            text.append(line.text.bytes(in: 0..<line.text.count))
            text.append(UInt8(ascii: "}"))
            let value: JSONValue
            do {
                value = try text.withBytes { (b) throws(JSONAPIError) in try JSONValue(parsingStoredValue: b, options: .default) }
            } catch {
                thrown = error
                return false
            }
            return tree?(value, start) ?? true
        }
        return resourceLine?(line, start) ?? true
    }

    /// After a value closes: when it was a whole record, hand it over.
    private func emitTree(scalar: Bool = false) -> Bool {
        guard let value = builder.takeValues().first else { return true }
        if scalar { start = currentLocation() }
        return tree?(value, start) ?? true
    }
}
