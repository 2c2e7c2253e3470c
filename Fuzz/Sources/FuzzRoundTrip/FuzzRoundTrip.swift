// libFuzzer target `roundtrip`: FuzzChecks.check(.roundtrip, _:) on every input (FuzzHarness.runFuzzer).
import FuzzChecks
import FuzzHarness

@_cdecl("FuzzRoundTrip_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(.roundtrip, argc, argv)
}
