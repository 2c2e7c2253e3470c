import Foundation
import Testing

/// `normalize --type` and `--keep-fields` as a user runs them.
@Suite struct SelectionCLI {
    @Test func typeAndKeepFields() throws {
        let doc = "Corpus/documents/spec-compound.json"
        let r = try run(["normalize", "--format", "ndjson", "--type", "people", "--type", "articles", "--keep-fields", "articles=title,author", doc])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.out.split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix(#"{"type":"comments""#) }.isEmpty)
        let article = try #require(lines.first { $0.hasPrefix(#"{"type":"articles""#) })
        #expect(article.contains(#""attributes":{"title":"#) && !article.contains(#""comments":{"#), "\(article)")
        #expect(lines.contains { $0.hasPrefix(#"{"type":"people""#) })
        // --numbers safe says how many numbers it wrote as strings.
        let numbers = try run(["normalize", "--format", "ndjson", "--numbers", "safe", "-"], stdin: Data(#"{"data":{"type":"a","id":"1","attributes":{"n":9007199254740993,"m":1e400,"ok":2}}}"#.utf8))
        #expect(numbers.status == 0 && numbers.out.contains(#""n":"9007199254740993","m":"1e400","ok":2"#), "\(numbers.out)")
        #expect(numbers.stderr.contains("jsonapi: 2 numbers written as strings"), "\(numbers.stderr)")
        #expect(try run(["normalize", "--numbers", "rounded", doc]).status == 2)
        let bad = try run(["normalize", "--keep-fields", "articles", doc])
        #expect(bad.status == 2 && bad.stderr.contains("--keep-fields takes TYPE=NAME,NAME"), "\(bad.stderr)")
        let twice = try run(["normalize", "--keep-fields", "a=x", "--keep-fields", "a=y", doc])
        #expect(twice.status == 2 && twice.stderr.contains("names \"a\" twice"), "\(twice.stderr)")
    }
}
