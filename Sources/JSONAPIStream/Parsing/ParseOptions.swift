internal import CPlatform

/// Limits that bound the work and memory of a parse. Each overflow is its own error.
///
/// Defaults: nesting depth 512, member names 64 KiB, strings
/// 64 MiB, numbers 4,096 characters, no limit on input size or resource count.
public struct Limits: Sendable, Hashable {
    /// Deepest nesting of objects and arrays (the root object is depth 1). `J05`.
    public var maxDepth: Int = 512
    /// Longest member name, in bytes after unescaping. `J06`.
    public var maxKeyBytes: Int = 64 * 1024
    /// Longest string token, in source bytes between the quotes. `J06`.
    public var maxStringBytes: Int = 64 * 1024 * 1024
    /// Longest number token, in characters. `J06`.
    public var maxNumberLength: Int = 4096
    /// Largest input, in bytes; `nil` for none. `J12`.
    public var maxInputBytes: Int? = nil
    /// Most resources kept in an in-memory graph; `nil` for none. `J12`.
    public var maxResources: Int? = nil
    /// Longest time a parse may take, checked between reads; `nil` for none. `J12`.
    public var timeLimit: Duration? = nil

    /// The defaults.
    public init() {}

    /// The default limits (docs: "Limits" in the README).
    public static let `default` = Limits()
}

/// What to do with a UTF-8 byte order mark at the start of an input (`J10`).
public enum ByteOrderMarkPolicy: String, Sendable, Hashable, CaseIterable {
    /// Refuse the input (RFC 8259 §8.1 says a JSON text MUST NOT begin with one).
    case reject
    /// Skip it, and report that it was skipped (`N02`). Offsets still count its bytes.
    case strip
}

/// What to do with the same member name twice in one object (`J11`).
public enum DuplicateMemberPolicy: String, Sendable, Hashable, CaseIterable {
    /// Refuse everywhere (I-JSON, RFC 7493 §2.3). The default.
    case reject
    /// Refuse inside objects JSON:API defines (document, resource, relationship, identifier,
    /// links, error, jsonapi); keep both members, in order, inside attribute and meta values.
    case allowInValues
}

/// Whether parsing and building share one thread.
public enum ParseConcurrency: String, Sendable, Hashable, CaseIterable {
    /// Two threads when the input arrives in large reads (64 KiB or more at first: a full
    /// pipe, a file read), else one.
    case automatic
    /// One thread.
    case sequential
    /// Two threads: the caller's parses (pre-scan and yajl), a second builds (document
    /// builder and sink). Same results, in the same order.
    case pipelined
}

/// How the JSON layer reads an input.
public struct ParseOptions: Sendable, Hashable {
    /// One thread or two; results are the same either way. Parsing a single JSON text
    /// (``multipleDocuments`` off) always uses one.
    public var concurrency = ParseConcurrency.automatic
    /// Workers for inputs of many documents (concatenated, one per line, several inputs):
    /// each reads whole documents with its own parser, and the output comes in input order,
    /// the same bytes whatever the number. `nil` (the default): one per core this process may
    /// use when there are 3 or more; with 2, one reader (which builds on a second thread: two
    /// workers were no faster there, and take more memory), but two for one large document
    /// of known size, read a range of its elements per worker (``largeDocumentWorkers(cores:)``).
    /// 1, or ``concurrency`` `sequential`, reads
    /// on the caller's stream only. Used by ``Normalizer`` (every format), ``GraphParser``
    /// (graph pieces merged in input order), ``TableSplitter`` and ``DocumentValidator``; by a
    /// ``DocumentStream`` into your own sinks only when set (2 or more: the workers parse and
    /// build, your sinks get the resources on the feeding thread, in input order, a batch at a
    /// time; `jsonapi load --workers`). A large document (no
    /// document end in the first bytes) is read by ``Normalizer``, ``GraphParser``,
    /// ``TableSplitter`` and ``DocumentValidator`` a range of the elements of its `data` and
    /// `included` arrays per worker, the rest on the caller's stream, with the same result
    /// (the compound-document rules, ``DocumentOptions/checksCompoundRules``, are checked on
    /// the caller from what the workers gather); a request document (``DocumentContext``
    /// other than `response`), and the arrays of one that may apply Atomic Operations, stay
    /// on the caller's stream (two threads, as ``concurrency`` says). At most
    /// ``maxWorkers`` are started.
    public var workers: Int? = nil
    /// Bytes of whole documents handed to a worker at a time (at least: a batch ends after
    /// the first document that reaches this size). A longer document goes to one worker in
    /// pieces of this size and an eighth. Workers read whole documents when the first 8
    /// times this many bytes hold the end of a document (documents smaller than that); else
    /// ranges of elements of about this size, where they can (see ``workers``). Memory:
    /// about 4 batches per worker in flight, input and output (2 for ranges of one
    /// document). 256 KiB by measurement: as fast as 512 KiB on two cores (by the clock and
    /// by instructions, within 1.5 %), and with 2 workers the NDJSON of a 1 GB document
    /// peaks about 4 MiB lower.
    public var workerBatchBytes: Int = 256 * 1024
    /// Workers read one large document only (a range of its elements each); an input of
    /// many documents stays on one reader, whichever pipeline reads it. (`jsonapi
    /// normalize`'s default for NDJSON and edge lines of a large file on two cores: see
    /// `WorkerOptions`.)
    package var largeDocumentsOnly = false
    /// Limits on depth, sizes and counts.
    public var limits: Limits = .default
    /// What a UTF-8 byte order mark does: an error (J10), or it is stripped with a warning (N02).
    public var byteOrderMark: ByteOrderMarkPolicy = .reject
    /// What a member name repeated in one object does.
    public var duplicateMembers: DuplicateMemberPolicy = .reject
    /// Accept several JSON texts in one input (concatenated, or one per line). When false,
    /// anything after the first value is an error (`J00`, trailing content).
    public var multipleDocuments: Bool = true
    /// Small reads are gathered until this many bytes of whole tokens are waiting before
    /// the parser runs (`J07`). Larger values trade latency for speed; any value gives the
    /// same result.
    public var coalesceBytes: Int = 64 * 1024

