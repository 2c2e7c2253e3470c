#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArgumentParser
import JSONAPIStream

/// Files to read and how to read them (every command that reads input).
package struct InputOptions: ParsableArguments {
    package init() {}

    @Argument(help: "Input files; standard input when none or '-'.")
    package var files: [String] = []

    @Option(name: .customLong("chunk-size"), help: "Read size in bytes (any value gives the same output).")
    package var chunkSize: Int = 1 << 20

    package func validate() throws {
        try Self.check(chunkSize: chunkSize)
    }

    /// A `--chunk-size` any command takes: 1 byte to ``InputSource/maxChunkSize``.
    package static func check(chunkSize: Int) throws {
        guard (1...InputSource.maxChunkSize).contains(chunkSize) else {
            throw ValidationError("--chunk-size must be from 1 to \(InputSource.maxChunkSize) (1 GiB)")
        }
    }

    package var sources: [InputSource] {
        files.isEmpty ? [.standardInput] : files.map(InputSource.init(path:))
    }
}

/// `--workers`: how many workers read an input of many documents, or one large document.
package struct WorkerOptions: ParsableArguments {
    package init() {}

    @Option(
        help: ArgumentHelp(
            "Workers (1 to 256) that read inputs of many documents (concatenated, one per line, several files), each with its own parser, or one large document, each a range of the elements of its data and included arrays (normalize, also --split-by-type, stats, validate; not with a request --context; denormalize: the graph of the records, read on one thread); the output is the same whatever the number. Default: one per core this process may use when it may use 3 or more; else 1, one reader (on two threads for a large input), but on 2 cores, for uncompressed files of 3 MiB or more: 2 for normalize's ndjson and edges of one large document (many documents from 32 MiB), for a graph of one large document (normalize --format json, stats), and for validate. load: many documents only, and one reader unless N is given.",
            valueName: "n"))
    package var workers: Int?

    package func validate() throws {
        if let workers { try Self.check(workers: workers) }
    }

    /// A `--workers` any command takes: 1 to ``ParseOptions/maxWorkers``.
    package static func check(workers: Int) throws {
        guard (1...ParseOptions.maxWorkers).contains(workers) else {
            throw ValidationError("--workers must be from 1 to \(ParseOptions.maxWorkers)")
        }
    }

    /// `options` with the workers asked for.
    package func applied(to options: DocumentOptions) -> DocumentOptions {
        var o = options
        if let workers { o.parse.workers = workers }
        return o
    }

    /// Whether a command with no `--workers` asks for two workers where the library's
    /// default is one reader: on a machine of two usable cores, for inputs (all together) of
    /// ``ParseOptions/largeInputBytes`` or more, the size from which the library reads one
    /// large document on two workers. What the workers then read is the command's choice:
    /// ``applied(toLinesOf:sources:)`` and ``applied(toValidating:sources:)``.
    ///
    /// For NDJSON and edge lines of one large document, measured on two cores (`jsonapi bench
    /// --workers 1 --workers 2`, medians of interleaved rounds): one document of 6.1, 7.0, 8.1
    /// and 12.1 MB 1.10 to 1.13, 1.13, 1.09 to 1.17 and 1.18 times as fast on two workers as on
    /// one reader, of 4.0 and 5.1 MB 1.02 to 1.08 and 1.04 (when this size was 6 MiB); now
    /// (`bench-pass`, after a warm-up) 3.2 MB 1.37 and 4.0 MB 1.33, and in a first run 3.2 MB
    /// 1.28 (at ``ParseOptions/largeInputBytes``, the size now); before the release that
    /// cut 3 instructions per byte from both, 15.7, 128.5 and 1,064 MB 1.13, 1.23 and 1.17
    /// times, and 4 and 8 MB 0.90 and 0.98.
    package static func twoWorkersByDefault(cores: Int, inputBytes: Int?) -> Bool {
        cores == 2 && (inputBytes ?? 0) >= ParseOptions.largeInputBytes
    }

    /// Inputs from this size on (all together) are read by the two workers of
    /// ``applied(toLinesOf:sources:)`` whether they hold one document or many.
    /// Measured on two cores (`normalize --format ndjson`, `--workers 1` against `2`,
    /// medians of 3 to 11 alternating runs), dumps of pages of 50 KB and of documents of 1.3
    /// MB: 6.3 MB 1.00 times as fast on two workers, 15.8 MB 1.09, 32 MB 1.14 and 1.06, 129
    /// MB 1.15 and 1.16, 1.07 GB 1.27 and 1.27 (edges 1.16 at 129 MB, 1.24 at 1.07 GB), for
    /// 4 to 6 MiB more (28 to 30 MiB at the peak). Before pieces of a batch
    /// (``ParseOptions/workerBatchBytes``) and files read into blocks, a dump was about as
    /// fast either way (1.00 at 129 MB, 1.06 at 1 GB) and larger on two workers.
    package static let largeDump = 32 << 20

    /// ``applied(to:)`` for a command writing NDJSON or edge lines of `sources`: with no
    /// `--workers`, when ``twoWorkersByDefault(cores:inputBytes:)`` says so, two workers for
    /// one large document (a range of its elements each), and for many documents too from
    /// ``largeDump`` bytes on (below that a dump goes to one reader, on two threads, at its
    /// first document's end).
    package func applied(toLinesOf options: DocumentOptions, sources: [InputSource]) -> DocumentOptions {
        var o = applied(to: options)
        guard let total = defaultsToTwoWorkers(o, sources) else { return o }
        o.parse.workers = 2
        o.parse.largeDocumentsOnly = total < Self.largeDump
        return o
    }

    /// ``applied(to:)`` for `validate` of `sources`: with no `--workers`, when
    /// ``twoWorkersByDefault(cores:inputBytes:)`` says so, two workers, for many documents and
    /// for one large document alike.
    /// Measured on two cores (`validate`, `--workers 1` against `2`, medians of 3 to 9
    /// alternating runs): dumps of 6.3 MB 1.08 times as fast on two workers, 15.8 MB 1.10, 32
    /// MB 1.57, 129 MB of 1.3 MB documents 1.23, 1.07 GB 1.31, for 2 to 3 MiB more. One large
    /// document: earlier releases measured 1.02, 1.05, 1.06, 1.09 and 1.08 to 1.10 at 6.5,
    /// 15.7, 33.4, 65.1 and 128.5 MB and kept one below 32 MiB on one reader; now (the command,
    /// start to exit, the default against `--workers 2`, 15 interleaved rounds) 8.1 MB 1.09,
    /// 15.7 MB 1.10, 32.5 MB 1.13 times as fast on two workers.
    package func applied(toValidating options: DocumentOptions, sources: [InputSource]) -> DocumentOptions {
        var o = applied(to: options)
        guard defaultsToTwoWorkers(o, sources) != nil else { return o }
        o.parse.workers = 2
        return o
    }

    /// The sources' size together when, with no `--workers`, `options` (as applied) default
    /// to two workers for them (``twoWorkersByDefault(cores:inputBytes:)``; not one thread,
    /// not a single document); `nil` otherwise. The sizes are ``InputSource/knownSize``: none
    /// for standard input, a pipe or a compressed file, and then none in all.
    private func defaultsToTwoWorkers(_ options: DocumentOptions, _ sources: [InputSource]) -> Int? {
        guard workers == nil, options.parse.concurrency != .sequential, options.parse.multipleDocuments else { return nil }
        let total = sources.reduce(Int?(0)) { sum, source in sum.flatMap { s in source.knownSize.map { s + $0 } } }
        guard Self.twoWorkersByDefault(cores: ParseOptions.usableCores, inputBytes: total) else { return nil }
        return total
    }
}

