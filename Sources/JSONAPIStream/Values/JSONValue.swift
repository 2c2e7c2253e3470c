/// A JSON value decoded into Swift, with numbers kept as their exact source text and object
/// members kept in input order.
///
/// Strings compare by their Unicode scalars (not by canonical equivalence, as `String`
/// does), so that two values are equal exactly when their JSON texts mean the same
/// characters: member names stay case- and form-sensitive (R36).
public enum JSONValue: Sendable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var description: String { jsonText }

    /// Whether the value is `null`.
    public var isNull: Bool { if case .null = self { true } else { false } }
    /// The boolean, when the value is one.
    public var boolValue: Bool? { if case .bool(let b) = self { b } else { nil } }
    /// The string, when the value is one.
    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    /// The number (its exact text), when the value is one.
    public var numberValue: JSONNumber? { if case .number(let n) = self { n } else { nil } }
    /// The elements, when the value is an array.
    public var arrayValue: [JSONValue]? { if case .array(let a) = self { a } else { nil } }
    /// The members, when the value is an object.
    public var objectValue: JSONObject? { if case .object(let o) = self { o } else { nil } }

    /// The member named `key` when this is an object.
    public subscript(key: String) -> JSONValue? { objectValue?[key] }
    /// The element at `index` when this is an array and it exists.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let a) = self, a.indices.contains(index) else { return nil }
        return a[index]
    }

    /// The value as minified JSON text: numbers as they were, strings minimally escaped,
    /// members in order.
    public var jsonText: String {
        var out = JSONTextWriter()
        out.write(self)
        return out.text
    }
}

extension JSONValue: Equatable {
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a.unicodeScalars.elementsEqual(b.unicodeScalars)
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }
}

extension JSONValue: Hashable {
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let b): hasher.combine(1); hasher.combine(b)
        case .number(let n): hasher.combine(2); hasher.combine(n)
        case .string(let s): hasher.combine(3); for u in s.utf8 { hasher.combine(u) }
        case .array(let a): hasher.combine(4); hasher.combine(a)
        case .object(let o): hasher.combine(5); hasher.combine(o)
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByStringLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { (key: $0.0, value: $0.1) }))
    }
}

/// A JSON object: members in input order. Lookups compare names byte for byte.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection {
    /// A member: its name and value.
    public typealias Member = (key: String, value: JSONValue)
    /// The members in order (a repeated name appears each time).
    public private(set) var members: [Member]

    /// An object with these members, in this order.
    public init(_ members: [Member] = []) { self.members = members }

    public var startIndex: Int { 0 }
    public var endIndex: Int { members.count }
    public subscript(position: Int) -> Member { members[position] }

    /// The member names in order.
    public var keys: [String] { members.map(\.key) }

    /// The value of the last member named `key` (names compare byte for byte).
    public subscript(key: String) -> JSONValue? {
        get {
            for m in members.reversed() where m.key.utf8.elementsEqual(key.utf8) { return m.value }
            return nil
        }
        set {
            if let i = members.lastIndex(where: { $0.key.utf8.elementsEqual(key.utf8) }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append((key: key, value: newValue))
            }
        }
    }

    /// Adds a member at the end (even when the name is there already).
    public mutating func append(_ key: String, _ value: JSONValue) { members.append((key: key, value: value)) }

    /// Makes room for `n` members.
    public mutating func reserveCapacity(_ n: Int) { members.reserveCapacity(n) }

    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        guard lhs.members.count == rhs.members.count else { return false }
        for (a, b) in zip(lhs.members, rhs.members) {
            guard a.key.unicodeScalars.elementsEqual(b.key.unicodeScalars), a.value == b.value else { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(members.count)
        for m in members {
            for u in m.key.utf8 { hasher.combine(u) }
            hasher.combine(m.value)
        }
    }
}

