import Foundation
import Logging

/// What the client's log may show of headers: names always, values except credentials.
enum RequestLog {
    /// Headers whose values never reach a log, besides the configured ones.
    static let credentials: Set<String> = ["authorization", "proxy-authorization", "cookie", "set-cookie"]

    /// `headers` as `Name: value; …` (sorted by name), the values of credentials (and of
    /// every name in `configured`, which the client treats as credentials) replaced by
    /// `<redacted>`.
    static func headers(_ headers: [String: String], configured: some Sequence<String>) -> Logger.MetadataValue {
        let secret = credentials.union(configured.map { $0.lowercased() })
        let text = headers.sorted { $0.key.lowercased() < $1.key.lowercased() }
            .map { "\($0.key): \(secret.contains($0.key.lowercased()) ? "<redacted>" : $0.value)" }
            .joined(separator: "; ")
        return .string(text)
    }

    /// Seconds with two decimals, for messages.
    static func seconds(_ value: Double) -> String { String(format: "%.2f", value) }
}
