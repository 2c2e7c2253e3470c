import Foundation
import JSONAPIStream


enum JSONAPIVersion {
    static let current = "0.1.0"
}

/// Standard error, diagnostics and exit codes.
enum Terminal {
    static func standardError(_ line: String) {
        var text = line
        if !text.hasSuffix("\n") { text += "\n" }
        FileHandle.standardError.write(Data(text.utf8))
    }

    static var standardErrorIsTerminal: Bool { isatty(2) != 0 }
}

import ArgumentParser

/// Prints a failure the way the contract says and returns the exit code for it.
func report(_ error: JSONAPIError, style: DiagnosticStyle = .compiler, recordsWritten: Int? = nil) -> ExitCode {
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

enum DiagnosticStyle { case compiler, rule }

/// Prints warnings as they come, up to a limit, then counts the rest.
final class WarningPrinter: @unchecked Sendable {
    let quiet: Bool
    let style: DiagnosticStyle
    let limit = 1000
    private(set) var count = 0

    init(quiet: Bool, style: DiagnosticStyle = .compiler) {
        self.quiet = quiet
        self.style = style
    }

    func print(_ d: Diagnostic) {
        count += 1
        guard !quiet, count <= limit else { return }
        Terminal.standardError(style == .compiler ? d.compilerStyle : d.ruleStyle)
    }

    func summary() {
        if !quiet && count > limit {
            Terminal.standardError("jsonapi: warning: \(count - limit) more warnings not shown (\(count) in all)")
        }
    }
}