/// A JSON number, kept as the exact text of the input (`1.10`, `-0`, `1e400` stay as they
/// are). Converting accessors fail (return `nil`) rather than round or overflow.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible, LosslessStringConvertible {
    /// The number exactly as written.
    public let text: String

    /// A number from JSON number text; `nil` when `text` is not valid JSON number syntax.
    public init?(_ text: String) {
        guard JSONNumber.isValid(text.utf8) else { return nil }
        self.text = text
    }

    init(uncheckedText text: String) { self.text = text }

    /// The number `value`.
    public init<I: BinaryInteger>(_ value: I) { self.text = String(value) }

    /// The shortest text that reads back as `value`. Infinite and NaN values have no JSON
    /// form and are written as `null` by callers; here they trap.
    public init(_ value: Double) {
        precondition(value.isFinite, "JSON has no number for \(value)")
        if value == value.rounded(.towardZero) && abs(value) < 1e15 {
            self.text = value == 0 && value.sign == .minus ? "-0" : String(Int64(value))
        } else {
            self.text = "\(value)"
        }
    }

    public var description: String { text }

    /// Whether the text is an integer (no fraction, no exponent).
    public var isInteger: Bool { !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") } }

    /// The value as `Int64`, or `nil` if it is not an integer or does not fit.
    public var int64Value: Int64? { isInteger ? Int64(text) : exactIntegerFromScientific(Int64.self) }
    /// The value as `Int`, or `nil` if it is not an integer or does not fit.
    public var intValue: Int? { isInteger ? Int(text) : exactIntegerFromScientific(Int.self) }
    /// The value as `UInt64`, or `nil` if it is not a non-negative integer or does not fit.
    public var uint64Value: UInt64? { isInteger ? UInt64(text) : exactIntegerFromScientific(UInt64.self) }

    /// The nearest `Double`, or `nil` when the number is outside `Double`'s range (it would
    /// become infinity or zero although it is not zero).
    public var doubleValue: Double? {
        guard let d = Double(text), d.isFinite else { return nil }
        if d == 0 && !isZeroText { return nil }
        return d
    }

    /// The value as `Double` only when the conversion is exact (reads back as the same
    /// decimal value).
    public var exactDoubleValue: Double? {
        guard let d = doubleValue else { return nil }
        return DecimalText.keeps(d, text) ? d : nil
    }

    private var isZeroText: Bool {
        var seenExponent = false
        for c in text.utf8 {
            if c | 0x20 == UInt8(ascii: "e") { seenExponent = true; continue }
            if !seenExponent && c >= UInt8(ascii: "1") && c <= UInt8(ascii: "9") { return false }
        }
        return true
    }

    private func exactIntegerFromScientific<I: FixedWidthInteger>(_: I.Type) -> I? {
        guard let d = DecimalText(text), let digits = d.integerDigits else { return nil }
        return I(d.negative ? "-" + digits : digits)
    }

    static func isValid<C: Collection<UInt8>>(_ bytes: C) -> Bool {
        var it = bytes.makeIterator()
        var c = it.next()
        if c == UInt8(ascii: "-") { c = it.next() }
        guard let first = c, first >= 0x30 && first <= 0x39 else { return false }
        c = it.next()
        if first != 0x30 { while let d = c, d >= 0x30 && d <= 0x39 { c = it.next() } }
        if c == UInt8(ascii: ".") {
            c = it.next()
            guard let d = c, d >= 0x30 && d <= 0x39 else { return false }
            while let d = c, d >= 0x30 && d <= 0x39 { c = it.next() }
        }
        if let e = c, e | 0x20 == UInt8(ascii: "e") {
            c = it.next()
            if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") { c = it.next() }
            guard let d = c, d >= 0x30 && d <= 0x39 else { return false }
            while let d = c, d >= 0x30 && d <= 0x39 { c = it.next() }
        }
        return c == nil
    }
}

/// A decimal number as sign, significant digits and exponent, for exact comparisons.
struct DecimalText: Equatable {
    /// Whether `v`, read from the decimal `text`, keeps it: `v`'s shortest decimal form denotes
    /// the same number (`0.1`, `1e23`), or `text` is an integer below 2^64 in magnitude that `v`
    /// holds exactly (`-9223372036854775808`). What "exact" means for ``JSONNumber/exactDoubleValue``
    /// and for decoding with ``FloatingPointDecodingStrategy/exact``.
    static func keeps<F: BinaryFloatingPoint & LosslessStringConvertible>(_ v: F, _ text: String) -> Bool {
        guard let written = DecimalText(text) else { return false }
        if DecimalText("\(v)") == written { return true }
        guard v.isFinite, v == v.rounded(), written.negative == (v < 0), let digits = written.integerDigits,
            let magnitude = UInt64(exactly: v.magnitude)
        else { return false }
        return String(magnitude) == digits
    }

    var negative: Bool
    var digits: [UInt8]  // no leading or trailing zeros; empty for zero
    var exponent: Int  // value = 0.digits × 10^exponent

    init?(_ text: String) {
        var neg = false
        var mantissa: [UInt8] = []
        var pointPosition: Int? = nil
        var exp = 0
        var it = Array(text.utf8)[...]
        if it.first == UInt8(ascii: "-") { neg = true; it = it.dropFirst() }
        while let c = it.first, c != UInt8(ascii: "e"), c != UInt8(ascii: "E") {
            it = it.dropFirst()
            if c == UInt8(ascii: ".") { pointPosition = mantissa.count; continue }
            guard c >= 0x30 && c <= 0x39 else { return nil }
            mantissa.append(c - 0x30)
        }
        if let c = it.first, c | 0x20 == UInt8(ascii: "e") {
            it = it.dropFirst()
            guard let e = Int(String(decoding: it, as: UTF8.self)) else { return nil }
            exp = e
        }
        let intDigits = pointPosition ?? mantissa.count
        var lead = 0
        while lead < mantissa.count && mantissa[lead] == 0 { lead += 1 }
        var d = Array(mantissa[lead...])
        while d.last == 0 { d.removeLast() }
        negative = neg && !d.isEmpty
        digits = d
        exponent = d.isEmpty ? 0 : intDigits - lead + exp
    }

    /// The integer as decimal digits, when the value is an integer.
    var integerDigits: String? {
        if digits.isEmpty { return "0" }
        guard exponent >= digits.count, exponent < 400 else { return nil }
        var s = String(decoding: digits.map { $0 + 0x30 }, as: UTF8.self)
        s += String(repeating: "0", count: exponent - digits.count)
        return s
    }
}
