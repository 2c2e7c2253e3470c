extension JSONValue {
    /// Whether the two values mean the same, as an update compares them: numbers by value
    /// (`19.99`, `19.990` and `1999e-2` are one number; `-0` is `0`), strings that are both
    /// RFC 3339 date-times by the instant they name (`…:00.250Z` and `…:00.25Z`,
    /// `…T12:00:00+02:00` and `…T10:00:00Z`), arrays element by element, objects member by
    /// member whatever their order; everything else as `==`.
    public func hasSameValue(as other: JSONValue) -> Bool {
        switch (self, other) {
        case (.number(let a), .number(let b)): return a.hasSameValue(as: b)
        case (.string(let a), .string(let b)):
            if a == b { return true }
            return Self.sameInstant(a, b)
        case (.array(let a), .array(let b)):
            guard a.count == b.count else { return false }
            return zip(a, b).allSatisfy { $0.hasSameValue(as: $1) }
        case (.object(let a), .object(let b)):
            guard a.count == b.count else { return false }
            for m in a.members {
                guard let v = b[m.key], m.value.hasSameValue(as: v) else { return false }
            }
            return true
        default: return self == other
        }
    }

    /// Whether `a` and `b` are RFC 3339 date-times naming the same instant (exactly: the
    /// whole seconds, then the fraction's digits without trailing zeros).
    private static func sameInstant(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                let xb = UnsafeRawBufferPointer(x)
                let yb = UnsafeRawBufferPointer(y)
                guard let p = ISO8601Parsing.instant(xb), let q = ISO8601Parsing.instant(yb), p.seconds == q.seconds else { return false }
                func trimmed(_ b: UnsafeRawBufferPointer, _ r: Range<Int>) -> UnsafeRawBufferPointer.SubSequence {
                    var end = r.upperBound
                    while end > r.lowerBound && b[end - 1] == UInt8(ascii: "0") { end -= 1 }
                    return b[r.lowerBound..<end]
                }
                return trimmed(xb, p.fraction).elementsEqual(trimmed(yb, q.fraction))
            }
        }
    }
}

extension JSONNumber {
    /// Whether the two numbers have the same value, exactly (no rounding through `Double`):
    /// `19.99`, `19.990`, `1999e-2` and `0.1999E2` are equal; `-0` equals `0`.
    public func hasSameValue(as other: JSONNumber) -> Bool {
        if text == other.text { return true }
        guard let a = DecimalValue(text), let b = DecimalValue(other.text) else { return false }
        return a == b
    }

    /// A number's value as sign, significant digits (no leading or trailing zeros) and a
    /// power of ten: zero has no digits and no sign.
    private struct DecimalValue: Equatable {
        var negative = false
        var digits: [UInt8] = []
        var exponent = 0

        init?(_ text: String) {
            var bytes = Array(text.utf8)[...]
            if bytes.first == UInt8(ascii: "-") {
                negative = true
                bytes = bytes.dropFirst()
            }
            var fractionDigits = 0
            var inFraction = false
            while let c = bytes.first, c != UInt8(ascii: "e"), c != UInt8(ascii: "E") {
                bytes = bytes.dropFirst()
                if c == UInt8(ascii: ".") {
                    inFraction = true
                    continue
                }
                guard c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") else { return nil }
                if inFraction { fractionDigits += 1 }
                if !(digits.isEmpty && c == UInt8(ascii: "0")) { digits.append(c) }  // no leading zeros
            }
            var power = 0
            if !bytes.isEmpty {
                bytes = bytes.dropFirst()  // e or E
                var sign = 1
                if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") {
                    sign = bytes.first == UInt8(ascii: "-") ? -1 : 1
                    bytes = bytes.dropFirst()
                }
                // An exponent beyond 18 digits is not compared by value (its text decides).
                guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
                for c in bytes {
                    guard c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") else { return nil }
                    power = power * 10 + Int(c - UInt8(ascii: "0"))
                }
                power *= sign
            }
            exponent = power - fractionDigits
            while digits.last == UInt8(ascii: "0") {
                digits.removeLast()
                exponent += 1
            }
            if digits.isEmpty {
                negative = false
                exponent = 0
            }
        }
    }
}
