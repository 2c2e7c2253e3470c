#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads RFC 3339 date-times (the ISO 8601 profile JSON APIs use) from bytes, without a
/// formatter: `YYYY-MM-DDTHH:MM:SS`, optional fractional seconds of any length, then `Z` or
/// an offset `±HH:MM` (also `±HHMM`). `t`, `z` and a space between date and time are
/// accepted as RFC 3339 allows.
enum ISO8601Parsing {
    /// Seconds since 1970-01-01T00:00:00Z, or `nil` when `text` is not such a date-time.
    static func secondsSince1970(_ text: UnsafeRawBufferPointer) -> Double? {
        guard let (whole, digits) = instant(text) else { return nil }
        var fraction = 0.0
        if !digits.isEmpty {
            var numerator: Int64 = 0
            var denominator: Int64 = 1
            // Finer than a femtosecond is below Date's resolution.
            for k in digits.prefix(15) {
                numerator = numerator * 10 + Int64(text[k] &- 0x30)
                denominator *= 10
            }
            fraction = Double(numerator) / Double(denominator)
        }
        return Double(whole) + fraction
    }

    /// The instant `text` names, exactly: whole seconds since 1970-01-01T00:00:00Z, and where
    /// the digits of its fraction of a second are in `text` (empty without a fraction); `nil`
    /// when `text` is not such a date-time.
    static func instant(_ text: UnsafeRawBufferPointer) -> (seconds: Int, fraction: Range<Int>)? {
        let n = text.count
        guard n >= 20 else { return nil }
        @inline(__always) func digits(_ at: Int, _ count: Int) -> Int? {
            var v = 0
            for k in at..<(at + count) {
                let d = text[k] &- 0x30
                guard d < 10 else { return nil }
                v = v * 10 + Int(d)
            }
            return v
        }
        guard let year = digits(0, 4), text[4] == UInt8(ascii: "-"),
            let month = digits(5, 2), text[7] == UInt8(ascii: "-"),
            let day = digits(8, 2),
            text[10] == UInt8(ascii: "T") || text[10] == UInt8(ascii: "t") || text[10] == UInt8(ascii: " "),
            let hour = digits(11, 2), text[13] == UInt8(ascii: ":"),
            let minute = digits(14, 2), text[16] == UInt8(ascii: ":"),
            let second = digits(17, 2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second <= 60
        else { return nil }
        var i = 19
        var fraction = i..<i
        if text[i] == UInt8(ascii: ".") {
            i += 1
            let start = i
            while i < n, text[i] &- 0x30 < 10 { i += 1 }
            guard i > start else { return nil }
            fraction = start..<i
        }
        guard i < n else { return nil }
        var offset = 0
        switch text[i] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            i += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = text[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard i + 2 <= n, let h = digits(i, 2) else { return nil }
            i += 2
            if i < n && text[i] == UInt8(ascii: ":") { i += 1 }
            guard i + 2 <= n, let m = digits(i, 2), h < 24, m < 60 else { return nil }
            i += 2
            offset = sign * (h * 3600 + m * 60)
        default:
            return nil
        }
        guard i == n else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        return (days * 86_400 + hour * 3600 + minute * 60 + second - offset, fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }
}
