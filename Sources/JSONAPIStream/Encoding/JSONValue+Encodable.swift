#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

enum RFC3339 {
    /// `2026-03-01T12:30:00Z`, with `.fff` (milliseconds, trailing zeros dropped) when the
    /// date has a fraction of a second.
    static func format(_ date: Date) -> String {
        let t = date.timeIntervalSince1970
        var seconds = t.rounded(.down)
        var millis = Int(((t - seconds) * 1000).rounded())
        if millis == 1000 { seconds += 1; millis = 0 }
        let total = Int64(seconds)
        var days = total / 86_400
        var rem = total % 86_400
        if rem < 0 { rem += 86_400; days -= 1 }
        let (y, m, d) = civil(fromDays: days)
        var s = pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2)
        s += "T" + pad(Int(rem / 3600), 2) + ":" + pad(Int(rem % 3600 / 60), 2) + ":" + pad(Int(rem % 60), 2)
        if millis != 0 {
            var frac = pad(millis, 3)
            while frac.hasSuffix("0") { frac.removeLast() }
            s += "." + frac
        }
        return s + "Z"
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let text = String(abs(v))
        let padded = String(repeating: "0", count: max(0, width - text.count)) + text
        return v < 0 ? "-" + padded : padded
    }

    /// Year, month, day of a count of days since 1970-01-01 (proleptic Gregorian).
    private static func civil(fromDays z0: Int64) -> (Int, Int, Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return (Int(y), Int(m), Int(d))
    }
}

// MARK: - Values in other encoders

extension JSONValue: Encodable {
    /// Encodes the value in any `Encoder`. ``EditableResource/init(encoding:type:options:)``
    /// writes numbers' text as it is; other encoders get an integer when the text is one
    /// that fits, else a `Decimal` (exact up to 38 digits), as `JSONEncoder` can write.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .string(let s): try c.encode(s)
        case .number(let n): try c.encode(n)
        case .array(let a): try c.encode(a)
        case .object(let o):
            var k = encoder.container(keyedBy: AnyKey.self)
            for m in o.members { try k.encode(m.value, forKey: AnyKey(m.key)) }
        }
    }
}

extension JSONNumber: Encodable {
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        if let i = Int64(text) {
            try c.encode(i)
        } else if let u = UInt64(text) {
            try c.encode(u)
        } else if let d = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) {
            try c.encode(d)
        } else {
            throw EncodingError.invalidValue(text, .init(codingPath: encoder.codingPath, debugDescription: "\(text) has no exact form in this encoder"))
        }
    }
}

struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
