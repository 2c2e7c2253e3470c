/// How member names are rewritten on output (`--keys`) and matched when decoding.
///
/// Names are split into words at `-`, `_` and spaces, and where a lowercase letter or digit
/// is followed by an uppercase one (`firstName`), or an uppercase run meets a capitalised
/// word (`HTTPServer` → `HTTP`, `Server`). Digits stay with the word before them
/// (`line2Text` → `line2`, `Text`). Characters outside ASCII are kept as they are.
public enum KeyFormat: String, Sendable, Hashable, CaseIterable {
    /// Names as they are in the input.
    case asIs = "as-is"
    /// `firstName`
    case camel
    /// `first_name`
    case snake
    /// `first-name`
    case kebab

    /// The name rewritten in this format.
    public func apply(_ name: String) -> String {
        let bytes = Array(name.utf8)
        var out: [UInt8] = []
        let changed = bytes.withUnsafeBytes { b in apply(b, into: &out) }
        return changed ? String(decoding: out, as: UTF8.self) : name
    }

    /// Rewrites `name` into `out` (cleared first). Returns false when the name is unchanged
    /// (and leaves `out` empty), so callers can write the original bytes.
    @discardableResult
    func apply(_ name: UnsafeRawBufferPointer, into out: inout [UInt8]) -> Bool {
        out.removeAll(keepingCapacity: true)
        guard self != .asIs else { return false }
        let words = Self.words(name)
        for (w, range) in words.enumerated() {
            if w > 0 {
                switch self {
                case .snake: out.append(UInt8(ascii: "_"))
                case .kebab: out.append(UInt8(ascii: "-"))
                default: break
                }
            }
            for (k, i) in range.enumerated() {
                var c = name[i]
                let isUpper = c >= 0x41 && c <= 0x5A
                let isLower = c >= 0x61 && c <= 0x7A
                if self == .camel && w > 0 && k == 0 {
                    if isLower { c -= 0x20 }
                } else if isUpper {
                    c += 0x20
                }
                out.append(c)
            }
        }
        if out.count == name.count && memoryEqual(UnsafeRawBufferPointer(start: out.withUnsafeBufferPointer { $0.baseAddress }, count: out.count), name) {
            out.removeAll(keepingCapacity: true)
            return false
        }
        return true
    }

    /// The word ranges of a name.
    static func words(_ name: UnsafeRawBufferPointer) -> [Range<Int>] {
        var words: [Range<Int>] = []
        var start: Int? = nil
        func kind(_ c: UInt8) -> Int {  // 0 separator, 1 lower/other, 2 upper, 3 digit
            if c == UInt8(ascii: "-") || c == UInt8(ascii: "_") || c == UInt8(ascii: " ") { return 0 }
            if c >= 0x41 && c <= 0x5A { return 2 }
            if c >= 0x30 && c <= 0x39 { return 3 }
            return 1
        }
        var i = 0
        while i < name.count {
            let k = kind(name[i])
            if k == 0 {
                if let s = start { words.append(s..<i); start = nil }
                i += 1
                continue
            }
            if let s = start, k == 2 {
                let prev = kind(name[i - 1])
                let nextIsLower = i + 1 < name.count && kind(name[i + 1]) == 1
                if prev == 1 || prev == 3 || (prev == 2 && nextIsLower) {
                    words.append(s..<i)
                    start = i
                }
            }
            if start == nil { start = i }
            i += 1
        }
        if let s = start { words.append(s..<name.count) }
        return words
    }
}
