/// A value handed to the session's delegate queue, where it is used alone (a parser that
/// the calling task no longer touches while the queue does).
struct QueueBound<T>: @unchecked Sendable {
    let value: T
}
