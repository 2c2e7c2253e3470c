// The checks of the libFuzzer targets in `Fuzz/`, and the regression tests that run them on
// the inputs the fuzzers found (`Corpus/fuzz/<target>/`).
//
// This one file is both: `Fuzz/Sources/FuzzChecks/FuzzChecks.swift` is a symbolic link to
// it, compiled there with `-D FUZZING` (which leaves out the tests), so a fuzz target and its
// regression test run exactly the same code. Everything above the tests uses the public API
// only (no `@testable`), because the fuzz targets link the library built for release.
//
// Targets (see `Scripts/fuzz.sh`):
// - `parse`: raw bytes into `GraphParser`, `Normalizer` (NDJSON, edges, flat JSON) and
//   `DocumentValidator`, with default and with every-option-on settings; walks the graph
//   through its public API. Errors and warnings must carry a position whose line and column
//   agree with the byte offset, and a JSON pointer.
// - `chunks`: a header (options, chunk sizes, coalescing) and a document. Fed whole, and fed
//   in the header's chunks with small coalescing: the same output bytes and warnings, or the
//   same error (kind, rule, position, pointer).
// - `roundtrip`: the same header. Every NDJSON line parses with `JSONValue(parsing:)`; the
//   resource lines, merged as the duplicate policy says, are the entries of the flat JSON
//   output; the document lines are its `data` and top-level members; edge lines are the
//   NDJSON linkage.
// - `syntax`: raw bytes. `DocumentValidator(syntaxOnly: true)` and `JSONValue(parsing:)` accept
//   exactly what an independent strict RFC 8259 reader below accepts (RFC 3629 UTF-8, paired
//   surrogates, no byte order mark, no duplicate names, the default limits), with the same
//   value, at every read size.
// - `decode`: raw bytes into a graph (with and without repeated names allowed in values); every
//   resource's keyed container read every way a model might read it (any-JSON `Decodable`
//   through nested containers, `String`, `Bool`, integers, `Double` exact and nearest,
//   `Decimal`, identifiers for relationships, dates and URLs) must agree with the lazy
//   accessors (`LazyValue`, `JSONNumber`, `Relationship.identifiers`), an independent reading
//   of the same bytes; every failure must be a `DecodingError` with a message. A
//   `JSONAPIReadable` model reads a set of names every way a `JSONAPIReader` offers, and must
//   get what a keyed container gets, read for read (the value, or the error's case, coding
//   path and message).
// - `load`: the `roundtrip` header and a document, loaded into SQLite and read back (the check
//   is in FuzzLoadChecks.swift).
// - `workers`: the `chunks` header and a document, read three times over as one input (a dump),
//   normalized to NDJSON, edges and flat JSON (a graph built from the workers' pieces, its
//   repeated resources merged across the copies) by one reader and by 2 and 3 workers with
//   batches of a few bytes (`ParseOptions.workerBatchBytes`): the same output bytes (also
//   before an error), the same warnings in the same order, the same error; validated, the
//   same findings; split by type, the same files; and read by a `DocumentStream` into a sink
//   that logs every call, the same calls with the same views and warnings.
// - `elements`: the `chunks` header and a document, read as one input (and twice over) by
//   one reader and by 2 and 3 workers deciding after 8 to 128 bytes, so that a document
//   without a boundary that early is read a range of elements of its `data` and `included`
//   arrays per worker, the rest by the caller's stream: NDJSON, edges and flat JSON (a graph
//   of the ranges' pieces), the same output bytes (also before an error), warnings and error;
//   and validated, the same findings (the compound rules checked from what the ranges gather).

import Foundation
import JSONAPIStream

#if !FUZZING
import Testing
#endif

public enum FuzzTarget: String, CaseIterable, Sendable {
    case parse, chunks, roundtrip, syntax, decode, load, workers, elements
}

public enum FuzzChecks {
    /// The problems `input` shows for `target`; empty when it passes.
    public static func check(_ target: FuzzTarget, _ input: [UInt8]) -> [String] {
        switch target {
        case .parse: return parse(input)
        case .chunks: return chunks(input)
        case .roundtrip: return roundTrip(input)
        case .syntax: return syntax(input)
        case .decode: return decode(input)
        case .load: return load(input)
        case .workers: return workers(input)
        case .elements: return elements(input)
        }
    }

    // MARK: - Header (chunks, roundtrip)

    /// Settings decoded from the first bytes of a `chunks` or `roundtrip` input:
    ///
    /// - byte 0: bits 0–1 validation (lenient, strict, off, lenient with R22/R23); bit 2
    ///   duplicate members allowed in values; bit 3 byte order mark stripped; bits 4–5
    ///   duplicate policy (last, first, error, last); bits 6–7 key format (as-is, camel, snake,
    ///   kebab).
    /// - byte 1: bits 0–1 context (response, create, update, relationship-update); bit 2
    ///   `--hash`; bit 3 `--resources-only`; bit 4 extension `ext` applied; bit 5 partial
    ///   linkage allowed; bits 6–7 coalescing for the chunked run (1, 7, 64 bytes, default).
    /// - byte 2: bits 0–2 the number of chunk sizes that follow; each size byte is a chunk of
    ///   that many bytes, 0 an empty chunk, 255 the rest; the sizes repeat. Bit 3: the chunked
    ///   run (chunks) or every run (roundtrip) is pipelined (two threads).
    /// - then the document.
    public struct Config {
        public var document = DocumentOptions()
        public var output = OutputOptions()
        public var duplicates = DuplicatePolicy.last
        public var sizes: [Int] = []
        public var coalesce = 64 * 1024
        public var pipelined = false
        public var body: [UInt8] = []

        public init(_ input: [UInt8]) {
            func byte(_ i: Int) -> UInt8 { i < input.count ? input[i] : 0 }
            let a = byte(0), b = byte(1)
            switch a & 3 {
            case 1: document.validation = .strict
            case 2: document.validation = .off
            case 3: document.checksCompoundRules = true
            default: break
            }
            if a & 4 != 0 { document.parse.duplicateMembers = .allowInValues }
            if a & 8 != 0 { document.parse.byteOrderMark = .strip }
            duplicates = [.last, .first, .error, .last][Int(a >> 4) & 3]
            output.keys = [.asIs, .camel, .snake, .kebab][Int(a >> 6) & 3]
            document.context = [.response, .create, .update, .relationshipUpdate][Int(b) & 3]
            output.hash = b & 4 != 0
            output.resourcesOnly = b & 8 != 0
            if b & 16 != 0 { document.extensions = ["ext"] }
            document.allowsPartialLinkage = b & 32 != 0
            coalesce = [1, 7, 64, 64 * 1024][Int(b >> 6) & 3]
            pipelined = byte(2) & 8 != 0
            let n = Int(byte(2) & 7)
            let start = min(3 + n, input.count)
            sizes = (0..<n).map { i in
                let s = Int(byte(3 + i))
                return s == 255 ? Int.max : s
            }
            if !sizes.contains(where: { $0 > 0 }) { sizes.append(Int.max) }
            body = Array(input[start...])
        }
    }

    // MARK: - Runs

    /// What one run gave: output bytes, warnings, and the error that stopped it.
    public struct Run {
        public var output: [UInt8] = []
        public var warnings: [Diagnostic] = []
        public var error: JSONAPIError? = nil
    }

    final class Collector {
        var diagnostics: [Diagnostic] = []
    }

    /// Feeds `body` in chunks of `sizes` (repeated; 0 is an empty chunk); `[]` feeds it whole.
    static func feed(_ body: [UInt8], sizes: [Int], _ f: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void) throws(JSONAPIError) {
        var failure: JSONAPIError? = nil
        body.withUnsafeBytes { all in
            guard !sizes.isEmpty else {
                if all.count > 0 {
                    do throws(JSONAPIError) { try f(all) } catch { failure = error }
                }
                return
            }
            var i = 0
            var k = 0
            while i < all.count {
                let n = sizes[k % sizes.count]
                k += 1
                let end = n >= all.count - i ? all.count : i + n
                do throws(JSONAPIError) { try f(UnsafeRawBufferPointer(rebasing: all[i..<end])) } catch {
                    failure = error
                    return
                }
                i = end
            }
        }
        if let failure { throw failure }
    }

    /// `named`: the body is one input of that name (``Normalizer/beginInput(named:)``); `whole`:
    /// it is read as bytes of known size (``InputSource/bytes(_:name:)``, reads of the first
    /// size), which cuts a large document's last ranges smaller; otherwise it is fed in `sizes`.
    static func normalize(
        _ body: [UInt8], format: OutputFormat, document: DocumentOptions, output: OutputOptions,
        duplicates: DuplicatePolicy, sizes: [Int], named: String? = nil, whole: Bool = false
    ) -> Run {
        let out = ByteWriter()
        let normalizer = Normalizer(format: format, out: out, output: output, document: document, duplicates: duplicates)
        let collector = Collector()
        normalizer.onDiagnostic = { collector.diagnostics.append($0) }
        var run = Run()
        do throws(JSONAPIError) {
            if whole {
                try normalizer.read(.bytes(body, name: named ?? "fuzz"), chunkSize: max(1, min(sizes.first ?? Int.max, 1 << 20)))
            } else {
                if let named { try normalizer.beginInput(named: named) }
                try feed(body, sizes: sizes) { (b) throws(JSONAPIError) in try normalizer.feed(b) }
            }
            try normalizer.finish()
        } catch {
            run.error = error
        }
        run.output = out.bytes
        run.warnings = collector.diagnostics
        return run
    }

    static func validate(_ body: [UInt8], options: DocumentOptions, syntaxOnly: Bool, chunkSize: Int) -> Run {
        var run = Run()
        do throws(JSONAPIError) {
            run.warnings = try DocumentValidator(options: options, syntaxOnly: syntaxOnly).validate(.bytes(body, name: "fuzz"), chunkSize: chunkSize)
        } catch {
            run.error = error
        }
        return run
    }

    // MARK: - Positions

    /// Line starts of `input`, to check that a position's line and column agree with its offset.
    struct Lines {
        var starts: [Int] = [0]
        let count: Int
        init(_ input: [UInt8]) {
            count = input.count
            for (i, b) in input.enumerated() where b == 0x0A { starts.append(i + 1) }
        }

        func problem(_ d: Diagnostic, _ what: String) -> String? {
            let p = d.location
            guard p.offset >= 0 && p.offset <= count else {
                return "\(what): offset \(p.offset) outside the input (\(count) bytes): \(d)"
            }
            // The last line start at or before the offset.
            var lo = 0, hi = starts.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if starts[mid] <= p.offset { lo = mid } else { hi = mid - 1 }
            }
            let line = lo + 1, column = p.offset - starts[lo] + 1
            if p.line != line || p.column != column {
                return "\(what): position \(p.line):\(p.column) does not match byte \(p.offset) (that is \(line):\(column)): \(d)"
            }
            if !d.pointer.isEmpty && !d.pointer.hasPrefix("/") {
                return "\(what): pointer \(d.pointer.debugDescription) is not a JSON pointer: \(d)"
            }
            return nil
        }

