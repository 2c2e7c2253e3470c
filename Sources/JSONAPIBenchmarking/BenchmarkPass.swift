import JSONAPIStream
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One pass over a document in memory, as `jsonapi bench` and the benchmark package run it.
///
/// The same enum drives the command (each pass in its own child process), the package-benchmark
/// suites and `Scripts/callgrind.sh`, so the three measure exactly the same code.
public enum BenchmarkPass: String, CaseIterable, Sendable {
    /// Nothing: the input is read into memory and left there. The baseline for instruction
    /// counts and resident memory (process start-up, reading the file).
    case none
    /// yajl with no-op callbacks: the floor.
    case bareYajl = "yajl"
    /// The machine's ceiling for a design that runs yajl over every byte: one bare yajl pass
    /// over the whole input per worker (``DocumentOptions/parse``'s `workers`, else one per
    /// usable core), all at once, up to a thread per core. Its time is reported per copy
    /// (``copies(options:)``), so its ratio to ``bareYajl`` is the machine's own scaling of
    /// the bare parser: below the number of copies when busy cores slow one another (a VM's
    /// cores that share a physical core, or a power or memory limit), which no design can
    /// beat.
    case bareYajlEveryCore = "yajl-every-core"
    /// The structural pre-scan alone.
    case scan
    /// The JSON layer: scanner, yajl, depth and duplicate-name checks, no document building.
    case syntax
    /// Building a ``Graph``.
    case graph
    /// Building a ``Graph`` and reading every value of it (``BenchmarkPasses/readAll(_:)``).
    case graphRead = "graph-read"
    /// Building a ``Graph`` and reading one attribute of every resource
    /// (``BenchmarkPasses/readOne(_:)``); generated documents only.
    case graphReadOne = "graph-read-one"
    /// Building a ``Graph`` and decoding every resource into `Decodable` models with this
    /// library's decoder: the same values Foundation's typed peer produces. Written for
    /// ``DocumentGenerator``'s documents; fails on other documents.
    case decode
    /// ``decode`` with ``Graph/decodeConcurrently(_:options:)``: the same models, decoded
    /// on every core once the graph is built.
    case decodeConcurrent = "decode-concurrent"
    /// Building a ``Graph`` and decoding its primary data (the articles) into the same models
    /// as ``decode``, and nothing else: the measure of the typed-decoding speed target.
    case decodePrimary = "decode-primary"
    /// ``decodePrimary`` with ``Graph/decodeConcurrently(_:options:)``.
    case decodePrimaryConcurrent = "decode-primary-concurrent"
    /// ``decodePrimary`` into models that read themselves (``JSONAPIReadable``) instead of
    /// a synthesized `init(from:)`: the same values.
    case readPrimary = "read-primary"
    /// ``readPrimary`` with ``Graph/decodeConcurrently(_:options:)``.
    case readPrimaryConcurrent = "read-primary-concurrent"
    /// Building a ``Graph`` and writing it back as one compound document to `/dev/null`.
    case encode
    /// `normalize --format ndjson` to `/dev/null`.
    case ndjson
    /// `normalize --format json` (one flat object) to `/dev/null`.
    case flatJSON = "flat-json"
    /// `validate`: every rule, every finding.
    case validate
    /// One table per type (`normalize --split-by-type`, NDJSON tables), written into a new
    /// temporary directory, removed afterwards. Not among the ``standard`` passes: it writes
    /// files.
    case tables
    /// Foundation's `JSONDecoder` into `Codable` types written for ``DocumentGenerator``'s
    /// documents (articles, people, comments, tags); fails on other documents.
    case jsonDecoder = "jsondecoder"
    /// Foundation's `JSONDecoder` into generic `Codable` JSON:API types (a resource object
    /// with `[String: AnyJSON]` attributes): what fits any document.
    case jsonDecoderGeneric = "jsondecoder-generic"

