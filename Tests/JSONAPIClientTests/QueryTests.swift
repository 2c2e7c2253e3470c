import Foundation
import JSONAPIStream
import Testing
@testable import JSONAPIClient

/// The query builder and its percent-encoding, without a server.
struct QueryTests {
    @Test func bracketsAndReservedCharactersAreEncoded() {
        #expect(QueryEncoding.encode("fields[articles]") == "fields%5Barticles%5D")
        #expect(QueryEncoding.encode("a&b=c+d #e%f;g,h") == "a%26b%3Dc%2Bd%20%23e%25f%3Bg%2Ch")
        #expect(QueryEncoding.encode("東京 🚲") == "%E6%9D%B1%E4%BA%AC%20%F0%9F%9A%B2")
        #expect(QueryEncoding.encode("AZaz09-._~!$'()*:@/?") == "AZaz09-._~!$'()*:@/?")
        #expect(QueryEncoding.encode("\"<>\\^`{|}\u{7F}\n") == "%22%3C%3E%5C%5E%60%7B%7C%7D%7F%0A")
    }

    @Test(arguments: ["plain", "fields[articles]", "a&b=c+d #1%[x] 東京,y", "", "%", "🚲\u{0}\t\"\\", "100%25"])
    func decodingUndoesEncoding(_ text: String) throws {
        #expect(QueryEncoding.decode(Substring(QueryEncoding.encode(text))) == text)
    }

    @Test func malformedPercentEscapesDoNotDecode() {
        #expect(QueryEncoding.decode("%") == nil)
        #expect(QueryEncoding.decode("%4") == nil)
        #expect(QueryEncoding.decode("%zz") == nil)
        #expect(QueryEncoding.decode("%FF") == nil)  // not UTF-8
        #expect(QueryEncoding.decode("a+b") == "a+b")
    }

