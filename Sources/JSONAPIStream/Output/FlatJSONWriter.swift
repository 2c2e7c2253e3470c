#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a ``Graph`` as the flat object of `--format json`:
///
/// ```
/// {"data":…,"resources":{"<type>":{"<id>":{"attributes":{…},"relationships":{…},…}}},
///  "meta":…,"links":…,"jsonapi":…,"errors":[…]}
/// ```
///
/// Types and ids in first-seen order; with several documents `data` is the concatenation of
/// their primary linkage, top-level `meta`, `links`, `jsonapi` and unknown members are
/// merged by name (later documents win, a name keeps its first position) and `errors` are
/// concatenated.
struct FlatJSONWriter {
    let graph: Graph
    let out: ByteWriter
    let options: OutputOptions
    /// Threads the resources' entries are written on (``writeEntriesSideBySide(_:type:fields:slots:)``):
    /// the same bytes on any number.
    var threads = 1

    func write() throws(JSONAPIError) {
        // The object is one record: check everything that can fail (names that collide with
        // --keys or with the members the output adds) before writing any of it.
        let check = FlatJSONWriter(graph: graph, out: ByteWriter(), options: options)
        try check.writeAll(dryRun: true)
        try writeAll(dryRun: false)
    }

    /// Whether writing a resource's body can fail: only when names are formatted (`--keys`),
    /// where two names can become one (the flat output reserves no member names in a body).
    /// When it cannot, the dry run checks the keys alone and writes no bodies: it would
    /// otherwise cost about as much as writing the output.
    private var bodiesCanFail: Bool { options.formatsNames }

