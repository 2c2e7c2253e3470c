import Foundation
import Logging

/// `jsonapi fetch -v`: the client's log on standard error, one line per entry:
/// `jsonapi: debug: GET https://… [attempt=2]`.
struct StandardErrorLog: LogHandler {
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = "jsonapi: \(event.level): \(event.message)"
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        if !all.isEmpty {
            line += " [" + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ") + "]"
        }
        line += "\n"
        FileHandle.standardError.write(Data(line.utf8))
    }

    /// The client's logger: warnings only by default (`count` 0), `-v` (`count` 1: requests,
    /// responses, retries, cache, pages) and `-vv` (`count` 2: headers too, credentials
    /// redacted).
    static func logger(verbosity count: Int) -> Logger {
        let level: Logger.Level = count >= 2 ? .trace : count == 1 ? .debug : .warning
        return Logger(label: "jsonapi") { _ in StandardErrorLog(logLevel: level) }
    }
}
