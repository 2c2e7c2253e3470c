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
import JSONAPIStream

/// Where output goes: standard output, or a file written through a temporary file that is
/// renamed into place only on success (a failed run leaves no half-written file).
///
/// The temporary file is `.NAME.tmp-PID-XXXXXX` next to the target, locked (`flock`) by its
/// writer for as long as it is open, and removed by ``Cleanup`` when SIGINT, SIGTERM or SIGHUP
/// stops the run. One left behind by a process that could not clean up (SIGKILL, a power
/// loss) is removed by the next run that writes to the same target: only when nobody holds
/// its lock, so a concurrent run's file is never touched.
package final class OutputFile {
    package let writer: ByteWriter
    private let path: String?
    private let temporaryPath: String?
    private let fd: Int32
    private var cleanup: Int?

    package init(path: String?) throws(JSONAPIError) {
        self.path = path
        guard let path, path != "-" else {
            fd = 1
            temporaryPath = nil
            writer = ByteWriter(fd: 1)
            return
        }
        var st = stat()
        if stat(path, &st) == 0, (st.st_mode & S_IFMT) != S_IFREG {
            // A device or a pipe (/dev/stdout, a FIFO): write to it directly.
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { throw JSONAPIError.input("cannot open \(path): \(String(cString: strerror(errno)))") }
            self.fd = fd
            temporaryPath = nil
            writer = ByteWriter(fd: fd)
            return
        }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        let prefix = "." + url.lastPathComponent + ".tmp-"
        Self.removeAbandoned(in: directory, prefix: prefix)
        var template = Array((directory + "/" + prefix + "\(getpid())-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw JSONAPIError.input("cannot create a temporary file next to \(path): \(String(cString: strerror(errno)))")
        }
        let temporary = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        // Not inherited by child processes (which would keep the lock), and held until the
        // file is closed or the process ends, whichever comes first.
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        _ = flock(fd, LOCK_EX | LOCK_NB)
        self.fd = fd
        temporaryPath = temporary
        writer = ByteWriter(fd: fd)
        cleanup = Cleanup.shared.removeFile(temporary)
    }

    /// Whether output goes straight to its destination (standard output, a device), so
    /// what was written before a failure stays written.
    package var isStandardOutput: Bool { temporaryPath == nil }

    /// Flushes and moves the temporary file into place.
    package func commit() throws(JSONAPIError) {
        try writer.flush()
        guard let temporaryPath, let path else {
            if fd > 2 { close(fd) }
            return
        }
        defer { forget() }
        fchmod(fd, 0o644)
        if fsync(fd) != 0 || close(fd) != 0 {
            let message = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw JSONAPIError.input("cannot write \(path): \(message)")
        }
        if rename(temporaryPath, path) != 0 {
            let message = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw JSONAPIError.input("cannot move the output into \(path): \(message)")
        }
    }

    /// Removes the temporary file (after a failure).
    package func abandon() {
        guard let temporaryPath else {
            try? writer.flush()
            return
        }
        close(fd)
        unlink(temporaryPath)
        forget()
    }

    private func forget() {
        if let cleanup { Cleanup.shared.remove(cleanup) }
        cleanup = nil
    }

    /// Removes the temporary files named `prefix…` in `directory` whose writer is gone: those
    /// whose lock can be taken. A live writer holds its lock, so its file stays.
    static func removeAbandoned(in directory: String, prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let full = directory + "/" + name
            // (O_NONBLOCK: a FIFO of that name must not wait for a writer; it is not removed.)
            let fd = open(full, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard fd >= 0 else { continue }
            var st = stat()
            if fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG, flock(fd, LOCK_EX | LOCK_NB) == 0 {
                unlink(full)
            }
            close(fd)
        }
    }
}