    /// The defaults.
    public init() {}

    /// The defaults.
    public static let `default` = ParseOptions()

    /// Threads for the work after reading that falls into independent parts (type tables
    /// rewritten from their spills, the flat object's entries written): one per core this
    /// process may use, or 1 with ``concurrency`` `sequential`. The output is the same on any
    /// number.
    var threadsAfterReading: Int { concurrency == .sequential ? 1 : Self.usableCores }

    /// The cores this process may use (its affinity and its cgroup's CPU limit).
    package static var usableCores: Int { Int(jsonapi_usable_cores()) }

    /// A core's level 2 cache in bytes as the system reports it, 0 when it does not say (the
    /// key tables' threshold for asking slots ahead is half of it).
    package static var level2CacheBytes: Int { Int(jsonapi_l2_cache_bytes()) }

    /// The workers ``workers`` asks for: 1 when ``concurrency`` is `sequential` or only
    /// one JSON text is read.
    var effectiveWorkers: Int {
        guard concurrency != .sequential && multipleDocuments else { return 1 }
        if let workers { return min(max(1, workers), Self.maxWorkers) }
        let cores = Self.usableCores
        return cores >= 3 ? min(cores, Self.maxWorkers) : 1
    }

    /// The workers of a reader that may read one large document a range of its elements per
    /// worker (``GraphParser``, ``Normalizer``, ``DocumentValidator``) on a machine of `cores`
    /// usable cores, and the size of input from which they read (`nil`: any input):
    /// ``effectiveWorkers``, but with ``workers`` `nil` on two cores, two workers for one large
    /// document whose size is known when its reading begins (a regular file, bytes in memory)
    /// and is at least ``largeInputBytes``; any other input (smaller, of unknown size, many
    /// documents) goes to one reader, on two threads, as before.
    func largeDocumentWorkers(cores: Int = usableCores) -> (count: Int, from: Int?) {
        guard workers == nil, cores == 2, concurrency != .sequential, multipleDocuments else { return (effectiveWorkers, nil) }
        return (2, Self.largeInputBytes)
    }

    /// The size from which one large document is read by two workers on two cores with
    /// ``workers`` `nil` (``largeDocumentWorkers(cores:)``), and from which the commands ask
    /// for two workers (`WorkerOptions`). Measured on two cores (`jsonapi bench-pass`, the
    /// library's default against `--workers 2`, generated documents), after a warm-up run
    /// (medians of 5 to 7 interleaved rounds of 5 runs): 3.2 MB a graph 1.19, NDJSON 1.37,
    /// `validate` 1.23 times as fast on two workers; 4.0 MB 1.25, 1.33 and 1.21; a graph 1.24
    /// to 1.27 from 6.1 to 15.7 MB, NDJSON 1.35 and 1.36 at 8.1 and 15.7 MB; 0.3 to 2.4 MiB
    /// more at the peak. In a fresh process (the first run, 9 to 11 interleaved rounds, new
    /// threads moving off their creator's core, ``NativeThread``): 3.2 MB 1.13, 1.28 and 1.20;
    /// a graph 1.57 at 4.0 MB, 1.23 and 1.21 at 8.1 and 15.7 MB. Below: 2.1 MB, just past the
    /// 2 MiB the reader decides on, 0.68 for a graph after a warm-up. (6 MiB until threads
    /// moved: before that, a graph's first run was 0.77 at 4.0 MB.)
    package static let largeInputBytes = 3 << 20

    /// The most workers a reader starts, whatever ``workers`` asks (the output is the same on
    /// any number). Each worker has its own thread, parser and batches in flight, so a
    /// mistyped count (`100000`) would otherwise take gigabytes and minutes to start.
    public static let maxWorkers = 256
}
