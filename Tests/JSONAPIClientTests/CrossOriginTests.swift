import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import JSONAPIStream
import Testing
@testable import JSONAPIClient

/// Credentials stay with their origin: `links.next` and redirects to another origin are
/// refused by default, followed without the headers or with them on request; only `http`
/// and `https`; never `https` down to `http`. Two local servers (two ports, two origins),
/// the second recording what it gets.
@Suite struct CrossOrigin {
    static let secrets = ["-H", "Authorization: Bearer s3cret", "-H", "X-Api-Key: k3y", "-H", "Cookie: session=c00kie"]

    @Test func aNextLinkToAnotherOriginIsRefusedByDefault() async throws {
        let s = try OriginServers()
        let start = "\(s.a)/doc?next=\(queryValue("\(s.b)/doc"))"
        let r = try jsonapi(["fetch", start, "--all-pages", "--format", "ndjson", "--resources-only"] + Self.secrets)
        #expect(r.status == 2)
        #expect(r.stderr.contains("links.next of page 1 leads to another origin, \(s.b)"), "\(r.stderr)")
        #expect(r.stderr.contains("the credentials belong to \(s.a)"))
        #expect(r.stderr.contains("--follow-other-origins"))
        #expect(try await s.seen(s.b).isEmpty, "the other origin was asked")
        // The first page, read before the refusal, is written.
        #expect(r.lines == [#"{"type":"things","id":"a","primary":true,"attributes":{},"relationships":{}}"#])
        #expect(try await s.seen(s.a).first?.headers["authorization"] == "Bearer s3cret")
    }

