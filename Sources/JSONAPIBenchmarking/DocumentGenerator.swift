import JSONAPIStream
/// Writes large, realistic, deterministic JSON:API compound documents: the same parameters
/// give the same bytes, at any size, streamed out in bounded memory.
///
/// Primary data are `articles` with string, number (integers, decimals, a 30-digit integer,
/// exponents, `-0`), Unicode, escaped, nested, boolean and null attributes, links and meta;
/// each has a to-one `author` (with links), a to-many `comments` (with identifier meta) and
/// a to-many `tags`. `included` holds each referenced person, comment and tag once: people
/// and tags come from small pools, so they are referenced many times.
public struct DocumentGenerator: Sendable {
    /// Primary resources (articles) to write.
    public var resources: Int
    /// The seed: the same seed and sizes give the same bytes.
    public var seed: UInt64
    /// Comments per article (each one an included resource).
    public var includedPerResource: Int
    /// Whether to indent the output.
    public var pretty: Bool
    /// Documents to write, one per line, as pages of a crawl: the articles are shared out in
    /// order (ids go on from page to page), each page includes what it references, and people
    /// and tags recur from page to page (the same resources in several documents).
    public var documents: Int = 1
    /// Articles of the page being written (the pools are sized by it).
    private var pageResources: Int? = nil

    /// A generator of `resources` articles, each with `includedPerResource` included comments.
    public init(resources: Int, seed: UInt64 = 1, includedPerResource: Int = 2, pretty: Bool = false, documents: Int = 1) {
        self.resources = resources
        self.seed = seed
        self.includedPerResource = includedPerResource
        self.pretty = pretty
        self.documents = documents
    }

    /// Size of the people pool.
    var people: Int { max(1, (pageResources ?? resources) / 10) }
    /// Size of the tag pool.
    var tags: Int { max(1, min(200, (pageResources ?? resources) / 5)) }

    /// Writes the document (or ``documents`` of them) to `writer`, one record per resource
    /// (the writer flushes between resources, so memory stays bounded).
    public func write(to writer: ByteWriter) throws(JSONAPIError) {
        var rng = SplitMix64(seed: seed)
        let pages = max(1, documents)
        for k in 0..<pages {
            var page = self
            let articles = resources * k / pages..<resources * (k + 1) / pages
            page.pageResources = articles.count
            try page.writeDocument(articles, page: k + 1, last: pages > 1 && k == pages - 1, writer, &rng)
        }
        try writer.flush()
    }