    /// A short human-readable name.
    public var title: String {
        switch self {
        case .none: "none (read input only)"
        case .bareYajl: "bare yajl (floor)"
        case .bareYajlEveryCore: "bare yajl, a copy per worker at once"
        case .scan: "structural scan"
        case .syntax: "JSON layer only"
        case .graph: "graph"
        case .graphRead: "graph + read all values"
        case .graphReadOne: "graph + read one attribute each"
        case .decode: "graph + typed decoding"
        case .decodeConcurrent: "graph + typed decoding, all cores"
        case .decodePrimary: "graph + typed decoding, primary only"
        case .decodePrimaryConcurrent: "graph + typed decoding, primary, all cores"
        case .readPrimary: "graph + JSONAPIReadable, primary only"
        case .readPrimaryConcurrent: "graph + JSONAPIReadable, primary, all cores"
        case .encode: "graph + JSON:API document out"
        case .ndjson: "NDJSON to /dev/null"
        case .flatJSON: "flat JSON to /dev/null"
        case .validate: "validate"
        case .tables: "tables (--split-by-type) to a temporary directory"
        case .jsonDecoder: "Foundation JSONDecoder, typed"
        case .jsonDecoderGeneric: "Foundation JSONDecoder, generic"
        }
    }

    /// The passes `jsonapi bench` runs by default, in table order.
    public static var standard: [BenchmarkPass] {
        [
            .bareYajl, .syntax, .graph, .graphRead, .graphReadOne, .decode, .decodeConcurrent, .decodePrimary, .decodePrimaryConcurrent, .readPrimary,
            .readPrimaryConcurrent, .encode, .ndjson, .flatJSON, .validate,
            .jsonDecoder, .jsonDecoderGeneric,
        ]
    }

    /// Runs the pass once over `input` and returns a number derived from its result (resources
    /// read, findings, values touched) for a black hole. Everything the pass built is released
    /// before it returns. `options` apply to the library's passes (not to yajl's floor or to
    /// Foundation); their `parse.concurrency` decides whether building runs on a second thread.
    ///
    /// - Throws: the pass's own error (a ``JSONAPIError``, or Foundation's error for the
    ///   Foundation passes); ``BenchmarkPassError`` when bare yajl rejects the input.
    public func run(_ input: [UInt8], chunkSize: Int = 1 << 20, options: DocumentOptions = .default) throws -> Int {
        // The graph the graph-based passes start from, built as the `graph` pass builds it.
        func graph() throws -> Graph {
            try input.withUnsafeBytes { b in try BenchmarkPasses.graph(b, chunkSize: chunkSize, options: options) }
        }
        switch self {
        case .none:
            return input.count
        case .bareYajl:
            let ok = input.withUnsafeBytes { BenchmarkPasses.bareYajl($0, chunkSize: chunkSize) }
            if !ok { throw BenchmarkPassError("yajl rejected the input") }
            return 1
        case .bareYajlEveryCore:
            let n = copies(options: options)
            let rejected = input.withUnsafeBytes { BenchmarkPasses.bareYajlCopies($0, copies: n, chunkSize: chunkSize) }
            if rejected { throw BenchmarkPassError("yajl rejected the input") }
            return n
        case .scan:
            let ok = input.withUnsafeBytes { BenchmarkPasses.scanOnly($0, chunkSize: chunkSize) }
            if !ok { throw BenchmarkPassError("the structural scan rejected the input") }
            return 1
        case .syntax:
            try input.withUnsafeBytes { b in try BenchmarkPasses.syntaxOnly(b, chunkSize: chunkSize, options: options.parse) }
            return 1
        case .graph:
            return try graph().count
        case .graphRead:
            return BenchmarkPasses.readAll(try graph())
        case .graphReadOne:
            return BenchmarkPasses.readOne(try graph())
        case .decode:
            return try DecodingPeers.decodeAll(graph())
        case .decodeConcurrent:
            return try DecodingPeers.decodeAll(graph(), concurrently: true)
        case .decodePrimary:
            return try DecodingPeers.decodePrimary(graph())
        case .decodePrimaryConcurrent:
            return try DecodingPeers.decodePrimary(graph(), concurrently: true)
        case .readPrimary:
            return try DecodingPeers.readPrimary(graph())
        case .readPrimaryConcurrent:
            return try DecodingPeers.readPrimary(graph(), concurrently: true)
        case .encode:
            return try BenchmarkPasses.encode(graph())
        case .ndjson:
            return try input.withUnsafeBytes { b in try BenchmarkPasses.ndjson(b, chunkSize: chunkSize, options: options) }
        case .flatJSON:
            return try input.withUnsafeBytes { b in try BenchmarkPasses.flatJSON(b, chunkSize: chunkSize, options: options) }
        case .validate:
            return try BenchmarkPasses.validate(input, chunkSize: chunkSize, options: options)
        case .tables:
            return try input.withUnsafeBytes { b in try BenchmarkPasses.tables(b, chunkSize: chunkSize, options: options) }
        case .jsonDecoder:
            return try FoundationPeers.withData(input) { try FoundationPeers.typedDecoder($0) }
        case .jsonDecoderGeneric:
            return try FoundationPeers.withData(input) { try FoundationPeers.genericDecoder($0) }
        }
    }

