/// Reads `normalize` output for a ``Denormalizer``: each top-level value is a record.
///
/// Resource lines (NDJSON's records but one per document) are most of any such input. One
/// whose first member is `type` is read straight into JSON text: its members, minified, as
/// ``JSONTextWriter`` would write them, without a `JSONValue` tree in between. When it ends,
/// the denormalizer wraps the members it keeps into a small document for its graph parser
/// (``resourceLine``). A flat object (first member `data`, as `normalize` writes it, or
/// `resources`) is read the same way entry by entry (``flatEntry``): only its `data` and its
/// top-level members other than `resources` become trees (``flatObject``). Every other
/// record (a document line, an operation line, a resource line or flat object that starts
/// with another member) is built as a `JSONValue`, as before, and handed to ``tree``. A record read as a line but found to be
/// another kind (a member that takes precedence over `type`, such as `document`, comes later)
/// is parsed again from its text into a `JSONValue`.
///
/// The JSON rules (syntax, limits, duplicate names) are this receiver's own, so problems are
/// reported where they are in the input, whichever way the record is read; a flat object
/// that is not normalize output is reported once it has been read whole, as a tree would be.
final class NormalizedRecordReader: JSONEventReceiver {
    /// A resource line (or a flat object's entry) read as text: the members it keeps.
    struct Line: ~Copyable {
        /// The members, minified and comma-separated (without the braces); those it does not
        /// keep too (`primary` and `hash` of a line, `lid` of an entry), for a line read as a
        /// tree after all.
        var text = ByteArena(capacity: 4096)
        /// The bytes in `text` of each member it keeps (its name, colon and value).
        var members: [Range<Int>] = []
        var hasID = false
        var hasLid = false
        /// A member that makes the record another kind (`resources`, `document`,
        /// `operation`): it is then read as a tree after all.
        var isOtherKind = false

        init() {}

        /// The members of `object` but those `dropped` names, as JSONTextWriter writes them:
        /// a record that came as a tree, made the text the reader would have made of it.
        init(_ object: JSONObject, dropping dropped: (String) -> Bool) {
            append(object, dropping: dropped)
        }

        /// Appends the members of `object` but those `dropped` names, as JSONTextWriter
        /// writes them.
        mutating func append(_ object: JSONObject, dropping dropped: (String) -> Bool = { _ in false }) {
            var w = JSONTextWriter()
            for m in object.members where !dropped(m.key) {
                w.arena.truncate(to: 0)
                w.write(m.value)
                w.arena.withBytes { append(m.key, json: $0) }
            }
        }

        /// Appends a member whose value is `json`: minified JSON text, as JSONTextWriter
        /// writes it.
        mutating func append(_ key: String, json: UnsafeRawBufferPointer) {
            if text.count > 0 { text.append(UInt8(ascii: ",")) }
            let start = text.count
            Self.appendName(key, to: &text)
            text.append(json)
            members.append(start..<text.count)
            if key == "id" { hasID = true }
            if key == "lid" { hasLid = true }
        }

        /// `"key":` at the end of `text`, a member's start: the name quoted as JSONTextWriter
        /// writes it.
        static func appendName(_ key: String, to text: inout ByteArena) {
            var name = key
            name.withUTF8 { JSONEscaping.appendQuoted(UnsafeRawBufferPointer($0), to: &text) }
            text.append(UInt8(ascii: ":"))
        }

        mutating func reset() {
            text.truncate(to: 0)
            members.removeAll(keepingCapacity: true)
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
        case flat
    }

    /// Where a flat object is: in its `data` (read into ``dataBuilder``), in its
    /// `resources` (entry by entry: the opening `{` of `resources`, of a type's object, of an
    /// entry), among its other members (read into ``builder``), or past a problem (the rest
    /// is only read). `data` and `resources` may come in either order.
    private enum FlatPhase {
        case data
        case members
        case resources
        case skipping
    }