    @Test func followingAnotherOriginDropsTheCredentials() async throws {
        let s = try OriginServers()
        let start = "\(s.a)/doc?next=\(queryValue("\(s.b)/doc"))"
        let r = try jsonapi(["fetch", start, "--all-pages", "--format", "ndjson", "--resources-only", "--follow-other-origins"] + Self.secrets)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines.count == 2)
        let atB = try #require(try await s.seen(s.b).first)
        #expect(atB.headers["authorization"] == nil)
        #expect(atB.headers["x-api-key"] == nil)
        #expect(atB.headers["cookie"] == nil)
        #expect(atB.headers["accept"] == "application/vnd.api+json", "the request lost more than the credentials")
        let atA = try #require(try await s.seen(s.a).first)
        #expect(atA.headers["x-api-key"] == "k3y")
        #expect(atA.headers["cookie"] == "session=c00kie")
    }

    @Test func locationTrustedSendsThemToo() async throws {
        let s = try OriginServers()
        let start = "\(s.a)/doc?next=\(queryValue("\(s.b)/doc"))"
        let r = try jsonapi(["fetch", start, "--all-pages", "--format", "ndjson", "--resources-only", "--location-trusted"] + Self.secrets)
        #expect(r.status == 0, "\(r.stderr)")
        let atB = try #require(try await s.seen(s.b).first)
        #expect(atB.headers["authorization"] == "Bearer s3cret")
        #expect(atB.headers["x-api-key"] == "k3y")
    }

    @Test func aRedirectToAnotherOriginIsRefusedOrStripped() async throws {
        let s = try OriginServers()
        for status in [301, 302, 303, 307, 308] {
            let start = "\(s.a)/redirect?status=\(status)&to=\(queryValue("\(s.b)/doc"))"
            let refused = try jsonapi(["fetch", start, "--format", "ndjson"] + Self.secrets)
            #expect(refused.status == 2, "HTTP \(status): \(refused.stderr)")
            #expect(refused.stderr.contains("a redirect (HTTP \(status)) leads to another origin, \(s.b)"), "\(refused.stderr)")
        }
        #expect(try await s.seen(s.b).isEmpty, "a refused redirect reached the other origin")

        let start = "\(s.a)/redirect?to=\(queryValue("\(s.b)/doc"))"
        let followed = try jsonapi(["fetch", start, "--format", "ndjson", "--resources-only", "--follow-other-origins"] + Self.secrets)
        #expect(followed.status == 0, "\(followed.stderr)")
        #expect(followed.lines == [#"{"type":"things","id":"b","primary":true,"attributes":{},"relationships":{}}"#])
        let atB = try #require(try await s.seen(s.b).first)
        #expect(atB.headers["authorization"] == nil)
        #expect(atB.headers["x-api-key"] == nil)
        #expect(atB.headers["cookie"] == nil)

        let trusted = try jsonapi(["fetch", start, "--format", "ndjson", "--location-trusted"] + Self.secrets)
        #expect(trusted.status == 0, "\(trusted.stderr)")
        #expect(try await s.seen(s.b).last?.headers["authorization"] == "Bearer s3cret")
    }

    @Test func aRedirectWithinTheOriginKeepsTheCredentials() async throws {
        let s = try OriginServers()
        let start = "\(s.a)/redirect?to=\(queryValue("/doc?id=moved"))"
        let r = try jsonapi(["fetch", start, "--format", "ndjson", "--resources-only"] + Self.secrets)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.lines == [#"{"type":"things","id":"moved","primary":true,"attributes":{},"relationships":{}}"#])
        let seen = try await s.seen(s.a)
        #expect(seen.count == 2)
        #expect(seen.last?.headers["authorization"] == "Bearer s3cret")
    }

    @Test func onlyHTTPAndHTTPSAreFollowed() async throws {
        let s = try OriginServers()
        let ftp = try jsonapi(["fetch", "\(s.a)/doc?next=\(queryValue("ftp://127.0.0.1/x"))", "--all-pages", "--location-trusted"])
        #expect(ftp.status == 2)
        #expect(ftp.stderr.contains("links.next of page 1 has the scheme ftp; only http and https are followed"), "\(ftp.stderr)")
        #expect(try await s.seen(s.a).count == 1, "a refused link was retried or the first page asked twice")

        let file = try jsonapi(["fetch", "\(s.a)/redirect?to=\(queryValue("file:///etc/passwd"))", "--location-trusted"])
        #expect(file.status == 2)
        #expect(file.stderr.contains("has the scheme file; only http and https are followed"), "\(file.stderr)")
        #expect(!file.stderr.contains("too many"))
    }

    @Test func theLibraryRefusesTheSameWay() async throws {
        let s = try OriginServers()
        let start = try #require(URL(string: "\(s.a)/doc?next=\(queryValue("\(s.b)/doc"))"))
        func client(_ policy: CrossOriginPolicy) -> JSONAPIClient {
            var c = JSONAPIClient.Configuration()
            c.headers = ["X-Api-Key": "k3y"]
            c.prepareRequest = { $0.setValue("Bearer s3cret", forHTTPHeaderField: "Authorization") }
            c.crossOrigin = policy
            return JSONAPIClient(baseURL: URL(string: s.a)!, configuration: c)
        }
        do {
            _ = try await client(.refuse).graph(at: start, pages: .all())
            Issue.record("a next link to another origin was followed")
        } catch JSONAPIClientError.refusedLocation(let from, let to, let what, let reason) {
            #expect(from == start)
            #expect(to == "\(s.b)/doc")
            #expect(what == "links.next of page 1")
            #expect(reason == .otherOrigin(Origin(URL(string: s.b)!)!, credentialsBelongTo: Origin(start)!))
        }
        #expect(try await s.seen(s.b).isEmpty)

        let graph = try await client(.followWithoutCredentials).graph(at: start, pages: .all())
        #expect(graph.primary.count == 2)
        let atB = try #require(try await s.seen(s.b).first)
        #expect(atB.headers["authorization"] == nil, "prepareRequest's credentials reached another origin")
        #expect(atB.headers["x-api-key"] == nil)
        #expect(try await s.seen(s.a).first?.headers["authorization"] == "Bearer s3cret")
    }

    @Test func httpsNeverStepsDownToHTTP() throws {
        let home = Origin(URL(string: "https://api.example.com/articles")!)
        for policy in [CrossOriginPolicy.refuse, .followWithoutCredentials, .followWithCredentials] {
            #expect(throws: JSONAPIClientError.self) {
                try CredentialScope.decide(
                    target: URL(string: "http://api.example.com/articles?page=2")!,
                    previous: URL(string: "https://api.example.com/articles")!, home: home, policy: policy, what: "links.next")
            }
            var rule = RedirectRule(home: home, policy: policy, credentialHeaders: [], withCredentials: true)
            #expect(throws: JSONAPIClientError.self) {
                try rule.follow(
                    URLRequest(url: URL(string: "https://api.example.com/y")!), to: "http://api.example.com/x",
                    from: URL(string: "https://api.example.com/y")!, status: 301)
            }
        }
        // http up to https on the same host is another origin (the scheme differs), not a downgrade.
        let up = try CredentialScope.decide(
            target: URL(string: "https://api.example.com/b")!, previous: URL(string: "http://api.example.com/a")!,
            home: Origin(URL(string: "http://api.example.com/a")!), policy: .followWithoutCredentials, what: "a redirect")
        #expect(up == .withoutCredentials)
    }

    @Test func originsCompareSchemeHostAndPort() {
        let o = Origin(URL(string: "HTTPS://Example.COM/a")!)
        #expect(o == Origin(URL(string: "https://example.com:443/b")!))
        #expect(o != Origin(URL(string: "https://example.com:8443/b")!))
        #expect(o != Origin(URL(string: "http://example.com/b")!))
        #expect(o?.description == "https://example.com")
        #expect(Origin(URL(string: "ftp://example.com/")!) == nil)
    }
}
