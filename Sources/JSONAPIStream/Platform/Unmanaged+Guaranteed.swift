extension Unmanaged {
    /// Calls `body` with the instance, not retained for the call. Unsafe; invariant: the
    /// caller keeps the instance alive until `body` returns. For a per-resource call on an
    /// object held in a `var` (which Swift otherwise retains and releases around the call, an
    /// atomic operation each on the hot path). `_withUnsafeGuaranteedRef` with the typed error
    /// carried out, which it does not carry itself.
    @inline(__always)
    func withUnsafeGuaranteedInstance<R>(_ body: (Instance) throws(JSONAPIError) -> R) throws(JSONAPIError) -> R {
        var failure: JSONAPIError?
        let result: R? = _withUnsafeGuaranteedRef { instance in
            do throws(JSONAPIError) { return try body(instance) } catch {
                failure = error
                return nil
            }
        }
        if let failure { throw failure }
        return result.unsafelyUnwrapped
    }
}
