import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The directives of a `Cache-Control` header (RFC 9111 §5.2): names in lower case, values
/// unquoted (`nil` for a directive without one).
struct CacheControl: Equatable {
    private(set) var directives: [String: String?] = [:]

    init(_ header: String?) {
        guard let header else { return }
        var rest = Substring(header)
        while !rest.isEmpty {
            // name [= token | quoted-string], separated by commas.
            let nameEnd = rest.firstIndex(where: { $0 == "=" || $0 == "," }) ?? rest.endIndex
            let name = rest[..<nameEnd].trimmingCharacters(in: .whitespaces).lowercased()
            rest = rest[nameEnd...]
            var value: String?
            if rest.first == "=" {
                rest = rest.dropFirst().drop(while: { $0 == " " || $0 == "\t" })
                if rest.first == "\"" {
                    var text = ""
                    var i = rest.index(after: rest.startIndex)
                    while i < rest.endIndex, rest[i] != "\"" {
                        if rest[i] == "\\", rest.index(after: i) < rest.endIndex { i = rest.index(after: i) }
                        text.append(rest[i])
                        i = rest.index(after: i)
                    }
                    value = text
                    rest = i < rest.endIndex ? rest[rest.index(after: i)...] : rest[rest.endIndex...]
                    rest = rest.drop(while: { $0 != "," })
                } else {
                    let end = rest.firstIndex(of: ",") ?? rest.endIndex
                    value = rest[..<end].trimmingCharacters(in: .whitespaces)
                    rest = rest[end...]
                }
            }
            if !name.isEmpty, directives[name] == nil { directives[name] = .some(value) }
            if rest.first == "," { rest = rest.dropFirst() }
        }
    }

    func has(_ name: String) -> Bool { directives[name] != nil }

    /// The value of a delta-seconds directive (`max-age=60`); `nil` when absent or not a
    /// number (RFC 9111 §1.2.2: an invalid value is as if the directive were absent).
    func seconds(_ name: String) -> Double? {
        guard let value = directives[name], let text = value else { return nil }
        guard !text.isEmpty, text.allSatisfy(\.isASCII), text.allSatisfy(\.isNumber) else { return nil }
        return Double(text)
    }
}

/// HTTP dates (RFC 9110 §5.6.7), for `Date`, `Expires` and `Retry-After`: IMF-fixdate
/// (`Sun, 06 Nov 1994 08:49:37 GMT`), the one format senders use, read directly; the two
/// obsolete formats recipients must also accept (RFC 850 and asctime) through a
/// `DateFormatter`.
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    /// The obsolete RFC 850 and asctime forms.
    private static let obsoleteFormats = ["EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy"]

    /// Seconds since 1970 of `text`, or `nil` when it is no HTTP date.
    static func parse(_ text: String) -> Double? {
        let text = text.trimmingCharacters(in: .whitespaces)
        if let seconds = imfFixdate(text) { return seconds }
        for format in obsoleteFormats {
            let f = DateFormatter()
            f.locale = Locale(identifier: "en_US_POSIX")
            f.timeZone = TimeZone(identifier: "GMT")
            f.dateFormat = format
            if let date = f.date(from: text) { return date.timeIntervalSince1970 }
        }
        return nil
    }

    private static func imfFixdate(_ text: String) -> Double? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
            let day = Int(parts[1]), parts[1].count == 2,
            let month = months.firstIndex(of: parts[2].lowercased()),
            let year = Int(parts[3]), parts[3].count == 4
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
            let hour = Int(clock[0]), let minute = Int(clock[1]), let second = Int(clock[2]),
            (1...31).contains(day), (0...23).contains(hour), (0...59).contains(minute), (0...60).contains(second)
        else { return nil }
        var t = tm()
        t.tm_year = Int32(year - 1900)
        t.tm_mon = Int32(month)
        t.tm_mday = Int32(day)
        t.tm_hour = Int32(hour)
        t.tm_min = Int32(minute)
        t.tm_sec = Int32(second)
        return Double(timegm(&t))
    }
}

/// How fresh a stored response is (RFC 9111 §4.2), for a private cache: `s-maxage` and
/// `public`/`private` do not matter; `max-age`, then `Expires` less `Date`, then the
/// cache's default lifetime give the freshness lifetime; `no-cache` makes it zero.
struct Freshness {
    /// Seconds the response stays fresh after it was generated.
    var lifetime: Double
    /// Seconds since the response was generated (its `Age` and the time it has been stored).
    var age: Double
    /// Whether a stale copy must never be used without revalidation (`must-revalidate`,
    /// `no-cache`).
    var mustRevalidate: Bool

    var isFresh: Bool { age < lifetime }

    /// The freshness of a response with `headers`, received at `storedAt`, at `now`
    /// (seconds since 1970); `lifetime` replaces what the headers say when given.
    init(headers: [String: String], storedAt: Double, now: Double, defaultLifetime: Double, lifetime override: Double?) {
        let control = CacheControl(headers["cache-control"])
        let date = headers["date"].flatMap(HTTPDate.parse)
        mustRevalidate = control.has("must-revalidate") || control.has("no-cache")
        if let override {
            lifetime = override
        } else if control.has("no-cache") {
            lifetime = 0
        } else if let maxAge = control.seconds("max-age") {
            lifetime = maxAge
        } else if let expires = headers["expires"] {
            lifetime = HTTPDate.parse(expires).map { $0 - (date ?? storedAt) } ?? 0
        } else {
            lifetime = defaultLifetime
        }
        let ageHeader = headers["age"].flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? 0
        let apparent = date.map { max(0, storedAt - $0) } ?? 0
        age = max(ageHeader, apparent) + max(0, now - storedAt)
    }
}