        func problems(_ run: Run, _ what: String) -> [String] {
            var out: [String] = []
            for d in run.warnings.prefix(50) { if let p = problem(d, what + " (warning)") { out.append(p) } }
            switch run.error {
            case .syntax(let d)?, .document(let d)?:
                if let p = problem(d, what + " (error)") { out.append(p) }
            case .misuse(let m)?:
                out.append("\(what): misuse error from a plain feed/finish: \(m)")
            case .input(let m)?:
                out.append("\(what): input error from memory: \(m)")
            case nil:
                break
            }
            return out
        }
    }

    // MARK: - parse

    static func parseConfigs() -> [(name: String, document: DocumentOptions, output: OutputOptions, duplicates: DuplicatePolicy)] {
        var all = DocumentOptions()
        all.validation = .strict
        all.parse.duplicateMembers = .allowInValues
        all.parse.byteOrderMark = .strip
        all.extensions = ["ext", "x1"]
        all.parse.concurrency = .pipelined
        var allOut = OutputOptions()
        allOut.hash = true
        allOut.keys = .snake
        var small = DocumentOptions()
        small.context = .create
        small.parse.limits.maxDepth = 6
        small.parse.limits.maxKeyBytes = 12
        small.parse.limits.maxStringBytes = 40
        small.parse.limits.maxNumberLength = 10
        small.parse.limits.maxInputBytes = 2000
        small.parse.limits.maxResources = 3
        small.parse.coalesceBytes = 5
        var smallOut = OutputOptions()
        smallOut.keys = .camel
        smallOut.resourcesOnly = true
        return [
            ("default", .default, OutputOptions(), .last),
            ("strict+all", all, allOut, .first),
            ("small-limits", small, smallOut, .error),
        ]
    }

    static func parse(_ input: [UInt8]) -> [String] {
        let lines = Lines(input)
        var problems: [String] = []
        for c in parseConfigs() {
            // GraphParser, fed whole, and its graph read through the public API.
            let parser = GraphParser(options: c.document, duplicates: c.duplicates)
            let collector = Collector()
            parser.onWarning = { collector.diagnostics.append($0) }
            var run = Run()
            do throws(JSONAPIError) {
                try feed(input, sizes: []) { (b) throws(JSONAPIError) in try parser.feed(b) }
                let graph = try parser.finish()
                problems += walk(graph, c.document.parse.duplicateMembers == .reject)
            } catch {
                run.error = error
            }
            run.warnings = collector.diagnostics
            problems += lines.problems(run, "graph[\(c.name)]")
            // Normalizer, each format.
            for format in OutputFormat.allCases {
                let r = normalize(input, format: format, document: c.document, output: c.output, duplicates: c.duplicates, sizes: [])
                problems += lines.problems(r, "\(format)[\(c.name)]")
                if r.error == nil, let last = r.output.last, last != 0x0A {
                    problems.append("\(format)[\(c.name)]: output does not end with a line feed")
                }
            }
            let v = validate(input, options: c.document, syntaxOnly: false, chunkSize: 1 << 20)
            problems += lines.problems(v, "validate[\(c.name)]")
        }
        let s = validate(input, options: .default, syntaxOnly: true, chunkSize: 1 << 20)
        problems += lines.problems(s, "validate --syntax-only")
        return problems
    }

    /// Reads everything a graph offers; returns what does not hold.
    static func walk(_ graph: Graph, _ uniqueNames: Bool) -> [String] {
        var problems: [String] = []
        func value(_ v: LazyValue?, _ what: String) {
            guard let v else { return }
            let decoded = v.jsonValue
            _ = v.kind
            _ = v.string
            _ = v.bool
            _ = v.number?.doubleValue
            _ = v.number?.intValue
            for m in v.members.prefix(8) { _ = v[m.name]?.jsonText }
            for e in v.elements.prefix(8) { _ = e.jsonText }
            _ = v[0]
            if uniqueNames {
                do throws(JSONAPIError) {
                    let reparsed = try JSONValue(parsing: Array(v.jsonText.utf8))
                    if reparsed != decoded {
                        problems.append("\(what): jsonValue \(decoded.jsonText.prefix(200)) differs from its jsonText \(v.jsonText.prefix(200))")
                    }
                } catch {
                    problems.append("\(what): stored text \(v.jsonText.prefix(200)) does not parse: \(error)")
                }
            }
        }
        for r in graph.resources.prefix(64) {
            let id = r.id
            _ = r.lid
            _ = r.isPrimary
            _ = r.isIncluded
            value(r.attributes, "attributes of \(r)")
            value(r.links, "links of \(r)")
            value(r.meta, "meta of \(r)")
            for m in r.otherMembers { value(m.value, "member \(m.name) of \(r)") }
            for rel in r.relationships {
                _ = rel.name
                _ = rel.kind
                value(rel.links, "relationship links of \(r)")
                value(rel.meta, "relationship meta of \(r)")
                for m in rel.otherMembers { value(m.value, "relationship member of \(r)") }
                for l in rel.linkage.prefix(16) {
                    _ = l.identifier
                    _ = l.resource?.type
                    value(l.meta, "identifier meta of \(r)")
                }
                _ = rel.resource
                if let first = r.relationship(rel.name), first.name != rel.name {
                    problems.append("relationship(\(rel.name)) returns \(first.name)")
                }
            }
            if let id {
                let found = graph[type: r.type, id: id]
                if found?.identifier.type != r.type || found?.identifier.id != id {
                    problems.append("graph[type: \(r.type), id: \(id)] is \(found.map(\.description) ?? "nil")")
                }
            }
        }
        for d in graph.documents {
            _ = d.primaryShape
            _ = d.primary.count
            value(d.meta, "document meta")
            value(d.links, "document links")
            value(d.jsonapi, "document jsonapi")
            for e in d.errorValues.prefix(16) { value(e, "document error") }
            _ = d.errors.count
            for m in d.otherMembers { value(m.value, "document member \(m.name)") }
        }
        _ = graph.primary.count
        _ = graph.types
        for t in graph.types { _ = graph.resources(ofType: t).count }
        value(graph.meta, "graph meta")
        value(graph.links, "graph links")
        value(graph.jsonapi, "graph jsonapi")
        for e in graph.errorValues.prefix(16) { value(e, "graph error") }
        _ = graph.errors.count
        _ = graph.statistics
        _ = graph.memoryFootprint
        return problems
    }

    // MARK: - decode

    /// A value as a user's "any JSON" `Decodable` type reads it, through the decoder's
    /// containers (never through ``JSONValue``'s own conformance): nil, then `Bool`, `String`,
    /// `Double`, a keyed container, an unkeyed one.
    indirect enum Probe: Decodable, Equatable {
        case null
        case bool(Bool)
        case string(String)
        /// The `Double`'s bits (so that -0 and 0 differ).
        case number(UInt64)
        case object([String], [Probe])
        case array([Probe])
        /// Nothing above decoded: a number outside `Double` (or, under `.exact`, not exact).
        case unrepresentable

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(_ s: String) { stringValue = s }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { return nil }
        }

        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if single.decodeNil() { self = .null; return }
            if let b = try? single.decode(Bool.self) { self = .bool(b); return }
            if let s = try? single.decode(String.self) { self = .string(s); return }
            if let d = try? single.decode(Double.self) { self = .number(d.bitPattern); return }
            if let keyed = try? decoder.container(keyedBy: Key.self) {
                let keys = keyed.allKeys
                self = .object(keys.map(\.stringValue), try keys.map { try keyed.decode(Probe.self, forKey: $0) })
                return
            }
            if var unkeyed = try? decoder.unkeyedContainer() {
                var items: [Probe] = []
                while !unkeyed.isAtEnd { items.append(try unkeyed.decode(Probe.self)) }
                if let count = unkeyed.count, count != items.count { throw FuzzDecodeProblem("unkeyed count \(count) but \(items.count) elements") }
                self = .array(items)
                return
            }
            self = .unrepresentable
        }
    }

    struct FuzzDecodeProblem: Error { let text: String; init(_ text: String) { self.text = text } }

    /// What one resource's keyed container gives for each of its keys, read every way a model
    /// might read it. Relationship names (from `userInfo`) are read as identifiers only, so
    /// that nothing walks the graph further.
    struct Mirror: Decodable {
        static let relationshipsKey = CodingUserInfoKey(rawValue: "fuzz.relationships")!

        struct Entry {
            var probe: Result<Probe, any Error>?
            var nilness: Result<Bool, any Error>
            var string: Result<String, any Error>
            var bool: Result<Bool, any Error>
            var int: Result<Int, any Error>
            var int64: Result<Int64, any Error>
            var uint64: Result<UInt64, any Error>
            var int8: Result<Int8, any Error>
            var double: Result<Double, any Error>
            var decimal: Result<Decimal, any Error>
            var identifiers: Result<[ResourceIdentifier], any Error>?
            var identifier: Result<ResourceIdentifier?, any Error>?
        }

        var keys: [String] = []
        var entries: [[UInt8]: Entry] = [:]
        var missing: Result<String, any Error>
        var containsMissing: Bool

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Probe.Key.self)
            // Names compare byte for byte, as the decoder compares them (Swift's `String`
            // equality would merge canonically equivalent names such as NFC and NFD "é").
            let relationships = decoder.userInfo[Self.relationshipsKey] as? Set<[UInt8]> ?? []
            func get<T>(_ body: () throws -> T) -> Result<T, any Error> { Result { try body() } }
            for key in c.allKeys {
                keys.append(key.stringValue)
                let isRelationship = relationships.contains(Array(key.stringValue.utf8))
                // Dates, URLs and nested containers: read for what they may break, not compared.
                _ = try? c.decode(Date.self, forKey: key)
                _ = try? c.decode(URL.self, forKey: key)
                _ = try? c.decode([String: String].self, forKey: key)
                _ = try? c.decode([Int].self, forKey: key)
                _ = try? c.decode([String].self, forKey: key)
                _ = try? c.decode(Float.self, forKey: key)
                _ = try? c.decode(UInt8.self, forKey: key)
                if !isRelationship {
                    _ = try? c.nestedContainer(keyedBy: Probe.Key.self, forKey: key).allKeys
                    _ = try? c.nestedUnkeyedContainer(forKey: key).count
                }
                entries[Array(key.stringValue.utf8)] = Entry(
                    probe: isRelationship ? nil : get { try c.decode(Probe.self, forKey: key) },
                    nilness: get { try c.decodeNil(forKey: key) },
                    string: get { try c.decode(String.self, forKey: key) },
                    bool: get { try c.decode(Bool.self, forKey: key) },
                    int: get { try c.decode(Int.self, forKey: key) },
                    int64: get { try c.decode(Int64.self, forKey: key) },
                    uint64: get { try c.decode(UInt64.self, forKey: key) },
                    int8: get { try c.decode(Int8.self, forKey: key) },
                    double: get { try c.decode(Double.self, forKey: key) },
                    decimal: get { try c.decode(Decimal.self, forKey: key) },
                    identifiers: isRelationship ? get { try c.decode([ResourceIdentifier].self, forKey: key) } : nil,
                    identifier: isRelationship ? get { try c.decodeIfPresent(ResourceIdentifier.self, forKey: key) } : nil)
            }
            let absent = Probe.Key("\u{1}no such member")
            containsMissing = c.contains(absent)
            missing = get { try c.decode(String.self, forKey: absent) }
        }
    }

    /// Names a ``ReaderMirror`` and a ``ContainerMirror`` read: the members, relationships and
    /// reserved names of the corpus and the generated documents, and one no document has.
    static let readerNames: [StaticString] = [
        "id", "type", "lid", "meta", "links", "title", "body", "name", "views", "age", "rating", "score", "published", "deletedAt",
        "first-name", "tags-list", "dimensions", "author", "comments", "tags", "article", "count", "label", "a", "b", "\u{1}no such member",
    ]

    /// What one read gave: a value's text, or the error's case, coding path and message.
    static func outcome<T>(_ body: () throws -> T) -> String {
        do {
            let v = try body()
            if let d = v as? Double { return "value \(d.bitPattern)" }
            if let d = v as? Double?, let d { return "value \(d.bitPattern)" }
            return "value \(String(describing: v))"
        } catch let e as DecodingError {
            let (k, c): (String, DecodingError.Context)
            switch e {
            case .typeMismatch(_, let x): (k, c) = ("typeMismatch", x)
            case .valueNotFound(_, let x): (k, c) = ("valueNotFound", x)
            case .keyNotFound(let key, let x): (k, c) = ("keyNotFound \(key.stringValue)", x)
            case .dataCorrupted(let x): (k, c) = ("dataCorrupted", x)
            @unknown default: return "unknown"
            }
            return "\(k) \(c.codingPath.map(\.stringValue)) \(c.debugDescription)"
        } catch {
            return "threw \(type(of: error)): \(error)"
        }
    }

    /// ``readerNames`` read through a ``JSONAPIReader`` every way it offers.
    struct ReaderMirror: JSONAPIReadable {
        var outcomes: [String] = []
        init(reading r: JSONAPIReader) throws {
            for n in FuzzChecks.readerNames {
                outcomes += [
                    "\(n) contains \(r.contains(n))",
                    outcome { try r.read(n, as: String.self) }, outcome { try r.read(n, as: Int.self) },
                    outcome { try r.read(n, as: Double.self) }, outcome { try r.read(n, as: Bool.self) },
                    outcome { try r.readIfPresent(n, as: String.self) }, outcome { try r.readIfPresent(n, as: Int.self) },
                    outcome { try r.readIfPresent(n, as: Double.self) }, outcome { try r.readIfPresent(n, as: Bool.self) },
                    outcome { try r.read(n, as: Int8.self) }, outcome { try r.readIfPresent(n, as: [String].self) },
                    outcome { try r.readIfPresent(n, as: ResourceIdentifier.self) }, outcome { try r.readIfPresent(n, as: [ResourceIdentifier].self) },
                ]
            }
        }
    }

    /// The same names and types read through the keyed container of a synthesized-style
    /// `init(from:)`: what ``ReaderMirror`` must give, read for read.
    struct ContainerMirror: Decodable {
        var outcomes: [String] = []
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: Probe.Key.self)
            for n in FuzzChecks.readerNames {
                let k = Probe.Key(n.description)
                outcomes += [
                    "\(n) contains \(c.contains(k))",
                    outcome { try c.decode(String.self, forKey: k) }, outcome { try c.decode(Int.self, forKey: k) },
                    outcome { try c.decode(Double.self, forKey: k) }, outcome { try c.decode(Bool.self, forKey: k) },
                    outcome { try c.decodeIfPresent(String.self, forKey: k) }, outcome { try c.decodeIfPresent(Int.self, forKey: k) },
                    outcome { try c.decodeIfPresent(Double.self, forKey: k) }, outcome { try c.decodeIfPresent(Bool.self, forKey: k) },
                    outcome { try c.decode(Int8.self, forKey: k) }, outcome { try c.decodeIfPresent([String].self, forKey: k) },
                    outcome { try c.decodeIfPresent(ResourceIdentifier.self, forKey: k) }, outcome { try c.decodeIfPresent([ResourceIdentifier].self, forKey: k) },
                ]
            }
        }
    }

    /// Problems where a ``JSONAPIReader`` reads resource `r` otherwise than its keyed
    /// container does.
    static func readerAgrees(_ r: Resource, _ options: DecodingOptions) -> [String] {
        let ours: [String], theirs: [String]
        do {
            ours = try r.decode(ReaderMirror.self, options: options).outcomes
            theirs = try r.decode(ContainerMirror.self, options: options).outcomes
        } catch {
            return [errorProblem(error, "\(r) as ReaderMirror") ?? "\(r) as ReaderMirror: \(error)"]
        }
        guard ours.count == theirs.count else { return ["\(r): the reader made \(ours.count) reads, the container \(theirs.count)"] }
        return zip(ours, theirs).compactMap { a, b in a == b ? nil : "\(r): the reader gave \(a.prefix(200)), the container \(b.prefix(200))" }.prefix(4).map { $0 }
    }

    /// Collects the errors a ``Walker`` swallows, so that each can be checked.
    final class ErrorSink: @unchecked Sendable {
        static let key = CodingUserInfoKey(rawValue: "fuzz.errors")!
        var errors: [any Error] = []
    }

    /// A recursive model that follows everything: each member as an array of walkers and as
    /// one walker, so that relationships resolve to related resources (to-many and to-one)
    /// and stored objects and arrays are entered. Cycles, unresolved linkage, the stack check
    /// and the limit on related resources all get their turn.
    final class Walker: Decodable {
        var reached = 0
        init(from decoder: any Decoder) throws {
            let sink = decoder.userInfo[ErrorSink.key] as? ErrorSink
            let c = try decoder.container(keyedBy: Probe.Key.self)
            for key in c.allKeys {
                do { reached += try c.decode([Walker?].self, forKey: key).count } catch { sink?.errors.append(error) }
                do { if try c.decodeIfPresent(Walker.self, forKey: key) != nil { reached += 1 } } catch { sink?.errors.append(error) }
            }
        }
    }

    /// Problems with a decoding error: not a `DecodingError`, or one without a message.
    static func errorProblem(_ error: any Error, _ what: String) -> String? {
        if let p = error as? FuzzDecodeProblem { return "\(what): \(p.text)" }
        // Primary data asked of an error document: the server's errors, never none.
        if let d = error as? ErrorDocument { return d.errors.isEmpty ? "\(what): an ErrorDocument without errors" : nil }
        guard let e = error as? DecodingError else { return "\(what): threw \(type(of: error)), not a DecodingError: \(error)" }
        let context: DecodingError.Context
        switch e {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c): context = c
        @unknown default: return nil
        }
        return context.debugDescription.isEmpty ? "\(what): a DecodingError without a message" : nil
    }

    /// Where `probe` differs from the stored value `v` (nil when it does not).
    static func difference(_ probe: Probe, _ v: LazyValue, _ floating: FloatingPointDecodingStrategy, _ at: String) -> String? {
        func differs(_ wanted: String) -> String { "\(at): decoded \(String(describing: probe).prefix(200)), stored \(v.jsonText.prefix(200)) (\(wanted))" }
        switch v.kind {
        case .null: return probe == .null ? nil : differs("null")
        case .bool: return probe == .bool(v.bool ?? false) ? nil : differs("bool")
        case .string: return probe == .string(v.string ?? "\u{0}") ? nil : differs("string")
        case .number:
            guard let n = v.number else { return differs("a number without JSONNumber") }
            let want = floating == .nearest ? n.doubleValue : n.exactDoubleValue
            return probe == (want.map { .number($0.bitPattern) } ?? .unrepresentable) ? nil : differs("number \(want.map { "\($0)" } ?? "unrepresentable")")
        case .array:
            let elements = v.elements
            guard case .array(let items) = probe, items.count == elements.count else { return differs("array of \(elements.count)") }
            for (i, (p, e)) in zip(items, elements).enumerated() {
                if let d = difference(p, e, floating, "\(at)/\(i)") { return d }
            }
            return nil
        case .object:
            let members = v.members
            guard case .object(let names, let values) = probe, names == members.map(\.name) else { return differs("object \(members.map(\.name))") }
            for (name, p) in zip(names, values) {
                // Repeated names (when the document allowed them): a key reads the last.
                guard let e = v[name] else { return differs("member \(name)") }
                if let d = difference(p, e, floating, "\(at)/\(name)") { return d }
            }
            return nil
        }
    }

    /// Whether a number decoded as an integer type agrees with ``JSONNumber``'s accessor.
    static func sameInteger<T: Equatable>(_ decoded: Result<T, any Error>, _ expected: T?, _ what: String) -> String? {
        switch (decoded, expected) {
        case (.success(let a), .some(let b)): return a == b ? nil : "\(what): decoded \(a), JSONNumber has \(b)"
        case (.success(let a), .none): return "\(what): decoded \(a), JSONNumber has none"
        case (.failure(let e), .some(let b)): return "\(what): failed (\(e)), JSONNumber has \(b)"
        case (.failure(let e), .none): return errorProblem(e, what)
        }
    }

    /// Every resource's attributes, identifiers and scalars, decoded with the library's
    /// decoder, against the lazy accessors (an independent reading of the same bytes).
    static func decode(_ input: [UInt8]) -> [String] {
        var problems: [String] = []
        for allowDuplicates in [false, true] {
            var documentOptions = DocumentOptions()
            if allowDuplicates { documentOptions.parse.duplicateMembers = .allowInValues }
            let parser = GraphParser(options: documentOptions)
            let graph: Graph
            do throws(JSONAPIError) {
                try feed(input, sizes: []) { (b) throws(JSONAPIError) in try parser.feed(b) }
                graph = try parser.finish()
            } catch {
                continue
            }
            for floating in [FloatingPointDecodingStrategy.exact, .nearest] {
                for r in graph.resources.prefix(32) {
                    problems += decodeResource(r, floating)
                }
            }
            // A key strategy and the whole primary data: read for what they may break.
            var camel = DecodingOptions()
            camel.keys = .camelCase
            camel.cycles = .nilForOptionals
            do { _ = try graph.decode([Mirror].self, options: camel) } catch {
                if let p = errorProblem(error, "primary data as [Mirror]") { problems.append(p) }
            }
            do { _ = try graph.decode([ResourceIdentifier].self) } catch {
                if let p = errorProblem(error, "primary data as [ResourceIdentifier]") { problems.append(p) }
            }
            // Following every relationship and value, with both cycle strategies and a small
            // limit on related resources (so that each input stays fast).
            for cycles in [CycleDecodingStrategy.error, .nilForOptionals] {
                var walking = DecodingOptions()
                walking.cycles = cycles
                walking.maxResolvedResources = 2_000
                let sink = ErrorSink()
                walking.userInfo[ErrorSink.key] = sink
                for r in graph.resources.prefix(8) {
                    do { _ = try r.decode(Walker.self, options: walking) } catch { sink.errors.append(error) }
                }
                for e in sink.errors.prefix(64) {
                    if let p = errorProblem(e, "walking [\(cycles)]") { problems.append(p) }
                }
            }
        }
        return problems
    }

    static func decodeResource(_ r: Resource, _ floating: FloatingPointDecodingStrategy) -> [String] {
        var problems: [String] = []
        let relationships = r.relationships
        let relationshipNames = Set(relationships.map { Array($0.name.utf8) })
        var options = DecodingOptions()
        options.floatingPoint = floating
        options.userInfo[Mirror.relationshipsKey] = relationshipNames
        let mirror: Mirror
        do {
            mirror = try r.decode(Mirror.self, options: options)
        } catch {
            return [errorProblem(error, "\(r) as Mirror") ?? "\(r) as Mirror: \(error)"]
        }
        problems += readerAgrees(r, options)
        if mirror.containsMissing { problems.append("\(r): contains a name it does not have") }
        if case .success(let s) = mirror.missing { problems.append("\(r): decoded \(s) for a name it does not have") }
        if !mirror.keys.contains("type") { problems.append("\(r): allKeys \(mirror.keys) without type") }
        for (bytes, entry) in mirror.entries {
            let name = String(decoding: bytes, as: UTF8.self)
            for (result, what) in [
                (entry.string.map { _ in () }, "String"), (entry.bool.map { _ in () }, "Bool"), (entry.double.map { _ in () }, "Double"), (entry.decimal.map { _ in () }, "Decimal"),
                (entry.nilness.map { _ in () }, "decodeNil"),
            ] {
                if case .failure(let e) = result, let p = errorProblem(e, "\(r) \(name) as \(what)") { problems.append(p) }
            }
        }
        let attributeNames = r.hasAttributes ? r.attributes.members.map(\.name) : []
        let attributeBytes = Set(attributeNames.map { Array($0.utf8) })
        let reserved = Set(["id", "type", "lid", "meta", "links"].map { Array($0.utf8) })
        var seen = Set<[UInt8]>()
        // Attributes whose name nothing else claims (each name once).
        for name in attributeNames {
            let bytes = Array(name.utf8)
            guard seen.insert(bytes).inserted, !reserved.contains(bytes), !relationshipNames.contains(bytes) else { continue }
            let what = "\(r) attribute \(name) [\(floating)]"
            guard let v = r.attributes[name] else { continue }
            guard let entry = mirror.entries[bytes] else { problems.append("\(what): not in allKeys \(mirror.keys.prefix(20))"); continue }
            switch entry.probe {
            case .success(let p)?: if let d = difference(p, v, floating, what) { problems.append(d) }
            case .failure(let e)?: problems.append(errorProblem(e, what) ?? "\(what): failed: \(e)")
            case nil: problems.append("\(what): read as a relationship")
            }
            if case .success(let isNil) = entry.nilness, isNil != v.isNull { problems.append("\(what): decodeNil \(isNil), stored \(v.jsonText.prefix(80))") }
            if case .success(let s) = entry.string, s != v.string { problems.append("\(what): String \(s.debugDescription.prefix(80)), stored \(v.jsonText.prefix(80))") }
            if v.kind == .string, case .failure(let e) = entry.string { problems.append("\(what): a string that does not decode as String: \(e)") }
            if case .success(let b) = entry.bool, b != v.bool { problems.append("\(what): Bool \(b), stored \(v.jsonText.prefix(80))") }
            if let n = v.number {
                problems += [
                    sameInteger(entry.int, n.intValue, "\(what) as Int"),
                    sameInteger(entry.int64, n.int64Value, "\(what) as Int64"),
                    sameInteger(entry.uint64, n.uint64Value, "\(what) as UInt64"),
                    sameInteger(entry.int8, n.int64Value.flatMap { Int8(exactly: $0) }, "\(what) as Int8"),
                    sameInteger(entry.double.map(\.bitPattern), (floating == .nearest ? n.doubleValue : n.exactDoubleValue)?.bitPattern, "\(what) as Double"),
                ].compactMap { $0 }
                if case .success(let d) = entry.decimal, let i = n.int64Value, d != Decimal(i) { problems.append("\(what): Decimal \(d), stored \(n.text)") }
            } else {
                for (ok, type) in [((try? entry.int.get()) != nil, "Int"), ((try? entry.double.get()) != nil, "Double"), ((try? entry.decimal.get()) != nil, "Decimal")] where ok {
                    problems.append("\(what): \(v.jsonText.prefix(80)) decoded as \(type)")
                }
            }
        }
        // Relationships whose name nothing else claims.
        for rel in relationships {
            let bytes = Array(rel.name.utf8)
            guard !reserved.contains(bytes), !attributeBytes.contains(bytes) else { continue }
            guard relationships.filter({ Array($0.name.utf8) == bytes }).count == 1 else { continue }  // a repeated name
            let what = "\(r) relationship \(rel.name)"
            guard let entry = mirror.entries[bytes] else { problems.append("\(what): not in allKeys \(mirror.keys.prefix(20))"); continue }
            switch (rel.kind, entry.identifiers, entry.identifier) {
            case (.toMany, .success(let ids)?, _):
                if ids != rel.identifiers { problems.append("\(what): decoded \(ids), linkage \(rel.identifiers)") }
            case (.toOne, _, .success(let id)?):
                if id != rel.identifiers.first { problems.append("\(what): decoded \(String(describing: id)), linkage \(rel.identifiers)") }
            case (.null, _, .success(let id)?), (.absent, _, .success(let id)?):
                if let id { problems.append("\(what): decoded \(id) for \(rel.kind) linkage") }
            case (.toMany, .failure(let e)?, _), (.toOne, _, .failure(let e)?), (.null, _, .failure(let e)?), (.absent, _, .failure(let e)?):
                problems.append(errorProblem(e, what) ?? "\(what): failed: \(e)")
            default:
                problems.append("\(what): \(rel.kind) not read as identifiers")
            }
        }
        return problems
    }

    // MARK: - chunks

    static func describe(_ e: JSONAPIError?) -> String { e.map { "\($0)" } ?? "success" }

    /// The parts of an error that must not depend on the read size.
    static func sameError(_ a: JSONAPIError?, _ b: JSONAPIError?) -> Bool {
        switch (a, b) {
        case (nil, nil): return true
        case (.syntax(let x)?, .syntax(let y)?), (.document(let x)?, .document(let y)?):
            return x.rule == y.rule && x.location == y.location && x.pointer == y.pointer
        case (.input(let x)?, .input(let y)?), (.misuse(let x)?, .misuse(let y)?):
            return x == y
        default:
            return false
        }
    }

    static func sameDiagnostics(_ a: [Diagnostic], _ b: [Diagnostic]) -> Bool {
        a.count == b.count
            && zip(a, b).allSatisfy { x, y in
                x.rule == y.rule && x.severity == y.severity && x.location == y.location && x.pointer == y.pointer
            }
    }

    static func firstDifference(_ a: [Diagnostic], _ b: [Diagnostic]) -> String {
        for (i, (x, y)) in zip(a, b).enumerated() where !sameDiagnostics([x], [y]) {
            return "#\(i): \(x) vs \(y)"
        }
        return "counts \(a.count) vs \(b.count): \(a.count > b.count ? a[b.count] : b[a.count])"
    }

    static func chunks(_ input: [UInt8]) -> [String] {
        let c = Config(input)
        var chunked = c.document
        chunked.parse.coalesceBytes = c.coalesce
        if c.pipelined { chunked.parse.concurrency = .pipelined }
        let how = "sizes \(c.sizes.map { $0 == .max ? "rest" : String($0) }), coalesce \(c.coalesce)\(c.pipelined ? ", pipelined" : "")"
        var problems: [String] = []
        for format in OutputFormat.allCases {
            let whole = normalize(c.body, format: format, document: c.document, output: c.output, duplicates: c.duplicates, sizes: [])
            let pieces = normalize(c.body, format: format, document: chunked, output: c.output, duplicates: c.duplicates, sizes: c.sizes)
            if !sameError(whole.error, pieces.error) {
                problems.append("\(format): whole gives \(describe(whole.error)); in chunks (\(how)) \(describe(pieces.error))")
                continue
            }
            if whole.error == nil {
                if whole.output != pieces.output {
                    problems.append(
                        "\(format): output differs in chunks (\(how)): whole \(String(decoding: whole.output.prefix(300), as: UTF8.self).debugDescription) vs \(String(decoding: pieces.output.prefix(300), as: UTF8.self).debugDescription)"
                    )
                }
                if !sameDiagnostics(whole.warnings, pieces.warnings) {
                    problems.append("\(format): warnings differ in chunks (\(how)): \(firstDifference(whole.warnings, pieces.warnings))")
                }
            }
        }
        for syntaxOnly in [false, true] {
            let size = c.sizes.first { $0 > 0 } ?? 1
            let whole = validate(c.body, options: c.document, syntaxOnly: syntaxOnly, chunkSize: 1 << 20)
            let pieces = validate(c.body, options: chunked, syntaxOnly: syntaxOnly, chunkSize: size)
            let what = syntaxOnly ? "validate --syntax-only" : "validate"
            if !sameError(whole.error, pieces.error) {
                problems.append("\(what): whole gives \(describe(whole.error)); at read size \(size) \(describe(pieces.error))")
            } else if !sameDiagnostics(whole.warnings, pieces.warnings) {
                // Tagged when the input is not JSON (the last finding is a J rule): findings
                // before a syntax error are a lesser matter than findings on valid JSON.
                let invalid = whole.warnings.last?.rule.isJSONRule == true ? " [invalid JSON]" : ""
                problems.append(
                    "\(what): findings differ at read size \(size == .max ? "whole" : String(size)), coalesce \(c.coalesce)\(c.pipelined ? ", pipelined" : "")\(invalid): \(firstDifference(whole.warnings, pieces.warnings))"
                )
            }
        }
        return problems
    }

    // MARK: - workers

    /// The batch size the header asks for (1 plus `step` times its third byte's high four
    /// bits), or more for a long body: every batch (and every
    /// piece of a long element) is a hand-over between threads, so a body of 60 KB in batches
    /// of a byte made 60,000 of them per run, a dozen runs per input, and took 41 s under
    /// AddressSanitizer (a libFuzzer timeout, linear in the size: 9 s for 7.5 KB). At most
    /// about 512 batches per run keeps every input under a second or so; the small bodies,
    /// most of what the fuzzer writes, keep their batches of a few bytes.
    static func batchBytes(_ input: [UInt8], step: Int, body: Int) -> Int {
        max(1 + Int(input.count > 2 ? input[2] >> 4 : 0) * step, body / 512)
    }

    static func workers(_ input: [UInt8]) -> [String] {
        let c = Config(input)
        // Three copies: document boundaries for the workers to cut at (when the body is one
        // JSON text), the body's own trailing content between them otherwise.
        let dump = c.body + [0x0A] + c.body + [0x20, 0x0D, 0x0A] + c.body
        let batch = batchBytes(input, step: 5, body: dump.count)
        return workersAgree(dump, c, batch: batch, label: "") + validationAgrees(dump, c, batch: batch, label: "")
            + tablesAgree(dump, c, batch: batch, label: "") + streamAgrees(dump, c, batch: batch)
    }

    /// `body` read by a ``DocumentStream`` into a sink that logs every call (each view's parts
    /// as text, the warnings among them) by one reader and by 2 workers with batches of `batch`
    /// bytes (what they read is replayed into the sink on the caller's thread): how the calls
    /// and the error differ.
    static func streamAgrees(_ body: [UInt8], _ c: Config, batch: Int) -> [String] {
        final class Log: StreamSink {
            var lines: [String] = []
            func resource(_ r: ResourceView) throws(JSONAPIError) {
                lines.append("R \(r.documentIndex) \(r.source ?? "-") \(r.identifier) \(r.isPrimary) \(r.position) \(r.pointer) \(r.jsonText)")
            }
            func document(_ d: DocumentView) throws(JSONAPIError) {
                lines.append(
                    "D \(d.index) \(d.source ?? "-") \(d.position) \(d.primaryShape) \(String(describing: d.meta)) \(String(describing: d.links)) \(String(describing: d.errors))")
            }
        }
        func read(workers: Int) -> (lines: [String], error: JSONAPIError?) {
            var o = c.document
            o.parse.workers = workers
            o.parse.workerBatchBytes = batch
            let log = Log()
            let s = DocumentStream(options: o, sinks: [log])
            s.onDiagnostic = { log.lines.append("W \($0)") }
            do throws(JSONAPIError) {
                try s.beginInput(named: "fuzz")
                try feed(body, sizes: c.sizes) { (b) throws(JSONAPIError) in try s.feed(b) }
                try s.finish()
                return (log.lines, nil)
            } catch {
                s.abandon()
                return (log.lines, error)
            }
        }
        let one = read(workers: 1)
        let many = read(workers: 2)
        var problems: [String] = []
        if one.error != many.error { problems.append("stream, 2 workers, batches of \(batch) bytes: one reader \(describe(one.error)); workers \(describe(many.error))") }
        if one.lines != many.lines {
            let i = zip(one.lines, many.lines).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(one.lines.count, many.lines.count)
            problems.append(
                "stream, 2 workers, batches of \(batch) bytes: call \(i) of \(one.lines.count) / \(many.lines.count) differs: \(i < one.lines.count ? one.lines[i] : "-") vs \(i < many.lines.count ? many.lines[i] : "-")"
            )
        }
        return problems
    }

    /// `body` split by type (NDJSON or CSV tables) by one reader and by 2 workers with batches
    /// of `batch` bytes: how the workers' files differ (the whole rows kept before an error
    /// included), and their warnings and error, each problem starting with `label`.
    static func tablesAgree(_ body: [UInt8], _ c: Config, batch: Int, label: String) -> [String] {
        let format: TableFormat = c.body.count % 2 == 0 ? .ndjson : .csv
        var output = c.output
        output.hash = false
        func split(workers: Int) -> (files: [String: [UInt8]], run: Run)? {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-fuzz-tables-\(getpid())-\(UUID().uuidString)").path
            guard (try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)) != nil else { return nil }
            defer { try? FileManager.default.removeItem(atPath: dir) }
            var document = c.document
            document.parse.workers = workers
            document.parse.workerBatchBytes = batch
            guard let splitter = try? TableSplitter(directory: dir, format: format, output: output, document: document, duplicates: c.duplicates) else { return nil }
            let collector = Collector()
            splitter.onDiagnostic = { collector.diagnostics.append($0) }
            var run = Run()
            do throws(JSONAPIError) {
                try feed(body, sizes: c.sizes) { (b) throws(JSONAPIError) in try splitter.feed(b) }
                try splitter.finish()
            } catch {
                run.error = error
                _ = try? splitter.finishAfterFailure()
            }
            run.warnings = collector.diagnostics
            var files: [String: [UInt8]] = [:]
            for f in (try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? [] { files[f] = contents(of: dir + "/" + f) }
            return (files, run)
        }
        // Read as every input is, as `denormalize DIR` reads tables (not Data(contentsOf:):
        // under LeakSanitizer, Foundation's file reading leaks).
        func contents(of path: String) -> [UInt8]? {
            var bytes: [UInt8] = []
            do throws(JSONAPIError) {
                try InputSource(path: path).read(chunkSize: 1 << 16) { (chunk) throws(JSONAPIError) in bytes.append(contentsOf: chunk) }
            } catch {
                return nil
            }
            return bytes
        }
        guard let one = split(workers: 1), let many = split(workers: 2) else { return ["tables: cannot make a directory"] }
        var problems: [String] = []
        let how = "\(label)tables (\(format)), 2 workers, batches of \(batch) bytes"
        if one.run.error != many.run.error {
            problems.append("\(how): one reader gives \(describe(one.run.error)); workers \(describe(many.run.error))")
        }
        if one.run.warnings != many.run.warnings {
            problems.append("\(how): warnings differ: \(firstDifference(one.run.warnings, many.run.warnings))")
        }
        for file in Set(one.files.keys).union(many.files.keys).sorted() where one.files[file] != many.files[file] {
            let a = one.files[file].map { String(decoding: $0.suffix(300), as: UTF8.self).debugDescription } ?? "none"
            let b = many.files[file].map { String(decoding: $0.suffix(300), as: UTF8.self).debugDescription } ?? "none"
            problems.append("\(how): \(file) differs: one reader \(a) vs workers \(b)")
        }
        return problems
    }

    /// `body` validated (every finding, in order) by one reader and by 2 workers with batches
    /// of `batch` bytes: how the workers' findings differ.
    static func validationAgrees(_ body: [UInt8], _ c: Config, batch: Int, label: String) -> [String] {
        var one = c.document
        one.parse.workers = 1
        let reference = validate(body, options: one, syntaxOnly: false, chunkSize: c.sizes.first { $0 > 0 } ?? 1 << 20)
        var many = c.document
        many.parse.workers = 2
        many.parse.workerBatchBytes = batch
        let run = validate(body, options: many, syntaxOnly: false, chunkSize: c.sizes.first { $0 > 0 } ?? 1 << 20)
        var problems: [String] = []
        if reference.error != run.error || reference.warnings != run.warnings {
            problems.append(
                "\(label)validate, 2 workers, batches of \(batch) bytes: one reader \(describe(reference.error)), \(reference.warnings.count) findings; workers \(describe(run.error)), \(run.warnings.count) findings: \(firstDifference(reference.warnings, run.warnings))"
            )
        }
        // From a file, as `jsonapi validate` reads one: into a block (64 KiB, the smallest read
        // size blocks are used for) that the workers' batches view.
        let file = validateFile(body, options: many)
        if reference.error != file.error || reference.warnings != file.warnings {
            problems.append(
                "\(label)validate from a file, 2 workers, batches of \(batch) bytes: one reader \(describe(reference.error)), \(reference.warnings.count) findings; workers \(describe(file.error)), \(file.warnings.count) findings: \(firstDifference(reference.warnings, file.warnings))"
            )
        }
        return problems
    }

    /// `body` validated from a temporary file read in 64 KiB, its findings and error naming
    /// it "fuzz" as ``validate(_:options:syntaxOnly:chunkSize:)``'s do.
    static func validateFile(_ body: [UInt8], options: DocumentOptions) -> Run {
        let path = NSTemporaryDirectory() + "jsonapi-fuzz-\(getpid())-\(UUID().uuidString).json"
        guard FileManager.default.createFile(atPath: path, contents: Data(body)) else {
            return Run(error: .input("cannot write \(path)"))
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        var run = Run()
        func named(_ d: Diagnostic) -> Diagnostic {
            var d = d
            if d.source == path { d.source = "fuzz" }
            return d
        }
        do throws(JSONAPIError) {
            run.warnings = try DocumentValidator(options: options).validate(.file(path), chunkSize: 65536).map(named)
        } catch {
            run.error = error.diagnostic.map { named($0).source == "fuzz" ? error.withSource("fuzz") : error } ?? error
        }
        return run
    }

    /// One large document (or two) read a range of elements per worker (see the file's head).
    static func elements(_ input: [UInt8]) -> [String] {
        let c = Config(input)
        // Batches of 1 to 16 bytes (more for a long body): workers are decided on after 8
        // times that.
        let two = c.body + [0x0A] + c.body
        let batch = batchBytes(input, step: 1, body: two.count)
        return workersAgree(c.body, c, batch: batch, label: "one, ") + workersAgree(two, c, batch: batch, label: "two, ")
            + validationAgrees(c.body, c, batch: batch, label: "one, ") + validationAgrees(two, c, batch: batch, label: "two, ")
            + tablesAgree(c.body, c, batch: batch, label: "one, ") + tablesAgree(two, c, batch: batch, label: "two, ")
    }

    /// `body` normalized to NDJSON, edges and flat JSON by one reader and by 2 and 3 workers
    /// with batches of `batch` bytes, as `c` says: how the workers' runs differ (output bytes,
    /// also before an error; warnings; error), each problem starting with `label`.
    static func workersAgree(_ body: [UInt8], _ c: Config, batch: Int, label: String) -> [String] {
        var problems: [String] = []
        // 3 workers read the body as bytes (its size known: the last ranges smaller), unless it
        // begins as compressed bytes do (they would be decompressed).
        let readsBytes = InputSource.bytes(body, name: "fuzz").compression == .none
        for format in [OutputFormat.ndjson, .edges, .json] {
            var one = c.document
            one.parse.workers = 1
            let fed = normalize(body, format: format, document: one, output: c.output, duplicates: c.duplicates, sizes: c.sizes)
            // The body named, as reading it as bytes names it.
            let named =
                readsBytes ? normalize(body, format: format, document: one, output: c.output, duplicates: c.duplicates, sizes: c.sizes, named: "fuzz") : fed
            for n in [2, 3] {
                var many = c.document
                many.parse.workers = n
                many.parse.workerBatchBytes = batch
                let whole = n == 3 && readsBytes
                let reference = whole ? named : fed
                let run = normalize(
                    body, format: format, document: many, output: c.output, duplicates: c.duplicates, sizes: c.sizes, named: whole ? "fuzz" : nil,
                    whole: whole)
                let how = "\(label)\(format), \(n) workers, batches of \(batch) bytes, \(whole ? "read whole, " : "")sizes \(c.sizes.map { $0 == .max ? "rest" : String($0) })"
                if reference.error != run.error {
                    problems.append("\(how): one reader gives \(describe(reference.error)); workers \(describe(run.error))")
                }
                if reference.output != run.output {
                    problems.append(
                        "\(how): output differs: one reader \(String(decoding: reference.output.suffix(300), as: UTF8.self).debugDescription) vs \(String(decoding: run.output.suffix(300), as: UTF8.self).debugDescription)"
                    )
                }
                if reference.warnings != run.warnings {
                    problems.append("\(how): warnings differ: \(firstDifference(reference.warnings, run.warnings))")
                }
            }
        }
        return problems
    }

    // MARK: - roundtrip

    /// A flat-JSON entry rebuilt from NDJSON lines.
    struct Entry {
        var attributes = JSONObject()
        var relationships = JSONObject()
        var links: JSONValue? = nil
        var meta: JSONValue? = nil
        var extras = JSONObject()
        var lid: JSONValue? = nil

        var value: JSONValue {
            var o = JSONObject()
            o.append("attributes", .object(attributes))
            o.append("relationships", .object(relationships))
            if let links { o.append("links", links) }
            if let meta { o.append("meta", meta) }
            for m in extras.members { o.append(m.key, m.value) }
            if let lid { o.append("lid", lid) }
            return .object(o)
        }
    }

    /// Members of `new` replace those of `old` by name (a name keeps its first position) or
    /// are appended; values that are not both objects: `new` replaces `old` whole.
    static func merge(_ old: JSONValue?, _ new: JSONValue?) -> JSONValue? {
        guard let new else { return old }
        guard let old else { return new }
        guard case .object(let o) = old, case .object(let n) = new else { return new }
        return .object(merge(o, n))
    }

    static func merge(_ old: JSONObject, _ new: JSONObject) -> JSONObject {
        var out = old
        for m in new.members { out[m.key] = m.value }
        return out
    }

    /// Whether `merged` is `first` with members appended only (the earlier members win).
    static func extends(_ merged: JSONValue?, _ first: JSONValue?) -> Bool {
        guard let first else { return true }
        guard let merged else { return false }
        guard case .object(let m) = merged, case .object(let f) = first else { return merged == first }
        return extends(m, f)
    }

    static func extends(_ merged: JSONObject, _ first: JSONObject) -> Bool {
        merged.count >= first.count
            && zip(merged.members, first.members).allSatisfy { a, b in
                a.key.unicodeScalars.elementsEqual(b.key.unicodeScalars) && a.value == b.value
            }
    }

    static func text(_ v: JSONValue?) -> String { v.map { String($0.jsonText.prefix(400)) } ?? "nil" }

    /// Where two values first differ: a JSON pointer and both values there.
    static func difference(_ a: JSONValue?, _ b: JSONValue?, at path: String = "") -> String {
        switch (a, b) {
        case (.object(let x)?, .object(let y)?):
            for i in 0..<max(x.count, y.count) {
                let m = i < x.count ? x.members[i] : nil
                let n = i < y.count ? y.members[i] : nil
                if let m, let n, m.key == n.key {
                    if m.value != n.value { return difference(m.value, n.value, at: path + "/" + m.key) }
                } else {
                    return "member #\(i) at \(path.isEmpty ? "/" : path): \(m.map { JSONValue.string($0.key).jsonText } ?? "none") vs \(n.map { JSONValue.string($0.key).jsonText } ?? "none")"
                }
            }
        case (.array(let x)?, .array(let y)?) where x.count == y.count:
            for i in x.indices where x[i] != y[i] { return difference(x[i], y[i], at: path + "/\(i)") }
        default:
            break
        }
        return "at \(path.isEmpty ? "/" : path): \(String(text(a).prefix(160))) vs \(String(text(b).prefix(160)))"
    }

    static func splitLines(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var out: [ArraySlice<UInt8>] = []
        var start = 0
        for (i, b) in bytes.enumerated() where b == 0x0A {
            out.append(bytes[start..<i])
            start = i + 1
        }
        return out
    }

    /// `Denormalizer` over NDJSON `output`, and over its `lines` with `type` moved last
    /// (read as `JSONValue` trees): the same document, or the same error.
    static func denormalizedBothWays(_ output: [UInt8], lines: [JSONObject]) -> [String] {
        var moved: [UInt8] = []
        for o in lines {
            var tree = JSONObject()
            for m in o.members where m.key != "type" { tree.append(m.key, m.value) }
            if let t = o["type"] { tree.append("type", t) }
            moved += Array(JSONValue.object(tree).jsonText.utf8)
            moved.append(UInt8(ascii: "\n"))
        }
        return sameDenormalized(output, moved, "resource lines read as text", "as trees")
    }

    /// `Denormalizer` over the flat object `output` (read entry by entry, `data` first), over
    /// `top`, the same object with `resources` first (entry by entry, `data` after it), and
    /// with its other members first when it has any (read as one tree): the same document, or
    /// errors of the same rule.
    static func denormalizedBothWays(flat output: [UInt8], top: JSONObject) -> [String] {
        func text(_ members: [JSONObject.Member]) -> [UInt8] { Array((JSONValue.object(JSONObject(members)).jsonText + "\n").utf8) }
        let resources = top.members.filter { $0.key == "resources" }
        let data = top.members.filter { $0.key == "data" }
        let others = top.members.filter { $0.key != "resources" && $0.key != "data" }
        var problems = sameDenormalized(output, text(resources + data + others), "a flat object read entry by entry", "with resources first")
        if !others.isEmpty {
            problems += sameDenormalized(output, text(others + resources + data), "a flat object read entry by entry", "as one tree")
        }
        return problems
    }

    /// `Denormalizer` over `a` and over `b`: the same document, or errors of the same rule
    /// (their positions differ with the text).
    static func sameDenormalized(_ a: [UInt8], _ b: [UInt8], _ aName: String, _ bName: String) -> [String] {
        func denormalize(_ text: [UInt8]) -> Result<[UInt8], JSONAPIError> {
            do throws(JSONAPIError) {
                let d = Denormalizer()
                try d.read(.bytes(text, name: "lines"), chunkSize: 64)
                let out = ByteWriter()
                try d.write(to: out)
                return .success(out.bytes)
            } catch {
                return .failure(error)
            }
        }
        switch (denormalize(a), denormalize(b)) {
        case (.success(let x), .success(let y)):
            if x != y {
                return [
                    "denormalize: \(aName) and \(bName) differ:\n\(String(decoding: x.prefix(400), as: UTF8.self))\n\(String(decoding: y.prefix(400), as: UTF8.self))"
                ]
            }
        case (.failure(let x), .failure(let y)):
            if x.diagnostic?.rule != y.diagnostic?.rule { return ["denormalize: \(aName) and \(bName) fail differently: \(x) / \(y)"] }
        case (.success, .failure(let e)): return ["denormalize: only \(bName) fails: \(e)"]
        case (.failure(let e), .success): return ["denormalize: only \(aName) fails: \(e)"]
        }
        return []
    }

    static func roundTrip(_ input: [UInt8]) -> [String] {
        let c = Config(input)
        var document = c.document
        document.parse.coalesceBytes = c.coalesce
        if c.pipelined { document.parse.concurrency = .pipelined }
        let ndjson = normalize(c.body, format: .ndjson, document: document, output: c.output, duplicates: c.duplicates, sizes: c.sizes)
        guard ndjson.error == nil else { return [] }
        var problems: [String] = []
        if let last = ndjson.output.last, last != 0x0A { problems.append("ndjson: output does not end with a line feed") }
        // A document line nests its members one level deeper than the document did.
        var lineOptions = ParseOptions()
        lineOptions.limits.maxDepth += 1
        var lines: [JSONObject] = []
        for (i, line) in splitLines(ndjson.output).enumerated() {
            do throws(JSONAPIError) {
                let v = try JSONValue(parsing: line, options: lineOptions)
                guard case .object(let o) = v else {
                    problems.append("ndjson line \(i + 1) is not an object: \(String(decoding: line.prefix(300), as: UTF8.self))")
                    continue
                }
                lines.append(o)
            } catch {
                // Repeated names kept inside values (allow-in-values) are not parseable with the
                // default options; nothing more to compare then.
                if c.document.parse.duplicateMembers == .allowInValues && error.diagnostic?.rule == .J11 { return problems }
                problems.append("ndjson line \(i + 1) does not parse: \(error): \(String(decoding: line.prefix(300), as: UTF8.self).debugDescription)")
            }
        }
        guard problems.isEmpty else { return problems }

        // Resource lines merged as the flat output merges resources.
        var types: [String] = []
        var entries: [String: [(key: String, entry: Entry)]] = [:]
        var byID: [String: [String: Int]] = [:]
        var byLID: [String: [String: Int]] = [:]
        var documents: [JSONObject] = []
        var resourceLines: [JSONObject] = []
        var duplicates = false
        // Atomic Operations: each operation's line comes before its document's line.
        var pendingOperations: [JSONValue] = []
        var lastOperations: JSONValue? = nil
        for o in lines {
            if o.keys == ["operation"] {
                pendingOperations.append(o["operation"]!)
                continue
            }
            if o.keys == ["document"] {
                if case .object(let d)? = o["document"] {
                    documents.append(d)
                    if let ops = d["atomic:operations"] { lastOperations = ops }
                    if !pendingOperations.isEmpty {
                        if d["atomic:operations"] != nil { problems.append("ndjson document line keeps atomic:operations beside its operation lines") }
                        lastOperations = .array(pendingOperations)
                        pendingOperations = []
                    }
                } else {
                    problems.append("ndjson document line is not an object: \(JSONValue.object(o).jsonText.prefix(300))")
                }
                continue
            }
            resourceLines.append(o)
            guard case .string(let type)? = o["type"] else {
                problems.append("ndjson resource line without a string type: \(JSONValue.object(o).jsonText.prefix(300))")
                continue
            }
            let id = o["id"]?.stringValue
            let lid = o["lid"]?.stringValue
            // A new resource in a request may have neither id nor lid: it has no key, is
            // merged with nothing, and its flat entry can only be keyed "" (with no lid).
            let unkeyed = id == nil && lid == nil
            var e = Entry()
            for m in o.members {
                switch m.key {
                case "type", "id", "primary", "hash": break
                case "lid": e.lid = m.value
                case "attributes": e.attributes = m.value.objectValue ?? JSONObject()
                case "relationships": e.relationships = m.value.objectValue ?? JSONObject()
                case "links": e.links = m.value
                case "meta": e.meta = m.value
                default: e.extras.append(m.key, m.value)
                }
            }
            let index: Int? = unkeyed ? nil : id.map { byID[type]?[$0] } ?? byLID[type]?[lid!]
            if let index {
                duplicates = true
                var old = entries[type]![index]
                if c.duplicates == .last {
                    old.entry.attributes = merge(old.entry.attributes, e.attributes)
                    old.entry.relationships = merge(old.entry.relationships, e.relationships)
                    old.entry.links = merge(old.entry.links, e.links)
                    old.entry.meta = merge(old.entry.meta, e.meta)
                    old.entry.extras = merge(old.entry.extras, e.extras)
                }
                if old.entry.lid == nil, let newLID = e.lid {
                    old.entry.lid = newLID
                    if let l = newLID.stringValue, byLID[type]?[l] == nil { byLID[type, default: [:]][l] = index }
                }
                entries[type]![index] = old
            } else {
                if entries[type] == nil { types.append(type) }
                let key = id ?? lid ?? ""
                let n = entries[type, default: []].count
                entries[type, default: []].append((key, e))
                if let id { byID[type, default: [:]][id] = n }
                if let lid, byLID[type]?[lid] == nil { byLID[type, default: [:]][lid] = n }
            }
        }
        guard problems.isEmpty else { return problems }

        // Denormalized, the lines give one document whichever way they are read: resource
        // lines as text (`type` first, as normalize writes them), or as trees (`type` moved
        // last).
        problems += denormalizedBothWays(ndjson.output, lines: lines)

        // Edges: the linkage of the NDJSON resource lines, in order.
        let edges = normalize(c.body, format: .edges, document: document, output: c.output, duplicates: c.duplicates, sizes: c.sizes)
        if let e = edges.error {
            problems.append("edges fail where ndjson succeeds: \(e)")
        } else {
            var expected: [JSONValue] = []
            for o in resourceLines {
                var from = JSONObject()
                for k in ["type", "id", "lid"] { if let v = o[k] { from.append(k, v) } }
                for rel in o["relationships"]?.objectValue?.members ?? [] {
                    let targets: [JSONValue]
                    switch rel.value["data"] {
                    case .object?: targets = [rel.value["data"]!]
                    case .array(let a)?: targets = a
                    default: targets = []
                    }
                    for (position, t) in targets.enumerated() {
                        var to = JSONObject()
                        for k in ["type", "id", "lid"] { if let v = t[k] { to.append(k, v) } }
                        var edge = JSONObject()
                        edge.append("from", .object(from))
                        edge.append("relationship", .string(rel.key))
                        edge.append("to", .object(to))
                        edge.append("position", .number(JSONNumber(position)))
                        if let m = t["meta"] { edge.append("meta", m) }
                        expected.append(.object(edge))
                    }
                }
            }
            var got: [JSONValue] = []
            for line in splitLines(edges.output) {
                do throws(JSONAPIError) { got.append(try JSONValue(parsing: line)) } catch {
                    problems.append("edge line does not parse: \(error): \(String(decoding: line.prefix(300), as: UTF8.self).debugDescription)")
                }
            }
            if problems.isEmpty && got != expected {
                let i = (0..<min(got.count, expected.count)).first { got[$0] != expected[$0] } ?? min(got.count, expected.count)
                problems.append(
                    "edges differ from the ndjson linkage at line \(i + 1) (\(got.count) vs \(expected.count) lines): \(text(i < got.count ? got[i] : nil)) vs \(text(i < expected.count ? expected[i] : nil))"
                )
            }
        }

        // The flat JSON output.
        let flat = normalize(c.body, format: .json, document: document, output: c.output, duplicates: c.duplicates, sizes: c.sizes)
        guard flat.error == nil else {
            // The flat output has checks of its own (top-level names it adds); a syntax error
            // must show in both.
            if case .syntax(let d)? = flat.error, d.rule != .J12 {
                problems.append("json fails with a syntax error where ndjson succeeds: \(flat.error!)")
            }
            return problems
        }
        guard flat.output.last == 0x0A, flat.output.filter({ $0 == 0x0A }).count == 1 else {
            return problems + ["json: output is not one line: \(String(decoding: flat.output.prefix(300), as: UTF8.self).debugDescription)"]
        }
        // Resources sit two levels deeper in the flat output than in a document
        // (`resources`/type/id/… against `data`/…), so a document at the depth limit gives
        // flat JSON beyond it.
        var flatOptions = ParseOptions()
        flatOptions.limits.maxDepth += 2
        let flatValue: JSONValue
        do throws(JSONAPIError) {
            flatValue = try JSONValue(parsing: flat.output.dropLast(), options: flatOptions)
        } catch {
            if c.document.parse.duplicateMembers == .allowInValues && error.diagnostic?.rule == .J11 { return problems }
            return problems + ["json output does not parse: \(error): \(String(decoding: flat.output.prefix(400), as: UTF8.self).debugDescription)"]
        }
        guard case .object(let top) = flatValue, case .object(let resources)? = top["resources"] else {
            return problems + ["json output has no resources object: \(text(flatValue))"]
        }
        problems += denormalizedBothWays(flat: flat.output, top: top)
        let gotTypes = resources.keys
        if gotTypes != types {
            problems.append("json types \(gotTypes) differ from ndjson types \(types)")
        }
        for t in types {
            guard case .object(let byKey)? = resources[t] else { continue }
            let expected = entries[t] ?? []
            if byKey.keys != expected.map(\.key) {
                problems.append("json ids of \(t.debugDescription) \(byKey.keys.prefix(20)) differ from ndjson \(expected.map(\.key).prefix(20))")
                continue
            }
            for (m, e) in zip(byKey.members, expected) {
                if c.duplicates == .first {
                    // The first line wins in NDJSON; the flat entry is it with later members appended.
                    let f = e.entry
                    guard case .object(let got) = m.value else { continue }
                    let ok =
                        extends(got["attributes"]?.objectValue ?? JSONObject(), f.attributes)
                        && extends(got["relationships"]?.objectValue ?? JSONObject(), f.relationships)
                        && extends(got["links"], f.links) && extends(got["meta"], f.meta)
                        && (f.lid == nil || got["lid"] == f.lid)
                    if !ok {
                        problems.append("json entry \(t)/\(m.key) \(text(m.value)) does not extend its first ndjson line \(text(f.value))")
                    }
                } else if m.value != e.entry.value {
                    problems.append("json entry \(t)/\(m.key) differs from ndjson: \(difference(m.value, e.entry.value)); json \(text(m.value)) vs ndjson \(text(e.entry.value))")
                }
            }
        }

        // Document lines: primary data and top-level members.
        if !c.output.resourcesOnly && !duplicates {
            // atomic:operations compared apart: as a top-level member, the last document's wins.
            var rest = JSONObject()
            for m in top.members where m.key != "resources" && m.key != "atomic:operations" { rest.append(m.key, m.value) }
            if top["atomic:operations"] != lastOperations {
                problems.append("json atomic:operations differ from the ndjson operation lines: json \(text(top["atomic:operations"] ?? .null)) vs ndjson \(text(lastOperations ?? .null))")
            }
            if !pendingOperations.isEmpty { problems.append("ndjson operation lines after the last document line") }
            let expected = topLevel(
                documents.map { d in
                    var o = JSONObject()
                    for m in d.members where m.key != "atomic:operations" { o.append(m.key, m.value) }
                    return o
                })
            if JSONValue.object(rest) != expected {
                problems.append("json top level differs from the ndjson document lines: \(difference(.object(rest), expected)); json \(text(.object(rest))) vs ndjson \(text(expected))")
            }
        }
        if problems.isEmpty { problems += splitTables(c, document: document, ndjson: ndjson.output) }
        return problems
    }

    /// `normalize --split-by-type` of the same input (exact numbers; NDJSON or CSV tables), read
    /// back by `denormalize DIR`, gives the graph that the NDJSON lines give `denormalize`
    /// (attributes compared by name: a table has them in its column order).
    static func splitTables(_ c: Config, document: DocumentOptions, ndjson: [UInt8]) -> [String] {
        guard c.output.numbers == .exact, !c.output.resourcesOnly else { return [] }
        let format: TableFormat = c.body.count % 2 == 0 ? .ndjson : .csv
        // One directory per check: the regression tests run checks in parallel.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jsonapi-fuzz-split-\(getpid())-\(UUID().uuidString)").path
        try? FileManager.default.removeItem(atPath: dir)
        guard (try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)) != nil else { return [] }
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var output = c.output
        output.hash = false
        func graph(_ read: (Denormalizer) throws(JSONAPIError) -> Void) -> Result<JSONValue, JSONAPIError> {
            do throws(JSONAPIError) {
                let d = Denormalizer()
                try read(d)
                let doc = ByteWriter()
                try d.write(to: doc)
                let flat = ByteWriter()
                var options = DocumentOptions()
                options.validation = .off
                options.context = .create
                options.parse.duplicateMembers = c.document.parse.duplicateMembers
                let n = Normalizer(format: .json, out: flat, document: options)
                try n.read(.bytes(doc.bytes, name: "document"))
                try n.finish()
                return .success(comparableFlat(try JSONValue(parsing: flat.bytes, options: options.parse)))
            } catch {
                return .failure(error)
            }
        }
        let splitter: TableSplitter
        do throws(JSONAPIError) {
            splitter = try TableSplitter(directory: dir, format: format, output: output, document: document, duplicates: c.duplicates)
            try feed(c.body, sizes: c.sizes) { (b) throws(JSONAPIError) in try splitter.feed(b) }
            try splitter.finish()
        } catch {
            return ["split (\(format)): failed where ndjson did not: \(error)"]
        }
        let fromLines = graph { (d) throws(JSONAPIError) in try d.read(.bytes(ndjson, name: "ndjson")) }
        let fromTables = graph { (d) throws(JSONAPIError) in try d.read(tables: dir) }
        switch (fromLines, fromTables) {
        case (.success(let a), .success(let b)):
            return a == b ? [] : ["split (\(format)): the tables give another graph than the ndjson lines: \(difference(a, b))"]
        case (.failure, _):
            return []  // What the lines cannot give back (checked elsewhere).
        case (.success, .failure(let e)):
            return ["split (\(format)): denormalize DIR failed: \(e)"]
        }
    }

    /// A flat object with resources sorted by type and key and each resource's attributes by name.
    static func comparableFlat(_ v: JSONValue) -> JSONValue {
        guard case .object(let top) = v else { return v }
        var out = JSONObject()
        for m in top.members {
            guard m.key == "resources", case .object(let byType) = m.value else { out.append(m.key, m.value); continue }
            var types = JSONObject()
            for t in byType.members.sorted(by: { $0.key < $1.key }) {
                guard case .object(let byKey) = t.value else { types.append(t.key, t.value); continue }
                var keys = JSONObject()
                for r in byKey.members.sorted(by: { $0.key < $1.key }) {
                    guard case .object(let resource) = r.value else { keys.append(r.key, r.value); continue }
                    var sorted = JSONObject()
                    for member in resource.members {
                        if member.key == "attributes", case .object(let a) = member.value {
                            sorted.append("attributes", .object(JSONObject(a.members.sorted { $0.key < $1.key })))
                        } else {
                            sorted.append(member.key, member.value)
                        }
                    }
                    keys.append(r.key, .object(sorted))
                }
                types.append(t.key, .object(keys))
            }
            out.append("resources", .object(types))
        }
        return .object(out)
    }

    /// The flat output's top level (without `resources`) from NDJSON document lines: `data`
    /// concatenated, `meta`, `links`, `jsonapi` and unknown members merged by name, `errors`
    /// concatenated.
    static func topLevel(_ documents: [JSONObject]) -> JSONValue {
        var o = JSONObject()
        if documents.count == 1 {
            o.append("data", documents[0]["data"] ?? .null)
        } else if documents.isEmpty {
            o.append("data", .null)
        } else {
            var all: [JSONValue] = []
            for d in documents {
                switch d["data"] {
                case .array(let a)?: all += a
                case .object?: all.append(d["data"]!)
                default: break
                }
            }
            o.append("data", .array(all))
        }
        for name in ["meta", "links", "jsonapi"] {
            let values = documents.compactMap { $0[name] }
            guard let last = values.last else { continue }
            if values.count == 1 || values.contains(where: { $0.objectValue == nil }) {
                o.append(name, last)
            } else {
                o.append(name, .object(values.dropFirst().reduce(values[0].objectValue!) { merge($0, $1.objectValue!) }))
            }
        }
        let errors = documents.compactMap { $0["errors"] }
        if !errors.isEmpty {
            o.append("errors", .array(errors.flatMap { $0.arrayValue ?? [$0] }))
        }
        var extras = JSONObject()
        for d in documents {
            for m in d.members where !["data", "meta", "links", "jsonapi", "errors"].contains(m.key) {
                extras[m.key] = m.value
            }
        }
        for m in extras.members { o.append(m.key, m.value) }
        return .object(o)
    }

    // MARK: - syntax

    static func syntax(_ input: [UInt8]) -> [String] {
        var problems: [String] = []
        var reader = ReferenceJSON(input)
        let reference = reader.parseText()
        // --syntax-only is plain JSON: a repeated name is a warning there.
        var plainReader = ReferenceJSON(input, allowsDuplicates: true)
        let plain = plainReader.parseText()
        let whole = validate(input, options: .default, syntaxOnly: true, chunkSize: 1 << 20)
        let accepted = whole.error == nil && !whole.warnings.contains { $0.severity == .error }
        if accepted != (plain != nil) {
            problems.append(
                "validate --syntax-only \(accepted ? "accepts" : "refuses (\(whole.warnings.first.map(\.description) ?? describe(whole.error)))") what the plain-JSON reference \(plain != nil ? "accepts" : "refuses (\(plainReader.failure ?? "?") at byte \(plainReader.i))")"
            )
        }
        if accepted && plainReader.sawDuplicate != whole.warnings.contains(where: { $0.rule == .J11 && $0.severity == .warning }) {
            problems.append("validate --syntax-only: a repeated member name \(plainReader.sawDuplicate ? "without" : "with") a J11 warning")
        }
        let value: JSONValue?
        var valueError: JSONAPIError? = nil
        do throws(JSONAPIError) { value = try JSONValue(parsing: input) } catch {
            value = nil
            valueError = error
        }
        if (value != nil) != (reference != nil) {
            problems.append(
                "JSONValue(parsing:) \(value != nil ? "accepts" : "refuses (\(describe(valueError)))") what the reference \(reference != nil ? "accepts" : "refuses (\(reader.failure ?? "?") at byte \(reader.i))")"
            )
        } else if let value, let reference, value != reference {
            problems.append("JSONValue(parsing:) gives \(text(value)) where the reference gives \(text(reference))")
        }
        // The same first error, unless JSONValue(parsing:) (I-JSON) stopped at a repeated
        // name that --syntax-only (plain JSON) reads past.
        if let d = whole.warnings.first(where: { $0.severity == .error }), let e = valueError?.diagnostic,
            e.rule != .J11 || !plainReader.sawDuplicate,
            d.rule != e.rule || d.location != e.location
        {
            problems.append("validate --syntax-only says \(d) but JSONValue(parsing:) says \(e)")
        }
        for size in [1, 3, 64] where size < input.count {
            var o = ParseOptions()
            o.coalesceBytes = size == 64 ? 64 * 1024 : size
            var options = DocumentOptions()
            options.parse = o
            let r = validate(input, options: options, syntaxOnly: true, chunkSize: size)
            if !sameError(whole.error, r.error) || !sameDiagnostics(whole.warnings, r.warnings) {
                problems.append(
                    "validate --syntax-only at read size \(size): \(r.warnings.first.map(\.description) ?? describe(r.error)) vs whole: \(whole.warnings.first.map(\.description) ?? describe(whole.error))"
                )
            }
        }
        return problems
    }

    /// Loose comparison with Foundation's `JSONSerialization`, skipping the known differences
    /// (duplicate names, byte order marks, lone surrogates, large numbers, deep nesting).
    /// `nil` when they agree or the input is one of those cases.
    public static func foundationDisagreement(_ input: [UInt8]) -> String? {
        var reader = ReferenceJSON(input)
        let reference = reader.parseText() != nil
        let text = String(decoding: input, as: UTF8.self)
        if input.starts(with: [0xEF, 0xBB, 0xBF]) || text.contains("\\u") || input.count > 2000 { return nil }
        if reader.sawDuplicate || reader.maxDepthSeen > 100 || reader.longestNumber > 15 { return nil }
        let foundation = (try? JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed])) != nil
        if foundation == reference { return nil }
        return "reference \(reference ? "accepts" : "refuses (\(reader.failure ?? "?") at byte \(reader.i))"), JSONSerialization \(foundation ? "accepts" : "refuses")"
    }
}

