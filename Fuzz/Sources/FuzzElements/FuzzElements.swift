// libFuzzer target `elements`: FuzzChecks.check(.elements, _:) on every input (FuzzHarness.runFuzzer).
import FuzzChecks
import FuzzHarness

@_cdecl("FuzzElements_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(.elements, argc, argv)
}
