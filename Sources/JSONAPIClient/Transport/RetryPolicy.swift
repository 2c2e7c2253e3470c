import Foundation

/// When and how long to wait before asking again.
///
/// A response with a status in ``retryableStatuses`` (429 and the 5xx that mean "try later")
/// or a broken connection is retried up to ``maxAttempts`` requests in all, waiting
/// `Retry-After` when the server sent one (seconds or an HTTP-date), else an exponential
/// backoff with jitter: a random delay between half and all of
/// `min(maxDelay, baseDelay × 2^(attempt − 1))`.
///
/// Requests that change things (POST, PATCH) are retried only on 429 and 503, which say
/// the request was not processed, and never after a broken connection. A response whose
/// body had started to reach the parser is never retried.
public struct RetryPolicy: Sendable {
    /// Requests in all, the first included (1: no retries).
    public var maxAttempts: Int
    /// Seconds before the first retry; each next one waits twice as long (with jitter).
    public var baseDelay: Double
    /// The longest wait between two tries, in seconds.
    public var maxDelay: Double
    /// A `Retry-After` longer than this fails at once instead of waiting.
    public var maxRetryAfter: Double
    /// HTTP statuses that are tried again.
    public var retryableStatuses: Set<Int>
    /// Whether timeouts and broken connections of idempotent requests are retried.
    public var retriesTransportErrors: Bool

    /// A policy with these settings.
    public init(
        maxAttempts: Int = 4, baseDelay: Double = 0.5, maxDelay: Double = 30, maxRetryAfter: Double = 120,
        retryableStatuses: Set<Int> = [429, 500, 502, 503, 504], retriesTransportErrors: Bool = true
    ) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.retryableStatuses = retryableStatuses
        self.retriesTransportErrors = retriesTransportErrors
    }

    /// No retries.
    public static let none = RetryPolicy(maxAttempts: 1)

    /// The backoff before attempt `attempt + 1` when the server named no delay.
    public func backoff(afterAttempt attempt: Int) -> Double {
        let ceiling = min(maxDelay, baseDelay * pow(2, Double(max(0, attempt - 1))))
        return ceiling / 2 + Double.random(in: 0...(ceiling / 2))
    }

    /// Whether a response with `status` to `method` may be asked again.
    func retries(status: Int, method: String) -> Bool {
        guard retryableStatuses.contains(status) else { return false }
        return Self.isIdempotent(method) || status == 429 || status == 503
    }

    func retriesTransport(method: String) -> Bool { retriesTransportErrors && Self.isIdempotent(method) }

    static func isIdempotent(_ method: String) -> Bool {
        ["GET", "HEAD", "OPTIONS", "PUT", "DELETE"].contains(method.uppercased())
    }
}

/// `Retry-After` (RFC 9110, section 10.2.3): delay seconds or an HTTP-date.
enum RetryAfter {
    /// Seconds to wait from `now`; `nil` when the value is neither form. A date in the past
    /// gives 0.
    static func seconds(_ value: String, now: Date = Date()) -> Double? {
        let v = value.trimmingCharacters(in: .whitespaces)
        if let n = Int(v), n >= 0 { return Double(n) }
        return HTTPDate.parse(v).map { max(0, $0 - now.timeIntervalSince1970) }
    }
}
