// How names and places are written in diagnostics: JSON pointer tokens and quoted names.

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
