/// Calls `body` with `bytes` in pieces of `chunkSize` bytes (``InputSource/readSize(_:)``:
/// from 1 to ``InputSource/maxChunkSize``), in order.
package func forEachChunk(
    of bytes: UnsafeRawBufferPointer, size chunkSize: Int, _ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> Void
) throws(JSONAPIError) {
    let size = InputSource.readSize(chunkSize)
    var i = 0
    while i < bytes.count {
        let end = min(i + size, bytes.count)
        try body(UnsafeRawBufferPointer(rebasing: bytes[i..<end]))
        i = end
    }
}

extension UnsafeRawBufferPointer {
    /// Whether `inner`'s bytes all lie in these (an empty or unplaced `inner`, or these
    /// unplaced: no).
    @inline(__always)
    func encloses(_ inner: UnsafeRawBufferPointer) -> Bool {
        guard let start = inner.baseAddress, let from = baseAddress else { return false }
        return start >= from && start + inner.count <= from + count
    }
}

/// Calls `body` with the bytes of `collection` in one contiguous buffer, copying only when
/// the collection has no contiguous storage of its own.
func withContiguousBytes<C: Collection<UInt8>, R>(
    of collection: C, _ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> R
) throws(JSONAPIError) -> R {
    var result: Result<R, JSONAPIError>? = collection.withContiguousStorageIfAvailable { b in
        do throws(JSONAPIError) { return .success(try body(UnsafeRawBufferPointer(b))) } catch { return .failure(error) }
    }
    if result == nil {
        let copy = Array(collection)
        result = copy.withUnsafeBytes { b in
            do throws(JSONAPIError) { return .success(try body(b)) } catch { return .failure(error) }
        }
    }
    return try result!.get()
}