    @Test func theDocumentedExample() {
        let query = JSONAPIQuery()
            .including("author", "comments.author")
            .fields("articles", "title", "author")
            .filter("rating", op: "gte", "4")
            .sorted(by: "-published_at", "title")
            .page(.number(1, size: 100))
        #expect(
            query.percentEncodedQuery == "include=author,comments.author&fields%5Barticles%5D=title,author&filter%5Brating%5D%5Bgte%5D=4&sort=-published_at,title&page%5Bnumber%5D=1&page%5Bsize%5D=100"
        )
        #expect(
            query.items.map(\.description) == [
                "include=author,comments.author", "fields[articles]=title,author", "filter[rating][gte]=4",
                "sort=-published_at,title", "page[number]=1", "page[size]=100",
            ])
    }

    @Test func fieldsetsReplaceByTypeAndKeepOrder() {
        var query = JSONAPIQuery().fields("articles", "title").fields("people", "name")
        query.setFields("articles", ["body"])
        #expect(query.percentEncodedQuery == "fields%5Barticles%5D=body&fields%5Bpeople%5D=name")
        #expect(JSONAPIQuery().fields("articles").percentEncodedQuery == "fields%5Barticles%5D=")
    }

    @Test func filterStrategies() {
        let f = Filter("rating", op: "gte", "4")
        #expect(JSONAPIQuery().filter(f).percentEncodedQuery == "filter%5Brating%5D%5Bgte%5D=4")
        #expect(JSONAPIQuery().filter(f).filterStrategy(.dotted).percentEncodedQuery == "filter%5Brating.gte%5D=4")
        #expect(JSONAPIQuery().filter("id", "1", "2", "3").percentEncodedQuery == "filter%5Bid%5D=1,2,3")
        let custom = FilterStrategy.custom { f in
            [QueryItem("q", "\(f.field)\(f.op.map { ":" + $0 } ?? ""):\(f.values.joined(separator: "|"))")]
        }
        #expect(JSONAPIQuery().filter(f).filterStrategy(custom).percentEncodedQuery == "q=rating:gte:4")
    }

    @Test func commasInsideValuesAreEncodedCommasBetweenThemAreNot() {
        let query = JSONAPIQuery().filter(Filter("name", ["a,b", "c"])).sorted(by: "x")
        #expect(query.percentEncodedQuery == "filter%5Bname%5D=a%2Cb,c&sort=x")
        #expect(query.items.first?.value == "a,b,c")
    }

    @Test func pageStrategies() {
        #expect(JSONAPIQuery().page(.number(3, size: 50)).percentEncodedQuery == "page%5Bnumber%5D=3&page%5Bsize%5D=50")
        #expect(JSONAPIQuery().page(.number(2)).percentEncodedQuery == "page%5Bnumber%5D=2")
        #expect(JSONAPIQuery().page(.offset(200, limit: 100)).percentEncodedQuery == "page%5Boffset%5D=200&page%5Blimit%5D=100")
        #expect(JSONAPIQuery().page(.cursor("cD0y==", size: 10)).percentEncodedQuery == "page%5Bcursor%5D=cD0y%3D%3D&page%5Bsize%5D=10")
        #expect(JSONAPIQuery().page(.cursor(nil, size: 10)).percentEncodedQuery == "page%5Bsize%5D=10")
        #expect(JSONAPIQuery().page(.custom([QueryItem("page[after]", "x")])).percentEncodedQuery == "page%5Bafter%5D=x")
        #expect(PageRequest.first(.offset, size: 25) == .offset(0, limit: 25))
        #expect(PageRequest.first(.number, size: 25) == .number(1, size: 25))
        #expect(PageRequest.first(.cursor, size: 25) == .cursor(nil, size: 25))
    }

    @Test func otherParametersComeLast() {
        let query = JSONAPIQuery().parameter("api_key", "a b").including("x")
        #expect(query.percentEncodedQuery == "include=x&api_key=a%20b")
    }

    @Test func appliedKeepsTheURLsOwnQuery() throws {
        let base = try #require(URL(string: "http://127.0.0.1:8000/articles?x=1"))
        let url = JSONAPIQuery().including("author").applied(to: base)
        #expect(url.absoluteString == "http://127.0.0.1:8000/articles?x=1&include=author")
        let bare = try #require(URL(string: "http://127.0.0.1:8000/articles"))
        #expect(JSONAPIQuery().applied(to: bare) == bare)
        #expect(JSONAPIQuery().fields("a", "b").applied(to: bare).absoluteString == "http://127.0.0.1:8000/articles?fields%5Ba%5D=b")
    }

    @Test func clientURLsResolveAgainstTheBase() throws {
        let client = JSONAPIClient(baseURL: try #require(URL(string: "http://h:1/api")))
        #expect(try client.url("articles").absoluteString == "http://h:1/api/articles")
        #expect(try client.url(type: "articles", id: "a/b c").absoluteString == "http://h:1/api/articles/a%2Fb%20c")
        #expect(try client.url(type: "tags", query: JSONAPIQuery().sorted(by: "name")).absoluteString == "http://h:1/api/tags?sort=name")
        #expect(try client.url("http://other/x").absoluteString == "http://other/x")
    }
}

/// Retry-After, backoff, page prediction and error objects.
struct TransportUnitTests {
    @Test func retryAfterInSecondsAndAsAnHTTPDate() throws {
        #expect(RetryAfter.seconds("3") == 3)
        #expect(RetryAfter.seconds(" 0 ") == 0)
        let now = try #require(ISO8601DateFormatter().date(from: "2026-11-22T10:00:00Z"))
        #expect(RetryAfter.seconds("Sun, 22 Nov 2026 10:00:05 GMT", now: now) == 5)
        #expect(RetryAfter.seconds("Sunday, 22-Nov-26 10:00:07 GMT", now: now) == 7)
        #expect(RetryAfter.seconds("Sun Nov 22 10:00:09 2026", now: now) == 9)
        #expect(RetryAfter.seconds("Sun, 22 Nov 2026 09:00:00 GMT", now: now) == 0)
        #expect(RetryAfter.seconds("soon") == nil)
        #expect(RetryAfter.seconds("-1") == nil)
    }

