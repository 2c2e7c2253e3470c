// libFuzzer target `decode`: FuzzChecks.check(.decode, _:) on every input (FuzzHarness.runFuzzer).
import FuzzChecks
import FuzzHarness

@_cdecl("FuzzDecode_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    runFuzzer(.decode, argc, argv)
}
