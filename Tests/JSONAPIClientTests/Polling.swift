import Foundation

/// Waiting in a test for something other tasks or processes bring about, bounded by how many
/// times it is asked, not by the clock: when the whole suite runs at once on a 2-core machine
/// (and far more under AddressSanitizer, where a run saw async tests wait 12 minutes for a
/// thread of the cooperative pool), a test's task may not run at all for minutes, and a
/// deadline on the clock would run out while nothing was checked. A wait that never ends still
/// ends: after `polls` checks `interval` apart (the same time as before, on an idle machine).
enum Polling {
    /// Checks `condition` until it holds, at most `polls` times, sleeping `interval` between
    /// checks (or, when nil, only yielding to the tasks waiting to run); whether it held.
    @discardableResult
    static func until(
        polls: Int, every interval: Duration?, _ condition: () async throws -> Bool
    ) async throws -> Bool {
        for _ in 0..<polls {
            if try await condition() { return true }
            if let interval { try await Task.sleep(for: interval) } else { await Task.yield() }
        }
        return try await condition()
    }
}
