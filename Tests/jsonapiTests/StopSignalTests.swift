import Foundation
import Testing

/// `jsonapi` stops on SIGINT, SIGTERM and SIGHUP even when its launcher hands it those
/// signals blocked (a blocked mask survives exec): here while it waits to open a FIFO that
/// has no writer, before any output file exists.
struct StopSignalTests {
    @Test(arguments: [SIGINT, SIGTERM, SIGHUP])
    func aBlockedMaskFromTheLauncherDoesNotKeepItRunning(_ signal: Int32) throws {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fifo = dir.appendingPathComponent("in").path
        #expect(mkfifo(fifo, 0o600) == 0)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for s in [SIGINT, SIGTERM, SIGHUP] { sigaddset(&blocked, s) }
        posix_spawnattr_setsigmask(&attributes, &blocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        let arguments = [jsonapiBinary.path, "validate", fifo]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for a in argv { free(a) } }
        var pid: pid_t = 0
        #expect(posix_spawn(&pid, jsonapiBinary.path, &actions, &attributes, &argv, environ) == 0)

        // Wait until it is blocked in the FIFO's open, then stop it.
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, (try? String(contentsOfFile: "/proc/\(pid)/wchan", encoding: .utf8)) != "wait_for_partner" {
            usleep(10_000)
        }
        kill(pid, signal)
        var status: Int32 = 0
        var ended = false
        let stopDeadline = Date().addingTimeInterval(10)
        while Date() < stopDeadline {
            if waitpid(pid, &status, WNOHANG) == pid {
                ended = true
                break
            }
            usleep(10_000)
        }
        if !ended {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
        }
        #expect(ended, "still running 10 s after signal \(signal)")
        // Ended by the signal itself (the low 7 bits of the wait status).
        #expect(status & 0x7F == signal, "wait status \(status)")
    }
}
