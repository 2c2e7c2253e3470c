import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIClient
import JSONAPIStream
import Testing

/// The README's client snippets (the client, transports, preparers, Spine's conveniences and
/// the cache) are compiled here as written there: `snippetsStayCompiled` checks that every
/// line of those README blocks is a line of this file, so neither can change without the
/// other. They are compiled, not run: they talk to `https://api.example.com/`.
@Suite struct ReadmeClientExamples {
    /// Stand-ins for what the snippets take from the app around them.
    struct Session: Sendable { func accessToken() async throws -> String { "token" } }
    static let session = Session()
    static let cachesURL = FileManager.default.temporaryDirectory

    /// The README's blocks, in order (never called).
    static func theClient() async throws -> Graph {
        let client = JSONAPIClient(baseURL: URL(string: "https://api.example.com/")!)
        let query = JSONAPIQuery()
            .including("author")
            .fields("articles", "title", "author")
            .filter("published", "true")
            .sorted(by: "-created")
            .page(.number(1, size: 100))
        let graph = try await client.graph("articles", query: query, pages: .all())
        return graph
    }

    static func transports() {
        var configuration = JSONAPIClient.Configuration()
        configuration.resourceTimeout = 300
        configuration.tls.pinnedPublicKeys = ["api.example.com": "sha256//AbC…=;sha256//backup…="]
        let client = JSONAPIClient(baseURL: URL(string: "https://api.example.com/")!, configuration: configuration)

        // Tests: answers from memory, no server.
        var test = JSONAPIClient.Configuration()
        test.transport = InMemoryTransport { request in
            .init(status: 200, headers: ["Content-Type": "application/vnd.api+json"], body: Array(#"{"data":[]}"#.utf8))
        }
        _ = (client, test)
    }

    static func preparers() {
        let session = Self.session
        var configuration = JSONAPIClient.Configuration()
        configuration.defaults = RequestDefaults(queryItems: [QueryItem("api_version", "2")])
        configuration.requestPreparers = [.bearerToken { try await session.accessToken() }]
        configuration.responseProcessors = [
            ResponseProcessor("maintenance") { response, _ in
                response.headers["x-maintenance"] == "1" ? .retry(after: 30) : .proceed(response)
            }
        ]
    }

    static func conveniences(_ client: JSONAPIClient, _ graph: Graph) async throws {
        let three = try await client.resources(type: "articles", ids: ["5", "3", "1"])
        let page2 = try await client.nextPage(after: graph)  // nil after the last page
        let author = try await client.load(type: "people", id: "9")  // a request the first time only
        _ = (three, page2, author)
    }

    static func caching(_ client: JSONAPIClient) async throws {
        let cachesURL = Self.cachesURL
        var configuration = JSONAPIClient.Configuration()
        configuration.cache = try ResponseCache(directory: cachesURL.appendingPathComponent("api"), maxBytes: 256 << 20)
        configuration.cacheKey = { request in request.url?.absoluteString.replacingOccurrences(of: "&trace=1", with: "") }
        let latest = try await JSONAPIClient.withCachePolicy(.bypassCache) { try await client.graph("articles") }
        _ = (configuration, latest)
    }

    @Test func snippetsStayCompiled() throws {
        let readme = try String(contentsOf: TestServer.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let source = Self.code(try String(contentsOfFile: #filePath, encoding: .utf8))
        let firstLines = [
            "let client = JSONAPIClient(baseURL: URL(string: \"https://api.example.com/\")!)",
            "var configuration = JSONAPIClient.Configuration()",
            "configuration.defaults = RequestDefaults(queryItems: [QueryItem(\"api_version\", \"2\")])",
            "let three = try await client.resources(type: \"articles\", ids: [\"5\", \"3\", \"1\"])",
            "configuration.cache = try ResponseCache(directory: cachesURL.appendingPathComponent(\"api\"), maxBytes: 256 << 20)",
        ]
        let blocks = readme.components(separatedBy: "```swift\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
        for first in firstLines {
            let block = try #require(blocks.first { $0.hasPrefix(first) || $0.contains("\n" + first) }, "\(first)")
            let lines = block.split(separator: "\n").filter { !$0.hasPrefix("import ") }
            // Whole statements, laid out as the formatter likes: compared without spaces and
            // comments.
            for line in lines {
                let code = Self.code(String(line))
                #expect(code.isEmpty || source.contains(code), "README line not compiled here: \(line)")
            }
            #expect(source.contains(Self.code(lines.joined(separator: "\n"))), "README block not compiled here as a whole: \(first)")
        }
    }

    /// `text` without comments and whitespace (a `//` inside a string literal stays).
    static func code(_ text: String) -> String {
        var out = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var inString = false
            var previous: Character = " "
            for c in line {
                if c == "\"" { inString.toggle() }
                if !inString && c == "/" && previous == "/" {
                    out.removeLast()
                    break
                }
                previous = c
                if !c.isWhitespace { out.append(c) }
            }
        }
        return out
    }
}
