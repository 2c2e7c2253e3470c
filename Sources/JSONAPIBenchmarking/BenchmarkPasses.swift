#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Dispatch
import JSONAPIStream

/// The ways of reading a document that `jsonapi bench`, `Scripts/callgrind.sh` and the
/// benchmark package (`Benchmarks/`) time, each over the same bytes held in memory, fed in the
/// same chunks (1 MiB unless told otherwise). The graph, NDJSON, flat JSON and validation
/// passes read the bytes in place, as `Graph(bytes:)` does: their workers, when there are
/// some, read the input where it is rather than copies of it.
///
/// ``bareYajl(_:chunkSize:)`` is the floor: yajl itself with callbacks that do nothing,
/// configured as the pipeline configures it (numbers through `yajl_number`, so it does not
/// convert them; yajl's own UTF-8 check off, because the pipeline's scanner does that; several
/// values per input allowed). Every other pass is reported as a fraction of it. Each pass
/// returns a small number derived from its result (resources read, findings, values touched),
/// so that a caller can hand it to a black hole and no work can be optimized away; the result
/// itself is released inside the pass.
public enum BenchmarkPasses {
    /// yajl with no-op callbacks over `bytes`: the floor every other pass is compared with.
    /// Returns false if yajl rejected the input.
    @discardableResult
    public static func bareYajl(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20) -> Bool {
        ParserPasses.bareYajl(bytes, chunkSize: chunkSize)
    }

    /// `copies` bare yajl passes over `bytes` at once (`DispatchQueue.concurrentPerform`:
    /// up to a thread per core, the caller's among them; more copies than cores take turns);
    /// true when any of them rejected the input.
    public static func bareYajlCopies(_ bytes: UnsafeRawBufferPointer, copies: Int, chunkSize: Int = 1 << 20) -> Bool {
        let shared = SharedCopies(bytes: bytes, accepted: .allocate(capacity: copies))
        shared.accepted.initialize(repeating: false)
        defer { shared.accepted.deallocate() }
        DispatchQueue.concurrentPerform(iterations: copies) { i in
            shared.accepted[i] = ParserPasses.bareYajl(shared.bytes, chunkSize: chunkSize)
        }
        return shared.accepted.contains(false)
    }

    /// The structural pre-scan alone (UTF-8, whitespace, string boundaries, line feeds).
    @discardableResult
    public static func scanOnly(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20) -> Bool {
        ParserPasses.scanOnly(bytes, chunkSize: chunkSize)
    }

    /// The JSON layer (scanner, yajl, depth, duplicate names) with no document building.
    public static func syntaxOnly(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20, options: ParseOptions = .default) throws(JSONAPIError) {
        try ParserPasses.syntaxOnly(bytes, chunkSize: chunkSize, options: options)
    }

    /// Building a ``Graph`` with ``GraphParser``.
    public static func graph(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20, options: DocumentOptions = .default) throws(JSONAPIError) -> Graph {
        try GraphParser(options: options).finish(reading: bytes, named: "input", chunkSize: chunkSize)
    }

    /// Reads everything a client of the graph would: each resource's type and id, every
    /// attribute as a Swift value (`String`, `Double`, `Bool`, nested arrays and objects as
    /// ``JSONValue``), every relationship's linkage as identifiers (and the resolved target of
    /// to-one relationships). Returns the number of values read.
    ///
    /// - Complexity: O(size of the graph's values).
    public static func readAll(_ graph: Graph) -> Int {
        var touched = 0
        for resource in graph.resources {
            touched &+= resource.type.utf8.count &+ (resource.id?.utf8.count ?? 0)
            for (name, value) in resource.attributes.members {
                touched &+= name.utf8.count
                switch value.kind {
                case .string: touched &+= value.string?.utf8.count ?? 0
                case .number: if value.number?.doubleValue != nil { touched &+= 1 }
                case .bool: if value.bool == true { touched &+= 1 }
                case .null: touched &+= 1
                case .array, .object:
                    if case .null = value.jsonValue {} else { touched &+= 1 }
                }
            }
            for relationship in resource.relationships {
                touched &+= relationship.name.utf8.count
                for identifier in relationship.identifiers { touched &+= identifier.type.utf8.count &+ (identifier.id?.utf8.count ?? 0) }
                if relationship.kind == .toOne, relationship.resource != nil { touched &+= 1 }
            }
        }
        return touched
    }

    /// Reads one attribute of every resource of a generated document (``DocumentGenerator``),
    /// as app code that shows a list would: the articles' `title`, the people's `email`, the
    /// tags' `label`, the comments' `likes`, each as a Swift value. Returns the values read.
    /// Compare with ``decodeAll(_:)`` on the same graph: the lazy store should make this a
    /// small fraction of decoding everything.
    public static func readOne(_ graph: Graph) -> Int {
        var touched = 0
        for (type, name) in [("articles", "title"), ("people", "email"), ("tags", "label")] {
            for r in graph.resources(ofType: type) { touched &+= r.attributes[name]?.string?.utf8.count ?? 0 }
        }
        for r in graph.resources(ofType: "comments") { touched &+= r.attributes["likes"]?.number?.intValue ?? 0 }
        return touched
    }

