import ArgumentParser
import JSONAPIStream

/// What `normalize` and `fetch` write, and where: the output format and its options.
package struct NormalizeOutputOptions: ParsableArguments {
    package init() {}

    @Option(help: "json, ndjson or edges.")
    package var format: OutputFormat = .json

    @Option(help: "Rewrite attribute, relationship and meta names: as-is, camel, snake or kebab.")
    package var keys: KeyFormat = .asIs

    @Flag(help: "Add a stable content hash (SHA-256 of the canonical form) to each NDJSON resource line.")
    package var hash = false

    @Flag(name: .customLong("resources-only"), help: "NDJSON: write no document lines.")
    package var resourcesOnly = false

    @Option(name: .customLong("on-duplicate"), help: "The same resource twice: last (merge, later wins), first, or error.")
    package var onDuplicate: DuplicatePolicy = .last

    @Option(help: ArgumentHelp("Numbers: exact (as in the input) or safe (a number a double would change, such as 9007199254740993 or 1e400, is written as a string of its text).", valueName: "exact|safe"))
    package var numbers: NumberPolicy = .exact

    @Option(name: .customLong("type"), help: ArgumentHelp("Write only resources of this type (repeatable); primary data stays whole.", valueName: "type"))
    package var types: [String] = []

    @Option(name: .customLong("keep-fields"), help: ArgumentHelp("For a type, the attributes and relationships to keep, as a sparse fieldset: TYPE=NAME,NAME (repeatable; TYPE= keeps none).", valueName: "type=names"))
    package var keepFields: [String] = []

    @Option(name: .shortAndLong, help: "Write to FILE (through a temporary file renamed on success).")
    package var output: String?

    /// `--keep-fields` by type.
    package func parsedKeepFields() throws -> [String: Set<String>] {
        var out: [String: Set<String>] = [:]
        for spec in keepFields {
            guard let eq = spec.firstIndex(of: "="), eq != spec.startIndex else {
                throw ValidationError("--keep-fields takes TYPE=NAME,NAME, not \(spec.debugDescription)")
            }
            let type = String(spec[..<eq])
            let names = spec[spec.index(after: eq)...].split(separator: ",", omittingEmptySubsequences: true).map(String.init)
            guard out[type] == nil else { throw ValidationError("--keep-fields names \(type.debugDescription) twice") }
            out[type] = Set(names)
        }
        return out
    }

    package func validate() throws {
        _ = try parsedKeepFields()
        if hash && format != .ndjson { throw ValidationError("--hash applies to --format ndjson") }
        if resourcesOnly && format != .ndjson { throw ValidationError("--resources-only applies to --format ndjson") }
    }

    /// A normalizer writing to `file` as these options say.
    package func normalizer(writingTo file: OutputFile, document: DocumentOptions) -> Normalizer {
        var options = OutputOptions()
        options.keys = keys
        options.hash = hash
        options.resourcesOnly = resourcesOnly
        options.numbers = numbers
        if !types.isEmpty { options.types = Set(types) }
        options.keepFields = (try? parsedKeepFields()) ?? [:]
        return Normalizer(format: format, out: file.writer, output: options, document: document, duplicates: onDuplicate)
    }

    /// Says on standard error how many numbers `--numbers safe` wrote as strings.
    package func reportQuotedNumbers(of normalizer: Normalizer, quiet: Bool) {
        let n = normalizer.numbersQuoted
        guard n > 0 && !quiet else { return }
        Terminal.standardError("jsonapi: \(n) number\(n == 1 ? "" : "s") written as strings of their exact text (--numbers safe: a double would change them)")
    }

    /// Records written to standard output before a failure (`nil` when that count means
    /// nothing: a file, which is removed, or the flat object, which is written at the end).
    package func recordsWritten(by normalizer: Normalizer, to file: OutputFile) -> Int? {
        file.isStandardOutput && format != .json ? normalizer.recordsWritten : nil
    }
}

extension NumberPolicy: ExpressibleByArgument {}