/// An independent strict reader of one JSON text (RFC 8259), with the checks the library
/// promises by default: RFC 3629 UTF-8, paired `\u` surrogates, no byte order mark, only
/// space, tab, LF and CR between tokens, no repeated member name in an object (compared after
/// unescaping), depth ≤ 512, numbers ≤ 4,096 characters, member names ≤ 64 KiB.
public struct ReferenceJSON {
    let b: [UInt8]
    public var i = 0
    var depth = 0
    public private(set) var failure: String? = nil
    public private(set) var sawDuplicate = false
    public private(set) var maxDepthSeen = 0
    public private(set) var longestNumber = 0

    /// Plain RFC 8259 JSON accepts repeated member names (the later value is kept, as
    /// `validate --syntax-only` reads them); I-JSON, the default, refuses them.
    let allowsDuplicates: Bool

    public init(_ bytes: [UInt8], allowsDuplicates: Bool = false) {
        b = bytes
        self.allowsDuplicates = allowsDuplicates
    }

    /// The value, or `nil` (with ``failure``) when the text is not accepted.
    public mutating func parseText() -> JSONValue? {
        skipSpace()
        guard let v = value() else { return nil }
        skipSpace()
        guard i == b.count else { return fail("trailing content") }
        return v
    }

    private mutating func fail<T>(_ why: String) -> T? {
        if failure == nil { failure = why }
        return nil
    }

