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

/// A directory of output (`normalize --split-by-type DIR`), written as a temporary directory
/// next to it and renamed into place only on success, so that a failed or stopped run leaves
/// nothing behind.
///
/// The temporary directory is `.NAME.tmp-PID-XXXXXX`; its writer holds a lock (`flock`) on
/// the `.lock` file inside for as long as it runs, and ``Cleanup`` removes the directory when
/// SIGINT, SIGTERM or SIGHUP stops the run. One left by a process that could not clean up
/// (SIGKILL) is removed by the next run writing to the same target, when nobody holds its
/// lock. `DIR` must not exist or be empty; with `force`, a directory that is not empty is
/// replaced (after the new one is complete).
package final class OutputDirectory {
    package let path: String
    package let temporaryPath: String
    private let lockPath: String
    private let lockFD: Int32
    private let force: Bool
    private var cleanup: Int?

    package init(path: String, force: Bool) throws(JSONAPIError) {
        self.path = path
        self.force = force
        var st = stat()
        if stat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFDIR else {
                throw JSONAPIError.input("\(path) exists and is not a directory")
            }
            if !force, let names = try? FileManager.default.contentsOfDirectory(atPath: path), !names.isEmpty {
                throw JSONAPIError.input("\(path) exists and is not empty (--force replaces it)")
            }
        }
        let url = URL(fileURLWithPath: path)
        let parent = url.deletingLastPathComponent().path
        let prefix = "." + url.lastPathComponent + ".tmp-"
        Self.removeAbandoned(in: parent, prefix: prefix)
        var template = Array((parent + "/" + prefix + "\(getpid())-XXXXXX").utf8CString)
        guard template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) != nil else {
            throw JSONAPIError.input("cannot create a temporary directory next to \(path): \(String(cString: strerror(errno)))")
        }
        let temporary = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        temporaryPath = temporary
        lockPath = temporary + "/.lock"
        lockFD = open(lockPath, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        if lockFD >= 0 { _ = flock(lockFD, LOCK_EX | LOCK_NB) }
        cleanup = Cleanup.shared.add { Self.removeTree(temporary) }
    }

    /// Moves the finished directory into place (replacing `path` when it exists).
    package func commit() throws(JSONAPIError) {
        defer { forget() }
        unlink(lockPath)
        chmod(temporaryPath, 0o755)
        var old: String? = nil
        var st = stat()
        if stat(path, &st) == 0 {
            // An empty directory is replaced by rename itself; a full one (--force) is moved
            // aside first and removed once the new one is in place.
            if rmdir(path) != 0 {
                guard force else {
                    Self.removeTree(temporaryPath)
                    throw JSONAPIError.input("\(path) is no longer empty; the output was not moved there")
                }
                let aside = path + ".old-\(getpid())"
                if rename(path, aside) != 0 {
                    let message = String(cString: strerror(errno))
                    Self.removeTree(temporaryPath)
                    throw JSONAPIError.input("cannot replace \(path): \(message)")
                }
                old = aside
            }
        }
        if rename(temporaryPath, path) != 0 {
            let message = String(cString: strerror(errno))
            if let old { _ = rename(old, path) }
            Self.removeTree(temporaryPath)
            throw JSONAPIError.input("cannot move the output into \(path): \(message)")
        }
        if let old { Self.removeTree(old) }
        if lockFD >= 0 { close(lockFD) }
    }

    /// Removes the temporary directory (after a failure).
    package func abandon() {
        Self.removeTree(temporaryPath)
        if lockFD >= 0 { close(lockFD) }
        forget()
    }

    private func forget() {
        if let cleanup { Cleanup.shared.remove(cleanup) }
        cleanup = nil
    }

    static func removeTree(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Removes the temporary directories named `prefix…` in `directory` whose writer is gone
    /// (their lock can be taken).
    static func removeAbandoned(in directory: String, prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let full = directory + "/" + name
            var st = stat()
            guard lstat(full, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else { continue }
            // (O_NONBLOCK: a FIFO named .lock must not wait for a writer.)
            let fd = open(full + "/.lock", O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            guard fd >= 0 else { continue }
            if flock(fd, LOCK_EX | LOCK_NB) == 0 { removeTree(full) }
            close(fd)
        }
    }
}