    /// Decodes every resource of a generated document (``DocumentGenerator``) into typed
    /// models with this library's decoder: the same values Foundation's typed peer produces.
    /// Returns the number of resources decoded.
    ///
    /// - Throws: `DecodingError` when the graph is not from a generated document.
    public static func decodeAll(_ graph: Graph) throws -> Int {
        try DecodingPeers.decodeAll(graph)
    }

    /// ``decodeAll(_:)`` with ``Graph/decodeConcurrently(_:options:)``: the same models, on
    /// every core.
    public static func decodeAllConcurrently(_ graph: Graph) throws -> Int {
        try DecodingPeers.decodeAll(graph, concurrently: true)
    }

    /// The primary data (the articles) of a generated document's graph read into models that
    /// read themselves (``JSONAPIReadable``), on the calling thread or (`concurrently`) with
    /// ``Graph/decodeConcurrently(_:options:)``: the decoding of the `read-primary` passes
    /// alone. Returns how many.
    public static func readPrimary(_ graph: Graph, concurrently: Bool = false) throws -> Int {
        try DecodingPeers.readPrimary(graph, concurrently: concurrently)
    }

    /// Normalizing to NDJSON (`jsonapi normalize --format ndjson`), written to `/dev/null`
    /// through a file-descriptor ``ByteWriter``. Returns the resources written.
    public static func ndjson(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20, options: DocumentOptions = .default) throws(JSONAPIError) -> Int {
        try normalize(.ndjson, bytes, chunkSize: chunkSize, options: options)
    }

    /// Normalizing to one flat JSON object (`jsonapi normalize`, the default format), written
    /// to `/dev/null`. Returns the resources read.
    public static func flatJSON(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20, options: DocumentOptions = .default) throws(JSONAPIError) -> Int {
        try normalize(.json, bytes, chunkSize: chunkSize, options: options)
    }

    /// Writing a graph back as one JSON:API compound document (``Graph/writeDocument(to:primary:options:)``:
    /// primary data and every other resource in `included`), to `/dev/null`. Returns the
    /// bytes written.
    public static func encode(_ graph: Graph) throws(JSONAPIError) -> Int {
        let out = ByteWriter(fd: devNull)
        try graph.writeDocument(to: out)
        try out.flush()
        return out.bytesWritten
    }

    /// Checking every rule (`jsonapi validate`) with ``DocumentValidator``. Returns the
    /// number of findings (0 for a valid document).
    public static func validate(_ bytes: [UInt8], chunkSize: Int = 1 << 20, options: DocumentOptions = .default) throws(JSONAPIError) -> Int {
        try DocumentValidator(options: options).validate(.bytes(bytes, name: "input"), chunkSize: chunkSize).count
    }

    /// One table per type (`jsonapi normalize --split-by-type`, NDJSON tables, safe numbers)
    /// into a new temporary directory, removed afterwards. Returns the rows of the type tables.
    public static func tables(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20, options: DocumentOptions = .default) throws(JSONAPIError) -> Int {
        var template = Array((FileManager.default.temporaryDirectory.path + "/jsonapi-bench-tables-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw JSONAPIError.input("cannot make a temporary directory: \(String(cString: strerror(errno)))") }
        let directory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let splitter = try TableSplitter(directory: directory, document: options)
        try splitter.beginInput(named: "input")
        try forEachChunk(of: bytes, size: chunkSize) { (chunk) throws(JSONAPIError) in try splitter.feed(chunk) }
        return try splitter.finish().reduce(0) { $0 + ($1.type != nil ? $1.rows : 0) }
    }

    private static func normalize(_ format: OutputFormat, _ bytes: UnsafeRawBufferPointer, chunkSize: Int, options: DocumentOptions) throws(JSONAPIError) -> Int {
        let out = ByteWriter(fd: devNull)
        let normalizer = Normalizer(format: format, out: out, document: options)
        try normalizer.finish(reading: bytes, named: "input", chunkSize: chunkSize)
        return normalizer.resourcesRead
    }

    /// `/dev/null`, opened once for writing: NDJSON and flat JSON are written there, so the
    /// passes pay for the `write` calls a real run makes, but not for a disk.
    private static let devNull: Int32 = open("/dev/null", O_WRONLY)
}

/// What the copies of ``BenchmarkPasses/bareYajlCopies(_:copies:chunkSize:)`` share: the
/// input, which they only read (the caller keeps it alive until they return), and one flag
/// each, which only its copy writes.
private struct SharedCopies: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
    let accepted: UnsafeMutableBufferPointer<Bool>
}
