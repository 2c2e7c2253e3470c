import ArgumentParser
import JSONAPIStream

/// What `normalize` and `fetch` write, and where: the output format and its options.
package struct NormalizeOutputOptions: ParsableArguments {
    package init() {}

    @Option(help: ArgumentHelp("json (the default), ndjson or edges; with --split-by-type, ndjson (the default) or csv.", valueName: "format"))
    package var format: NormalizeFormat?

    @Option(help: "Rewrite attribute, relationship and meta names: as-is, camel, snake or kebab.")
    package var keys: KeyFormat = .asIs

    @Flag(help: "Add a stable content hash (SHA-256 of the canonical form) to each NDJSON resource line.")
    package var hash = false

    @Flag(name: .customLong("resources-only"), help: "NDJSON: write no document lines.")
    package var resourcesOnly = false

    @Option(name: .customLong("on-duplicate"), help: "The same resource twice: last (merge, later wins), first, or error.")
    package var onDuplicate: DuplicatePolicy = .last

    @Option(
        help: ArgumentHelp(
            "Numbers: exact (as in the input; the default) or safe (a number a double would change, such as 9007199254740993 or 1e400, is written as a string of its text; the default with --split-by-type).",
            valueName: "exact|safe"))
    package var numbers: NumberPolicy?

    @Option(name: .customLong("type"), help: ArgumentHelp("Write only resources of this type (repeatable); primary data stays whole.", valueName: "type"))
    package var types: [String] = []

    @Option(
        name: .customLong("keep-fields"),
        help: ArgumentHelp("For a type, the attributes and relationships to keep, as a sparse fieldset: TYPE=NAME,NAME (repeatable; TYPE= keeps none).", valueName: "type=names"))
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

    /// The format of a single output (json unless given).
    package var outputFormat: OutputFormat {
        switch format ?? .json {
        case .json: return .json
        case .ndjson: return .ndjson
        case .edges: return .edges
        case .csv: return .json  // refused by check(splitting:)
        }
    }

    /// The format of each table of a split output (ndjson unless given).
    package var tableFormat: TableFormat { format == .csv ? .csv : .ndjson }

    package func validate() throws {
        _ = try parsedKeepFields()
    }

    /// Checks the options that depend on whether the output is split by type.
    package func check(splitting: Bool) throws {
        if splitting {
            if let format, format != .ndjson && format != .csv {
                throw ValidationError("--split-by-type writes ndjson or csv tables, not --format \(format.rawValue)")
            }
            if hash { throw ValidationError("--hash applies to --format ndjson without --split-by-type") }
            if resourcesOnly { throw ValidationError("--resources-only applies to --format ndjson without --split-by-type") }
            if output != nil { throw ValidationError("--split-by-type writes a directory; -o does not apply") }
        } else {
            if format == .csv { throw ValidationError("--format csv writes one table per type: it needs --split-by-type DIR") }
            if hash && outputFormat != .ndjson { throw ValidationError("--hash applies to --format ndjson") }
            if resourcesOnly && outputFormat != .ndjson { throw ValidationError("--resources-only applies to --format ndjson") }
        }
    }

    /// The output options of a split output (numbers safe unless given).
    package func tableOptions() -> OutputOptions {
        var options = outputOptions()
        options.numbers = numbers ?? .safe
        return options
    }

    private func outputOptions() -> OutputOptions {
        var options = OutputOptions()
        options.keys = keys
        options.hash = hash
        options.resourcesOnly = resourcesOnly
        options.numbers = numbers ?? .exact
        if !types.isEmpty { options.types = Set(types) }
        options.keepFields = (try? parsedKeepFields()) ?? [:]
        return options
    }

    /// A normalizer writing to `file` as these options say.
    package func normalizer(writingTo file: OutputFile, document: DocumentOptions) -> Normalizer {
        Normalizer(format: outputFormat, out: file.writer, output: outputOptions(), document: document, duplicates: onDuplicate)
    }

    /// Says on standard error how many numbers `--numbers safe` wrote as strings.
    package func reportQuotedNumbers(of normalizer: Normalizer, quiet: Bool) {
        reportQuotedNumbers(normalizer.numbersQuoted, quiet: quiet)
    }

    package func reportQuotedNumbers(_ n: Int, quiet: Bool) {
        guard n > 0 && !quiet else { return }
        Terminal.standardError("jsonapi: \(n) number\(n == 1 ? "" : "s") written as strings of their exact text (--numbers safe: a double would change them)")
    }

    /// Records written to standard output before a failure (`nil` when that count means
    /// nothing: a file, which is removed, or the flat object, which is written at the end).
    package func recordsWritten(by normalizer: Normalizer, to file: OutputFile) -> Int? {
        file.isStandardOutput && outputFormat != .json ? normalizer.recordsWritten : nil
    }
}

extension NumberPolicy: ExpressibleByArgument {}

/// `normalize --format`: the single-output formats, and csv for tables.
package enum NormalizeFormat: String, ExpressibleByArgument, CaseIterable, Sendable {
    case json, ndjson, edges, csv
}