/// How documents are checked and what limits apply.
package struct ParsingOptions: ParsableArguments {
    package init() {}

    @Flag(help: "Treat every JSON:API rule violation (and a duplicate within one document) as an error.")
    package var strict = false

    @Option(help: "The kind of document: response, create, update or relationship-update (request rules C01-C03).")
    package var context: DocumentContext = .response

    @Option(name: .customLong("extension"), help: "Namespace of an applied JSON:API extension (repeatable).")
    package var extensions: [String] = []

    @Option(help: "What to do with a UTF-8 byte order mark: reject or strip.")
    package var bom: ByteOrderMarkPolicy = .reject

    @Option(name: .customLong("duplicate-members"), help: "Repeated member names: reject, or allow-in-values (inside attributes and meta).")
    package var duplicateMembers: DuplicateMemberPolicy = .reject

    @OptionGroup package var limits: LimitOptions

    @Option(name: .customLong("max-resources"), help: "Most resources kept in memory (json format, stats).")
    package var maxResources: Int?

    package func documentOptions(validation: ValidationMode? = nil) -> DocumentOptions {
        var o = limits.applied(to: DocumentOptions())
        o.validation = validation ?? (strict ? .strict : .lenient)
        o.context = context
        o.extensions = Set(extensions)
        o.parse.byteOrderMark = bom
        o.parse.duplicateMembers = duplicateMembers
        o.parse.limits.maxResources = maxResources
        return o
    }
}