    private mutating func skipSpace() {
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
    }

    private mutating func value() -> JSONValue? {
        guard i < b.count else { return fail("end of input where a value is expected") }
        switch b[i] {
        case UInt8(ascii: "{"): return object()
        case UInt8(ascii: "["): return array()
        case UInt8(ascii: "\""): return string().map { .string($0) }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return number()
        case UInt8(ascii: "t"): return literal("true", .bool(true))
        case UInt8(ascii: "f"): return literal("false", .bool(false))
        case UInt8(ascii: "n"): return literal("null", .null)
        default: return fail("unexpected byte")
        }
    }

    private mutating func literal(_ word: String, _ v: JSONValue) -> JSONValue? {
        let w = Array(word.utf8)
        guard b.count - i >= w.count, Array(b[i..<i + w.count]) == w else { return fail("bad literal") }
        i += w.count
        return v
    }

    private mutating func enter() -> Bool {
        depth += 1
        maxDepthSeen = max(maxDepthSeen, depth)
        return depth <= 512
    }

    private mutating func object() -> JSONValue? {
        guard enter() else { return fail("too deep") }
        i += 1
        var o = JSONObject()
        var names = Set<[UInt8]>()
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "}") {
            i += 1
            depth -= 1
            return .object(o)
        }
        while true {
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: "\"") else { return fail("expected a member name") }
            guard let key = string() else { return nil }
            let keyBytes = Array(key.utf8)
            guard keyBytes.count <= 64 * 1024 else { return fail("member name too long") }
            if !names.insert(keyBytes).inserted {
                sawDuplicate = true
                if !allowsDuplicates { return fail("duplicate member name") }
            }
            skipSpace()
            guard i < b.count, b[i] == UInt8(ascii: ":") else { return fail("expected ':'") }
            i += 1
            skipSpace()
            guard let v = value() else { return nil }
            o.append(key, v)
            skipSpace()
            guard i < b.count else { return fail("end of input in an object") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "}") { i += 1; depth -= 1; return .object(o) }
            return fail("expected ',' or '}'")
        }
    }

    private mutating func array() -> JSONValue? {
        guard enter() else { return fail("too deep") }
        i += 1
        var a: [JSONValue] = []
        skipSpace()
        if i < b.count, b[i] == UInt8(ascii: "]") {
            i += 1
            depth -= 1
            return .array(a)
        }
        while true {
            skipSpace()
            guard let v = value() else { return nil }
            a.append(v)
            skipSpace()
            guard i < b.count else { return fail("end of input in an array") }
            if b[i] == UInt8(ascii: ",") { i += 1; continue }
            if b[i] == UInt8(ascii: "]") { i += 1; depth -= 1; return .array(a) }
            return fail("expected ',' or ']'")
        }
    }

    private mutating func hex4() -> UInt32? {
        guard b.count - i >= 4 else { return fail("short \\u escape") }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = b[i + k]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A") + 10)
            default: return fail("bad hex digit")
            }
            v = v << 4 | d
        }
        i += 4
        return v
    }

    private mutating func string() -> String? {
        i += 1
        var out: [UInt8] = []
        func scalar(_ v: UInt32) -> [UInt8] { Array(String(Unicode.Scalar(v)!).utf8) }
        while true {
            guard i < b.count else { return fail("end of input in a string") }
            let c = b[i]
            switch c {
            case UInt8(ascii: "\""):
                i += 1
                return String(decoding: out, as: UTF8.self)
            case UInt8(ascii: "\\"):
                i += 1
                guard i < b.count else { return fail("end of input in an escape") }
                let e = b[i]
                i += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    guard let u = hex4() else { return nil }
                    if u >= 0xD800 && u <= 0xDBFF {
                        guard b.count - i >= 2, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else { return fail("unpaired high surrogate") }
                        i += 2
                        guard let low = hex4() else { return nil }
                        guard low >= 0xDC00 && low <= 0xDFFF else { return fail("unpaired high surrogate") }
                        out += scalar(0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00))
                    } else if u >= 0xDC00 && u <= 0xDFFF {
                        return fail("lone low surrogate")
                    } else {
                        out += scalar(u)
                    }
                default: return fail("bad escape")
                }
            case 0x00..<0x20:
                return fail("control character in a string")
            case 0x20..<0x80:
                out.append(c)
                i += 1
            default:
                guard let n = utf8Length(at: i) else { return fail("ill-formed UTF-8") }
                out += b[i..<i + n]
                i += n
            }
        }
    }

    /// The length of the well-formed UTF-8 sequence at `p` (RFC 3629, table 3-7 of Unicode).
    private func utf8Length(at p: Int) -> Int? {
        func cont(_ k: Int, _ lo: UInt8 = 0x80, _ hi: UInt8 = 0xBF) -> Bool { p + k < b.count && b[p + k] >= lo && b[p + k] <= hi }
        let c = b[p]
        switch c {
        case 0xC2...0xDF: return cont(1) ? 2 : nil
        case 0xE0: return cont(1, 0xA0) && cont(2) ? 3 : nil
        case 0xE1...0xEC, 0xEE...0xEF: return cont(1) && cont(2) ? 3 : nil
        case 0xED: return cont(1, 0x80, 0x9F) && cont(2) ? 3 : nil
        case 0xF0: return cont(1, 0x90) && cont(2) && cont(3) ? 4 : nil
        case 0xF1...0xF3: return cont(1) && cont(2) && cont(3) ? 4 : nil
        case 0xF4: return cont(1, 0x80, 0x8F) && cont(2) && cont(3) ? 4 : nil
        default: return nil
        }
    }

    private mutating func number() -> JSONValue? {
        let start = i
        func digits() -> Int {
            let s = i
            while i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") { i += 1 }
            return i - s
        }
        if b[i] == UInt8(ascii: "-") { i += 1 }
        guard i < b.count, b[i] >= UInt8(ascii: "0"), b[i] <= UInt8(ascii: "9") else { return fail("bad number") }
        if b[i] == UInt8(ascii: "0") { i += 1 } else { _ = digits() }
        if i < b.count, b[i] == UInt8(ascii: ".") {
            i += 1
            guard digits() > 0 else { return fail("bad fraction") }
        }
        if i < b.count, b[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < b.count, b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") { i += 1 }
            guard digits() > 0 else { return fail("bad exponent") }
        }
        longestNumber = max(longestNumber, i - start)
        guard i - start <= 4096 else { return fail("number too long") }
        return .number(JSONNumber(String(decoding: b[start..<i], as: UTF8.self))!)
    }
}

