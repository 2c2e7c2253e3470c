import Foundation
import Testing
@testable import JSONAPIStream

/// Every file of `Corpus/`: documents normalize identically at every read size and pass
/// strict validation; every invalid fixture fails with its rule at its position; every
/// valid near miss passes.
struct CorpusTests {
    struct Entry: Decodable {
        var rule: String
        var context: String?
        var options: [String: OptionValue]?
        var line: Int?
        var column: Int?
        var offset: Int?
        var pointer: String?
        var also: [String]?
        var note: String?
    }

    enum OptionValue: Decodable {
        case int(Int), string(String), list([String])
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let i = try? c.decode(Int.self) { self = .int(i) } else if let s = try? c.decode(String.self) { self = .string(s) } else { self = .list(try c.decode([String].self)) }
        }
        var string: String {
            switch self {
            case .int(let i): String(i)
            case .string(let s): s
            case .list(let l): l.joined(separator: ",")
            }
        }
        var list: [String] {
            if case .list(let l) = self { return l }
            return [string]
        }
    }

    static func manifest(_ folder: String) -> [(String, Entry)] {
        guard let data = try? Data(contentsOf: corpusURL("\(folder)/manifest.json")),
            let m = try? JSONDecoder().decode([String: Entry].self, from: data)
        else { return [] }
        return m.sorted { $0.key < $1.key }
    }

    static func files(_ folder: String) -> [String] {
        let base = corpusURL(folder)
        guard let e = FileManager.default.enumerator(atPath: base.path) else { return [] }
        return e.compactMap { $0 as? String }.filter { $0.hasSuffix(".json") && $0 != "manifest.json" }.sorted()
    }

    /// Document options from a manifest entry.
    static func options(_ e: Entry) -> (DocumentOptions, OutputOptions, OutputFormat?) {
        var d = DocumentOptions()
        d.validation = .strict
        d.context = DocumentContext(rawValue: e.context ?? "response") ?? .response
        var o = OutputOptions()
        var format: OutputFormat? = nil
        for (k, v) in e.options ?? [:] {
            switch k {
            case "max-depth": d.parse.limits.maxDepth = Int(v.string)!
            case "max-string-bytes": d.parse.limits.maxStringBytes = Int(v.string)!
            case "max-key-bytes": d.parse.limits.maxKeyBytes = Int(v.string)!
            case "max-number-length": d.parse.limits.maxNumberLength = Int(v.string)!
            case "max-input-bytes": d.parse.limits.maxInputBytes = Int(v.string)!
            case "max-resources": d.parse.limits.maxResources = Int(v.string)!
            case "bom": d.parse.byteOrderMark = ByteOrderMarkPolicy(rawValue: v.string)!
            case "duplicate-members": d.parse.duplicateMembers = v.string == "allow-in-values" ? .allowInValues : .reject
            case "extension": d.extensions = Set(v.list)
            case "keys": o.keys = KeyFormat(rawValue: v.string)!
            case "format": format = OutputFormat(rawValue: v.string)!
            default: Issue.record("unknown manifest option \(k)")
            }
        }
        return (d, o, format)
    }

    static func findings(_ file: URL, _ options: DocumentOptions, chunk: Int) throws -> [Diagnostic] {
        try DocumentValidator(options: options).validate(.bytes(Array(Data(contentsOf: file)), name: file.lastPathComponent), chunkSize: chunk)
    }

    // MARK: - Documents

    @Test(arguments: files("documents"))
    func documentIsValidAndReadSizeInvariant(_ name: String) throws {
        let url = corpusURL("documents/\(name)")
        let input = try String(contentsOf: url, encoding: .utf8)
        var strict = DocumentOptions()
        strict.validation = .strict
        let errors = try Self.findings(url, strict, chunk: 1 << 20).filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(errors)")
        let g = try graph(input)
        #expect(g.count >= 0)
        for format in OutputFormat.allCases {
            let whole = try normalize(input, format: format)
            for size in [1, 2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31] {
                #expect(try normalize(input, format: format, chunk: size) == whole, "\(name) as \(format) at read size \(size)")
            }
        }
    }

    // MARK: - Requests

    @Test(arguments: manifest("requests"))
    func requestIsValidInItsContext(_ name: String, _ entry: Entry) throws {
        var (o, _, _) = Self.options(entry)
        o.context = DocumentContext(rawValue: entry.context ?? "create")!
        let errors = try Self.findings(corpusURL("requests/\(name)"), o, chunk: 1 << 20).filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(name): \(errors)")
    }

    // MARK: - Invalid fixtures

    @Test(arguments: manifest("invalid"))
    func invalidFixtureFailsWithItsRule(_ name: String, _ entry: Entry) throws {
        let url = corpusURL("invalid/\(name)")
        let (options, output, format) = Self.options(entry)
        let accepted = Set([entry.rule] + (entry.also ?? []))
        if entry.rule == "N04" || format != nil {
            // A normalizer error: it needs the output options.
            let input = try String(contentsOf: url, encoding: .utf8)
            var lenient = options
            lenient.validation = .lenient
            do {
                _ = try normalize(input, format: format ?? .json, output: output, document: lenient)
                Issue.record("\(name) was normalized")
            } catch {
                #expect(accepted.contains(error.rule?.rawValue ?? ""), "\(name): \(error)")
            }
            return
        }
        var previous: [Diagnostic]? = nil
        for chunk in [1 << 20, 1, 7] {
            let errors = try Self.findings(url, options, chunk: chunk).filter { $0.severity == .error }
            guard let first = errors.first(where: { accepted.contains($0.rule.rawValue) }) else {
                Issue.record("\(name) at read size \(chunk): expected \(entry.rule), got \(errors)")
                return
            }
            if let line = entry.line, let column = entry.column {
                #expect(first.location.line == line && first.location.column == column, "\(name): expected \(line):\(column), got \(first)")
            }
            if let offset = entry.offset { #expect(first.location.offset == offset, "\(name): \(first)") }
            if let pointer = entry.pointer { #expect(first.pointer == pointer, "\(name): expected pointer \(pointer), got \(first)") }
            if let previous { #expect(errors == previous, "\(name): findings differ at read size \(chunk)") }
            previous = errors
        }
    }

    // MARK: - Valid near misses

    @Test(arguments: manifest("valid"))
    func nearMissIsValid(_ name: String, _ entry: Entry) throws {
        let (options, output, format) = Self.options(entry)
        let url = corpusURL("valid/\(name)")
        let errors = try Self.findings(url, options, chunk: 1 << 20).filter { $0.severity == .error }
        #expect(errors.isEmpty, "\(name): \(errors)")
        if format != nil || output.keys != .asIs {
            let input = try String(contentsOf: url, encoding: .utf8)
            var lenient = options
            lenient.validation = .lenient
            #expect(throws: Never.self) { try normalize(input, format: format ?? .json, output: output, document: lenient) }
        }
    }

    @Test func everyRuleHasAFailingFixtureAndANearMiss() {
        let invalid = Set(Self.manifest("invalid").map(\.1.rule))
        let valid = Set(Self.manifest("valid").map(\.1.rule))
        let notInputErrors: Set<Rule> = [.J04, .J07, .J08, .N01, .N02, .N03]
        for rule in Rule.allCases where !notInputErrors.contains(rule) {
            if rule != .R36 { #expect(invalid.contains(rule.rawValue), "no invalid fixture for \(rule)") }
            #expect(valid.contains(rule.rawValue) || rule == .N04 || rule == .J12, "no valid near miss for \(rule)")
        }
    }
}
