// libFuzzer target `load`: FuzzChecks.check(.load, _:) on every input (FuzzHarness.runFuzzer).
import FuzzChecks
import FuzzHarness

@_cdecl("FuzzLoad_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(.load, argc, argv)
}
