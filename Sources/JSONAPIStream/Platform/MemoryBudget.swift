internal import CPlatform
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How much memory a run may take, so that running out is an error (`J12`, with the input
/// position) and never a crash.
///
/// The budget is process-wide: it caps what the kernel counts for the whole process, read
/// from `/proc/self/statm` (Linux; elsewhere no budget applies):
/// - **address space** (`VmSize`, what `ulimit -v` / `RLIMIT_AS` limits);
/// - **resident memory** (`VmRSS`, what a cgroup's `memory.max` limits, and what
///   `jsonapi --max-memory` means).
///
/// Where it is checked:
/// - every MiB of input handed to yajl, and after every `yajl_parse` call;
/// - before the value store, the read buffer, the tape and the output buffers grow by
///   2 MiB or more (``LargeAllocation``): growth past the budget marks the run as over, and
///   the parser stops at its next check;
/// - before yajl allocates 1 MiB or more (the unescaped copy of a long string): yajl's
///   allocator refuses, and the parse ends with the error instead of yajl writing through
///   the NULL that its unchecked `realloc` would return.
///
/// Memory that is not the parser's (Swift arrays of the graph's rows, say) is counted at the
/// next check; the default budget keeps a reserve under each limit for what grows between
/// checks (``reserve(under:)``). Should an allocation fail anyway, ``outOfMemory(needing:)``
/// runs the handler the program installed (`jsonapi` reports and exits 1).
public enum MemoryBudget {
    /// The caps in force, in bytes (`nil`: none).
    public struct Caps: Sendable, Equatable, CustomStringConvertible {
        /// The most address space the process may map, in bytes (`ulimit -v`), when limited.
        public var addressSpace: Int?
        /// The most memory it may keep resident, in bytes (a cgroup's `memory.max`), when limited.
        public var resident: Int?
        /// Caps with these limits.
        public init(addressSpace: Int? = nil, resident: Int? = nil) {
            self.addressSpace = addressSpace
            self.resident = resident
        }
        public var description: String {
            var parts: [String] = []
            if let a = addressSpace { parts.append("\(MemoryBudget.format(a)) of address space") }
            if let r = resident { parts.append("\(MemoryBudget.format(r)) resident") }
            return parts.isEmpty ? "none" : parts.joined(separator: ", ")
        }
    }

    /// What the process holds now, as the kernel counts it (`nil` off Linux).
    public static func usage() -> (addressSpace: Int, resident: Int)? {
        var v: Int64 = 0, r: Int64 = 0
        guard jsonapi_memory_read(&v, &r) != 0 else { return nil }
        return (Int(v), Int(r))
    }

    /// The caps in force for every parse in this process. Setting them clears an earlier
    /// overrun. The default is ``derived(maxMemory:)`` with no `maxMemory`, taken the first
    /// time a parser starts.
    public static var caps: Caps {
        get {
            _ = initial
            var v: Int64 = 0, r: Int64 = 0
            jsonapi_memory_caps(&v, &r)
            return Caps(addressSpace: v > 0 ? Int(v) : nil, resident: r > 0 ? Int(r) : nil)
        }
        set {
            _ = initial
            apply(newValue)
        }
    }

    /// Caps from the process's limits: `RLIMIT_AS` (address space) and the cgroup's memory
    /// limit (`memory.max`, or v1's `memory.limit_in_bytes`) minus what the cgroup already
    /// holds beside this process, each less a reserve (``reserve(under:)``); and, with
    /// `maxMemory`, at most that many bytes of resident memory on top of what the process
    /// holds now.
    public static func derived(maxMemory: Int? = nil) -> Caps {
        var caps = Caps()
        let now = usage()
        if let limit = addressSpaceLimit() {
            caps.addressSpace = limit - reserve(under: limit - (now?.addressSpace ?? 0))
        }
        if let (limit, others) = cgroupLimit() {
            let usable = limit - others
            caps.resident = usable - reserve(under: usable - (now?.resident ?? 0))
        }
        if let maxMemory {
            let own = (now?.resident ?? 0) + maxMemory
            caps.resident = min(caps.resident ?? own, own)
        }
        return caps
    }

    /// What a derived cap keeps free under a limit, given the room the limit leaves: a
    /// quarter of that room, at least 32 MiB (between two checks, a growing array of the
    /// graph may need as much again as it holds).
    public static func reserve(under room: Int) -> Int { max(32 << 20, room / 4) }

    /// Whether the budget has been passed (the figures are read again).
    public static var isExceeded: Bool { jsonapi_memory_check() == 0 }

    /// How many bytes of freed large blocks the process keeps for the next ones (256 MiB
    /// unless set; 0 keeps none). A graph's value store and tables of 2 MiB or more (256 KiB
    /// for a table) are mappings of their own, whose every page the system zeroes as it is
    /// first written; one freed is kept, resident, and the next graph grows into it instead.
    /// A process that builds one graph after another (a service, a crawl) saves that work
    /// (a graph of a 128 MB document on 2 workers: 0.38 to 0.33 s); one that builds a
    /// single graph never uses them. At most 8 blocks are kept, the oldest given back
    /// first, and all of them before the budget (``caps``) would refuse memory.
    public static var keptFreedBytesLimit: Int {
        get {
            var bytes: Int64 = 0
            var cap: Int64 = 0
            jsonapi_kept_state(jsonapi_kept_default(), &bytes, &cap)
            return Int(cap)
        }
        set { jsonapi_kept_set_cap(jsonapi_kept_default(), Int64(newValue)) }
    }

    /// The bytes of freed blocks kept now (``keptFreedBytesLimit``).
    public static var keptFreedBytes: Int {
        var bytes: Int64 = 0
        var cap: Int64 = 0
        jsonapi_kept_state(jsonapi_kept_default(), &bytes, &cap)
        return Int(bytes)
    }

    /// Gives the freed blocks kept (``keptFreedBytesLimit``) back to the system now, and
    /// returns how many bytes that was (a process about to stay idle for long).
    @discardableResult
    public static func releaseKeptFreedBlocks() -> Int { Int(jsonapi_kept_release(jsonapi_kept_default(), 0)) }

    /// Called when an allocation fails outright (the process limit was reached between two
    /// checks). `jsonapi` installs a handler that reports the input position and exits with
    /// status 1; a handler must not return. Without one, the process stops with a message,
    /// as Swift does when an allocation fails.
    nonisolated(unsafe) public static var exhaustionHandler: (@Sendable (_ bytes: Int, _ offset: Int?) -> Never)?

    /// Reports an allocation of `bytes` that failed.
    public static func outOfMemory(needing bytes: Int) -> Never {
        let offset = Int(jsonapi_memory_progress())
        if let handler = exhaustionHandler { handler(bytes, offset >= 0 ? offset : nil) }
        fatalError("out of memory: \(bytes) more bytes could not be allocated")
    }

    /// The message of the `J12` error a parser throws when the budget is passed.
    static func exhaustedMessage(needing: Int? = nil) -> String {
        var v: Int64 = 0, r: Int64 = 0
        jsonapi_memory_seen(&v, &r)
        let c = caps
        var held: [String] = []
        if c.addressSpace != nil { held.append("\(format(Int(v))) of address space") }
        if c.resident != nil { held.append("\(format(Int(r))) resident") }
        let refused = Int(jsonapi_memory_refused())
        let need = (needing ?? (refused > 0 ? refused : nil)).map { ", and needs \(format($0)) more here" } ?? ""
        return "memory budget exhausted: the process holds \(held.joined(separator: ", "))\(need), against a budget of \(c) (the budget follows the process's memory limits and --max-memory)"
    }

    /// Makes the caps effective before a parse (the first parse derives them).
    static func prepare() {
        _ = caps
        if jsonapi_memory_active() != 0 {
            jsonapi_memory_clear_overrun()
            _ = jsonapi_memory_check()
        }
    }

    /// The most bytes yajl's allocations on this thread held at once (every handle parsing on
    /// it) since the last ``resetYajlPeak()`` on this thread: how much yajl copied in a parse
    /// run here, whatever other threads parse meanwhile.
    static var yajlPeakBytes: Int { Int(jsonapi_yajl_peak_bytes()) }
    static func resetYajlPeak() { jsonapi_yajl_reset_peak() }

    static func format(_ bytes: Int) -> String {
        let mib = Double(bytes) / 1_048_576
        return mib >= 10 ? "\(Int(mib.rounded())) MiB" : "\(Double(Int(mib * 10)) / 10) MiB"
    }

    // MARK: - State

    /// The derived caps, applied once (thread-safe: a global's lazy initialization).
    private static let initial: Void = apply(derived())

    private static func apply(_ c: Caps) {
        jsonapi_memory_set_caps(Int64(c.addressSpace ?? 0), Int64(c.resident ?? 0))
    }

    private static func addressSpaceLimit() -> Int? {
        var r = rlimit()
        guard getrlimit(Int32(RLIMIT_AS.rawValue), &r) == 0, r.rlim_cur < UInt64(Int.max) else { return nil }  // RLIM_INFINITY is ~0
        return Int(r.rlim_cur)
    }

    /// The cgroup's memory limit and what the cgroup holds beside this process.
    private static func cgroupLimit() -> (Int, Int)? {
        for (limitPath, currentPath) in [
            ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
            ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
        ] {
            guard let limit = readNumber(limitPath), limit < 1 << 60 else { continue }
            let current = readNumber(currentPath) ?? 0
            let own = usage()?.resident ?? 0
            return (limit, max(0, current - own))
        }
        return nil
    }

    private static func readNumber(_ path: String) -> Int? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, 63) }
        guard n > 0 else { return nil }
        var value = 0
        var digits = 0
        for b in buffer[..<n] {
            guard b >= 0x30 && b <= 0x39 else { break }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int(b - 0x30))
            if o1 || o2 { return Int.max }
            value = a
            digits += 1
        }
        return digits > 0 ? value : nil  // "max" (no limit) has no digits
    }
}
