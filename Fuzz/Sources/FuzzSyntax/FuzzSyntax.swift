// libFuzzer target `syntax`: the checks are FuzzChecks.check(.syntax, _:), in
// Tests/JSONAPIStreamTests/FuzzRegressionTests.swift (linked as Sources/FuzzChecks/FuzzChecks.swift).
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

/// FUZZ_FOUNDATION=1: also print where Foundation's JSONSerialization disagrees with the
/// reference reader (outside the known differences), e.g. over a corpus with -runs=0.
let foundationSurvey = getenv("FUZZ_FOUNDATION") != nil

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = count > 0 && start != nil ? Array(UnsafeBufferPointer(start: start, count: count)) : []
    if foundationSurvey, let d = FuzzChecks.foundationDisagreement(input) {
        // Loose sanity check only (FUZZ_FOUNDATION=1): printed, never a failure.
        let line = "FOUNDATION: \(d): \(input.prefix(80).map { String($0, radix: 16) }.joined(separator: " "))\n"
        line.withCString { _ = write(2, $0, strlen($0)) }
    }
    let problems = FuzzChecks.check(.syntax, input)
    let open = problems.filter { p in !ignored.contains { matches(p, $0) } }
    if !open.isEmpty {
        let message = "FUZZ CHECK FAILED (syntax):\n" + open.prefix(10).joined(separator: "\n") + "\n"
        message.withCString { _ = write(2, $0, strlen($0)) }
        abort()
    }
    return 0
}

// SwiftPM links executables with `main` renamed to `<module>_main` (so that tests can link
// them); with -parse-as-library there is no Swift main, so this one hands over to libFuzzer.
@_cdecl("FuzzSyntax_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { fuzzOne($0, $1) }
}
