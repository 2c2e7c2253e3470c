#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Conversions of JSON number text (exactly as in the input) to Swift numbers that fail
/// rather than round or overflow.
enum StoredNumber {
    /// Why a number did not convert.
    enum Failure: Error {
        /// Not an integer (`1.5`) where an integer type was asked for.
        case notInteger
        /// Outside the type's range (`1e400`, `300` for `Int8`, `-1` for `UInt`).
        case overflow
        /// Closer to zero than the type's smallest value, but not zero (`1e-400`).
        case underflow
        /// More significant digits than the type keeps (`9007199254740993` as `Double`).
        case precision

        func reason(_ type: String) -> String {
            switch self {
            case .notInteger: "is not an integer"
            case .overflow: "does not fit in \(type)"
            case .underflow: "is too small for \(type) (it would become 0)"
            case .precision: "has more significant digits than \(type) keeps"
            }
        }
    }

    // MARK: Integers

    /// The integer at `text` as `T`.
    @inline(__always)
    static func integer<T: FixedWidthInteger>(_ text: UnsafeRawBufferPointer, as _: T.Type) -> Result<T, Failure> {
        let n = text.count
        var i = 0
        let negative = n > 0 && text[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        guard i < n else { return .failure(.notInteger) }
        var value: T = 0
        while i < n {
            let d = text[i] &- 0x30
            guard d < 10 else { return integerSlow(text, as: T.self) }
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(T(d)) : m.addingReportingOverflow(T(d))
            if o1 || o2 { return .failure(.overflow) }
            value = s
            i &+= 1
        }
        return .success(value)
    }

    /// Integers written with a fraction or an exponent (`1.0`, `2.5e10`).
    @inline(never)
    static func integerSlow<T: FixedWidthInteger>(_ text: UnsafeRawBufferPointer, as _: T.Type) -> Result<T, Failure> {
        guard let d = DecimalText(String(decoding: text, as: UTF8.self)) else { return .failure(.notInteger) }
        if d.digits.isEmpty { return .success(0) }
        guard d.exponent >= d.digits.count else { return .failure(.notInteger) }
        guard d.exponent <= 40, let digits = d.integerDigits, let v = T(d.negative ? "-" + digits : digits) else {
            return .failure(.overflow)
        }
        return .success(v)
    }

    // MARK: Floating point

    /// Powers of ten that `Double` holds exactly.
    private static let powersOfTen: [Double] = {
        var p = [1.0]
        for _ in 1...22 { p.append(p[p.count - 1] * 10) }  // each one exact
        return p
    }()

    /// The number at `text` as `Double`.
    ///
    /// Numbers with at most 15 significant digits and a decimal exponent within ±22 are
    /// converted with one exact multiplication or division (Clinger's fast path: both
    /// operands are exact, so the result is correctly rounded; and any 15-digit decimal reads
    /// back from its nearest `Double`, so nothing is lost in the `.exact` sense). The rest go
    /// through the standard library's correctly rounded parser and, under `.exact`, a digit
    /// comparison.
    @inline(__always)
    static func double(_ text: UnsafeRawBufferPointer, strategy: FloatingPointDecodingStrategy) -> Result<Double, Failure> {
        let n = text.count
        var i = 0
        let negative = n > 0 && text[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        var mantissa: UInt64 = 0
        var digits = 0  // significant digits taken into `mantissa`
        var scale = 0  // decimal exponent of the mantissa's last digit
        var sawPoint = false
        while i < n {
            let c = text[i]
            let d = c &- 0x30
            if d < 10 {
                if mantissa != 0 || d != 0 {
                    if digits == 15 { return doubleSlow(text, strategy: strategy) }
                    mantissa = mantissa &* 10 &+ UInt64(d)
                    digits &+= 1
                }
                if sawPoint { scale &-= 1 }
            } else if c == UInt8(ascii: ".") {
                sawPoint = true
            } else {
                // The exponent: at most three digits keep this path.
                i &+= 1
                var exponentNegative = false
                if i < n && (text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+")) {
                    exponentNegative = text[i] == UInt8(ascii: "-")
                    i &+= 1
                }
                guard i < n, n - i <= 3 else { return doubleSlow(text, strategy: strategy) }
                var exponent = 0
                while i < n {
                    exponent = exponent &* 10 &+ Int(text[i] &- 0x30)
                    i &+= 1
                }
                scale = exponentNegative ? scale &- exponent : scale &+ exponent
                break
            }
            i &+= 1
        }
        if mantissa == 0 { return .success(negative ? -0.0 : 0.0) }
        guard scale >= -22 && scale <= 22 else { return doubleSlow(text, strategy: strategy) }
        let v = scale < 0 ? Double(mantissa) / powersOfTen[-scale] : Double(mantissa) * powersOfTen[scale]
        return .success(negative ? -v : v)
    }

    @inline(never)
    static func doubleSlow(_ text: UnsafeRawBufferPointer, strategy: FloatingPointDecodingStrategy) -> Result<Double, Failure> {
        let string = String(decoding: text, as: UTF8.self)
        guard let v = Double(string), v.isFinite else { return .failure(.overflow) }
        if v == 0 { return significantDigits(text) == 0 ? .success(v) : .failure(.underflow) }
        if strategy == .exact && !(significantDigits(text) <= 15 && v.isNormal) {
            guard DecimalText.keeps(v, string) else { return .failure(.precision) }
        }
        return .success(v)
    }

    /// The number at `text` as `Float`.
    static func float(_ text: UnsafeRawBufferPointer, strategy: FloatingPointDecodingStrategy) -> Result<Float, Failure> {
        let string = String(decoding: text, as: UTF8.self)
        guard let v = Float(string), v.isFinite else { return .failure(.overflow) }
        if v == 0 { return significantDigits(text) == 0 ? .success(v) : .failure(.underflow) }
        if strategy == .exact && !(significantDigits(text) <= 6 && v.isNormal) {
            guard DecimalText.keeps(v, string) else { return .failure(.precision) }
        }
        return .success(v)
    }

    /// Digits of the significand from its first non-zero digit to its last (0 for zero).
    static func significantDigits(_ text: UnsafeRawBufferPointer) -> Int {
        var first = -1
        var last = -1
        var position = 0
        for c in text {
            if c | 0x20 == UInt8(ascii: "e") { break }
            let d = c &- 0x30
            guard d < 10 else { continue }
            if d != 0 {
                if first < 0 { first = position }
                last = position
            }
            position += 1
        }
        return first < 0 ? 0 : last - first + 1
    }

    /// The number at `text` as `Decimal` (38 significant digits, exponents -128...127).
    static func decimal(_ text: UnsafeRawBufferPointer) -> Result<Decimal, Failure> {
        let string = String(decoding: text, as: UTF8.self)
        guard let shape = DecimalText(string) else { return .failure(.notInteger) }
        if shape.digits.isEmpty { return .success(Decimal(0)) }
        guard shape.digits.count <= 38 else { return .failure(.precision) }
        guard let v = Decimal(string: string), !v.isNaN else {
            return .failure(shape.exponent > 0 ? .overflow : .underflow)
        }
        // Foundation rounds quietly at the ends of the exponent range: compare the digits.
        guard DecimalText(v.description) == shape else { return .failure(shape.exponent > 0 ? .overflow : .precision) }
        return .success(v)
    }
}
