import Foundation
import JSONAPIStream


package enum JSONAPIVersion {
    package static let current = "0.1.0"
}

/// Standard error, diagnostics and exit codes.
package enum Terminal {
    package static func standardError(_ line: String) {
        var text = line
        if !text.hasSuffix("\n") { text += "\n" }
        FileHandle.standardError.write(Data(text.utf8))
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

    package func print(_ d: Diagnostic) {
        count += 1
        guard !quiet, count <= limit else { return }
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
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch let code as ExitCode {
            Foundation.exit(code.rawValue)
        } catch {
            let exitCode = Self.exitCode(for: error)
            if exitCode == .success {
                Self.exit(withError: error)
            }
            Terminal.standardError(Self.fullMessage(for: error))
            Foundation.exit(2)
        }
    }
}
