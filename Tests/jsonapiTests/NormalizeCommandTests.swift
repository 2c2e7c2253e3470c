import Foundation
import Testing

/// `jsonapi normalize` as a user runs it: the built binary, real files, standard input.
@Suite(.serialized)
struct NormalizeCommandTests {
    static let documents = corpusFiles("documents")

    // MARK: - Gold files

    /// Every corpus document, in each format, gives exactly its gold output (regenerated only
    /// by `Scripts/regenerate-gold.sh`), whole and at small read sizes.
    @Test(arguments: documents)
    func corpusDocumentMatchesGold(_ path: String) throws {
        let relative = String(path.dropFirst("Corpus/documents/".count).dropLast(".json".count))
        for format in ["json", "ndjson", "edges"] {
            let gold = repositoryRoot.appendingPathComponent("Corpus/gold/\(relative).\(format)")
            let expected = try Data(contentsOf: gold)
            for chunk in ["1048576", "1", "7"] {
                let r = try run(["normalize", "--format", format, "--chunk-size", chunk, path])
                #expect(r.status == 0, "\(path) \(format): \(r.stderr)")
                #expect(r.stdout == expected, "\(path) as \(format) at read size \(chunk) differs from \(gold.lastPathComponent)")
            }
        }
    }

    // MARK: - Many documents, several workers

