#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// How numbers are written (`normalize --numbers`).
public enum NumberPolicy: String, Sendable, Hashable, CaseIterable {
    /// The source text, always (a reader may round it).
    case exact
    /// A number that a reader parsing it into an IEEE double would change is written as a
    /// JSON string of its exact text.
    case safe
}

/// Numbers a double would change, as the builder reads them, so that the writers look for
/// them only in the records that hold any: a resource's line is written when the resource
/// ends, a document's line when the document ends, the flat object after the input.
final class NumberAlarm {
    /// In the whole input.
    var total = 0
    /// In the resource being read.
    var inCurrentResource = 0
    /// In the document being read, outside its resources (its line's top-level members).
    var outsideResources = 0
    /// Whether a resource object is being read.
    var inResource = false

    func enterDocument() {
        outsideResources = 0
        inResource = false
    }

    func enterResource() {
        inCurrentResource = 0
        inResource = true
    }

    @inline(never)
    func raise() {
        total += 1
        if inResource { inCurrentResource += 1 } else { outsideResources += 1 }
    }
}

/// Which numbers a double holds without change.
///
/// A number is *safe* when a reader that parses it into the nearest double gets its value:
/// the double's value is the text's value (`2^60`, `0.5`), or the shortest decimal that
/// round-trips the double has the text's value (`0.1`, `3.19`, `1.10`, `-0`). Not safe:
/// `9007199254740993` (read as ...992), `1e400` (infinity), `1e-400` (zero), most integers
/// of more than 17 digits. Decided conservatively: a number this says is not safe may still
/// be held exactly (a long integer that happens to be a double), but never the other way.
enum SafeNumbers {
    /// The decimal value of a number's text: digits without leading or trailing zeros and
    /// the exponent of the last one (value = digits × 10^exponent; no digits: zero).
    private struct Value: Equatable {
        var negative: Bool
        var digits: [UInt8]
        var exponent: Int
    }

    static func isSafe(_ text: UnsafeRawBufferPointer) -> Bool {
        // Fast path: at most 15 significant digits in the normal range round-trip through a
        // double (DBL_DIG), so the shortest form gives them back.
        var significant = 0
        var leading = true
        var pendingZeros = 0
        var fractionDigits = 0
        var inFraction = false
        var exponent = 0
        var i = 0
        let n = text.count
        if i < n && text[i] == UInt8(ascii: "-") { i += 1 }
        while i < n {
            let c = text[i]
            if c == UInt8(ascii: ".") { inFraction = true; i += 1; continue }
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
                i += 1
                var negative = false
                if i < n && (text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+")) { negative = text[i] == UInt8(ascii: "-"); i += 1 }
                var e = 0
                while i < n {
                    e = min(e * 10 + Int(text[i] &- 0x30), 100_000)
                    i += 1
                }
                exponent = negative ? -e : e
                break
            }
            if inFraction { fractionDigits += 1 }
            if c == UInt8(ascii: "0") {
                if !leading { pendingZeros += 1 }
            } else {
                leading = false
                significant += pendingZeros + 1
                pendingZeros = 0
            }
            i += 1
        }
        if significant == 0 { return true }  // zero, -0, 0.000e5
        // The power of ten of the last significant digit (trailing zeros of the integer part
        // scale it; those of the fraction do not count, and pendingZeros holds both).
        let magnitude = exponent - fractionDigits + pendingZeros
        if significant <= 15 && magnitude > -290 && magnitude < 290 { return true }
        return slowCheck(text)
    }

    @inline(never)
    private static func slowCheck(_ text: UnsafeRawBufferPointer) -> Bool {
        var chars = [CChar](repeating: 0, count: text.count + 1)
        for k in 0..<text.count { chars[k] = CChar(bitPattern: text[k]) }
        let d = strtod(chars, nil)
        guard d.isFinite, d != 0 else { return false }
        guard let value = value(of: text) else { return false }
        // The shortest decimal that round-trips the double.
        if let shortest = Self.value(of: Array(d.description.utf8)), shortest == value { return true }
        // The double's own value, for integers it holds exactly (2^60).
        if d == d.rounded(), abs(d) < 0x1p63, let exact = Self.value(of: Array(String(Int64(d)).utf8)), exact == value { return true }
        return false
    }

    private static func value(of text: [UInt8]) -> Value? {
        text.withUnsafeBytes { value(of: $0) }
    }

    /// The normal form of a JSON number's (or Swift's) decimal text.
    private static func value(of text: UnsafeRawBufferPointer) -> Value? {
        var v = Value(negative: false, digits: [], exponent: 0)
        var i = 0
        let n = text.count
        if i < n && text[i] == UInt8(ascii: "-") { v.negative = true; i += 1 }
        var fraction = 0
        var inFraction = false
        while i < n {
            let c = text[i]
            if c == UInt8(ascii: ".") { inFraction = true; i += 1; continue }
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { break }
            guard c >= 0x30 && c <= 0x39 else { return nil }
            if !(v.digits.isEmpty && c == 0x30) { v.digits.append(c) }
            if inFraction { fraction += 1 }
            i += 1
        }
        var e = 0
        if i < n {
            i += 1
            var negative = false
            if i < n && (text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+")) { negative = text[i] == UInt8(ascii: "-"); i += 1 }
            while i < n { e = min(e * 10 + Int(text[i] &- 0x30), 1_000_000); i += 1 }
            if negative { e = -e }
        }
        var trailing = 0
        while let last = v.digits.last, last == 0x30 { v.digits.removeLast(); trailing += 1 }
        v.exponent = e - fraction + trailing
        if v.digits.isEmpty { return Value(negative: false, digits: [], exponent: 0) }
        return v
    }

    /// Rewrites the numbers of the JSON text `b` that are not safe as strings of their text,
    /// appending the result to `out`; returns how many were rewritten (0: `out` untouched,
    /// and `b` can be used as it is).
    static func quoteUnsafe(_ b: UnsafeRawBufferPointer, into out: inout ByteArena) -> Int {
        var quoted = 0
        var copied = 0
        var i = 0
        let n = b.count
        while i < n {
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                i = StoredJSON.skipString(b, at: i)
                continue
            }
            if c == UInt8(ascii: "-") || (c >= 0x30 && c <= 0x39) {
                var e = i + 1
                while e < n {
                    let d = b[e]
                    if d == UInt8(ascii: ",") || d == UInt8(ascii: "}") || d == UInt8(ascii: "]") || d == 0x0A || d == 0x20 || d == UInt8(ascii: ":") { break }
                    e += 1
                }
                let number = UnsafeRawBufferPointer(rebasing: b[i..<e])
                if !isSafe(number) {
                    if quoted == 0 { out.removeAll() }
                    out.append(UnsafeRawBufferPointer(rebasing: b[copied..<i]))
                    out.append(UInt8(ascii: "\""))
                    out.append(number)
                    out.append(UInt8(ascii: "\""))
                    copied = e
                    quoted += 1
                }
                i = e
                continue
            }
            i += 1
        }
        if quoted > 0 { out.append(UnsafeRawBufferPointer(rebasing: b[copied..<n])) }
        return quoted
    }
}
