#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A program run to its end with its output and error output read (`jsonapi bench` runs each
/// measurement in a process of its own). POSIX `posix_spawn` and `poll`: Foundation's
/// `Process` is not in FoundationEssentials, which is all the command links.
enum ChildProcess {
    struct Outcome {
        /// The exit status, or 128 + the signal's number when a signal ended it (as a shell says).
        var status: Int32
        var standardOutput: [UInt8]
        var standardError: [UInt8]
    }

    struct SpawnError: Error, CustomStringConvertible {
        let code: Int32
        var description: String { String(cString: strerror(code)) }
    }

    /// Runs `executable` (a path, or a name looked up in PATH) with `arguments` (not through a
    /// shell), its standard input from `/dev/null`, and waits for it.
    static func run(_ executable: String, _ arguments: [String]) throws(SpawnError) -> Outcome {
        var outPipe: [Int32] = [-1, -1]
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&outPipe) == 0 else { throw SpawnError(code: errno) }
        guard pipe(&errPipe) == 0 else {
            let code = errno
            close(outPipe[0])
            close(outPipe[1])
            throw SpawnError(code: code)
        }
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        for fd in outPipe + errPipe { posix_spawn_file_actions_addclose(&actions, fd) }
        // Invariant: every pointer of `argv` is strdup'ed here and freed below, after the spawn.
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var pid: pid_t = 0
        // `posix_spawnp`: a name without a slash is looked up in PATH, as a shell would.
        let spawned = posix_spawnp(&pid, executable, &actions, nil, argv, environ)
        close(outPipe[1])
        close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            throw SpawnError(code: spawned)
        }
        // Both outputs at once, so that neither pipe fills up while the other is read.
        var output: [UInt8] = []
        var errors: [UInt8] = []
        var reading = [outPipe[0], errPipe[0]]
        var buffer = [UInt8](repeating: 0, count: 65536)
        while reading.contains(where: { $0 >= 0 }) {
            var fds = reading.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            if poll(&fds, nfds_t(fds.count), -1) < 0 {
                if errno == EINTR { continue }
                break
            }
            for i in 0..<2 where reading[i] >= 0 && fds[i].revents != 0 {
                let n = read(reading[i], &buffer, buffer.count)
                if n > 0 {
                    if i == 0 { output += buffer[0..<n] } else { errors += buffer[0..<n] }
                } else if n == 0 || errno != EINTR {
                    close(reading[i])
                    reading[i] = -1
                }
            }
        }
        for fd in reading where fd >= 0 { close(fd) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import (they are macros).
        let exited = status & 0x7F == 0
        return Outcome(status: exited ? (status >> 8) & 0xFF : 128 + (status & 0x7F), standardOutput: output, standardError: errors)
    }
}
