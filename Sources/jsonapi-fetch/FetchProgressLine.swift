import Foundation
import JSONAPIClient
import JSONAPICommandSupport

/// The fetch's progress line on standard error: pages, resources, megabytes and MB/s. On a
/// terminal after about a second, or always with `--progress`; never with `--quiet`.
final class FetchProgressLine: @unchecked Sendable {
    private let enabled: Bool
    private let forced: Bool
    private let lock = NSLock()
    private var lastDraw: Double = -1
    private var drawn = false

    init(forced: Bool, quiet: Bool) {
        self.forced = forced
        enabled = !quiet && (forced || Terminal.standardErrorIsTerminal)
    }

    func update(_ p: FetchProgress) {
        guard enabled, forced || p.seconds > 1 else { return }
        lock.withLock {
            guard !drawn || p.seconds - lastDraw > 0.2 else { return }
            lastDraw = p.seconds
            drawn = true
            let line = String(
                format: "%d page%@, %d resources, %.1f MB, %.1f MB/s",
                p.pages, p.pages == 1 ? "" : "s", p.resources, Double(p.bytes) / 1e6, p.megabytesPerSecond)
            Terminal.standardErrorText("\r\u{1B}[K" + line)
        }
    }

    /// Clears the line.
    func finish() {
        lock.withLock {
            guard enabled, drawn else { return }
            Terminal.standardErrorText("\r\u{1B}[K")
        }
    }
}
