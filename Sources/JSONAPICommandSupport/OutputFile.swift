import Foundation
import JSONAPIStream

/// Where output goes: standard output, or a file written through a temporary file that is
/// renamed into place only on success (a failed run leaves no half-written file).
package final class OutputFile {
    package let writer: ByteWriter
    private let path: String?
    private let temporaryPath: String?
    private let fd: Int32

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
            let fd = open(path, O_WRONLY)
            guard fd >= 0 else { throw JSONAPIError.input("cannot open \(path): \(String(cString: strerror(errno)))") }
            self.fd = fd
            temporaryPath = nil
            writer = ByteWriter(fd: fd)
            return
        }
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var template = Array((directory + "/." + url.lastPathComponent + ".tmp-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw JSONAPIError.input("cannot create a temporary file next to \(path): \(String(cString: strerror(errno)))")
        }
        self.fd = fd
        temporaryPath = String(cString: template.withUnsafeBufferPointer { $0.baseAddress! })
        writer = ByteWriter(fd: fd)
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
        fchmod(fd, 0o644)
        if fsync(fd) != 0 || close(fd) != 0 {
            unlink(temporaryPath)
            throw JSONAPIError.input("cannot write \(path): \(String(cString: strerror(errno)))")
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
    }
}
