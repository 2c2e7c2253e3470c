// libFuzzer target `decode`: FuzzChecks.check(.decode, _:) on every input (FuzzHarness.fuzzOne).
import CFuzzerDriver
import FuzzChecks
import FuzzHarness

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    fuzzOne(.decode, start, count)
}

// SwiftPM links executables with `main` renamed to `<module>_main` (so that tests can link
// them); with -parse-as-library there is no Swift main, so this one hands over to libFuzzer.
@_cdecl("FuzzDecode_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return LLVMFuzzerRunDriver(&argc, &argv) { fuzzInput($0, $1) }
}
