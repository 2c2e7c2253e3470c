internal import CPlatform
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

/// The one place where the command-line programs undo what a run leaves half-done when it is
/// stopped by SIGINT, SIGTERM or SIGHUP: temporary output files (and, later, directories).
///
/// Whatever registers an action here (``OutputFile`` does, for its temporary file) removes it
/// again once its work is committed or abandoned. When one of those signals arrives, a thread
/// of its own (the signal handler only writes the signal's number to a pipe) runs every
/// registered action, then the process dies of the same signal, so a shell sees the usual
/// status (130 for Ctrl-C). An action registered after that point runs at once.
///
/// SIGKILL cannot be caught: a temporary file left by it carries its writer's process id and
/// a lock, and the next run writing to the same target removes it (``OutputFile``).
package final class Cleanup: @unchecked Sendable {
    package static let shared = Cleanup()

    private let lock = Condition()
    private var actions: [Int: @Sendable () -> Void] = [:]
    private var nextID = 0
    private var installed = false
    private var terminating = false

    private init() {}

    /// Runs `action` if the process is stopped by a signal before ``remove(_:)`` is called
    /// with the returned id. Actions must be quick and must not call back into `Cleanup`.
    package func add(_ action: @escaping @Sendable () -> Void) -> Int {
        lock.lock()
        if terminating {
            lock.unlock()
            action()
            return -1
        }
        if !installed {
            installed = true
            install()
        }
        nextID += 1
        actions[nextID] = action
        lock.unlock()
        return nextID
    }

    /// Removes the file at `path` if the process is stopped by a signal.
    package func removeFile(_ path: String) -> Int {
        add { _ = unlink(path) }
    }

    package func remove(_ id: Int) {
        lock.withLock { _ = actions.removeValue(forKey: id) }
    }

    /// Called with the lock held.
    private func install() {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        let readEnd = fds[0]
        NativeThread.start(name: "jsonapi-cleanup", stackSize: 1 << 20) { [self] in
            var byte: UInt8 = 0
            while true {
                let n = read(readEnd, &byte, 1)
                if n == 1 { break }
                if n < 0 && errno == EINTR { continue }
                return
            }
            terminate(signal: Int32(byte))
        }
        // Should sigaction fail, the signals keep their default action (no cleanup).
        _ = jsonapi_forward_signals(fds[1])
    }

    /// Runs every registered action, then exits with `status` (a run that cannot go on, such
    /// as one out of memory, leaves no temporary file either).
    package func exit(status: Int32) -> Never {
        runAll()
        exitProcess(status)
    }

    private func terminate(signal: Int32) {
        runAll()
        jsonapi_die_of_signal(signal)
    }

    /// Runs every registered action, newest first; actions registered from now on run at
    /// once.
    private func runAll() {
        lock.lock()
        terminating = true
        let all = actions.sorted { $0.key > $1.key }.map(\.value)
        actions.removeAll()
        lock.unlock()
        for action in all { action() }
    }
}

/// Ends the process with `status` (C's `exit`).
package func exitProcess(_ status: Int32) -> Never {
    #if canImport(Glibc)
    Glibc.exit(status)
    #elseif canImport(Musl)
    Musl.exit(status)
    #else
    Darwin.exit(status)
    #endif
}
