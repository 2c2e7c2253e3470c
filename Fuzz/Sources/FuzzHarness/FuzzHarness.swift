// What every libFuzzer target does with one input: run its checks (FuzzChecks.check, in
// Tests/JSONAPIStreamTests/FuzzRegressionTests.swift) and abort with the problems found, which
// libFuzzer then reports and saves.
import CFuzzerDriver
import FuzzChecks

#if canImport(Glibc)
import Glibc
#endif

/// Problems matching one of these `|`-separated patterns (environment `FUZZ_IGNORE`; `*`
/// matches anything) do not stop the run: a way to keep fuzzing past a reported, still open
/// finding. Regression tests ignore nothing.
let ignored: [[Substring]] = (getenv("FUZZ_IGNORE").map { String(cString: $0) } ?? "")
    .split(separator: "|").map { $0.split(separator: "*", omittingEmptySubsequences: false) }

func matches(_ text: String, _ pattern: [Substring]) -> Bool {
    var rest = text[...]
    for part in pattern where !part.isEmpty {
        guard let r = rest.range(of: part) else { return false }
        rest = rest[r.upperBound...]
    }
    return true
}

/// FUZZ_FOUNDATION=1 (syntax target): also print where Foundation's JSONSerialization
/// disagrees with the reference reader (outside the known differences), e.g. over a corpus
/// with -runs=0. Printed, never a failure.
let foundationSurvey = getenv("FUZZ_FOUNDATION") != nil

/// Runs `target`'s checks on the `count` bytes at `start`; aborts (a finding) when one fails.
public func fuzzOne(_ target: FuzzTarget, _ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = count > 0 && start != nil ? Array(UnsafeBufferPointer(start: start, count: count)) : []
    if target == .syntax, foundationSurvey, let d = FuzzChecks.foundationDisagreement(input) {
        let line = "FOUNDATION: \(d): \(input.prefix(80).map { String($0, radix: 16) }.joined(separator: " "))\n"
        line.withCString { _ = write(2, $0, strlen($0)) }
    }
    let problems = FuzzChecks.check(target, input)
    let open = problems.filter { p in !ignored.contains { matches(p, $0) } }
    if !open.isEmpty {
        let message = "FUZZ CHECK FAILED (\(target.rawValue)):\n" + open.prefix(10).joined(separator: "\n") + "\n"
        message.withCString { _ = write(2, $0, strlen($0)) }
        abort()
    }
    return 0
}

/// The target this executable fuzzes, set by ``runFuzzer(_:_:_:)`` before libFuzzer starts
/// (libFuzzer calls back on that one thread; `-fork` and `-jobs` run other processes).
nonisolated(unsafe) private var activeTarget: FuzzTarget = .parse

/// libFuzzer's entry for one input: the active target's checks.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzOne(activeTarget, start, count)
}

/// Hands the process over to libFuzzer, fuzzing `target`. Each executable calls it from its
/// own `<module>_main` (SwiftPM links executables with `main` renamed so; with
/// -parse-as-library there is no Swift main), the one thing a target has of its own.
public func runFuzzer(_ target: FuzzTarget, _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    activeTarget = target
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { fuzzInput($0, $1) }
}