    private func writeAll(dryRun: Bool) throws(JSONAPIError) {
        let s = graph.storage
        let writer = ResourceWriter(out: out, options: options)
        let parts = ResourceParts()
        // (The dry run of bodies that cannot fail: the keys are checked, nothing is written.)
        let checksKeysOnly = dryRun && !bodiesCanFail
        out.write(#"{"data":"#)
        // The primary linkage cannot fail.
        if !checksKeysOnly { try writePrimary(dryRun: dryRun) }
        out.write(#","resources":{"#)
        // Types in the order their first resource appeared.
        let selection = Selection(options)
        let types = s.rowsByType.indices
            .filter { !s.rowsByType[$0].isEmpty && selection.selects(s.symbols.bytes(of: UInt32($0))) }
            .sorted { s.rowsByType[$0][0] < s.rowsByType[$1][0] }
        // The writers of the threads, made for the first type large enough to share out; the
        // helper threads end with this write.
        var slots: EntryBlocks?
        defer { slots?.stop() }
        for (i, t) in types.enumerated() {
            if i > 0 { out.write(byte: UInt8(ascii: ",")) }
            let fields = selection.fields(of: s.symbols.bytes(of: UInt32(t)))
            writer.writeQuoted(s.symbols.bytes(of: UInt32(t)))
            out.write(":{")
            let rows = s.rowsByType[t]
            if !dryRun && threads > 1 && rows.count >= Self.sideBySideRows {
                if slots == nil {
                    // No more threads than the largest type has blocks.
                    let most = types.lazy.map { s.rowsByType[$0].count }.max() ?? 0
                    slots = entryBlocks(Swift.min(threads, (most + Self.blockRows - 1) / Self.blockRows))
                }
                try writeEntriesSideBySide(rows, type: t, fields: fields, slots: slots!)
            } else {
                try writeEntries(rows[...], type: t, fields: fields, first: true, writer, parts, checksKeysOnly: checksKeysOnly, dryRun: dryRun)
            }
            out.write(byte: UInt8(ascii: "}"))
        }
        out.write(byte: UInt8(ascii: "}"))
        try writeTopLevel(writer, parts)
        out.write("}\n")
        if !dryRun { try out.endRecord() }
    }

    /// Rows of a type's entries written at a time by one thread of
    /// ``writeEntriesSideBySide(_:type:fields:slots:)``. (Blocks of 1,024 rows made each
    /// thread's buffer twice as large, for no speed: 0.5 MiB more at the peak of a 128 MB
    /// document.)
    static let blockRows = 512

    /// The fewest rows of a type written side by side: fewer are written on one thread, which
    /// costs less than handing blocks to the others.
    static let sideBySideRows = 2048

    /// Writes the entries of `rows`, resources of type `t` (`"id":{…}`), each after a comma
    /// but for the first when `first`; in the dry run, checks their keys (`N04`) as it goes.
    private func writeEntries(
        _ rows: ArraySlice<Int32>, type t: Int, fields: [[UInt8]]?, first: Bool, _ writer: ResourceWriter, _ parts: ResourceParts,
        checksKeysOnly: Bool, dryRun: Bool
    ) throws(JSONAPIError) {
        let s = graph.storage
        var keyedByEmpty = false
        for (k, row) in rows.enumerated() {
            if (k > 0 || !first) && !checksKeysOnly { out.write(byte: UInt8(ascii: ",")) }
            // --numbers safe: each entry is checked as it ends, and scanned only when
            // its resource's input held a number to quote.
            if s.topLevelUnsafeNumbers != nil && !checksKeysOnly {
                out.settleNumbers()
                out.mayHoldUnsafeNumbers = s.resources[Int(row)].flags & GraphStorage.ResourceRecord.unsafeNumbers != 0
            }
            let (id, lid): (UnsafeRawBufferPointer?, UnsafeRawBufferPointer?)
            if checksKeysOnly {
                (id, lid) = s.identity(of: s.resources[Int(row)])
            } else {
                parts.fill(row: Int(row), of: s)
                if let fields { parts.keepFields(fields) }
                parts.place = s.resources[Int(row)].place
                (id, lid) = (parts.id, parts.lid)
            }
            // The keys (N04) are checked in the dry run, which always comes first.
            if dryRun { try checkKey(of: row, id: id, lid: lid, type: t, keyedByEmpty: &keyedByEmpty) }
            if checksKeysOnly { continue }
            writer.writeQuoted(parts.id ?? parts.lid ?? UnsafeRawBufferPointer(start: nil, count: 0))
            out.write(byte: UInt8(ascii: ":"))
            // The entry: writeBody writes `,"attributes":…`, whose leading comma becomes the
            // entry's opening brace (rather than moving the whole body back by a byte).
            let mark = out.mark
            try writer.writeBody(parts, reserved: [])
            out.buffer.replace(at: mark, with: UInt8(ascii: "{"), expecting: UInt8(ascii: ","))
            if let lid = parts.lid {
                out.write(#","lid":"#)
                writer.writeQuoted(lid)
            }
            out.write(byte: UInt8(ascii: "}"))
            try pace(dryRun: dryRun)
        }
    }

    /// Fails (`N04`) when the entry of `row` cannot have a key of its own in the object: a
    /// second resource of its type without id or lid, or one keyed by its lid (or "") that a
    /// resource of the same type with that id would take. `keyedByEmpty`: whether the type
    /// had a resource without id or lid before.
    private func checkKey(
        of row: Int32, id: UnsafeRawBufferPointer?, lid: UnsafeRawBufferPointer?, type t: Int, keyedByEmpty: inout Bool
    ) throws(JSONAPIError) {
        let s = graph.storage
        // A resource with neither id nor lid (a create payload's) is keyed by "";
        // a second one of the same type has no key of its own.
        if id == nil && lid == nil {
            if keyedByEmpty {
                let r = s.resources[Int(row)]
                throw JSONAPIError.document(
                    Diagnostic(
                        severity: .error, rule: .N04,
                        message:
                            "a second resource of type \(quoted(String(decoding: s.symbols.bytes(of: UInt32(t)), as: UTF8.self))) without id or lid: flat JSON keys resources by id or lid and cannot hold both (NDJSON can)",
                        location: s.position(r.position), pointer: r.pointer, source: s.documents[Int(s.document(ofRow: Int(row)))].source))
            }
            keyedByEmpty = true
        }
        if id == nil {
            // Keyed by its lid (or ""): a resource of the same type with that id
            // would take the same key.
            let key = lid.map { String(decoding: $0, as: UTF8.self) } ?? ""
            if let k = s.keys.find(key, tag: s.idTag(UInt32(t))), s.keyRow[Int(k)] >= 0 {
                let r = s.resources[Int(row)]
                let type = String(decoding: s.symbols.bytes(of: UInt32(t)), as: UTF8.self)
                throw JSONAPIError.document(
                    Diagnostic(
                        severity: .error, rule: .N04,
                        message:
                            "resources (type \(quoted(type)), \(lid == nil ? "without id or lid" : "lid \(quoted(key))")) and (type \(quoted(type)), id \(quoted(key))) would both be keyed \(quoted(key)) in flat JSON (NDJSON can hold both)",
                        location: s.position(r.position), pointer: r.pointer, source: s.documents[Int(s.document(ofRow: Int(row)))].source))
            }
        }
    }

    /// A type's entries written on ``threads`` threads: blocks of ``blockRows`` rows, one per
    /// thread at a time, each into a memory writer of its own, then appended to the output in
    /// order. The bytes are those one thread writes (numbers quoted per entry as there), and
    /// no more than a block per thread is held (the 128 MB generated document: about 2 MiB
    /// more at the peak). Only after the dry run, which has checked every key.
    private func writeEntriesSideBySide(_ rows: [Int32], type t: Int, fields: [[UInt8]]?, slots: EntryBlocks) throws(JSONAPIError) {
        let blocks = (rows.count + Self.blockRows - 1) / Self.blockRows
        let lent = LentEntries(writer: self, rows: rows, fields: fields)
        // Block `b` into slot `i`, on whichever thread `EntryBlocks.run` gives it to.
        // Invariant: slot `i` is touched by one thread at a time (the one writing block `i` of
        // the window, then the caller appending it); the graph is only read.
        slots.setRender { b, slot in
            let range = b * Self.blockRows..<Swift.min(lent.rows.count, (b + 1) * Self.blockRows)
            let blockWriter = FlatJSONWriter(graph: lent.writer.graph, out: slot.out, options: lent.writer.options)
            do throws(JSONAPIError) {
                try blockWriter.writeEntries(
                    lent.rows[range], type: t, fields: lent.fields, first: b == 0, slot.writer, slot.parts, checksKeysOnly: false, dryRun: false)
                slot.out.settleNumbers()
                slot.error = nil
            } catch {
                slot.error = error
            }
        }
        defer { slots.setRender(nil) }
        var next = 0
        while next < blocks {
            let n = Swift.min(slots.count, blocks - next)
            slots.run(firstBlock: next, count: n)
            for i in 0..<n {
                let slot = slots.slot(i)
                if let error = slot.error { throw error }
                try out.appendRecords(slot.out.buffer, count: 0, quoted: slot.out.numbersQuoted - slot.quotedBefore)
                slot.quotedBefore = slot.out.numbersQuoted
                slot.out.discardAll()
            }
            next += n
        }
    }

    /// `count` slots, one per thread, for ``writeEntriesSideBySide(_:type:fields:slots:)``.
    /// Each slot's buffer is made once, here, about as large as a block's output (an entry is
    /// about its values and a little more): grown on the writing threads instead, it would
    /// leave the blocks it outgrew in their malloc arenas.
    private func entryBlocks(_ count: Int) -> EntryBlocks {
        let s = graph.storage
        let entryBytes = s.values.count / Swift.max(1, s.resources.count) * 3 / 2 + 128
        return EntryBlocks(count: count, out: out, options: options, capacity: Self.blockRows * entryBytes)
    }

    /// Between two resources or identifiers: the dry run forgets what it wrote, the real one
    /// writes its buffer out when full, so that neither holds more than a buffer and one
    /// resource.
    @inline(__always)
    private func pace(dryRun: Bool) throws(JSONAPIError) {
        if dryRun { out.discardAll() } else { try out.flushIfFull() }
    }

    private func writePrimary(dryRun: Bool) throws(JSONAPIError) {
        let s = graph.storage
        func identifier(_ row: Int32) throws(JSONAPIError) {
            // The row's type and keys only: filling its parts would copy all its relationships.
            let r = s.resources[Int(row)]
            let (id, lid) = s.identity(of: r)
            JSONEscaping.appendIdentifier(type: s.symbols.bytes(of: r.type), id: id, lid: lid, to: &out.buffer)
            try pace(dryRun: dryRun)
        }
        if s.documents.count == 1 {
            let d = s.documents[0]
            switch d.shape {
            case .absent, .null: out.write("null")
            case .single:
                if d.primaryCount > 0 { try identifier(s.primaryRows[d.primaryStart]) } else { out.write("null") }
            case .many:
                out.write(byte: UInt8(ascii: "["))
                for (i, row) in s.primaryRows[d.primaryStart..<d.primaryStart + d.primaryCount].enumerated() {
                    if i > 0 { out.write(byte: UInt8(ascii: ",")) }
                    try identifier(row)
                }
                out.write(byte: UInt8(ascii: "]"))
            }
            return
        }
        if s.documents.isEmpty { out.write("null"); return }
        out.write(byte: UInt8(ascii: "["))
        for (i, row) in s.primaryRows.enumerated() {
            if i > 0 { out.write(byte: UInt8(ascii: ",")) }
            try identifier(row)
        }
        out.write(byte: UInt8(ascii: "]"))
    }

    private func writeTopLevel(_ writer: ResourceWriter, _ parts: ResourceParts) throws(JSONAPIError) {
        if let counted = graph.storage.topLevelUnsafeNumbers {
            out.settleNumbers()
            out.mayHoldUnsafeNumbers = counted
        }
        let s = graph.storage
        let all = s.values.bytes(in: 0..<s.values.count)
        parts.place = .document
        for (name, path) in [("meta", \GraphStorage.DocumentRecord.meta), ("links", \.links), ("jsonapi", \.jsonapi)] {
            let spans = s.documents.map { $0[keyPath: path] }.filter { !$0.isNone }
            guard !spans.isEmpty else { continue }
            out.write(#",""#)
            out.write(name)
            out.write(#"":"#)
            if spans.count == 1 || spans.contains(where: { all[$0.start] != UInt8(ascii: "{") }) {
                // One value, or values that are not objects (kept in lenient mode): the last wins.
                let v = UnsafeRawBufferPointer(rebasing: all[spans.last!.range])
                try writer.writeObject(v, formatNames: name == "meta", what: "meta member", at: parts, pointer: "/" + name)
                continue
            }
            let merged = Self.merge(spans.map { StoredJSON.members(all, $0.range) }, all)
            let o = ByteWriter()
            o.write(byte: UInt8(ascii: "{"))
            for (i, m) in merged.enumerated() {
                if i > 0 { o.write(byte: UInt8(ascii: ",")) }
                o.write(UnsafeRawBufferPointer(rebasing: all[m.name]))
                o.write(byte: UInt8(ascii: ":"))
                o.write(UnsafeRawBufferPointer(rebasing: all[m.value]))
            }
            o.write(byte: UInt8(ascii: "}"))
            try o.buffer.withBytes { (b) throws(JSONAPIError) in
                try writer.writeObject(b, formatNames: name == "meta", what: "meta member", at: parts, pointer: "/" + name)
            }
        }
        let errorSpans = s.documents.map(\.errors).filter { !$0.isNone }
        if !errorSpans.isEmpty {
            out.write(#","errors":["#)
            Self.writeErrorObjects(errorSpans, all, to: out)
            out.write(byte: UInt8(ascii: "]"))
        }
        // Unknown top-level members, merged by name.
        for m in Self.mergedDocumentExtras(s, all) {
            let name = StoredJSON.decodeString(all, m.name)
            if ["data", "resources"].contains(name) {
                throw JSONAPIError.document(
                    Diagnostic(
                        severity: .error, rule: .N04, message: "the top-level member \(quoted(name)) collides with the \(quoted(name)) the flat output adds",
                        location: .start, pointer: "/" + name))
            }
            out.write(byte: UInt8(ascii: ","))
            out.write(UnsafeRawBufferPointer(rebasing: all[m.name]))
            out.write(byte: UInt8(ascii: ":"))
            out.write(UnsafeRawBufferPointer(rebasing: all[m.value]))
        }
    }

    /// The error objects of every document (`errors` spans: arrays, or a single value kept
    /// as it was), comma-separated, without the brackets.
    static func writeErrorObjects(_ errorSpans: [ValueSpan], _ all: UnsafeRawBufferPointer, to out: ByteWriter) {
        var first = true
        for span in errorSpans {
            let items = all[span.start] == UInt8(ascii: "[") ? StoredJSON.elements(all, span.range) : [span.range]
            for item in items {
                if !first { out.write(byte: UInt8(ascii: ",")) }
                first = false
                out.write(UnsafeRawBufferPointer(rebasing: all[item]))
            }
        }
    }

    /// Unknown top-level members of every document, merged by name (``merge(_:_:)``).
    static func mergedDocumentExtras(_ s: GraphStorage, _ all: UnsafeRawBufferPointer) -> [(name: Range<Int>, value: Range<Int>)] {
        let extras = s.documents.map { doc in
            doc.extras.map { span -> (name: Range<Int>, value: Range<Int>) in
                let end = StoredJSON.skipString(all, at: span.start)
                return (span.start..<end, (end + 1)..<span.start + span.count)
            }
        }
        return merge(extras, all)
    }

    /// Members of several objects merged by name: a name keeps its first position and takes
    /// its last value.
    static func merge(_ objects: [[(name: Range<Int>, value: Range<Int>)]], _ all: UnsafeRawBufferPointer) -> [(name: Range<Int>, value: Range<Int>)] {
        var out: [(name: Range<Int>, value: Range<Int>)] = []
        for members in objects {
            for m in members {
                let n = UnsafeRawBufferPointer(rebasing: all[m.name])
                if let i = out.firstIndex(where: { memoryEqual(UnsafeRawBufferPointer(rebasing: all[$0.name]), n) }) {
                    out[i].value = m.value
                } else {
                    out.append(m)
                }
            }
        }
        return out
    }
}

/// The threads of ``FlatJSONWriter/writeEntriesSideBySide(_:type:fields:slots:)`` and their
/// memory writers: one slot per thread, reused from block to block and from type to type.
/// The caller writes block 0 of each window itself and `count - 1` helper threads, started
/// once per flat object, write the others. The hand-over is a condition variable and a few
/// counters: no allocation per window, so that a write's allocations do not depend on how
/// the threads are scheduled (the benchmarks' thresholds count them exactly).
private final class EntryBlocks: @unchecked Sendable {
    final class Slot {
        let out = ByteWriter()
        let writer: ResourceWriter
        let parts = ResourceParts()
        var error: JSONAPIError?
        /// The writer's count of numbers written as strings, as of its last block.
        var quotedBefore = 0

        init(quotesUnsafeNumbers: Bool, options: OutputOptions, capacity: Int) {
            out.buffer.reserveCapacity(capacity)
            out.quotesUnsafeNumbers = quotesUnsafeNumbers
            writer = ResourceWriter(out: out, options: options)
        }
    }

    private let slots: [Slot]
    var count: Int { slots.count }
    /// Writes block `b` into a slot (set for each type, while its blocks are written; guarded
    /// by `condition`, see ``setRender(_:)``).
    private var render: ((Int, Slot) -> Void)?

    // Guarded by `condition`.
    private let condition = Condition()
    /// Bumped for each window; a helper works once per value.
    private var window = 0
    private var firstBlock = 0
    private var blocks = 0
    /// Helpers' blocks of the current window not written yet.
    private var pending = 0
    private var stopping = false
    private var helpersRunning = 0

    init(count: Int, out: ByteWriter, options: OutputOptions, capacity: Int) {
        slots = (0..<count).map { _ in Slot(quotesUnsafeNumbers: out.quotesUnsafeNumbers, options: options, capacity: capacity) }
        helpersRunning = count - 1
        for h in 1..<Swift.max(1, count) {
            NativeThread.start(name: "jsonapi-flat-\(h)", stackSize: 8 << 20) { [self] in helper(h) }
        }
    }

    func slot(_ i: Int) -> Slot { slots[i] }

    /// Sets what writes a block, for the next type's windows (`nil` after them).
    func setRender(_ body: ((Int, Slot) -> Void)?) {
        condition.lock()
        render = body
        condition.unlock()
    }

    /// Writes blocks `firstBlock..<firstBlock + count` into slots `0..<count` (the first on
    /// the caller's thread) and returns once all are written.
    func run(firstBlock: Int, count: Int) {
        condition.lock()
        self.firstBlock = firstBlock
        blocks = count
        pending = count - 1
        window &+= 1
        condition.broadcast()
        let render = self.render!
        condition.unlock()
        render(firstBlock, slots[0])
        condition.lock()
        while pending > 0 { condition.wait() }
        condition.unlock()
    }

    private func helper(_ index: Int) {
        var seen = 0
        condition.lock()
        while true {
            while window == seen && !stopping { condition.wait() }
            if stopping { break }
            seen = window
            guard index < blocks, let render else { continue }
            let b = firstBlock + index
            condition.unlock()
            render(b, slots[index])
            condition.lock()
            pending -= 1
            if pending == 0 { condition.broadcast() }
        }
        helpersRunning -= 1
        condition.broadcast()
        condition.unlock()
    }

    /// Ends the helper threads and waits until they have.
    func stop() {
        condition.lock()
        stopping = true
        condition.broadcast()
        while helpersRunning > 0 { condition.wait() }
        condition.unlock()
    }
}

/// What ``FlatJSONWriter/writeEntriesSideBySide(_:type:fields:slots:)`` lends its threads: the
/// writer (its graph only read) and the type's rows.
private struct LentEntries: @unchecked Sendable {
    let writer: FlatJSONWriter
    let rows: [Int32]
    let fields: [[UInt8]]?
}
