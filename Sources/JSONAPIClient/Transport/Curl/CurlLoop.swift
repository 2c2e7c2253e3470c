import CCurl
import Foundation

/// The thread of a ``CurlTransport``: one libcurl multi handle that runs every transfer, and
/// the queue of transfers waiting for a connection slot.
///
/// Other threads talk to it only through ``add(_:)``, ``wake(_:)`` and ``stop()``, which
/// queue the request under `lock` and call `curl_multi_wakeup` (the one multi function
/// libcurl allows from another thread).
final class CurlLoop: @unchecked Sendable {
    private let multi: UnsafeMutableRawPointer
    private let perHost: Int
    private let total: Int

    private let lock = NSLock()
    private var incoming: [CurlTransfer] = []
    private var woken: [CurlTransfer] = []
    private var stopping = false

    // Loop-thread state.
    /// Transfers in the multi handle, by easy handle (the loop keeps them alive).
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var perOrigin: [String: Int] = [:]
    /// Transfers waiting for a slot, in the order they came.
    private var waiting: [CurlTransfer] = []

    init(options: CurlTransport.Options) {
        curlGlobalInit
        multi = curl_multi_init()
        perHost = max(options.maxConnectionsPerHost, 1)
        total = max(options.maxConnections, 0)
        _ = jsonapi_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, perHost)
        if total > 0 { _ = jsonapi_curl_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, total) }
        let thread = Thread { [self] in run() }
        thread.name = "JSONAPIClient.curl"
        thread.start()
    }

    func add(_ transfer: CurlTransfer) {
        let stopped = lock.withLock {
            if !stopping { incoming.append(transfer) }
            return stopping
        }
        if stopped {
            transfer.loopFinish(TransportError(.cancelled, "the transport was released"))
            return
        }
        curl_multi_wakeup(multi)
    }

    /// `transfer` has a request (cancel, or resume after a pause).
    func wake(_ transfer: CurlTransfer) {
        lock.withLock { woken.append(transfer) }
        curl_multi_wakeup(multi)
    }

    /// Ends the thread; transfers still running fail as cancelled.
    func stop() {
        lock.withLock { stopping = true }
        curl_multi_wakeup(multi)
    }

    // MARK: The thread

    private func run() {
        var running: Int32 = 0
        while true {
            let (new, requests, stop) = lock.withLock {
                defer {
                    incoming.removeAll()
                    woken.removeAll()
                }
                return (incoming, woken, stopping)
            }
            if stop { break }
            waiting.append(contentsOf: new)
            for transfer in requests { handle(transfer) }
            startWaiting()
            curl_multi_perform(multi, &running)
            collectFinished()
            checkTimes()
            // Wake at least every 200 ms while transfers run, for the time limits.
            curl_multi_poll(multi, nil, 0, active.isEmpty ? 60_000 : 200, nil)
        }
        let cancelled = TransportError(.cancelled, "the transport was released")
        for transfer in Array(active.values) { finish(transfer, cancelled) }
        for transfer in waiting { transfer.loopFinish(cancelled) }
        for transfer in lock.withLock({ incoming }) { transfer.loopFinish(cancelled) }
    }

    // The multi handle outlives the thread: a body released later may still call `wake`.
    deinit { curl_multi_cleanup(multi) }

    private func handle(_ transfer: CurlTransfer) {
        let (cancel, resume) = transfer.loopTakeRequests()
        // A transfer that has ended may still be asked to stop: its easy handle is freed,
        // and another transfer's may have its address.
        if cancel {
            if active[transfer.easy] === transfer {
                finish(transfer, TransportError(.cancelled, "cancelled"))
            } else if let i = waiting.firstIndex(where: { $0 === transfer }) {
                waiting.remove(at: i)
                transfer.loopFinish(TransportError(.cancelled, "cancelled"))
            }
        } else if resume, active[transfer.easy] === transfer {
            transfer.loopLastByte = DispatchTime.now().uptimeNanoseconds
            // May call the write callback at once with the bytes it held back.
            curl_easy_pause(transfer.easy, CURLPAUSE_CONT)
        }
    }

    /// Starts waiting transfers while their origin (and the total) have room.
    private func startWaiting() {
        guard !waiting.isEmpty else { return }
        var kept: [CurlTransfer] = []
        for transfer in waiting {
            let inFlight = perOrigin[transfer.origin, default: 0]
            guard inFlight < perHost, total == 0 || active.count < total else {
                kept.append(transfer)
                continue
            }
            perOrigin[transfer.origin] = inFlight + 1
            let now = DispatchTime.now().uptimeNanoseconds
            transfer.loopStarted = now
            transfer.loopLastByte = now
            active[transfer.easy] = transfer
            curl_multi_add_handle(multi, transfer.easy)
        }
        waiting = kept
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle, let transfer = active[easy] else { continue }
            let code = message.pointee.data.result
            finish(transfer, code == CURLE_OK ? nil : transfer.loopError(code))
        }
    }

    /// Fails transfers past their deadline, or idle (not paused) for longer than allowed.
    private func checkTimes() {
        let now = DispatchTime.now().uptimeNanoseconds
        for transfer in Array(active.values) {
            let limits = transfer.limits
            if Double(now - transfer.loopStarted) / 1e9 > limits.deadline {
                finish(transfer, TransportError(.deadlineExceeded, "the exchange took longer than its deadline of \(Self.seconds(limits.deadline)) s"))
            } else if !transfer.loopPaused, Double(now - transfer.loopLastByte) / 1e9 > limits.idleTimeout {
                finish(transfer, TransportError(.timedOut, "no byte for \(Self.seconds(limits.idleTimeout)) s"))
            }
        }
    }

    private func finish(_ transfer: CurlTransfer, _ error: TransportError?) {
        guard active[transfer.easy] === transfer else { return }
        active[transfer.easy] = nil
        curl_multi_remove_handle(multi, transfer.easy)
        if let n = perOrigin[transfer.origin] { perOrigin[transfer.origin] = n > 1 ? n - 1 : nil }
        transfer.loopFinish(error)
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%.1f", value)
    }
}

/// `curl_global_init`, once per process (thread-safe in the libcurl versions the package
/// builds with, 7.84 and later, but once is all it needs).
private let curlGlobalInit: Void = {
    curl_global_init(Int(CURL_GLOBAL_ALL))
}()
