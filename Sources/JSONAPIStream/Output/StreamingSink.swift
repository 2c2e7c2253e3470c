/// What `jsonapi normalize` writes.
public enum OutputFormat: String, Sendable, Hashable, CaseIterable {
    /// One flat object: primary linkage, resources by type and id, top-level members.
    case json
    /// One line per resource, then one line per document.
    case ndjson
    /// One line per relationship linkage entry.
    case edges
}

/// Writes each resource as soon as its object closes, and keeps nothing of it: NDJSON lines
/// or edge lines. Memory stays bounded by the largest resource; a document's primary linkage
/// (for its document line) goes to a ``SpillBuffer``.
///
/// With ``DuplicatePolicy/first`` or ``DuplicatePolicy/error`` it keeps
/// the set of keys seen, so memory then grows with the number of resources.
final class StreamingSink: DocumentSink, PrimaryLinkageGathering {
    let keepsValues = false
    let format: OutputFormat
    let options: OutputOptions
    let out: ByteWriter
    private let writer: ResourceWriter
    private let parts = ResourceParts()
    /// `--numbers safe`: which records hold numbers to quote.
    var numberAlarm: NumberAlarm?
    /// `--type` and `--keep-fields`.
    private let selection: Selection
    private let selecting: Bool
    let primary = SpillBuffer()
    var primaryCount = 0
    /// Keys seen, under `--on-duplicate first|error`.
    private let duplicates: DuplicateTracker?
    var sourceName: String?
    var onDiagnostic: ((Diagnostic) -> Void)?
    /// Resources and documents written.
    private(set) var resourcesWritten = 0
    private(set) var documentsWritten = 0

    /// `warningTexts`: the duplicate warnings worded before the rest go out textless
    /// (``DocumentOptions/warningTexts``).
    init(out: ByteWriter, format: OutputFormat, options: OutputOptions, duplicates: DuplicatePolicy, warningTexts: Int = .max) {
        precondition(format != .json)
        self.out = out
        self.format = format
        self.options = options
        self.writer = ResourceWriter(out: out, options: options)
        self.duplicates = duplicates != .last ? DuplicateTracker(policy: duplicates, warningTexts: warningTexts) : nil
        selection = Selection(options)
        selecting = options.selects
    }

    func resource(_ r: ResourceDraft, in a: inout DraftArenas) throws(JSONAPIError) {
        // A duplicate skipped under --on-duplicate first writes no line, but it is still
        // this document's primary data: its identifier stays in the document line.
        var writes = try duplicates?.admits(r, in: a, sourceName: sourceName, onDiagnostic: onDiagnostic) ?? true
        if selecting {
            // Resources of other types (--type) write no line; primary data stays whole.
            if !selection.selects(a.scratch.bytes(in: r.type.range)) { writes = false }
        }
        if !writes && !(r.isPrimary && format == .ndjson && !options.resourcesOnly) { return }
        parts.fill(r, in: a)
        parts.place = r.place
        if selecting, writes, let fields = selection.fields(of: parts.type) { parts.keepFields(fields) }
        if writes {
            if let numberAlarm { out.mayHoldUnsafeNumbers = numberAlarm.inCurrentResource > 0 }
            let mark = out.mark
            do {
                if format == .edges {
                    try writer.writeEdges(parts)
                } else {
                    try writer.writeLine(parts)
                    try out.endRecord()
                }
            } catch {
                out.discard(from: mark)
                throw error.withSourceIfMissing(sourceName ?? "-")
            }
            resourcesWritten += 1
        }
        if r.isPrimary && format == .ndjson && !options.resourcesOnly {
            try primary.appendIdentifier(type: parts.type, id: parts.id, lid: parts.lid, comma: primaryCount > 0)
            primaryCount += 1
        }
    }

    func document(_ d: DocumentDraft, in a: borrowing DraftArenas) throws(JSONAPIError) {
        defer { primaryCount = 0 }
        guard format == .ndjson && !options.resourcesOnly else { return }
        let store = a.store.bytes(in: 0..<a.store.count)
        func v(_ span: ValueSpan) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: store[span.range]) }
        parts.position = d.position
        parts.place = .document
        if let numberAlarm { out.mayHoldUnsafeNumbers = numberAlarm.outsideResources > 0 }
        if d.atomicOperations >= 0 {
            // Atomic Operations: one line per operation, in order, before the document's line
            // (which then leaves `atomic:operations` out).
            let member = d.extras[Int(d.atomicOperations)]
            let valueStart = StoredJSON.skipString(store, at: member.start) + 1
            for operation in StoredJSON.elements(store, valueStart..<member.range.upperBound) {
                out.write(#"{"operation":"#)
                out.write(UnsafeRawBufferPointer(rebasing: store[operation]))
                out.write("}\n")
                try out.endRecord()
            }
        }
        out.write(#"{"document":{"data":"#)
        switch d.primaryShape {
        case .absent, .null: out.write("null")
        case .single:
            try primary.drain { (bytes) throws(JSONAPIError) in out.write(bytes) }
            if primaryCount == 0 { out.write("null") }
        case .many:
            out.write(byte: UInt8(ascii: "["))
            try primary.drain { (bytes) throws(JSONAPIError) in
                try out.makeRoom(for: bytes.count)
                out.write(bytes)
            }
            out.write(byte: UInt8(ascii: "]"))
        }
        if !d.meta.isNone {
            out.write(#","meta":"#)
            try writer.writeObject(v(d.meta), formatNames: true, what: "meta member", at: parts, pointer: "/meta")
        }
        if !d.links.isNone { out.write(#","links":"#); out.write(v(d.links)) }
        if !d.jsonapi.isNone { out.write(#","jsonapi":"#); out.write(v(d.jsonapi)) }
        if !d.errors.isNone { out.write(#","errors":"#); out.write(v(d.errors)) }
        for (k, span) in d.extras.enumerated() where k != Int(d.atomicOperations) {
            out.write(byte: UInt8(ascii: ","))
            out.write(v(span))
        }
        out.write("}}\n")
        try out.endRecord()
        documentsWritten += 1
    }
}

/// Resource identifiers of primary data, comma-separated, as a document line lists them.
struct PrimaryLinkage: Sendable {
    var bytes: [UInt8]
    var count: Int
}

/// A sink that gathers each document's primary linkage (comma-separated identifiers) for
/// the document's own line or row, and so can hand a worker's range of it to the caller's
/// sink (the NDJSON writer, the tables).
protocol PrimaryLinkageGathering: AnyObject {
    /// The identifiers so far, comma-separated.
    var primary: SpillBuffer { get }
    /// How many.
    var primaryCount: Int { get set }
}

extension PrimaryLinkageGathering {
    /// The primary linkage read since the document began (or since the last call): what a
    /// worker's range of elements adds to its document's line or row, which the caller's
    /// sink writes (``continuePrimary(_:)``).
    func takePrimary() throws(JSONAPIError) -> PrimaryLinkage {
        var taken = PrimaryLinkage(bytes: [], count: primaryCount)
        taken.bytes.reserveCapacity(primary.count)
        try primary.drain { bytes in taken.bytes.append(contentsOf: bytes) }
        primaryCount = 0
        return taken
    }

    /// Adds a worker's range of primary linkage to the document being read.
    func continuePrimary(_ more: PrimaryLinkage) throws(JSONAPIError) {
        guard more.count > 0 else { return }
        if primaryCount > 0 { try primary.append(staticBytes(",")) }
        try withContiguousBytes(of: more.bytes) { (b) throws(JSONAPIError) in try primary.append(b) }
        primaryCount += more.count
    }
}