    private let builder: JSONValueReceiver
    /// A flat object's `data`.
    private let dataBuilder: JSONValueReceiver
    // Unchecked: touched at every event, by this receiver only (on the parsing thread).
    @exclusivity(unchecked) private var mode = Mode.tree
    @exclusivity(unchecked) private var start = SourcePosition.start
    /// The resource line being read (valid in ``resourceLine`` until the next record).
    @exclusivity(unchecked) var line = Line()
    /// Whether the next member or element needs a comma before it (inside the line).
    @exclusivity(unchecked) private var needsComma = false
    /// Where the member being read starts in `line.text`.
    @exclusivity(unchecked) private var memberStart = 0
    /// The level of the members `line` gathers: 1 for a resource line, 4 for a flat entry.
    @exclusivity(unchecked) private var memberLevel = 1

    // A flat object being read.
    @exclusivity(unchecked) private var phase = FlatPhase.data
    @exclusivity(unchecked) private var data: JSONValue = .null
    @exclusivity(unchecked) private var hasResources = false
    @exclusivity(unchecked) private var othersOpen = false
    /// Why the object is not normalize output (the first reason found).
    @exclusivity(unchecked) private var problem: String?
    @exclusivity(unchecked) private var entryType = ""
    @exclusivity(unchecked) private var entryKey = ""
    @exclusivity(unchecked) private var entryLid: String?
    /// Whether the member being read is one the line does not keep (in an entry: its `lid`,
    /// whose value is kept aside).
    @exclusivity(unchecked) private var dropping = false

    /// A resource line is complete (`line` holds it); false stops the parse.
    var resourceLine: ((borrowing Line, SourcePosition) -> Bool)?
    /// Any other record is complete; false stops the parse.
    var tree: ((JSONValue, SourcePosition) -> Bool)?
    /// An entry of a flat object is complete: its type, key, `lid` when that is a string, and
    /// its other members in `line`; false stops the parse.
    var flatEntry: ((String, String, String?, borrowing Line) -> Bool)?
    /// A flat object is complete: its `data`, its other members (without `data` and
    /// `resources`), and the first reason it is not normalize output, if any; false stops
    /// the parse.
    var flatObject: ((JSONValue, JSONObject, String?, SourcePosition) -> Bool)?

    override init(options: ParseOptions) {
        builder = JSONValueReceiver(options: options)
        dataBuilder = JSONValueReceiver(options: options)
        super.init(options: options)
    }

    // MARK: - Events

    override func onStartObject() -> Bool {
        let level = levels.count
        if level == 1 {
            start = currentLocation()
            mode = .undecided
            return true
        }
        switch mode {
        case .line: return openInLine(UInt8(ascii: "{"))
        case .flat: return flatStartObject(level)
        default: return builder.onStartObject()
        }
    }

    override func onStartArray() -> Bool {
        let level = levels.count
        if level == 1 {
            start = currentLocation()
            mode = .tree
            return builder.onStartArray()
        }
        switch mode {
        case .line: return openInLine(UInt8(ascii: "["))
        case .flat: return flatStartArray(level)
        default: return builder.onStartArray()
        }
    }

    override func onKey(_ name: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        if mode == .undecided {
            if memoryEqual(name, staticBytes("type")) {
                mode = .line
                memberLevel = 1
                line.reset()
                needsComma = false
                dropping = false
            } else if memoryEqual(name, staticBytes("data")) || memoryEqual(name, staticBytes("resources")) {
                mode = .flat
                phase = .members
                data = .null
                hasResources = false
                othersOpen = false
                problem = nil
            } else {
                mode = .tree
                if !builder.onStartObject() { return false }
            }
        }
        switch mode {
        case .line: return keyInLine(name)
        case .flat: return flatKey(name, escaped: escaped)
        default: return builder.onKey(name, escaped: escaped)
        }
    }

    override func onEndObject() -> Bool {
        let level = levels.count
        switch mode {
        case .line:
            if level == 1 { return endLine() }
            line.text.append(UInt8(ascii: "}"))
            return afterValue(closed: true)
        case .flat:
            return flatEndObject(level)
        case .undecided:
            // `{}`: no member decided.
            mode = .tree
            return builder.onStartObject() && builder.onEndObject() && emitTree()
        case .tree:
            if level == 1 { return builder.onEndObject() && emitTree() }
            return builder.onEndObject()
        }
    }

