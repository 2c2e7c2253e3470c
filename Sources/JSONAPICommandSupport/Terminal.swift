internal import CPlatform
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

package enum JSONAPIVersion {
    package static let current = "0.1.0"
}

/// Standard error, diagnostics and exit codes.
package enum Terminal {
    /// Writes `line` (and a line feed) to standard error. A failure is dropped: there is
    /// nowhere left to report it, and it must not end the run.
    package static func standardError(_ line: String) {
        var text = line
        if !text.hasSuffix("\n") { text += "\n" }
        _ = writeAll(2, text)
    }

    /// Writes `text` as it is (a progress line redrawn in place); failures are dropped.
    package static func standardErrorText(_ text: String) {
        _ = writeAll(2, text)
    }

    /// Writes `text` and a line feed to standard output, every byte or an error.
    ///
    /// - Throws: `JSONAPIError.input` naming the system's reason (a full disk, a closed
    ///   descriptor), which the commands report with exit status 2. A closed pipe (`| head`)
    ///   ends the process quietly by SIGPIPE before this returns, as for any program.
    package static func standardOutput(_ text: String) throws(JSONAPIError) {
        let error = writeAll(1, text.hasSuffix("\n") ? text : text + "\n")
        if error != 0 { throw JSONAPIError.input("cannot write to standard output: \(String(cString: strerror(error)))") }
    }

    /// Writes all of `text` to `fd`; returns 0 or the `errno` of the failed write.
    private static func writeAll(_ fd: Int32, _ text: String) -> Int32 {
        var text = text
        return text.withUTF8 { bytes -> Int32 in
            var offset = 0
            while offset < bytes.count {
                let n = write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return 0
        }
    }

    package static var standardErrorIsTerminal: Bool { isatty(2) != 0 }
}

import ArgumentParser

/// Prints a failure the way the contract says and returns the exit code for it.
package func report(_ error: JSONAPIError, style: DiagnosticStyle = .compiler, recordsWritten: Int? = nil) -> ExitCode {
    switch error {
    case .syntax(let d), .document(let d):
        var line = style == .compiler ? d.compilerStyle : d.ruleStyle
        if let recordsWritten { line += "; \(recordsWritten) record\(recordsWritten == 1 ? " was" : "s were") written before the error" }
        Terminal.standardError(line)
        return ExitCode(1)
    case .input(let m):
        Terminal.standardError("jsonapi: error: \(m)")
        return ExitCode(2)
    case .misuse(let m):
        Terminal.standardError("jsonapi: internal error: \(m)")
        return ExitCode(2)
    }
}

package enum DiagnosticStyle { case compiler, rule }

/// Prints warnings as they come, up to a limit, then counts the rest.
package final class WarningPrinter: @unchecked Sendable {
    package let quiet: Bool
    package let style: DiagnosticStyle
    package let limit = 1000
    package private(set) var count = 0

    package init(quiet: Bool, style: DiagnosticStyle = .compiler) {
        self.quiet = quiet
        self.style = style
    }

    /// The handler to install for warnings: none when quiet, so that a warning no one will
    /// read is only counted where it is found, its text not made (a dump of crawled pages has
    /// one for every repeated resource).
    package var handler: ((Diagnostic) -> Void)? { quiet ? nil : { self.print($0) } }

    /// `o` for a run whose warnings this printer takes: only the ones it may print are worded
    /// (``DocumentOptions/warningTexts``); the rest reach it counted, without text.
    package func applied(to o: DocumentOptions) -> DocumentOptions {
        var o = o
        o.warningTexts = limit
        return o
    }

    package func print(_ d: Diagnostic) {
        count += 1
        guard !quiet, count <= limit else { return }
        // The first `limit` warnings of the input are always worded (`applied(to:)`).
        assert(!d.isTextless, "a textless warning among the ones printed")
        Terminal.standardError(style == .compiler ? d.compilerStyle : d.ruleStyle)
    }

    package func summary() {
        if !quiet && count > limit {
            Terminal.standardError("jsonapi: warning: \(count - limit) more warnings not shown (\(count) in all)")
        }
    }
}

extension ParsableCommand {
    /// Parses the command line and runs the command (or the subcommand it names); usage
    /// errors exit with status 2 (not ArgumentParser's 64), as every `jsonapi` command does.
    package static func runAsTool() {
        // Under `ulimit -v`, one malloc arena for all threads: glibc otherwise reserves 64 MiB
        // of address space for each thread's own arena, budget the run never uses. Without
        // such a limit each thread keeps its own (with one, two threads allocating at once
        // queue for its lock: decoding on both cores spent a quarter of its time waiting).
        _ = jsonapi_malloc_arenas_for_limits()
        // Stoppable whatever mask the launcher handed down (SIGINT, SIGTERM and SIGHUP end
        // the run by their default action until an output file installs ``Cleanup``).
        _ = jsonapi_unblock_stop_signals()
        // An allocation the system refuses between two checks of the memory budget: a
        // report with the input position and status 1, never a signal.
        MemoryBudget.exhaustionHandler = { bytes, offset in
            let at = offset.map { " near byte \($0) of the input" } ?? ""
            Terminal.standardError(
                "jsonapi: error[J12]: out of memory: \(bytes) more bytes could not be allocated\(at) (the process's memory limit was reached; lower --max-memory so that the budget stops the run first, or raise the limit)"
            )
            Cleanup.shared.exit(status: 1)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let code as ExitCode {
            exitProcess(code.rawValue)
        } catch {
            let exitCode = Self.exitCode(for: error)
            if exitCode == .success {
                Self.exit(withError: error)
            }
            Terminal.standardError(Self.fullMessage(for: error))
            exitProcess(2)
        }
    }
}
