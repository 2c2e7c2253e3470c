/// A finding about an input: a JSON syntax error, a broken JSON:API rule, or a notice from
/// the normalizer. Thrown (as ``JSONAPIError``) when it stops a parse, collected when it
/// does not.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    /// How bad a finding is: an error stops the read (or makes the document invalid), a warning does not.
    public enum Severity: String, Sendable, Hashable, Comparable {
        case warning, error
        public static func < (lhs: Severity, rhs: Severity) -> Bool { lhs == .warning && rhs == .error }
    }

    /// Whether it is an error or a warning.
    public var severity: Severity
    /// The rule it is about (docs/rules.md lists them).
    public var rule: Rule
    /// What is wrong, in words.
    public var message: String
    /// Where in the input: byte offset, line and column.
    public var location: SourcePosition
    /// A JSON pointer (RFC 6901) to the value concerned, `""` for the root.
    public var pointer: String
    /// The input's name (a file path, `-` for standard input), when known.
    public var source: String?

    /// A finding with these parts.
    public init(
        severity: Severity, rule: Rule, message: String, location: SourcePosition,
        pointer: String, source: String? = nil
    ) {
        self.severity = severity
        self.rule = rule
        self.message = message
        self.location = location
        self.pointer = pointer
        self.source = source
    }

    /// A warning past the ones a command prints (``DocumentOptions/warningTexts``): counted,
    /// with its rule, but its message, place and pointer were not made.
    package static func textless(_ rule: Rule) -> Diagnostic {
        Diagnostic(severity: .warning, rule: rule, message: textlessMessage, location: .start, pointer: "")
    }

    /// The message of ``textless(_:)`` (seen only if one were printed, which is a bug).
    package static let textlessMessage = "(a warning past the ones shown: its text was not made)"

    /// Whether this is a ``textless(_:)`` warning.
    package var isTextless: Bool { severity == .warning && location == .start && message == Self.textlessMessage }

    /// `SOURCE:LINE:COLUMN: error[RULE]: MESSAGE (at byte N, pointer P)`.
    public var description: String {
        var s = ""
        s += source ?? "<input>"
        s += ":\(location.line):\(location.column): \(severity.rawValue)[\(rule.rawValue)]: \(message)"
        s += " (byte \(location.offset)"
        if !pointer.isEmpty { s += ", at \(pointer)" }
        s += ")"
        return s
    }
}

/// The error every parsing entry point throws.
///
/// Syntax errors (J rules) and document errors (R and C rules, keys the normalizer cannot
/// build) carry a ``Diagnostic`` with rule, position and JSON pointer; input errors carry
/// the operating system's message.
public enum JSONAPIError: Error, Sendable, CustomStringConvertible, Equatable {
    /// The bytes are not acceptable JSON (rule `J00`–`J12`).
    case syntax(Diagnostic)
    /// The JSON is not a document this library can take (R/C rules, `N03`, `N04`), or a
    /// rule broken in strict mode.
    case document(Diagnostic)
    /// Reading the input failed.
    case input(String)
    /// The parse was used after it failed or finished.
    case misuse(String)

    /// The finding, for syntax and document errors (nil for input errors and misuse).
    public var diagnostic: Diagnostic? {
        switch self {
        case .syntax(let d), .document(let d): d
        case .input, .misuse: nil
        }
    }

    public var description: String {
        switch self {
        case .syntax(let d), .document(let d): d.description
        case .input(let m): "input error: \(m)"
        case .misuse(let m): "misuse: \(m)"
        }
    }

    /// The same error, naming `source` as its input.
    public func withSource(_ source: String) -> JSONAPIError {
        switch self {
        case .syntax(var d): d.source = source; return .syntax(d)
        case .document(var d): d.source = source; return .document(d)
        case .input(let m): return .input("\(source): \(m)")
        case .misuse: return self
        }
    }
}

extension Diagnostic {
    /// `SOURCE:LINE:COLUMN: error: MESSAGE [RULE] (byte N, at POINTER)`: the form
    /// `jsonapi normalize` and `stats` print.
    public var compilerStyle: String {
        var s = "\(source ?? "<input>"):\(location.line):\(location.column): \(severity.rawValue): \(message) [\(rule.rawValue)]"
        s += " (byte \(location.offset)"
        if !pointer.isEmpty { s += ", at \(pointer)" }
        return s + ")"
    }

    /// `SOURCE:LINE:COLUMN: error[RULE]: MESSAGE (byte N, at POINTER)`: the form
    /// `jsonapi validate` prints.
    public var ruleStyle: String { description }
}
