#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Throwing conversions: unlike ``JSONNumber/intValue`` and friends (which return `nil`),
/// these say why a value did not convert.
///
/// ```swift
/// let views = try article.attributes["views"]?.int()        // Int?
/// let score = try article.attributes["score"]?.decimal()    // 30 digits kept exactly
/// ```
extension LazyValue {
    /// The number as `Int`.
    ///
    /// - Throws: `DecodingError.typeMismatch` when the value is not a number (`valueNotFound`
    ///   for `null`); `.dataCorrupted` when it is not an integer or does not fit.
    public func int() throws(DecodingError) -> Int { try integer(Int.self) }

    /// The number as `Int64`; throws as ``int()`` does.
    public func int64() throws(DecodingError) -> Int64 { try integer(Int64.self) }

    /// The number as `Double`: throws when it overflows, underflows to zero, or has more
    /// significant digits than a `Double` keeps (`9007199254740993`); `0.1` converts.
    public func double() throws(DecodingError) -> Double {
        try number(Double.self) { StoredNumber.double($0, strategy: .exact) }
    }

    /// The number as `Decimal` (up to 38 significant digits).
    public func decimal() throws(DecodingError) -> Decimal {
        try number(Decimal.self) { StoredNumber.decimal($0) }
    }

    private func integer<T: FixedWidthInteger>(_ type: T.Type) throws(DecodingError) -> T {
        try number(T.self) { StoredNumber.integer($0, as: T.self) }
    }

    private func number<T>(_ type: T.Type, _ convert: (UnsafeRawBufferPointer) -> Result<T, StoredNumber.Failure>) throws(DecodingError) -> T {
        var text = jsonText
        let result: Result<T, StoredNumber.Failure>? = text.withUTF8 { utf8 in
            let b = UnsafeRawBufferPointer(utf8)
            guard let c = b.first, c == UInt8(ascii: "-") || (c &- 0x30) < 10 else { return nil }
            return convert(b)
        }
        switch result {
        case .success(let v)?: return v
        case .failure(let f)?: throw valueError(T.self, text, f)
        case nil:
            let found = kind == .null ? "null" : "\(kind.rawValue) \(abbreviated(text))"
            let context = DecodingError.Context(codingPath: [], debugDescription: "expected \(T.self), found \(found)")
            throw kind == .null ? .valueNotFound(T.self, context) : .typeMismatch(T.self, context)
        }
    }
}

extension JSONNumber {
    /// The number as `Int`; throws `DecodingError.dataCorrupted` when it is not an integer
    /// or does not fit (where ``intValue`` returns `nil`).
    public func int() throws(DecodingError) -> Int { try convert(Int.self) { StoredNumber.integer($0, as: Int.self) } }

    /// The number as `Int64`; throws as ``int()`` does.
    public func int64() throws(DecodingError) -> Int64 { try convert(Int64.self) { StoredNumber.integer($0, as: Int64.self) } }

    /// The number as `Double`, only when nothing is lost (see ``LazyValue/double()``).
    public func double() throws(DecodingError) -> Double { try convert(Double.self) { StoredNumber.double($0, strategy: .exact) } }

    /// The number as `Decimal` (up to 38 significant digits).
    public func decimal() throws(DecodingError) -> Decimal { try convert(Decimal.self) { StoredNumber.decimal($0) } }

    private func convert<T>(_ type: T.Type, _ body: (UnsafeRawBufferPointer) -> Result<T, StoredNumber.Failure>) throws(DecodingError) -> T {
        var text = self.text
        switch text.withUTF8({ body(UnsafeRawBufferPointer($0)) }) {
        case .success(let v): return v
        case .failure(let f): throw valueError(T.self, self.text, f)
        }
    }
}

private func valueError(_ type: Any.Type, _ text: String, _ failure: StoredNumber.Failure) -> DecodingError {
    .dataCorrupted(
        DecodingError.Context(
            codingPath: [], debugDescription: "expected \(type), found number \(abbreviated(text)), which \(failure.reason("\(type)"))"))
}

private func abbreviated(_ text: String) -> String {
    text.count > 48 ? String(text.prefix(48)) + "…" : text
}