    @Test func backoffGrowsWithJitterAndIsCapped() {
        let policy = RetryPolicy(baseDelay: 1, maxDelay: 5)
        for _ in 0..<50 {
            #expect((0.5...1).contains(policy.backoff(afterAttempt: 1)))
            #expect((1...2).contains(policy.backoff(afterAttempt: 2)))
            #expect((2...4).contains(policy.backoff(afterAttempt: 3)))
            #expect((2.5...5).contains(policy.backoff(afterAttempt: 10)))
        }
    }

    @Test func writesAreRetriedOnlyWhenNotProcessed() {
        let policy = RetryPolicy()
        #expect(policy.retries(status: 503, method: "GET"))
        #expect(policy.retries(status: 500, method: "DELETE"))
        #expect(policy.retries(status: 429, method: "POST"))
        #expect(policy.retries(status: 503, method: "PATCH"))
        #expect(!policy.retries(status: 500, method: "POST"))
        #expect(!policy.retries(status: 404, method: "GET"))
        #expect(!policy.retriesTransport(method: "POST"))
        #expect(policy.retriesTransport(method: "GET"))
    }

    @Test func pageNumbersArePredictedUpToTheLastPage() throws {
        let current = try #require(URL(string: "http://h/articles?page%5Bnumber%5D=1&page%5Bsize%5D=10&include=author"))
        let next = try #require(URL(string: "http://h/articles?include=author&page%5Bnumber%5D=2&page%5Bsize%5D=10"))
        let last = try #require(URL(string: "http://h/articles?include=author&page%5Bnumber%5D=4&page%5Bsize%5D=10"))
        let p = try #require(PagePredictor(current: current, next: next, last: last))
        #expect(p.url(after: 0).map { sameRequest($0, next) } == true)
        #expect(p.url(after: 2).map { sameRequest($0, last) } == true)
        #expect(p.url(after: 3) == nil)
        #expect(p.url(after: Int.max) == nil)
    }

    @Test func offsetsArePredictedWithTheirStep() throws {
        let current = try #require(URL(string: "http://h/comments?page%5Blimit%5D=100&page%5Boffset%5D=0"))
        let next = try #require(URL(string: "http://h/comments?page%5Blimit%5D=100&page%5Boffset%5D=100"))
        let last = try #require(URL(string: "http://h/comments?page%5Blimit%5D=100&page%5Boffset%5D=500"))
        let p = try #require(PagePredictor(current: current, next: next, last: last))
        let third = try #require(p.url(after: 2))
        #expect(sameRequest(third, try #require(URL(string: "http://h/comments?page%5Boffset%5D=300&page%5Blimit%5D=100"))))
    }

    @Test func cursorsAndLinksWithoutLastAreNotPredicted() throws {
        let a = try #require(URL(string: "http://h/authors?page%5Bsize%5D=2"))
        let b = try #require(URL(string: "http://h/authors?page%5Bcursor%5D=cD0y&page%5Bsize%5D=2"))
        #expect(PagePredictor(current: a, next: b, last: nil) == nil)
        let c = try #require(URL(string: "http://h/authors?page%5Bcursor%5D=cD00&page%5Bsize%5D=2"))
        #expect(PagePredictor(current: b, next: c, last: c) == nil)
        let n1 = try #require(URL(string: "http://h/a?page%5Bnumber%5D=1"))
        let n2 = try #require(URL(string: "http://h/a?page%5Bnumber%5D=2"))
        #expect(PagePredictor(current: n1, next: n2, last: nil) == nil)
        let elsewhere = try #require(URL(string: "http://h/b?page%5Bnumber%5D=2"))
        #expect(PagePredictor(current: n1, next: elsewhere, last: elsewhere) == nil)
    }

