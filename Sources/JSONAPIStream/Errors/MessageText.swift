// How names and places are written in diagnostics: JSON pointer tokens and quoted names.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Escapes a member name as a JSON pointer reference token (RFC 6901).
func escapePointerToken(_ s: String) -> String {
    guard s.contains(where: { $0 == "~" || $0 == "/" }) else { return s }
    var out = ""
    for c in s {
        switch c {
        case "~": out += "~0"
        case "/": out += "~1"
        default: out.append(c)
        }
    }
    return out
}

/// A name as shown in a message: in double quotes, with control characters escaped.
func quoted(_ s: String) -> String {
    // Most names and ids need no escape: one concatenation (messages are made for every
    // warning, a merged duplicate's among them).
    if !s.utf8.contains(where: { $0 == 0x22 || $0 == 0x5C || $0 < 0x20 }) { return "\"" + s + "\"" }
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case _ where u.value < 0x20: out += "\\u" + hex4(u.value)
        default: out.unicodeScalars.append(u)
        }
    }
    return out + "\""
}

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