    /// A crawl's dump from `generate --documents` (one page per line, article ids going on
    /// from page to page, the last page without `next`), normalized by one worker and by
    /// several: the same bytes. With a broken page in it: the same error, after the same lines.
    @Test func aDumpIsTheSameOnEveryNumberOfWorkers() throws {
        let generated = try run(["generate", "--resources", "3000", "--documents", "120", "--seed", "3"])
        #expect(generated.status == 0, "\(generated.stderr)")
        let pages = generated.stdout.split(separator: 0x0A)
        #expect(pages.count == 120)
        let first = String(decoding: pages[0], as: UTF8.self)
        let last = String(decoding: pages[119], as: UTF8.self)
        #expect(first.contains(#""data":[{"type":"articles","id":"1","#))
        #expect(first.contains(#"page[number]=2""#))
        #expect(last.contains(#"{"type":"articles","id":"3000","#) && !last.contains(#""next""#))
        #expect(generated.stdout.count > 4 << 20, "more than the 4 MiB after which workers are used")

        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("dump.ndjson").path
        try generated.stdout.write(to: URL(fileURLWithPath: path))
        try expectSameOnEveryNumberOfWorkers(path)

        // Page 100 loses the quote that ends one of its ids.
        let start = pages[0..<99].reduce(0) { $0 + $1.count + 1 }
        let (one, _) = try normalizeBroken(generated.stdout, id: #""id":"2"#, after: start, at: path)
        #expect(one.stderr.contains(":100:"))
        // Split by type: the same error, and the same whole rows kept before it.
        let kept = try ["1", "2"].map { workers in try splitByType(path, workers: workers) }
        #expect(kept[0].status == 1 && kept[0].stderr.contains(":100:") && kept[0].stderr.contains("kept the whole rows"), "\(kept[0].stderr)")
        #expect(kept[0].files.count == 8 && (kept[0].files["articles.ndjson"]?.count ?? 0) > 1 << 20)
        #expect(kept[1].status == kept[0].status && kept[1].stderr == kept[0].stderr, "\(kept[1].stderr)")
        #expect(kept[1].files == kept[0].files)
        // validate: the same findings (the dump's warnings, then the error) on workers.
        let checkedOne = try run(["validate", "--format", "json", "--workers", "1", path])
        let checkedMany = try run(["validate", "--format", "json", "--workers", "2", path])
        #expect(checkedOne.status == 1 && checkedMany.status == 1)
        #expect(checkedMany.stdout == checkedOne.stdout && !checkedOne.stdout.isEmpty)
    }

    /// One generated document of more than 4 MiB (no document end before the workers are
    /// decided on), normalized by one reader and by workers, a range of its elements each: the
    /// same bytes, statistics and warnings; with a broken element, the same error after the
    /// same lines.
    @Test func aLargeDocumentIsTheSameOnEveryNumberOfWorkers() throws {
        let generated = try run(["generate", "--resources", "3000", "--seed", "5"])
        #expect(generated.status == 0, "\(generated.stderr)")
        #expect(generated.stdout.count > 4 << 20 && !generated.stdout.dropLast().contains(0x0A), "one document of more than 4 MiB")
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("one.json").path
        try generated.stdout.write(to: URL(fileURLWithPath: path))
        try expectSameOnEveryNumberOfWorkers(path)

        // An id past the middle of `included` loses its closing quote.
        let included = generated.stdout.firstRange(of: Data(#""included":["#.utf8))!.upperBound
        let middle = included + (generated.stdout.count - included) / 2
        let (one, many) = try normalizeBroken(generated.stdout, id: #""id":""#, after: middle, at: path)
        #expect(one.stderr.contains("/included/") && many.stdout.count > 1 << 20)
    }

    /// `input` with the closing quote of the first id that starts with `id` after offset
    /// `after` made an `x`, written to `path` and normalized to NDJSON by one reader and by 2
    /// workers: both fail with the same error after the same lines.
    func normalizeBroken(
        _ input: Data, id: String, after: Int, at path: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (one: RunResult, many: RunResult) {
        var broken = input
        let at = broken[(broken.startIndex + after)...].firstRange(of: Data(id.utf8))!.upperBound
        let close = broken[at...].firstIndex(of: UInt8(ascii: "\""))!
        broken[close] = UInt8(ascii: "x")
        try broken.write(to: URL(fileURLWithPath: path))
        let one = try run(["normalize", "--format", "ndjson", "--workers", "1", path])
        let many = try run(["normalize", "--format", "ndjson", "--workers", "2", path])
        #expect(one.status == 1 && many.status == 1, sourceLocation: sourceLocation)
        #expect(many.stderr == one.stderr, "\(many.stderr) vs \(one.stderr)", sourceLocation: sourceLocation)
        #expect(many.stdout == one.stdout, sourceLocation: sourceLocation)
        return (one, many)
    }

    /// `path` normalized (NDJSON, edges, flat JSON) by 1, 2 and 3 workers: the same bytes and
    /// warnings; and counted by `stats` on 1 and 2: the same statistics (its `seconds` aside)
    /// and warnings.
    func expectSameOnEveryNumberOfWorkers(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for format in ["ndjson", "edges", "json"] {
            let one = try run(["normalize", "--format", format, "--workers", "1", path])
            #expect(one.status == 0, "\(one.stderr)", sourceLocation: sourceLocation)
            for workers in ["2", "3"] {
                let many = try run(["normalize", "--format", format, "--workers", workers, "--chunk-size", "65537", path])
                #expect(many.status == 0, "\(many.stderr)", sourceLocation: sourceLocation)
                #expect(many.stdout == one.stdout && many.stderr == one.stderr, "\(format) with \(workers) workers differs", sourceLocation: sourceLocation)
            }
        }
        let tables = try ["1", "2"].map { workers in try splitByType(path, workers: workers, sourceLocation: sourceLocation) }
        #expect(tables[0].files.count == 8 && tables[1].status == 0, sourceLocation: sourceLocation)
        #expect(tables[1].files == tables[0].files && tables[1].stderr == tables[0].stderr, "--split-by-type", sourceLocation: sourceLocation)
        let stats = try ["1", "2"].map { workers in
            let r = try run(["stats", "--format", "json", "--workers", workers, path])
            #expect(r.status == 0, "\(r.stderr)", sourceLocation: sourceLocation)
            let object = try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any]
            return (try JSONSerialization.data(withJSONObject: object?["statistics"] ?? [:], options: [.sortedKeys]), r.stderr)
        }
        #expect(stats[0].0.count > 200 && stats[1] == stats[0], sourceLocation: sourceLocation)
    }

    /// `normalize --split-by-type` of `path` on `workers` (with `--keep-partial`): every file
    /// of the directory, the exit status and what was written to standard error.
    func splitByType(
        _ path: String, workers: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (files: [String: Data], status: Int32, stderr: String) {
        let dir = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let out = dir.appendingPathComponent("tables").path
        let r = try run(["normalize", "--split-by-type", out, "--keep-partial", "--workers", workers, "--chunk-size", "65537", path])
        var files: [String: Data] = [:]
        for f in (try? FileManager.default.contentsOfDirectory(atPath: out)) ?? [] {
            files[f] = try Data(contentsOf: URL(fileURLWithPath: out + "/" + f))
        }
        return (files, r.status, r.stderr.replacingOccurrences(of: out, with: "DIR"))
    }

    /// From 1 byte to 1 GiB: a read size of 100 GB crashed allocating its buffer (signal 6).
    @Test func chunkSizeMustBeFromOneByteToAGiB() throws {
        for size in ["0", "1073741825", "100000000000"] {
            for command in [["normalize"], ["validate"], ["stats"], ["bench", "--runs", "1"]] {
                let r = try run(command + ["--chunk-size", size, "Corpus/documents/spec-compound.json"])
                #expect(r.status == 2 && r.stderr.contains("--chunk-size must be from 1 to 1073741824 (1 GiB)"), "\(command) \(size): \(r.stderr)")
            }
        }
        let most = try run(["normalize", "--chunk-size", "1073741824", "Corpus/documents/spec-compound.json"])
        let expected = try run(["normalize", "Corpus/documents/spec-compound.json"])
        #expect(most.status == 0 && most.stdout == expected.stdout, "\(most.stderr)")
    }

    /// From 1 to 256: a mistyped count such as 100000 took 8.5 GB and more than a minute
    /// starting workers before this limit.
    @Test func workersMustBeFromOneTo256() throws {
        for workers in ["0", "257", "100000"] {
            let r = try run(["normalize", "--workers", workers, "Corpus/documents/spec-compound.json"])
            #expect(r.status == 2 && r.stderr.contains("--workers must be from 1 to 256"), "\(workers): \(r.stderr)")
            #expect(r.stdout.isEmpty)
        }
        let most = try run(["normalize", "--format", "ndjson", "--workers", "256", "Corpus/documents/spec-compound.json"])
        let expected = try run(["normalize", "--format", "ndjson", "Corpus/documents/spec-compound.json"])
        #expect(most.status == 0 && most.stdout == expected.stdout)
        let g = try run(["generate", "--resources", "10", "--documents", "0"])
        #expect(g.status == 2 && g.stderr.contains("--documents must be at least 1"))
    }

    // MARK: - Inputs

    @Test func readsStandardInputAndDash() throws {
        let doc = try Data(contentsOf: repositoryRoot.appendingPathComponent("Corpus/documents/spec-compound.json"))
        let fromFile = try run(["normalize", "--format", "ndjson", "Corpus/documents/spec-compound.json"])
        let fromStdin = try run(["normalize", "--format", "ndjson"], stdin: doc)
        let fromDash = try run(["normalize", "--format", "ndjson", "-"], stdin: doc)
        #expect(fromFile.status == 0 && fromStdin.status == 0 && fromDash.status == 0)
        #expect(fromStdin.stdout == fromFile.stdout)
        #expect(fromDash.stdout == fromFile.stdout)
    }

    @Test func severalFilesMerge() throws {
        let dir = try temporaryDirectory()
        let a = dir.appendingPathComponent("a.json")
        let b = dir.appendingPathComponent("b.json")
        try Data(#"{"data":[{"type":"t","id":"1","attributes":{"x":1,"y":1}}],"meta":{"page":1}}"#.utf8).write(to: a)
        try Data(#"{"data":[{"type":"t","id":"1","attributes":{"x":2}},{"type":"t","id":"2"}],"meta":{"page":2}}"#.utf8).write(to: b)
        let r = try run(["normalize", a.path, b.path])
        #expect(r.status == 0)
        #expect(
            r.out
                == #"{"data":[{"type":"t","id":"1"},{"type":"t","id":"1"},{"type":"t","id":"2"}],"resources":{"t":{"1":{"attributes":{"x":2,"y":1},"relationships":{}},"2":{"attributes":{},"relationships":{}}}},"meta":{"page":2}}"#
                + "\n")
        // The warning names both places.
        #expect(r.stderr.contains("\(b.path):1:10: warning: resource (type \"t\", id \"1\") appears again (first at \(a.path):1:10); merged, the later members win [N01]"), "\(r.stderr)")
        let quiet = try run(["normalize", "--quiet", a.path, b.path])
        #expect(quiet.stderr.isEmpty)
    }

    // MARK: - Options

    @Test func keysOption() throws {
        let input = Data(
            #"{"data":{"type":"user-accounts","id":"1","attributes":{"first-name":"A","last_name":"B","HTTPServer":1,"address2Line":2,"nested":{"inner-key":1}},"relationships":{"home-town":{"data":null}},"meta":{"created-at":"x"},"links":{"self-link":"/u/1"}}}"#
                .utf8)
        func line(_ keys: String) throws -> String {
            let r = try run(["normalize", "--format", "ndjson", "--resources-only", "--keys", keys], stdin: input)
            #expect(r.status == 0, "\(r.stderr)")
            return r.out
        }
        #expect(
            try line("camel")
                == #"{"type":"user-accounts","id":"1","primary":true,"attributes":{"firstName":"A","lastName":"B","httpServer":1,"address2Line":2,"nested":{"inner-key":1}},"relationships":{"homeTown":{"data":null}},"links":{"self-link":"/u/1"},"meta":{"createdAt":"x"}}"#
                + "\n")
        #expect(
            try line("snake")
                == #"{"type":"user-accounts","id":"1","primary":true,"attributes":{"first_name":"A","last_name":"B","http_server":1,"address2_line":2,"nested":{"inner-key":1}},"relationships":{"home_town":{"data":null}},"links":{"self-link":"/u/1"},"meta":{"created_at":"x"}}"#
                + "\n")
        #expect(
            try line("kebab")
                == #"{"type":"user-accounts","id":"1","primary":true,"attributes":{"first-name":"A","last-name":"B","http-server":1,"address2-line":2,"nested":{"inner-key":1}},"relationships":{"home-town":{"data":null}},"links":{"self-link":"/u/1"},"meta":{"created-at":"x"}}"#
                + "\n")
        // Two names that become one are an error.
        let clash = try run(["normalize", "--keys", "camel"], stdin: Data(#"{"data":{"type":"a","id":"1","attributes":{"first-name":1,"first_name":2}}}"#.utf8))
        #expect(clash.status == 1)
        #expect(clash.stderr.contains("error: two attribute names become \"firstName\""), "\(clash.stderr)")
        #expect(clash.stderr.contains("[N04]"))
        // Relationship names too, in either order: one already in camel case, one that becomes it.
        for rels in [#"{"home-town":{"data":null},"homeTown":{"data":null}}"#, #"{"homeTown":{"data":null},"home_town":{"data":null}}"#] {
            let r = try run(["normalize", "--format", "ndjson", "--keys", "camel"], stdin: Data(#"{"data":{"type":"a","id":"1","relationships":\#(rels)}}"#.utf8))
            #expect(r.status == 1)
            #expect(r.stderr.contains("error: two relationship names become \"homeTown\""), "\(r.stderr)")
            #expect(r.out.isEmpty)
        }
    }

    @Test func hashIsStableAcrossMemberOrderAndWhitespace() throws {
        let a = Data(#"{"data":{"type":"a","id":"1","attributes":{"x":1,"y":{"p":true,"q":[1,2]}},"relationships":{"r":{"data":{"type":"b","id":"2"}}}}}"#.utf8)
        let b = Data(
            "{ \"data\" : { \"relationships\": {\"r\": {\"data\": {\"id\": \"2\", \"type\": \"b\"}}},\n \"attributes\": {\"y\": {\"q\": [1, 2], \"p\": true}, \"x\": 1}, \"id\": \"1\", \"type\": \"a\" } }"
                .utf8)
        let c = Data(#"{"data":{"type":"a","id":"1","attributes":{"x":2,"y":{"p":true,"q":[1,2]}},"relationships":{"r":{"data":{"type":"b","id":"2"}}}}}"#.utf8)
        func hash(_ d: Data, primary: Bool = true) throws -> String {
            let r = try run(["normalize", "--format", "ndjson", "--resources-only", "--hash"], stdin: d)
            #expect(r.status == 0, "\(r.stderr)")
            let obj = try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
            return obj["hash"] as! String
        }
        let ha = try hash(a)
        #expect(ha.count == 64)
        #expect(try hash(b) == ha)
        #expect(try hash(c) != ha)
        // The digest is SHA-256 of the documented canonical form.
        let canonical = #"{"attributes":{"x":1,"y":{"p":true,"q":[1,2]}},"id":"1","relationships":{"r":{"data":{"id":"2","type":"b"}}},"type":"a"}"#
        let expected = try Process.sha256(canonical)
        #expect(ha == expected)
    }

    /// Members are ordered by the bytes of their names, a name before the longer names it
    /// begins (`a` before `a b`, though `"a b"` sorts before `"a"` with its quotes, which the
    /// canonical form once compared), in small objects and in large ones (sorted another way),
    /// with names that share their first eight bytes or more.
    @Test func hashOrdersNamesByTheirBytes() throws {
        let small = ["a b", "a", "ab c", "ab", "z", "é", "a-b"]
        let large = (0..<40).map { "shared-prefix-\(($0 * 7) % 40)" } + ["shared-prefix-", "shared-prefix-1 x", "shared", "shared-prefix-1 y"]
        for names in [small, large] {
            let members = names.enumerated().map { "\"\($0.element)\":\($0.offset)" }.joined(separator: ",")
            let doc = #"{"data":{"type":"a","id":"1","attributes":{"# + members + "}}}"
            let r = try run(["normalize", "--format", "ndjson", "--resources-only", "--hash"], stdin: Data(doc.utf8))
            #expect(r.status == 0, "\(r.stderr)")
            let sorted = names.enumerated().sorted { Array($0.element.utf8).lexicographicallyPrecedes(Array($1.element.utf8)) }
            let canonical =
                #"{"attributes":{"# + sorted.map { "\"\($0.element)\":\($0.offset)" }.joined(separator: ",")
                + #"},"id":"1","relationships":{},"type":"a"}"#
            let expected = try Process.sha256(canonical)
            #expect(r.out.hasSuffix(#""hash":"\#(expected)"}"# + "\n"), "\(names.count) names: \(r.out)")
        }
    }

    @Test func resourcesOnlyAndEdges() throws {
        let r = try run(["normalize", "--format", "ndjson", "--resources-only", "Corpus/documents/spec-compound.json"])
        #expect(r.status == 0)
        #expect(!r.out.contains(#"{"document""#))
        #expect(r.out.split(separator: "\n").count == 4)
        let e = try run(["normalize", "--format", "edges", "Corpus/documents/spec-compound.json"])
        #expect(e.out.split(separator: "\n").first == #"{"from":{"type":"articles","id":"1"},"relationship":"author","to":{"type":"people","id":"9"},"position":0}"#)
    }

    @Test func onDuplicateOption() throws {
        let input = Data("{\"data\":{\"type\":\"a\",\"id\":\"1\",\"attributes\":{\"v\":1}}}\n{\"data\":{\"type\":\"a\",\"id\":\"1\",\"attributes\":{\"v\":2}}}\n".utf8)
        #expect(try run(["normalize", "--quiet"], stdin: input).out.contains(#""v":2"#))
        #expect(try run(["normalize", "--quiet", "--on-duplicate", "first"], stdin: input).out.contains(#""v":1"#))
        let e = try run(["normalize", "--on-duplicate", "error"], stdin: input)
        #expect(e.status == 1)
        #expect(e.stderr.contains("-:2:9: error: resource (type \"a\", id \"1\") appears again (first at 1:9); duplicates are refused [N01]"), "\(e.stderr)")
        let nd = try run(["normalize", "--format", "ndjson", "--on-duplicate", "first", "--quiet"], stdin: input)
        #expect(nd.out.split(separator: "\n").filter { $0.hasPrefix(#"{"type""#) }.count == 1)
    }

    /// `--quiet` installs no warning handler, so warnings are counted without their text
    /// being made: the output is the same as a run that prints them, for every format and
    /// duplicate policy.
    @Test func quietRunsWriteWhatLoudOnesDo() throws {
        var text = ""
        for i in 0..<4 {
            text += #"{"data":{"type":"a","id":"1","attributes":{"v":\#(i)},"x-unknown":\#(i)},"included":[{"type":"b","id":"\#(i % 2)","bad.name":1}]}"# + "\n"
        }
        let input = Data(text.utf8)
        for format in ["json", "ndjson", "edges"] {
            for policy in ["last", "first"] {
                let loud = try run(["normalize", "--format", format, "--on-duplicate", policy], stdin: input)
                let quiet = try run(["normalize", "--quiet", "--format", format, "--on-duplicate", policy], stdin: input)
                #expect(loud.status == 0 && quiet.status == 0)
                // (Lines under `last` are written again without looking: no duplicate warning.)
                let duplicatesWarned = format == "json" || policy == "first"
                #expect(loud.stderr.contains("appears again") == duplicatesWarned && loud.stderr.contains("[R14]"), "\(format) \(policy): \(loud.stderr)")
                #expect(quiet.stderr.isEmpty, "\(format) \(policy): \(quiet.stderr)")
                #expect(quiet.stdout == loud.stdout, "\(format) \(policy)")
            }
        }
    }

    /// A run that prints warnings words only the thousand it prints (the rest are counted):
    /// the printed ones are the input's first thousand, in order, and the count is whole.
    @Test func theFirstThousandWarningsArePrintedAndTheRestCounted() throws {
        var text = #"{"data":["#
        for i in 0..<1_500 { text += (i > 0 ? "," : "") + #"{"type":"articles","id":"\#(i)","x-extra":\#(i)}"# }
        text += "]}"
        let input = Data(text.utf8)
        for args in [["--format", "ndjson"], ["--format", "json"], ["--split-by-type", "-"], ["--workers", "2"]] {
            var arguments = ["normalize"] + args
            var directory: URL? = nil
            if args.first == "--split-by-type" {
                directory = FileManager.default.temporaryDirectory.appendingPathComponent("warnings-\(UUID().uuidString)")
                arguments = ["normalize", "--split-by-type", directory!.path]
            }
            defer { if let directory { try? FileManager.default.removeItem(at: directory) } }
            let r = try run(arguments, stdin: input)
            #expect(r.status == 0, "\(args): \(r.stderr)")
            var lines = r.stderr.split(separator: "\n").map(String.init)
            if directory != nil { lines.removeAll { $0.contains("type table") } }
            #expect(lines.count == 1_001, "\(args): \(lines.count) lines")
            for (k, line) in lines.prefix(1_000).enumerated() {
                #expect(line.hasPrefix("-:1:") && line.contains("[R14]") && line.hasSuffix("at /data/\(k)/x-extra)"), "\(args): \(line)")
            }
            #expect(lines.last == "jsonapi: warning: 500 more warnings not shown (1500 in all)", "\(args)")
        }
    }

    @Test func strictTurnsRuleViolationsIntoErrors() throws {
        let input = Data(#"{"data":{"type":"a","id":"1","attributes":{"bad.name":1}}}"#.utf8)
        let lenient = try run(["normalize"], stdin: input)
        #expect(lenient.status == 0)
        #expect(lenient.stderr.contains("-:1:44: warning: attribute name \"bad.name\": '.' is not allowed in member names [R38]"), "\(lenient.stderr)")
        let strict = try run(["normalize", "--strict"], stdin: input)
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("-:1:44: error: attribute name \"bad.name\""), "\(strict.stderr)")
        #expect(strict.stdout.isEmpty)
    }

    @Test func limitOptions() throws {
        let deep = try run(["normalize", "--max-depth", "3"], stdin: Data(#"{"data":{"type":"a","id":"1","attributes":{"x":[1]}}}"#.utf8))
        #expect(deep.status == 1 && deep.stderr.contains("[J05]"), "\(deep.stderr)")
        let long = try run(["normalize", "--max-string-bytes", "3"], stdin: Data(#"{"data":{"type":"a","id":"1234"}}"#.utf8))
        #expect(long.status == 1 && long.stderr.contains("[J06]"))
        let big = try run(["normalize", "--max-input-bytes", "10"], stdin: Data(#"{"data":null}      "#.utf8))
        #expect(big.status == 1 && big.stderr.contains("[J12]"))
        let many = try run(["normalize", "--max-resources", "1"], stdin: Data(#"{"data":[{"type":"a","id":"1"},{"type":"a","id":"2"}]}"#.utf8))
        #expect(many.status == 1 && many.stderr.contains("[J12]"))
        let bom = Data([0xEF, 0xBB, 0xBF] + Array(#"{"data":null}"#.utf8))
        #expect(try run(["normalize"], stdin: bom).status == 1)
        let stripped = try run(["normalize", "--bom", "strip"], stdin: bom)
        #expect(stripped.status == 0 && stripped.stderr.contains("[N02]"))
    }

    // MARK: - Exit codes and failures

    @Test func exitCodes() throws {
        #expect(try run(["normalize", "Corpus/documents/spec-compound.json"]).status == 0)
        let invalid = try run(["normalize"], stdin: Data("{\"data\":".utf8))
        #expect(invalid.status == 1)
        #expect(invalid.stderr.hasPrefix("-:1:9: error: the input ends inside 1 open container [J09] (byte 8, at /data)"), "\(invalid.stderr)")
        let missing = try run(["normalize", "/nonexistent/file.json"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("cannot open /nonexistent/file.json"))
        let usage = try run(["normalize", "--format", "xml"])
        #expect(usage.status == 2)
        let unknown = try run(["frobnicate"])
        #expect(unknown.status == 2)
        let badCombination = try run(["normalize", "--hash"])
        #expect(badCombination.status == 2)
        #expect(try run(["--help"]).status == 0)
        #expect(try run(["--version"]).status == 0)
    }

    @Test func outputFileIsAtomic() throws {
        let dir = try temporaryDirectory()
        let target = dir.appendingPathComponent("out.ndjson")
        // Success: the file appears whole.
        let ok = try run(["normalize", "--format", "ndjson", "-o", target.path, "Corpus/documents/spec-compound.json"])
        #expect(ok.status == 0 && ok.stdout.isEmpty)
        let written = try Data(contentsOf: target)
        #expect(written == (try run(["normalize", "--format", "ndjson", "Corpus/documents/spec-compound.json"])).stdout)
        // A failure after some output (the second input is cut off): the old file stays as it
        // was and no temporary file is left behind.
        let broken = dir.appendingPathComponent("broken.json")
        try Data(#"{"data":[{"type":"a","id":"1"},{"type":"a","id""#.utf8).write(to: broken)
        let failed = try run(["normalize", "--format", "ndjson", "-o", target.path, "Corpus/documents/spec-compound.json", broken.path])
        #expect(failed.status == 1)
        #expect(try Data(contentsOf: target) == written)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("tmp") }
        #expect(leftovers.isEmpty, "\(leftovers)")
        // A new target is not created at all.
        let fresh = dir.appendingPathComponent("fresh.ndjson")
        _ = try run(["normalize", "--format", "ndjson", "-o", fresh.path, broken.path])
        #expect(!FileManager.default.fileExists(atPath: fresh.path))
        // An output folder that does not exist is an I/O error.
        #expect(try run(["normalize", "-o", "/nonexistent/dir/out.json", "Corpus/documents/spec-compound.json"]).status == 2)
    }

    @Test func truncatedInputMidStreamWritesWholeLinesAndSaysHowMany() throws {
        let full = try run(["normalize", "--format", "ndjson", "--resources-only", "Corpus/documents/spec-compound.json"]).out
        let doc = try Data(contentsOf: repositoryRoot.appendingPathComponent("Corpus/documents/spec-compound.json"))
        // Cut inside the third included resource.
        let text = String(decoding: doc, as: UTF8.self)
        let cut = text.range(of: "I like XML")!.lowerBound
        let r = try run(["normalize", "--format", "ndjson", "--chunk-size", "5"], stdin: Data(text[..<cut].utf8))
        #expect(r.status == 1)
        #expect(r.out.hasSuffix("\n"))
        let lines = r.out.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(Array(full.split(separator: "\n").prefix(3)) == lines)
        #expect(r.stderr.contains("[J09]") && r.stderr.contains("3 records were written before the error"), "\(r.stderr)")
    }

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/full")))
    func writeErrorsAreIOErrors() throws {
        // Standard output that cannot take the bytes.
        let p = Process()
        p.executableURL = jsonapiBinary
        p.arguments = ["normalize", "Corpus/documents/spec-compound.json"]
        p.currentDirectoryURL = repositoryRoot
        p.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        let err = Pipe()
        p.standardError = err
        try p.run()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 2, "\(message)")
        #expect(message.contains("cannot write output"))
        // -o naming a device writes to it directly (no temporary file beside it).
        let r = try run(["normalize", "-o", "/dev/full", "Corpus/documents/spec-compound.json"])
        #expect(r.status == 2)
        #expect(FileManager.default.fileExists(atPath: "/dev/full"))
    }

    /// Resources the flat object cannot key apart: an error naming both, not a merge and not
    /// a member written twice; NDJSON keeps them all.
    @Test func flatJSONRefusesResourcesItCannotKeyApart() throws {
        let twoNew = Data(#"{"data":{"type":"a","attributes":{"x":1}}} {"data":{"type":"a","attributes":{"y":2}}}"#.utf8)
        let flat = try run(["normalize", "--context", "create", "-"], stdin: twoNew)
        #expect(flat.status == 1)
        #expect(flat.stdout.isEmpty)
        #expect(
            flat.stderr.contains(#"-:1:52: error: a second resource of type "a" without id or lid: flat JSON keys resources by id or lid and cannot hold both (NDJSON can) [N04]"#), "\(flat.stderr)")
        let lines = try run(["normalize", "--context", "create", "--format", "ndjson", "-"], stdin: twoNew)
        #expect(lines.status == 0)
        #expect(lines.out.split(separator: "\n").filter { $0.hasPrefix(#"{"type":"a""#) }.count == 2)

        // Found before anything is written, also when the output would be far past a
        // buffer: 20,000 resources first, the two without a key at the end.
        var many = #"{"data":["# + (0..<20_000).map { #"{"type":"a","id":"\#($0)","attributes":{"text":"some words to fill the line"}}"# }.joined(separator: ",")
        many += #",{"type":"b","attributes":{"x":1}},{"type":"b","attributes":{"y":2}}]}"#
        let late = try run(["normalize", "--context", "create", "-"], stdin: Data(many.utf8))
        #expect(late.status == 1)
        #expect(late.stdout.isEmpty, "\(late.stdout.count) bytes written before the error")
        #expect(late.stderr.contains(#"a second resource of type "b" without id or lid"#), "\(late.stderr)")

        let sameKey = Data(#"{"data":{"type":"a","lid":"x","relationships":{"r":{"data":{"type":"a","id":"x"}}}},"included":[{"type":"a","id":"x"}]}"#.utf8)
        let collision = try run(["normalize", "--context", "create", "-"], stdin: sameKey)
        #expect(collision.status == 1)
        #expect(collision.stderr.contains(#"error: resources (type "a", lid "x") and (type "a", id "x") would both be keyed "x" in flat JSON (NDJSON can hold both) [N04]"#), "\(collision.stderr)")
    }
}

extension Process {
    /// SHA-256 of `text` computed by Python's hashlib, an independent implementation.
    static func sha256(_ text: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import hashlib,sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())"]
        let input = Pipe()
        let out = Pipe()
        p.standardInput = input
        p.standardOutput = out
        try p.run()
        try input.fileHandleForWriting.write(contentsOf: Data(text.utf8))
        try input.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