#if !FUZZING
/// The inputs the fuzzers found, each run through the check of its target. Found inputs live
/// in `Corpus/fuzz/<target>/` (one file each, minimized); inputs that still crash the process
/// wait in `Corpus/fuzz/open/` and are not run here.
struct FuzzRegressionTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Corpus")

    static let found: [String] = {
        var out: [String] = []
        for t in FuzzTarget.allCases {
            let dir = root.appendingPathComponent("fuzz/\(t.rawValue)")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
            out += names.filter { !$0.hasPrefix(".") }.sorted().map { "\(t.rawValue)/\($0)" }
        }
        return out
    }()

    @Test(arguments: found)
    func foundInput(_ path: String) throws {
        let target = try #require(FuzzTarget(rawValue: String(path.prefix { $0 != "/" })))
        let input = Array(try Data(contentsOf: Self.root.appendingPathComponent("fuzz/\(path)")))
        let problems = FuzzChecks.check(target, input)
        #expect(problems.isEmpty, "\(path):\n\(problems.joined(separator: "\n"))")
    }

    /// The seed corpus passes every check (with the header a fuzz run puts in front of it).
    @Test(arguments: ["documents", "documents/multi", "requests", "valid", "invalid"])
    func seeds(_ folder: String) throws {
        let dir = Self.root.appendingPathComponent(folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") && $0 != "manifest.json" }.sorted()
        #expect(!names.isEmpty)
        var problems: [String] = []
        for name in names {
            let doc = Array(try Data(contentsOf: dir.appendingPathComponent(name)))
            for (target, input) in [
                (FuzzTarget.parse, doc), (.syntax, doc),
                (.chunks, [0, 0, 1, 1] + doc), (.chunks, [0x01, 0x40, 0x0A, 3, 17] + doc),
                (.roundtrip, [0, 0, 0] + doc), (.roundtrip, [0x40, 0x04, 0x08] + doc),
                (.decode, doc), (.load, [0, 0, 0] + doc), (.load, [0x10, 0x00, 0x08] + doc),
                (.workers, [0, 0, 0x21, 7] + doc), (.workers, [0x01, 0x40, 0x42, 3, 255] + doc),
                (.elements, [0, 0, 0x01, 255] + doc), (.elements, [0x01, 0x40, 0x32, 3, 255] + doc),
            ] {
                for p in FuzzChecks.check(target, input) { problems.append("\(target) \(folder)/\(name): \(p)") }
            }
        }
        #expect(problems.isEmpty, "\(problems.count) problems:\n\(problems.prefix(20).joined(separator: "\n"))")
    }

    /// The reference reader accepts every `y_` case of JSONTestSuite (except the two with a
    /// repeated name, which the library refuses by default), refuses every `n_` case, and
    /// reads accepted cases as the conformance gold (Python's json module) does.
    @Test func referenceReaderOnJSONTestSuite() throws {
        let suite =
            ProcessInfo.processInfo.environment["JSON_TEST_SUITE"].map { URL(fileURLWithPath: $0) }
            ?? Self.root.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/JSONTestSuite/test_parsing")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: suite.path) else { return }
        let gold = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.root.appendingPathComponent("conformance/expected.json"))) as! [String: [String: Any]]
        var wrong: [String] = []
        for name in names.sorted() where name.hasSuffix(".json") {
            var r = ReferenceJSON(Array(try Data(contentsOf: suite.appendingPathComponent(name))))
            let v = r.parseText()
            let duplicates = name.contains("duplicated_key")
            if name.hasPrefix("y_") && !duplicates && v == nil { wrong.append("\(name): refused: \(r.failure ?? "")") }
            if name.hasPrefix("n_") && v != nil { wrong.append("\(name): accepted") }
            if let v, let text = gold[name]?["value"] as? String, v.jsonText != text {
                wrong.append("\(name): \(v.jsonText.prefix(80)) vs gold \(text.prefix(80))")
            }
        }
        #expect(wrong.isEmpty, "\(wrong.joined(separator: "\n"))")
    }
}
#endif