    override func onEndArray() -> Bool {
        let level = levels.count
        switch mode {
        case .line:
            line.text.append(UInt8(ascii: "]"))
            return afterValue(closed: true)
        case .flat:
            return flatEndArray(level)
        default:
            if level == 1 { return builder.onEndArray() && emitTree() }
            return builder.onEndArray()
        }
    }

    override func onString(_ value: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        scalar({ $0.onString(value, escaped: escaped) }, inLine: { stringInLine(value) })
    }

    override func onNumber(_ text: UnsafeRawBufferPointer) -> Bool {
        scalar({ $0.onNumber(text) }, inLine: { literalInLine(text) })
    }

    override func onBool(_ value: Bool) -> Bool {
        scalar({ $0.onBool(value) }, inLine: { literalInLine(staticBytes(value ? "true" : "false")) })
    }

    override func onNull() -> Bool {
        scalar({ $0.onNull() }, inLine: { literalInLine(staticBytes("null")) })
    }

    /// A scalar: to a tree (`event`, on the tree it belongs to), or to the line's text
    /// (`inLine`).
    @inline(__always)
    private func scalar(_ event: (JSONValueReceiver) -> Bool, inLine: () -> Bool) -> Bool {
        let level = levels.count
        guard level > 0 else { return event(builder) && emitTree(scalar: true) }
        switch mode {
        case .line: return inLine()
        case .flat:
            if let done = outsideResources(event, ends: level == 1) { return done }
            if level >= 4 { return inLine() }
            notFlat(level)
            return true
        default: return event(builder)
        }
    }

    // MARK: - The line (a resource line, or a flat object's entry)

    @inline(__always)
    private func separate() {
        if needsComma { line.text.append(UInt8(ascii: ",")) }
    }

    @inline(__always)
    private func openInLine(_ bracket: UInt8) -> Bool {
        separate()
        line.text.append(bracket)
        needsComma = false
        return true
    }

    @inline(__always)
    private func stringInLine(_ value: UnsafeRawBufferPointer) -> Bool {
        separate()
        JSONEscaping.appendQuoted(value, to: &line.text)
        if dropping && memberLevel == 4 && levels.count == 4 { entryLid = String(decoding: value, as: UTF8.self) }
        return afterValue()
    }

    /// A number's text, or `true`, `false`, `null`.
    @inline(__always)
    private func literalInLine(_ text: UnsafeRawBufferPointer) -> Bool {
        separate()
        line.text.append(text)
        return afterValue()
    }

    private func keyInLine(_ name: UnsafeRawBufferPointer) -> Bool {
        separate()
        if levels.count == memberLevel {
            memberStart = line.text.count
            if memberLevel == 1 {
                dropping = memoryEqual(name, staticBytes("primary")) || memoryEqual(name, staticBytes("hash"))
                if memoryEqual(name, staticBytes("id")) { line.hasID = true }
                if memoryEqual(name, staticBytes("lid")) { line.hasLid = true }
                if memoryEqual(name, staticBytes("resources")) || memoryEqual(name, staticBytes("document"))
                    || memoryEqual(name, staticBytes("operation"))
                {
                    line.isOtherKind = true
                }
            } else {
                // A flat entry's `lid` goes back beside `type` and `id`, not among the members.
                dropping = memoryEqual(name, staticBytes("lid"))
            }
        }
        JSONEscaping.appendQuoted(name, to: &line.text)
        line.text.append(UInt8(ascii: ":"))
        needsComma = false
        return true
    }

    /// After a value inside the line (`closed`: a container, whose level is still counted
    /// while it closes): a member ends when its value does.
    @inline(__always)
    private func afterValue(closed: Bool = false) -> Bool {
        needsComma = true
        if levels.count == (closed ? memberLevel + 1 : memberLevel) {
            if !dropping { line.members.append(memberStart..<line.text.count) }
            dropping = false
        }
        return true
    }