    /// How many times one run of the pass goes over the input: the copies of
    /// ``bareYajlEveryCore`` (the workers asked for, else the usable cores), 1 for every
    /// other pass. A run's times are divided by it, so that every pass is timed per input.
    public func copies(options: DocumentOptions = .default) -> Int {
        self == .bareYajlEveryCore ? Self.copies(workers: options.parse.workers) : 1
    }

    /// The copies of ``bareYajlEveryCore`` with `workers` asked for (nil: one per usable core).
    public static func copies(workers: Int?) -> Int {
        min(max(1, workers ?? ParseOptions.usableCores), ParseOptions.maxWorkers)
    }

    /// A document from ``DocumentGenerator`` (compact), ready for every pass including
    /// Foundation's: the generator's one out-of-range number, `1e400`, which Foundation
    /// refuses as "not representable", is written `1e300` (the same length). Every pass then
    /// reads the same bytes.
    ///
    /// About 1.75 KB per resource: 600 resources are about 1 MB, 9,000 about 16 MB, 73,000
    /// about 128 MB.
    public static func generatedDocument(resources: Int, seed: UInt64 = 1, documents: Int = 1) throws(JSONAPIError) -> [UInt8] {
        let writer = ByteWriter()
        try DocumentGenerator(resources: resources, seed: seed, documents: documents).write(to: writer)
        var bytes = writer.bytes
        makeFoundationReadable(&bytes)
        return bytes
    }

    /// Rewrites each number token `1e400` (after `:`, `[` or `,`, with optional spaces) as
    /// `1e300`, in place. Strings are left alone.
    static func makeFoundationReadable(_ bytes: inout [UInt8]) {
        let pattern = Array("1e400".utf8)
        var inString = false
        var escaped = false
        var previous: UInt8 = 0  // the last byte outside strings that was not a space
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if inString {
                if escaped { escaped = false } else if c == UInt8(ascii: "\\") { escaped = true } else if c == UInt8(ascii: "\"") { inString = false; previous = c }
            } else if c == UInt8(ascii: "\"") {
                inString = true
            } else if c == pattern[0], previous == UInt8(ascii: ":") || previous == UInt8(ascii: "[") || previous == UInt8(ascii: ","),
                i + pattern.count <= bytes.count, Array(bytes[i..<(i + pattern.count)]) == pattern,
                i + pattern.count == bytes.count || !isNumberByte(bytes[i + pattern.count])
            {
                bytes[i + 2] = UInt8(ascii: "3")
                i += pattern.count
                previous = UInt8(ascii: "0")
                continue
            } else if c != 0x20, c != 0x0A, c != 0x0D, c != 0x09 {
                previous = c
            }
            i += 1
        }
    }

    private static func isNumberByte(_ c: UInt8) -> Bool {
        (c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9")) || c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") || c == UInt8(ascii: "+") || c == UInt8(ascii: "-")
    }
}

/// A pass that could not run on its input.
public struct BenchmarkPassError: Error, CustomStringConvertible {
    /// What went wrong.
    public let description: String
    /// An error that says `description`.
    public init(_ description: String) { self.description = description }
}