/// What one input may hold, and the memory a run may take (every command that parses;
/// `denormalize` too, with the limits of the documents its records came from).
package struct LimitOptions: ParsableArguments {
    package init() {}

    @Option(name: .customLong("max-depth"), help: "Deepest nesting of objects and arrays.")
    package var maxDepth = Limits.default.maxDepth
    @Option(name: .customLong("max-key-bytes"), help: "Longest member name in bytes.")
    package var maxKeyBytes = Limits.default.maxKeyBytes
    @Option(name: .customLong("max-string-bytes"), help: "Longest string in bytes.")
    package var maxStringBytes = Limits.default.maxStringBytes
    @Option(name: .customLong("max-number-length"), help: "Longest number in characters.")
    package var maxNumberLength = Limits.default.maxNumberLength
    @Option(name: .customLong("max-input-bytes"), help: "Largest input in bytes (no limit by default).")
    package var maxInputBytes: Int?
    @Option(
        name: .customLong("max-memory"),
        help: ArgumentHelp(
            "Most memory the run may add to what the process holds at start, e.g. 512M or 2G (powers of 1024); past it the run stops with a J12 error. The process's limits (ulimit -v, a cgroup's memory.max) are always kept.",
            valueName: "size"))
    package var maxMemory: ByteCount?

    /// Sets the process's memory budget (``MemoryBudget``): the caps derived from its limits,
    /// and `--max-memory` on top.
    package func applyMemoryBudget() {
        MemoryBudget.caps = MemoryBudget.derived(maxMemory: maxMemory?.bytes)
    }

    /// `options` with these limits, once the memory budget is set.
    package func applied(to options: DocumentOptions) -> DocumentOptions {
        applyMemoryBudget()
        var o = options
        o.parse.limits.maxDepth = maxDepth
        o.parse.limits.maxKeyBytes = maxKeyBytes
        o.parse.limits.maxStringBytes = maxStringBytes
        o.parse.limits.maxNumberLength = maxNumberLength
        o.parse.limits.maxInputBytes = maxInputBytes
        return o
    }
}

/// Diagnostics and progress on standard error.
package struct ReportingOptions: ParsableArguments {
    package init() {}

    @Flag(name: .shortAndLong, help: "No warnings and no progress line (errors are still printed).")
    package var quiet = false

    @Flag(help: "Show the progress line even when standard error is not a terminal.")
    package var progress = false
}

extension ByteOrderMarkPolicy: ExpressibleByArgument {}
extension DuplicateMemberPolicy: ExpressibleByArgument {
    /// `reject` or `allow-in-values` (or `allowInValues`).
    public init?(argument: String) {
        switch argument {
        case "reject": self = .reject
        case "allow-in-values", "allowInValues": self = .allowInValues
        default: return nil
        }
    }
    /// The values `--duplicate-members` takes.
    public static var allValueStrings: [String] { ["reject", "allow-in-values"] }
}
extension DuplicatePolicy: ExpressibleByArgument {}
extension KeyFormat: ExpressibleByArgument {}
extension OutputFormat: ExpressibleByArgument {}
extension ValidationMode: ExpressibleByArgument {}
extension DocumentContext: ExpressibleByArgument {}

/// A size in bytes: digits, optionally followed by K, M, G or T (powers of 1024; `KiB`,
/// `MB` and the like are read the same way).
package struct ByteCount: ExpressibleByArgument, Sendable {
    package let bytes: Int

    package init?(argument: String) {
        var text = Substring(argument.trimmingWhitespace())
        var multiplier = 1
        let units: [(String, Int)] = [("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("t", 1 << 40)]
        var lower = text.lowercased()
        for suffix in ["ib", "b"] where lower.hasSuffix(suffix) {
            text = text.dropLast(suffix.count)
            lower = String(lower.dropLast(suffix.count))
            break
        }
        for (unit, m) in units where lower.hasSuffix(unit) {
            text = text.dropLast()
            multiplier = m
            break
        }
        guard let n = Int(text), n > 0 else { return nil }
        let (value, overflow) = n.multipliedReportingOverflow(by: multiplier)
        guard !overflow else { return nil }
        bytes = value
    }

    package static var defaultCompletionKind: CompletionKind { .default }
}
