#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Scalars: strings, numbers, dates, URLs, with the options' strategies.
extension ResourceDecoder {
    //
    // These throw a `ScalarFailure` without a location; the caller, which knows the key,
    // turns it into a `DecodingError` (so the common path builds no coding path).

    /// The stored bytes of a number at `node`, or `nil` when it is not a number.
    @inline(__always)
    func numberText(_ node: DecodingNode) -> UnsafeRawBufferPointer? {
        guard case .value(let s, let e, _) = node else { return nil }
        let c = bytes[s]
        guard c == UInt8(ascii: "-") || (c &- 0x30) < 10 else { return nil }
        return UnsafeRawBufferPointer(rebasing: bytes[s..<e])
    }

    @inline(__always)
    func string(_ node: DecodingNode) throws(ScalarFailure) -> String {
        switch node {
        case .value(let s, let e, let escaped) where bytes[s] == 0x22:
            return StoredJSON.string(bytes, s, e, escaped: escaped)
        case .text(let t):
            return t
        default:
            throw ScalarFailure(String.self, .mismatch(nil))
        }
    }

    @inline(__always)
    func bool(_ node: DecodingNode) throws(ScalarFailure) -> Bool {
        if case .value(let s, _, _) = node {
            if bytes[s] == UInt8(ascii: "t") { return true }
            if bytes[s] == UInt8(ascii: "f") { return false }
        }
        throw ScalarFailure(Bool.self, .mismatch(nil))
    }

    @inline(__always)
    func integer<T: FixedWidthInteger>(_ type: T.Type, _ node: DecodingNode) throws(ScalarFailure) -> T {
        let result: Result<T, StoredNumber.Failure>
        if let text = numberText(node) {
            result = StoredNumber.integer(text, as: T.self)
        } else if case .text(var t) = node {
            // An id written as digits ("42") reads as an integer.
            result = t.withUTF8 { StoredNumber.integer(UnsafeRawBufferPointer($0), as: T.self) }
            if case .failure = result { throw ScalarFailure(T.self, .mismatch(nil)) }
        } else {
            throw ScalarFailure(T.self, .mismatch(nil))
        }
        switch result {
        case .success(let v): return v
        case .failure(let f): throw ScalarFailure(T.self, .number(f))
        }
    }

    @inline(__always)
    func double(_ node: DecodingNode) throws(ScalarFailure) -> Double {
        guard let text = numberText(node) else { throw ScalarFailure(Double.self, .mismatch(nil)) }
        switch StoredNumber.double(text, strategy: options.floatingPoint) {
        case .success(let v): return v
        case .failure(let f): throw ScalarFailure(Double.self, .number(f))
        }
    }

    func float(_ node: DecodingNode) throws(ScalarFailure) -> Float {
        guard let text = numberText(node) else { throw ScalarFailure(Float.self, .mismatch(nil)) }
        switch StoredNumber.float(text, strategy: options.floatingPoint) {
        case .success(let v): return v
        case .failure(let f): throw ScalarFailure(Float.self, .number(f))
        }
    }

    func decimal(_ node: DecodingNode) throws(ScalarFailure) -> Decimal {
        guard let text = numberText(node) else { throw ScalarFailure(Decimal.self, .mismatch("a number")) }
        switch StoredNumber.decimal(text) {
        case .success(let v): return v
        case .failure(let f): throw ScalarFailure(Decimal.self, .number(f))
        }
    }

    func date(_ node: DecodingNode) throws(ScalarFailure) -> Date {
        switch options.dates {
        case .iso8601:
            if case .value(let s, let e, let escaped) = node, bytes[s] == 0x22, !escaped {
                if let t = ISO8601Parsing.secondsSince1970(UnsafeRawBufferPointer(rebasing: bytes[(s + 1)..<(e - 1)])) {
                    return Date(timeIntervalSince1970: t)
                }
            } else {
                var text: String
                do throws(ScalarFailure) { text = try string(node) } catch { throw ScalarFailure(Date.self, .mismatch("an ISO 8601 date-time string")) }
                if let t = text.withUTF8({ ISO8601Parsing.secondsSince1970(UnsafeRawBufferPointer($0)) }) {
                    return Date(timeIntervalSince1970: t)
                }
            }
            throw ScalarFailure(Date.self, .invalid("an ISO 8601 date-time (like 2026-03-01T12:30:00Z or 2026-03-01T12:30:00.250+01:00)"))
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try dateNumber(node))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try dateNumber(node) / 1000)
        case .formatted(let formatter):
            let text: String
            do throws(ScalarFailure) { text = try string(node) } catch { throw ScalarFailure(Date.self, .mismatch("a date string")) }
            if let date = formatter.date(from: text) { return date }
            throw ScalarFailure(Date.self, .invalid("a date in the format \"\(formatter.formatDescription)\""))
        case .custom(let body):
            guard let value = lazyValue(node) else { throw ScalarFailure(Date.self, .mismatch("a date")) }
            return try apply({ try body($0) }, to: value, as: Date.self)
        }
    }

    func dateNumber(_ node: DecodingNode) throws(ScalarFailure) -> Double {
        guard let text = numberText(node) else { throw ScalarFailure(Date.self, .mismatch("a number of seconds")) }
        switch StoredNumber.double(text, strategy: .nearest) {
        case .success(let v): return v
        case .failure(let f): throw ScalarFailure(Date.self, .number(f))
        }
    }

    func url(_ node: DecodingNode) throws(ScalarFailure) -> URL {
        let text: String
        do throws(ScalarFailure) { text = try string(node) } catch { throw ScalarFailure(URL.self, .mismatch("a URL string")) }
        if let base = options.baseURL {
            if let url = URL(string: text, relativeTo: base) { return url.absoluteURL }
        } else if let url = URL(string: text) {
            return url
        }
        throw ScalarFailure(URL.self, .invalid("a URL"))
    }

    /// `error` as a `DecodingError` at `location`.
    @inline(never)
    func error(_ failure: ScalarFailure, _ node: DecodingNode, _ location: Location) -> DecodingError {
        switch failure.reason {
        case .mismatch(let expected):
            return mismatch(failure.type, node, location, expected: expected)
        case .number(let f):
            return numberFailure(failure.type, f, node, location)
        case .invalid(let expected):
            return .dataCorrupted(context(location, "expected \(expected), found \(describe(node))"))
        case .message(let text):
            return .dataCorrupted(context(location, text))
        case .transform(let error):
            if let e = error as? DecodingError { return relocated(e, location) }
            return .dataCorrupted(context(location, "the transform for \(failure.type) failed: \(error)", underlying: error))
        }
    }

    func isNil(_ node: DecodingNode) -> Bool {
        switch node {
        case .value(let s, _, _): return bytes[s] == UInt8(ascii: "n")
        case .relationship(let i):
            let kind = storage.relationships[i].kind
            return kind == .null || kind == .absent
        case .primary: return storage.primaryRows.isEmpty
        case .resource, .linkage, .text: return false
        }
    }

    /// The stored value at `node` as a ``LazyValue`` (for transforms), or `nil` for graph
    /// nodes.
    func lazyValue(_ node: DecodingNode) -> LazyValue? {
        switch node {
        case .value(let s, let e, _): return LazyValue(storage: storage, span: ValueSpan(start: s, count: e - s))
        case .text(let t): return LazyValue(detached: .string(t))
        default: return nil
        }
    }
}
