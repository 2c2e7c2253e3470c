import Foundation
import JSONAPIStream

/// Calls `body` with a borrowed view of `bytes` (no copy), keeping the error's type.
@inline(__always)
func withBytes<R>(_ bytes: some ContiguousBytes, _ body: (UnsafeRawBufferPointer) throws(JSONAPIError) -> R) throws(JSONAPIError) -> R {
    let result: Result<R, JSONAPIError> = bytes.withUnsafeBytes { b in
        do throws(JSONAPIError) { return .success(try body(b)) } catch { return .failure(error) }
    }
    return try result.get()
}
