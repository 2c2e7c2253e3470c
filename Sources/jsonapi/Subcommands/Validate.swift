import ArgumentParser
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import JSONAPICommandSupport
import JSONAPIStream

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "validate",
        abstract: "Check JSON syntax and every JSON:API MUST rule one document can show.",
        discussion: """
            Prints every finding with its rule id, line:column, byte offset and JSON pointer. \
            Exit status: 0 valid, 1 invalid, 2 usage or I/O error. --syntax-only checks the JSON \
            alone (one JSON text per input, any top-level value). Inputs of many documents, and one \
            large document, are checked on --workers workers (as normalize; with 2 cores, by default \
            two for uncompressed files of 3 MiB or more), with the same findings in the same order.
            """)

    @OptionGroup var input: InputOptions
    @OptionGroup var parsing: ParsingOptions
    @OptionGroup var workers: WorkerOptions

    @Option(help: "text or json (one JSON object per finding).")
    var format: ValidateFormat = .text

    @Flag(name: .customLong("syntax-only"), help: "Check JSON syntax only (J rules), any top-level value.")
    var syntaxOnly = false

    @Flag(name: .customLong("allow-partial-linkage"), help: "Accept included resources primary data does not reach (sparse fieldsets).")
    var allowPartialLinkage = false

    @Flag(name: .shortAndLong, help: "Print nothing; only the exit status tells.")
    var quiet = false

    enum ValidateFormat: String, ExpressibleByArgument { case text, json }

    func run() throws {
        var options = workers.applied(toValidating: parsing.documentOptions(), sources: input.sources)
        options.allowsPartialLinkage = allowPartialLinkage
        let validator = DocumentValidator(options: options, syntaxOnly: syntaxOnly)
        var invalid = false
        for source in input.sources {
            let findings: [Diagnostic]
            do {
                findings = try validator.validate(source, chunkSize: input.chunkSize)
            } catch {
                throw report(error)
            }
            for d in findings {
                if d.severity == .error { invalid = true }
                guard !quiet else { continue }
                switch format {
                case .text: Terminal.standardError(d.ruleStyle)
                case .json:
                    do { try Terminal.standardOutput(Self.json(d)) } catch { throw report(error) }
                }
            }
        }
        if invalid { throw ExitCode(1) }
    }

    static func json(_ d: Diagnostic) -> String {
        struct Finding: Encodable {
            var file: String
            var line: Int
            var column: Int
            var offset: Int
            var pointer: String
            var rule: String
            var severity: String
            var message: String
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let f = Finding(
            file: d.source ?? "-", line: d.location.line, column: d.location.column, offset: d.location.offset,
            pointer: d.pointer, rule: d.rule.rawValue, severity: d.severity.rawValue, message: d.message)
        // Strings and integers only: encoding cannot fail; should it, the finding is still printed.
        guard let data = try? encoder.encode(f) else { return "{\"rule\":\"\(f.rule)\",\"offset\":\(f.offset)}" }
        return String(decoding: data, as: UTF8.self)
    }
}
