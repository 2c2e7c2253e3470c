import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The scheme, host and port of a URL (RFC 6454): credentials are sent only where they
/// were meant to go.
public struct Origin: Hashable, Sendable, CustomStringConvertible {
    /// `http` or `https`, lower case.
    public var scheme: String
    /// The host, lower case.
    public var host: String
    /// The port (the scheme's default when the URL names none).
    public var port: Int

    /// The origin of an `http` or `https` URL; `nil` for any other scheme or no host.
    public init?(_ url: URL) {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host?.lowercased(), !host.isEmpty
        else { return nil }
        self.scheme = scheme
        self.host = host
        port = url.port ?? (scheme == "https" ? 443 : 80)
    }

    public var description: String {
        let standard = (scheme == "https" && port == 443) || (scheme == "http" && port == 80)
        let h = host.contains(":") ? "[\(host)]" : host
        return standard ? "\(scheme)://\(h)" : "\(scheme)://\(h):\(port)"
    }
}

/// What the client does when a redirect or a `links.next` leads to another origin than the
/// one the request (or the crawl's first page) was made to.
///
/// Whatever the policy, only `http` and `https` are followed, and never from `https` down to
/// `http`.
public enum CrossOriginPolicy: Sendable, Equatable {
    /// Refuse it: the call fails with ``JSONAPIClientError/refusedLocation(from:to:reason:)``
    /// naming both origins. The default.
    case refuse
    /// Follow it without the credentials: none of ``JSONAPIClient/Configuration/headers``,
    /// and no `Authorization`, `Proxy-Authorization` or `Cookie` header (also when
    /// ``JSONAPIClient/Configuration/prepareRequest`` added one), on that request and on
    /// every redirect after it.
    case followWithoutCredentials
    /// Follow it with every header, as curl's `--location-trusted` does: only for origins
    /// you trust with the credentials.
    case followWithCredentials
}

/// Why a redirect or a `links.next` was not followed.
public enum LocationRefusal: Sendable, Equatable, CustomStringConvertible {
    /// Another scheme than `http` or `https` (`nil`: none).
    case scheme(String?)
    /// From `https` down to `http`: never followed.
    case downgrade
    /// Another origin, under ``CrossOriginPolicy/refuse``.
    case otherOrigin(Origin, credentialsBelongTo: Origin)

    public var description: String {
        switch self {
        case .scheme(let s): "has \(s.map { "the scheme \($0)" } ?? "no scheme"); only http and https are followed"
        case .downgrade: "goes from https down to http, which is never followed"
        case .otherOrigin(let to, let home): "leads to another origin, \(to) (the credentials belong to \(home))"
        }
    }
}

/// How one request goes out under the cross-origin policy.
enum CredentialScope: Sendable, Equatable {
    /// The request goes to the trusted origin, or the policy sends credentials anywhere.
    case withCredentials
    /// The request goes to another origin: no credential header.
    case withoutCredentials

    /// Headers that carry credentials whatever the configuration says.
    static let alwaysCredentials: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// Decides how a request to `target` goes out, reached from `previous` (the URL that
    /// redirected or linked to it), when credentials belong to `home`.
    ///
    /// - Throws: ``JSONAPIClientError/refusedLocation(from:to:reason:)`` for a scheme other
    ///   than `http`/`https`, a step down from `https` to `http`, or another origin under
    ///   ``CrossOriginPolicy/refuse``.
    static func decide(
        target: URL, previous: URL, home: Origin?, policy: CrossOriginPolicy, what: String
    ) throws(JSONAPIClientError) -> CredentialScope {
        func refuse(_ reason: LocationRefusal) -> JSONAPIClientError {
            .refusedLocation(from: previous, to: target.absoluteString, what: what, reason: reason)
        }
        guard let to = Origin(target) else { throw refuse(.scheme(target.scheme)) }
        if previous.scheme?.lowercased() == "https" && to.scheme == "http" { throw refuse(.downgrade) }
        guard let home, to != home else { return .withCredentials }
        switch policy {
        case .refuse: throw refuse(.otherOrigin(to, credentialsBelongTo: home))
        case .followWithoutCredentials: return .withoutCredentials
        case .followWithCredentials: return .withCredentials
        }
    }

    /// Removes every credential header from `request`: the configured header names and the
    /// ones that always carry credentials.
    static func strip(_ request: inout URLRequest, configured: some Sequence<String>) {
        let names = credentialNames(configured: configured)
        for name in (request.allHTTPHeaderFields ?? [:]).keys where names.contains(name.lowercased()) {
            request.setValue(nil, forHTTPHeaderField: name)
        }
    }

    /// The names (lower case) of the headers that carry credentials: the configured ones and
    /// those that always do. What a request asks for and carries (`Accept`, `Content-Type`) is
    /// no credential, configured or not.
    static func credentialNames(configured: some Sequence<String>) -> Set<String> {
        Set(configured.map { $0.lowercased() }).union(alwaysCredentials).subtracting(["accept", "content-type"])
    }
}
