extension Array {
    /// `init(unsafeUninitializedCapacity:initializingWith:)` for `count` elements, but `[]` for
    /// none: an array made with no capacity that way is the runtime's one shared empty array,
    /// whose count the initializer writes, so two threads doing it at once race on a global of
    /// `libswiftCore` (ThreadSanitizer reported it from two tests building empty graphs).
    package init(uninitializedCount count: Int, initializingWith body: (inout UnsafeMutableBufferPointer<Element>, inout Int) throws -> Void) rethrows {
        if count == 0 {
            self = []
            return
        }
        try self.init(unsafeUninitializedCapacity: count, initializingWith: body)
    }
}