    // MARK: - A flat object

    /// An event of a flat object outside `resources`: to the tree it belongs to (`data`'s, or
    /// the other members'), or nowhere past a problem; `ends`: whether it would end `data`.
    /// nil inside `resources`.
    @inline(__always)
    private func outsideResources(_ event: (JSONValueReceiver) -> Bool, ends: Bool) -> Bool? {
        switch phase {
        case .data: return event(dataBuilder) && dataEnded(ends)
        case .members: return event(builder)
        case .skipping: return true
        case .resources: return nil
        }
    }

    /// A value where `resources` (level 1), a type's object (2) or an entry (3) should be.
    private func notFlat(_ level: Int) {
        problem =
            level == 1
            ? "\"resources\" is not an object"
            : level == 2 ? "resources of \(quoted(entryType)) are not an object" : "a resource entry is not an object"
        phase = .skipping
    }

    /// After an event of `data`: when it `ended` the value, keep it.
    private func dataEnded(_ ended: Bool) -> Bool {
        if ended {
            data = dataBuilder.takeValues().first ?? .null
            phase = .members
        }
        return true
    }

    private func flatKey(_ name: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
        let level = levels.count
        switch phase {
        case .data: return dataBuilder.onKey(name, escaped: escaped)
        case .skipping: return true
        case .members:
            if level == 1 && memoryEqual(name, staticBytes("data")) {
                phase = .data
                return true
            }
            if level == 1 && memoryEqual(name, staticBytes("resources")) {
                phase = .resources
                hasResources = true
                return true
            }
            if level == 1 && !othersOpen {
                othersOpen = true
                if !builder.onStartObject() { return false }
            }
            return builder.onKey(name, escaped: escaped)
        case .resources:
            switch level {
            case 2: entryType = String(decoding: name, as: UTF8.self)
            case 3: entryKey = String(decoding: name, as: UTF8.self)
            default: return keyInLine(name)
            }
            return true
        }
    }

    private func flatStartObject(_ level: Int) -> Bool {
        if let done = outsideResources({ $0.onStartObject() }, ends: false) { return done }
        switch level {
        case 2, 3: return true
        case 4:
            // An entry: its members go into `line`.
            memberLevel = 4
            line.reset()
            needsComma = false
            entryLid = nil
            dropping = false
            return true
        default: return openInLine(UInt8(ascii: "{"))
        }
    }

    private func flatStartArray(_ level: Int) -> Bool {
        if let done = outsideResources({ $0.onStartArray() }, ends: false) { return done }
        if level >= 5 { return openInLine(UInt8(ascii: "[")) }
        notFlat(level - 1)
        return true
    }

    private func flatEndArray(_ level: Int) -> Bool {
        if let done = outsideResources({ $0.onEndArray() }, ends: level == 2) { return done }
        line.text.append(UInt8(ascii: "]"))
        return afterValue(closed: true)
    }

    private func flatEndObject(_ level: Int) -> Bool {
        if level == 1 { return endFlat() }
        if let done = outsideResources({ $0.onEndObject() }, ends: level == 2) { return done }
        switch level {
        case 2:
            phase = .members
            return true
        case 3: return true
        case 4: return flatEntry?(entryType, entryKey, entryLid, line) ?? true
        default:
            line.text.append(UInt8(ascii: "}"))
            return afterValue(closed: true)
        }
    }

    /// The flat object's closing brace: hand it over (or, without `resources`, the object
    /// as a tree: it is another kind of record).
    private func endFlat() -> Bool {
        mode = .tree
        var others = JSONObject()
        if othersOpen {
            guard builder.onEndObject() else { return false }
            others = builder.takeValues().first?.objectValue ?? JSONObject()
        }
        if hasResources || problem != nil { return flatObject?(data, others, problem, start) ?? true }
        var o = JSONObject()
        o.append("data", data)
        for m in others.members { o.append(m.key, m.value) }
        return tree?(.object(o), start) ?? true
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
