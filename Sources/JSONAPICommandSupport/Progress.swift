import JSONAPIStream
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch

/// A progress line on standard error (never standard output): bytes read, percentage when
/// the total is known, MB/s and resources. Shown on a terminal once a run passes about a
/// second, or always with `--progress`; never with `--quiet`.
package final class ProgressLine {
    private let enabled: Bool
    private let forced: Bool
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastDraw: UInt64 = 0
    private var drawn = false
    package var totalBytes: Int?

    package init(forced: Bool, quiet: Bool) {
        self.forced = forced
        enabled = !quiet && (forced || isatty(2) != 0)
    }

    package func update(bytes: Int, resources: Int) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let elapsed = now - start
        guard forced || elapsed > 1_000_000_000 else { return }
        guard now - lastDraw > 200_000_000 || !drawn else { return }
        lastDraw = now
        drawn = true
        let seconds = Double(elapsed) / 1e9
        var line = cFormat("%.1f MB read", Double(bytes) / 1e6)
        if let totalBytes, totalBytes > 0 {
            line += cFormat(" (%.0f%%)", min(100, Double(bytes) * 100 / Double(totalBytes)))
        }
        line += cFormat(", %.1f MB/s, ", seconds > 0 ? Double(bytes) / 1e6 / seconds : 0) + "\(resources) resources"
        Terminal.standardErrorText("\r\u{1B}[K" + line)
    }

    /// Clears the line.
    package func finish() {
        guard enabled, drawn else { return }
        Terminal.standardErrorText("\r\u{1B}[K")
    }
}
