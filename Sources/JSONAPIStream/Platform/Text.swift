#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// What the command and the library took from Foundation's text API, which
// FoundationEssentials lacks.

package extension StringProtocol {
    /// The text without the white space (newlines too) at its ends: Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`, which FoundationEssentials lacks.
    func trimmingWhitespace() -> String {
        guard let first = firstIndex(where: { !$0.isWhitespace }) else { return "" }
        let last = lastIndex(where: { !$0.isWhitespace })!
        return String(self[first...last])
    }
}

/// C's `printf` formatting of numbers (`"%.1f"`, `"%g"`): Foundation's `String(format:)`,
/// which FoundationEssentials lacks. For `Double` and `Int` arguments (use `%ld` for `Int`).
package func cFormat(_ format: String, _ arguments: CVarArg...) -> String {
    var size = 64
    while true {
        var buffer = [CChar](repeating: 0, count: size)
        let n = withVaList(arguments) { vsnprintf(&buffer, size, format, $0) }
        if n < 0 { return "" }
        if Int(n) < size { return String(decoding: buffer.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self) }
        size = Int(n) + 1
    }
}
