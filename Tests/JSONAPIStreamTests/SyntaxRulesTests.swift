import CPlatform
import Testing
@testable import JSONAPIStream
@testable import JSONAPIBenchmarking

/// `SyntaxRules.isURIReference` skips the plain bytes after a link's first delimiter eight at
/// a time (CPlatform). It must answer as reading one byte at a time does.
struct SyntaxRulesTests {
    /// The byte-by-byte reading: allowed characters, `%` and two hex digits, one `#` at most,
    /// brackets only as `SyntaxRules.checkBrackets` allows, and a valid scheme before a colon
    /// that comes before any `/`, `?` or `#`.
    static func reference(_ bytes: [UInt8]) -> Bool {
        let allowed = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=%".utf8)
        func hex(_ c: UInt8) -> Bool { (c >= 48 && c <= 57) || ((c | 0x20) >= 97 && (c | 0x20) <= 102) }
        var i = 0
        var hashes = 0
        var firstDelimiter: Int? = nil
        while i < bytes.count {
            let c = bytes[i]
            guard allowed.contains(c) else { return false }
            if c == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, hex(bytes[i + 1]), hex(bytes[i + 2]) else { return false }
                i += 3
                continue
            }
            if c == UInt8(ascii: "#") { hashes += 1 }
            if firstDelimiter == nil && ":/?#".utf8.contains(c) { firstDelimiter = i }
            i += 1
        }
        if hashes > 1 { return false }
        if bytes.contains(where: { $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "]") }),
            !bytes.withUnsafeBytes({ SyntaxRules.checkBrackets($0) })
        {
            return false
        }
        if let d = firstDelimiter, bytes[d] == UInt8(ascii: ":") {
            guard d > 0 else { return false }
            for (k, c) in bytes[..<d].enumerated() {
                let alpha = (c | 0x20) >= 97 && (c | 0x20) <= 122
                if k == 0 && !alpha { return false }
                if !(alpha || (c >= 48 && c <= 57) || "+-.".utf8.contains(c)) { return false }
            }
        }
        return true
    }

    static func check(_ s: [UInt8]) -> Bool { s.withUnsafeBytes { SyntaxRules.isURIReference($0) } }

    @Test func knownAnswers() {
        let good = [
            "", "https://api.example.com/articles/1/relationships/author", "/articles?page[number]=2",
            "https://[::1]:8080/x", "a%2Fb#frag", "mailto:someone@example.com", "../up/one", "?q=a:b",
            "https://example.com/a/b/c/d/e/f/g/h/i/j/k%20l#x",
        ]
        let bad = [
            "https://example.com/a b", "https://example.com/%zz", "ht tp://x", "1http://x", "a#b#c",
            "https://example.com/ä", "https://example.com/path[1]", "https://example.com/abcdefgh%2", ":x",
            "https://example.com/abcdefghijklmnop\"q", "https://example.com/abcdefgh\\",
        ]
        for s in good { #expect(Self.check(Array(s.utf8)), "\(s)") }
        for s in bad { #expect(!Self.check(Array(s.utf8)), "\(s)") }
    }

    /// The plain run the check skips (`jsonapi_uri_plain_prefix`: by a table, or 32 bytes at a
    /// time by nibbles when the processor has AVX2): every byte value, at every place of runs of
    /// up to 100 plain bytes (the wide reader's whole blocks, and its last block overlapping
    /// them), ends the run exactly where it is unless it is plain.
    @Test func plainRunsEndAtTheFirstByteThatIsNot() {
        let plain = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?@!$&'()*+,;=".utf8)
        let filler = Array(String(repeating: "abcdefghijklmnopqrstuvwxyz0123456789-._~:/?@!$&'()*+,;=ABCDEFGHIJKLMNOPQRSTUVWXYZ", count: 2).utf8)
        var wrong: [String] = []
        for n in 0...100 {
            let run = Array(filler.prefix(n))
            let whole = run.withUnsafeBytes { jsonapi_uri_plain_prefix($0.baseAddress, $0.count) }
            if whole != n { wrong.append("\(n): all plain, \(whole)") }
            for k in 0..<n {
                for b in 0...255 {
                    var s = run
                    s[k] = UInt8(b)
                    let expected = plain.contains(UInt8(b)) ? n : k
                    let got = s.withUnsafeBytes { jsonapi_uri_plain_prefix($0.baseAddress, $0.count) }
                    if got != expected { wrong.append("\(n), byte \(b) at \(k): \(got), not \(expected)") }
                }
            }
        }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    /// Random strings over an alphabet heavy in delimiters and in what must be looked at, of up
    /// to 113 bytes (the plain runs' 32-byte blocks inside the whole check).
    @Test func agreesWithByteByByteReading() {
        var rng = SplitMix64(seed: 0x5EED_0F_0121)
        let alphabet = Array("abcXYZ019-._~:/?#[]@!$&'()*+,;=%%%  \"\\<>^`{|}".utf8) + [0x00, 0x7F, 0x80, 0xC3, 0xA4, 0xFF]
        let prefixes = ["", "https://", "https://api.example.com/", "/a/", "x:", "1:", "?"].map { Array($0.utf8) }
        var disagreements: [String] = []
        for _ in 0..<20_000 {
            var s = prefixes[Int(rng.next() % UInt64(prefixes.count))]
            let n = Int(rng.next() % 90)
            for _ in 0..<n {
                // Mostly plain letters, so that runs of eight and more occur.
                s.append(rng.next() % 3 == 0 ? alphabet[Int(rng.next() % UInt64(alphabet.count))] : UInt8(ascii: "a") + UInt8(rng.next() % 26))
            }
            if Self.check(s) != Self.reference(s) {
                disagreements.append(String(decoding: s, as: UTF8.self))
            }
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5))")
    }
}

/// The cache of names already found valid: exact (kind, length, bytes), every name kept until
/// it is full, and bounded.
struct NameCacheTests {
    static func with<R>(_ s: String, _ body: (UnsafeRawBufferPointer, UInt64) -> R) -> R {
        Array(s.utf8).withUnsafeBytes { body($0, ShortName.prefix($0)) }
    }

    @Test func keepsEveryNameUntilFull() {
        var cache = NameCache()
        // The generated documents' names, which thrashed the old direct-mapped table, and more.
        let names =
            [
                "articles", "people", "comments", "tags", "title", "body", "summary", "quote", "views",
                "rating", "score", "published", "publishedAt", "deletedAt", "tags-list", "dimensions",
                "author", "width", "height", "ratio", "name", "twitter", "a", "ab", "exactly16bytes!!",
            ]
            + (0..<400).map { "name-\($0)" }
        for n in names { Self.with(n) { cache.insert($0, prefix: $1, kind: 1) } }
        for n in names { #expect(Self.with(n) { cache.contains($0, prefix: $1, kind: 1) }, "\(n)") }
        // Another kind, a longer or shorter name, a name sharing 16 bytes of a longer one: no.
        for n in ["articles", "title"] { #expect(!Self.with(n) { cache.contains($0, prefix: $1, kind: 0) }) }
        for n in ["article", "articless", "name-4000", "exactly16bytes!!x", ""] {
            #expect(!Self.with(n) { cache.contains($0, prefix: $1, kind: 1) }, "\(n)")
        }
    }

    @Test func stopsTakingNamesWhenFull() {
        var cache = NameCache()
        for i in 0..<5_000 { Self.with("n\(i)") { cache.insert($0, prefix: $1, kind: 0) } }
        let kept = (0..<5_000).filter { i in Self.with("n\(i)") { cache.contains($0, prefix: $1, kind: 0) } }
        #expect(kept.count == 512)
        #expect(kept == Array(0..<512))
    }
}