    @Test func requestsCompareDecodedAndInAnyOrder() throws {
        let a = try #require(URL(string: "http://h/x?include=a,b&sort=c"))
        let b = try #require(URL(string: "http://H/x?sort=c&include=a%2Cb"))
        #expect(sameRequest(a, b))
        #expect(!sameRequest(a, try #require(URL(string: "http://h/x?include=a,b"))))
        #expect(!sameRequest(a, try #require(URL(string: "http://h/y?include=a,b&sort=c"))))
    }

    @Test func errorObjectsKeepTheirMembers() throws {
        let body = Array(
            #"{"errors":[{"id":"e1","status":"422","code":"too_short","title":"Invalid","detail":"Title is too short","source":{"pointer":"/data/attributes/title"},"links":{"about":{"href":"http://h/e"}},"meta":{"min":3}},{"status":500,"source":{"parameter":"include"}}]}"#
                .utf8)
        let errors = try #require(ErrorObject.parseDocument(body))
        #expect(errors.count == 2)
        #expect(errors[0].id == "e1")
        #expect(errors[0].status == "422")
        #expect(errors[0].code == "too_short")
        #expect(errors[0].title == "Invalid")
        #expect(errors[0].detail == "Title is too short")
        #expect(errors[0].sourcePointer == "/data/attributes/title")
        #expect(errors[0].aboutLink == "http://h/e")
        #expect(errors[0].meta?["min"]?.numberValue?.intValue == 3)
        #expect(errors[0].description == "422 too_short: Invalid: Title is too short (at /data/attributes/title)")
        #expect(errors[1].status == "500")
        #expect(errors[1].sourceParameter == "include")
        #expect(ErrorObject.parseDocument(Array("<html>".utf8)) == nil)
        #expect(ErrorObject.parseDocument(Array(#"{"data":null}"#.utf8)) == nil)
    }
}

/// The parsers' top-level records (`links.next` of each page before the input ends).
struct DocumentTopLevelTests {
    static let page1 = #"{"data":[{"type":"a","id":"1"}],"links":{"next":"http://h/a?page=2","last":{"href":"http://h/a?page=3"}},"meta":{"count":3}}"#
    static let page2 = #"{"data":[{"type":"a","id":"2"}],"links":{"next":null}}"#

    @Test func graphParserKeepsTheLastDocumentsLinks() throws {
        let parser = GraphParser()
        try parser.beginDocument(named: "page 1")
        for b in Array(Self.page1.utf8) { try parser.feed([b]) }
        let first = try #require(try parser.endDocument())
        #expect(first.index == 0)
        #expect(first.link("next") == "http://h/a?page=2")
        #expect(first.link("last") == "http://h/a?page=3")
        #expect(first.meta?["count"]?.numberValue?.intValue == 3)
        try parser.beginDocument(named: "page 2")
        try parser.feed(Array(Self.page2.utf8))
        let second = try #require(try parser.endDocument())
        #expect(second.index == 1)
        #expect(second.link("next") == nil)
        #expect(second.meta == nil)
        let graph = try parser.finish()
        #expect(graph.primary.map { $0.id ?? "" } == ["1", "2"])
    }

    @Test func normalizerKeepsTheLastDocumentsLinks() throws {
        let out = ByteWriter()
        let normalizer = Normalizer(format: .ndjson, out: out)
        try normalizer.beginDocument(named: "page 1")
        try Array(Self.page1.utf8).withUnsafeBytes { try normalizer.feed($0) }
        #expect(try normalizer.endDocument()?.link("next") == "http://h/a?page=2")
        try normalizer.finish()
        #expect(out.string.split(separator: "\n").count == 2)
    }

    @Test func recordingIsOffByDefault() throws {
        let parser = GraphParser()
        try parser.feed(Array(Self.page1.utf8))
        try parser.endInput()
        #expect(parser.lastDocument == nil)
    }
}
