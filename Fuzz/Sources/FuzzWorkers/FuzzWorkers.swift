// libFuzzer target `workers`: FuzzChecks.check(.workers, _:) on every input (FuzzHarness.runFuzzer).
import FuzzChecks
import FuzzHarness

@_cdecl("FuzzWorkers_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(.workers, argc, argv)
}