    /// One document: the articles `articles`, page `page` of the crawl.
    private func writeDocument(_ articles: Range<Int>, page: Int, last: Bool, _ writer: ByteWriter, _ rng: inout SplitMix64) throws(JSONAPIError) {
        let count = articles.count
        var w = JSONTextBuilder(writer: writer, pretty: pretty)
        w.open("{")
        w.key("jsonapi"); w.raw(#"{"version":"1.1"}"#)
        w.key("meta")
        w.open("{")
        w.key("total"); w.raw(String(resources))
        w.key("generator"); w.string("jsonapi generate")
        w.key("seed"); w.raw(String(seed))
        w.close("}")
        w.key("links")
        w.open("{")
        w.key("self"); w.string("https://api.example.com/articles?page[number]=\(page)")
        if !last { w.key("next"); w.string("https://api.example.com/articles?page[number]=\(page + 1)") }
        w.close("}")
        w.key("data")
        w.open("[")
        for i in articles {
            writeArticle(i, &w, &rng)
            try writer.endRecord()
        }
        w.close("]")
        w.key("included")
        w.open("[")
        for p in 0..<(count == 0 ? 0 : people) {
            writePerson(p, &w, &rng)
            try writer.endRecord()
        }
        for t in 0..<(count == 0 ? 0 : tags) {
            w.element()
            w.open("{")
            w.typeAndID("tags", "t\(t)")
            w.key("attributes")
            w.open("{")
            w.key("label"); w.string(words[t % words.count] + "-\(t)")
            w.close("}")
            w.close("}")
        }
        for i in articles {
            for c in 0..<includedPerResource {
                writeComment(article: i, index: c, &w, &rng)
            }
            try writer.endRecord()
        }
        w.close("]")
        w.close("}")
        w.newline()
        // Pages of a dump: one per line.
        if documents > 1 { writer.write(byte: 0x0A) }
        try writer.endRecord()
    }

    private func writeArticle(_ i: Int, _ w: inout JSONTextBuilder, _ rng: inout SplitMix64) {
        w.element()
        w.open("{")
        w.typeAndID("articles", String(i + 1))
        w.key("attributes")
        w.open("{")
        w.key("title"); w.string(sentence(&rng, words: 4 + Int(rng.next() % 6)))
        w.key("body"); w.string(paragraph(&rng))
        w.key("summary"); w.string(unicodeSamples[Int(rng.next() % UInt64(unicodeSamples.count))])
        w.key("quote"); w.raw(escapedSamples[Int(rng.next() % UInt64(escapedSamples.count))])
        w.key("views"); w.raw(String(rng.next() % 1_000_000))
        w.key("rating"); w.raw("\(rng.next() % 5).\(rng.next() % 100)")
        w.key("score"); w.raw(numberSamples[i % numberSamples.count])
        w.key("published"); w.raw(rng.next() % 3 == 0 ? "false" : "true")
        w.key("publishedAt"); w.string("2026-\(pad2(1 + Int(rng.next() % 12)))-\(pad2(1 + Int(rng.next() % 28)))T\(pad2(Int(rng.next() % 24))):\(pad2(Int(rng.next() % 60))):00Z")
        w.key("deletedAt"); w.raw("null")
        w.key("tags-list")
        w.open("[")
        for _ in 0..<(1 + Int(rng.next() % 3)) { w.element(); w.string(words[Int(rng.next() % UInt64(words.count))]) }
        w.close("]")
        w.key("dimensions")
        w.open("{")
        w.key("width"); w.raw("\(100 + rng.next() % 900)")
        w.key("height"); w.raw("\(rng.next() % 100).5")
        w.key("ratio"); w.raw("1.25e-3")
        w.close("}")
        w.close("}")
        w.key("relationships")
        w.open("{")
        // Every person and tag is reached from primary data (full linkage, R23).
        let author = i < people ? i : Int(rng.next() % UInt64(people))
        w.key("author")
        w.open("{")
        w.key("links")
        w.open("{")
        w.key("self"); w.string("https://api.example.com/articles/\(i + 1)/relationships/author")
        w.key("related"); w.string("https://api.example.com/articles/\(i + 1)/author")
        w.close("}")
        w.key("data")
        w.open("{")
        w.typeAndID("people", "p\(author)")
        w.close("}")
        w.close("}")
        w.key("comments")
        w.open("{")
        w.key("meta"); w.raw("{\"count\":\(includedPerResource)}")
        w.key("data")
        w.open("[")
        for c in 0..<includedPerResource {
            w.element()
            w.open("{")
            w.typeAndID("comments", "c\(i + 1)-\(c)")
            w.key("meta"); w.raw("{\"position\":\(c)}")
            w.close("}")
        }
        w.close("]")
        w.close("}")
        w.key("tags")
        w.open("{")
        w.key("data")
        w.open("[")
        let firstTag = i % tags
        let tagIDs = tags > 1 && rng.next() % 2 == 0 ? [firstTag, (firstTag + 1 + Int(rng.next() % UInt64(tags - 1))) % tags] : [firstTag]
        for t in tagIDs {
            w.element()
            w.open("{")
            w.typeAndID("tags", "t\(t)")
            w.close("}")
        }
        w.close("]")
        w.close("}")
        w.close("}")
        w.selfLink("https://api.example.com/articles/\(i + 1)")
        w.key("meta")
        w.open("{")
        w.key("revision"); w.raw(String(1 + rng.next() % 20))
        w.close("}")
        w.close("}")
    }

    private func writePerson(_ p: Int, _ w: inout JSONTextBuilder, _ rng: inout SplitMix64) {
        w.element()
        w.open("{")
        w.typeAndID("people", "p\(p)")
        w.key("attributes")
        w.open("{")
        w.key("first-name"); w.string(firstNames[p % firstNames.count])
        w.key("last-name"); w.string(lastNames[(p / firstNames.count) % lastNames.count])
        w.key("email"); w.string("person\(p)@example.com")
        w.key("age"); w.raw(String(18 + rng.next() % 70))
        w.close("}")
        w.selfLink("https://api.example.com/people/p\(p)")
        w.close("}")
    }

    private func writeComment(article i: Int, index c: Int, _ w: inout JSONTextBuilder, _ rng: inout SplitMix64) {
        w.element()
        w.open("{")
        w.typeAndID("comments", "c\(i + 1)-\(c)")
        w.key("attributes")
        w.open("{")
        w.key("body"); w.string(sentence(&rng, words: 6 + Int(rng.next() % 12)))
        w.key("likes"); w.raw(String(rng.next() % 500))
        w.close("}")
        w.key("relationships")
        w.open("{")
        w.toOne("author", "people", "p\(rng.next() % UInt64(people))")
        w.toOne("article", "articles", String(i + 1))
        w.close("}")
        w.close("}")
    }

    private func sentence(_ rng: inout SplitMix64, words n: Int) -> String {
        var s = ""
        for k in 0..<n {
            if k > 0 { s += " " }
            s += words[Int(rng.next() % UInt64(words.count))]
        }
        return s.prefix(1).uppercased() + s.dropFirst() + "."
    }

    private func paragraph(_ rng: inout SplitMix64) -> String {
        var s = ""
        for k in 0..<(2 + Int(rng.next() % 4)) {
            if k > 0 { s += " " }
            s += sentence(&rng, words: 8 + Int(rng.next() % 10))
        }
        return s
    }
}

private func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }

