// The check of the libFuzzer target `load` (Fuzz/Sources/FuzzChecks/FuzzLoadChecks.swift is a
// symbolic link to this file, as FuzzChecks.swift is to FuzzRegressionTests.swift).
//
// `load`: the `roundtrip` header and a document. The document is loaded into a new SQLite
// database with the header's options and duplicate policy, and normalized to flat JSON with the
// same: either both fail, or the database read back (`SQLiteReader`, `Denormalizer`) and
// normalized again gives the same resources, attributes (numbers by value: a REAL column keeps
// `1e2` as `100`), relationships and primary data as the first flat output; and loading the same
// document again writes no resource that the first load wrote once.

import Foundation
import JSONAPILoad
import JSONAPIStream

extension FuzzChecks {
    static func load(_ input: [UInt8]) -> [String] {
        let c = Config(input)
        // No bytes at all: both `jsonapi load` and `normalize` fail (J09), but `normalize(…)`
        // here feeds nothing and so begins no input.
        guard !c.body.isEmpty else { return [] }
        var document = c.document
        if c.pipelined { document.parse.concurrency = .pipelined }
        // The loader reads as NDJSON normalizing does (a stream): the same documents fail. The
        // flat output (a graph) also refuses resources it cannot key (R10 in a response): no
        // values to compare then.
        let stream = normalize(c.body, format: .ndjson, document: document, output: OutputOptions(), duplicates: c.duplicates, sizes: [])
        let flat = normalize(c.body, format: .json, document: document, output: OutputOptions(), duplicates: c.duplicates, sizes: [])
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-load-\(getpid())-\(UInt64.random(in: 0...UInt64.max))")
        do { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) } catch {
            return ["cannot make \(dir.path): \(error)"]
        }
        defer { try? FileManager.default.removeItem(at: dir) }
        let db = dir.appendingPathComponent("load.sqlite").path
        var options = LoadOptions()
        options.onDuplicate = c.duplicates
        let source = InputSource.bytes(c.body, name: "fuzz.json")
        let first: LoadSummary
        do throws(JSONAPIError) {
            first = try SQLiteLoader.load([source], into: db, options: options, documentOptions: document)
        } catch {
            if stream.error != nil { return [] }
            return ["load failed (\(error)) where normalize succeeded"]
        }
        if let e = stream.error {
            // N04: a member the NDJSON output would add itself (`primary`); a table has room for it.
            if e.diagnostic?.rule == .N04 { return [] }
            return ["load succeeded where normalize failed: \(e)"]
        }

        // Read back, as `jsonapi denormalize DB` does, and normalized again.
        let back = ByteWriter()
        do throws(JSONAPIError) {
            let denormalizer = Denormalizer()
            try SQLiteReader.read(database: db, into: denormalizer)
            try denormalizer.write(to: back)
        } catch {
            return ["the database does not read back: \(error)"]
        }
        guard flat.error == nil else { return [] }
        var again = document
        again.validation = .off
        let second = normalize(back.bytes, format: .json, document: again, output: OutputOptions(), duplicates: .last, sizes: [])
        if let e = second.error {
            return ["the document read back does not normalize: \(e)\n\(String(decoding: back.bytes.prefix(600), as: UTF8.self))"]
        }
        var problems: [String] = []
        do throws(JSONAPIError) {
            let a = try comparableFlat(flat.output), b = try comparableFlat(second.output)
            if a != b { problems.append("read back differs: \(difference(a, b))") }
        } catch {
            problems.append("a flat output does not parse: \(error)")
        }

        // Again: every resource with an id unchanged, unless the document merges duplicates
        // (each later occurrence is written over the first again). Resources without an id
        // belong to their document and are replaced (at most those with a lid, or no key).
        do throws(JSONAPIError) {
            let repeated = try SQLiteLoader.load([source], into: db, options: options, documentOptions: document)
            let entries =
                (try? JSONValue(parsingStoredValue: flat.output, options: valueParse))?["resources"]?.objectValue?.members
                .flatMap { $0.value.objectValue?.members ?? [] } ?? []
            let idless = entries.filter { $0.key.isEmpty || $0.value["lid"] != nil }.count
            if entries.count == first.resources && repeated.written > idless {
                problems.append("loading again wrote \(repeated.written) of \(repeated.resources) resources (\(idless) without an id)")
            }
        } catch {
            problems.append("loading again failed: \(error)")
        }
        return problems
    }

    /// A flat output in a form that ignores what a table reorders: resources by type and key,
    /// attributes by name, numbers a double holds by value, primary data each resource once.
    static let valueParse: ParseOptions = {
        var parse = ParseOptions()
        parse.duplicateMembers = .allowInValues
        // A flat output nests values a level deeper than their document did.
        parse.limits.maxDepth += 8
        return parse
    }()

    static func comparableFlat(_ bytes: [UInt8]) throws(JSONAPIError) -> JSONValue {
        let v = try JSONValue(parsingStoredValue: bytes, options: valueParse)
        var out = JSONObject()
        for m in v.objectValue?.members ?? [] where m.key != "resources" && m.key != "data" { out.append(m.key, byValue(m.value)) }
        var resources: [(key: String, value: JSONValue)] = []
        for t in v["resources"]?.objectValue?.members ?? [] {
            for r in t.value.objectValue?.members ?? [] {
                var resource = JSONObject()
                for member in r.value.objectValue?.members ?? [] {
                    if member.key == "attributes", case .object(let a) = member.value {
                        resource.append("attributes", byValue(.object(JSONObject(a.members.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }))))
                    } else {
                        resource.append(member.key, byValue(member.value))
                    }
                }
                resources.append((key: t.key + "/" + r.key, value: .object(resource)))
            }
        }
        out.append("resources", .object(JSONObject(resources.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) })))
        var seen = Set<JSONValue>()
        switch v["data"] {
        case .array(let a)?: out.append("data", .array(a.filter { seen.insert($0).inserted }))
        case let one?: out.append("data", one)
        case nil: break
        }
        return .object(out)
    }

    static func byValue(_ v: JSONValue) -> JSONValue {
        switch v {
        case .number(let n): return n.exactDoubleValue.map { .number(JSONNumber($0)) } ?? v
        case .array(let a): return .array(a.map(byValue))
        case .object(let o): return .object(JSONObject(o.members.map { ($0.key, byValue($0.value)) }))
        default: return v
        }
    }
}
