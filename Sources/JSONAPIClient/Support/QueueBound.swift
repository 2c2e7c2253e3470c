/// A value handed to the sender's queue, where it is used alone (a parser that
/// the calling task no longer touches while the queue does).
struct QueueBound<T>: @unchecked Sendable {
    let value: T
}