private let words = [
    "lorem", "ipsum", "dolor", "sit", "amet", "consectetur", "adipiscing", "elit", "sed", "do",
    "eiusmod", "tempor", "incididunt", "ut", "labore", "et", "dolore", "magna", "aliqua", "enim",
    "minim", "veniam", "quis", "nostrud", "exercitation", "ullamco", "laboris", "nisi", "aliquip",
    "commodo", "consequat", "duis", "aute", "irure", "reprehenderit", "voluptate", "velit", "esse",
]
private let firstNames = ["Ada", "Grace", "Linus", "Barbara", "Dennis", "Frances", "Ken", "Margaret", "Edsger", "Radia", "José", "Zoë", "Björn", "Chloé"]
private let lastNames = ["Lovelace", "Hopper", "Torvalds", "Liskov", "Ritchie", "Allen", "Thompson", "Hamilton", "Dijkstra", "Perlman", "Núñez", "Østergaard"]
private let unicodeSamples = [
    "Café crème for €3.50", "東京で会いましょう", "Ünïcödé ñame — “quoted”", "Привет, мир", "emoji 🚲🎉 and more",
    "Ελληνικά κείμενα", "שלום עולם", "mixed ASCII and 中文", "plain ascii summary text",
]
private let escapedSamples = [
    #""He said \"hello\" and left""#, #""path\\to\\file""#, #""line one\nline two\ttabbed""#,
    #""\u00e9t\u00e9 \u2014 escaped \ud83d\ude00""#, #""slash \/ and control \u0001""#,
]
private let numberSamples = ["0", "-0", "42", "-17", "3.14159", "1.10", "2.5e10", "-1E-7", "123456789012345678901234567890", "9007199254740993", "1e400", "0.1"]

/// A small deterministic generator (SplitMix64).
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Writes JSON text with commas and (optionally) indentation handled.
struct JSONTextBuilder {
    let writer: ByteWriter
    let pretty: Bool
    private var needComma = false
    private var depth = 0
    private var afterKey = false

    init(writer: ByteWriter, pretty: Bool) {
        self.writer = writer
        self.pretty = pretty
    }

    private mutating func separate() {
        if afterKey { afterKey = false; return }
        if needComma { writer.write(byte: UInt8(ascii: ",")) }
        if pretty && depth > 0 { newline() }
    }

    mutating func newline() {
        guard pretty else { return }
        writer.write(byte: 0x0A)
        for _ in 0..<depth { writer.write("  ") }
    }

    mutating func element() {}

    mutating func open(_ bracket: StaticString) {
        separate()
        writer.write(bracket)
        depth += 1
        needComma = false
    }

    mutating func close(_ bracket: StaticString) {
        depth -= 1
        if pretty && needComma { newline() }
        writer.write(bracket)
        needComma = true
    }

    mutating func key(_ name: String) {
        separate()
        writer.writeQuoted(name)
        writer.write(pretty ? ": " : ":")
        afterKey = true
        needComma = true
    }

    mutating func string(_ s: String) {
        separate()
        writer.writeQuoted(s)
        needComma = true
    }

    mutating func raw(_ text: String) {
        separate()
        writer.write(text)
        needComma = true
    }

    /// `"type":…,"id":…` in the open object.
    mutating func typeAndID(_ type: String, _ id: String) {
        key("type")
        string(type)
        key("id")
        string(id)
    }

    /// `"name":{"data":{"type":…,"id":…}}`: a to-one relationship's member.
    mutating func toOne(_ name: String, _ type: String, _ id: String) {
        key(name)
        open("{")
        key("data")
        open("{")
        typeAndID(type, id)
        close("}")
        close("}")
    }

    /// `"links":{"self":…}`.
    mutating func selfLink(_ url: String) {
        key("links")
        open("{")
        key("self")
        string(url)
        close("}")
    }
}
