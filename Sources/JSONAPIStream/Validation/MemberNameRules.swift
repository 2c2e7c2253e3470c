internal import CPlatform

/// The member-name rules of JSON:API 1.1 (`#document-member-names`), R37–R41, on raw
/// UTF-8 bytes: names compare and are checked byte for byte, never folded (R36).
enum MemberNameRules {
    struct Violation {
        var rule: Rule
        var message: String
    }

    /// 1: globally allowed (a-z A-Z 0-9; every byte of a character at or above U+0080).
    /// 2: allowed, but not first or last (`-`, `_`, space). 3: `@`. 4: `:`. 0: reserved.
    static let classes: [UInt8] = {
        var t = [UInt8](repeating: 0, count: 256)
        for c in UInt8(ascii: "a")...UInt8(ascii: "z") { t[Int(c)] = 1 }
        for c in UInt8(ascii: "A")...UInt8(ascii: "Z") { t[Int(c)] = 1 }
        for c in UInt8(ascii: "0")...UInt8(ascii: "9") { t[Int(c)] = 1 }
        for c in 0x80...0xFF { t[c] = 1 }
        t[Int(UInt8(ascii: "-"))] = 2
        t[Int(UInt8(ascii: "_"))] = 2
        t[Int(UInt8(ascii: " "))] = 2
        t[Int(UInt8(ascii: "@"))] = 3
        t[Int(UInt8(ascii: ":"))] = 4
        return t
    }()

    /// The first rule `name` breaks, or `nil`. `allowAt`: `@`-members are acceptable here
    /// (their rest must be a valid name); type names may not start with `@`.
    static func violation(_ name: UnsafeRawBufferPointer, extensions: Set<String>, allowAt: Bool) -> Violation? {
        // Fast path: plain names of globally allowed characters.
        var plain = name.count > 0
        for b in name where !((b | 0x20) &- 0x61 < 26 || b &- 0x30 < 10 || b >= 0x80) {
            plain = false
            break
        }
        if plain { return nil }
        guard name.count > 0 else { return Violation(rule: .R37, message: "a member name MUST contain at least one character") }
        var body = name
        if name[0] == UInt8(ascii: "@") {
            guard allowAt else { return Violation(rule: .R40, message: "@ is allowed only at the start of an @-member name") }
            body = UnsafeRawBufferPointer(rebasing: name[1...])
            if body.isEmpty { return Violation(rule: .R37, message: "an @-member name MUST have characters after @") }
        }
        if let colon = body.firstIndex(of: UInt8(ascii: ":")) {
            let ns = UnsafeRawBufferPointer(rebasing: body[..<colon])
            let nsText = String(decoding: ns, as: UTF8.self)
            let nsValid = !ns.isEmpty && ns.allSatisfy { $0 < 0x80 && classes[Int($0)] == 1 }
            guard nsValid, extensions.contains(nsText) else {
                return Violation(
                    rule: .R41,
                    message: nsValid
                        ? "\(quoted(nsText)) is not the namespace of an applied extension"
                        : "':' is allowed only after an extension namespace")
            }
            let rest = UnsafeRawBufferPointer(rebasing: body[(colon + 1)...])
            if rest.isEmpty { return Violation(rule: .R41, message: "an extension member name MUST have characters after the namespace") }
            // The rest follows R37–R39; a failure there is a failure of the extension name.
            if var v = violation(rest, extensions: [], allowAt: false) {
                v.rule = .R41
                v.message = "the name after \(quoted(nsText)): \(v.message)"
                return v
            }
            return nil
        }
        for b in body {
            switch classes[Int(b)] {
            case 1, 2: continue
            case 3: return Violation(rule: .R40, message: "@ is allowed only at the start of an @-member name")
            case 4: return Violation(rule: .R41, message: "':' is allowed only after an extension namespace")
            default: return Violation(rule: .R38, message: "\(printable(b)) is not allowed in member names")
            }
        }
        if classes[Int(body[0])] != 1 {
            return Violation(rule: .R39, message: "a member name MUST start with a letter, a digit or a non-ASCII character, not \(printable(body[0]))")
        }
        if classes[Int(body[body.count - 1])] != 1 {
            return Violation(rule: .R39, message: "a member name MUST end with a letter, a digit or a non-ASCII character, not \(printable(body[body.count - 1]))")
        }
        return nil
    }
}

/// Syntax checks for values JSON:API says are URIs, link relation types, language tags and
/// JSON pointers.
enum SyntaxRules {
    /// Whether `s` is a URI-reference (RFC 3986 §4.1), by syntax: allowed characters,
    /// percent-encoding, a valid scheme when there is one, at most one `#`.
    static func isURIReference(_ s: UnsafeRawBufferPointer) -> Bool {
        let n = s.count
        var sawHash = false
        var brackets = false
        // A colon before any `/`, `?` or `#` ends a scheme: ALPHA *( ALPHA / DIGIT / "+" / "-"
        // / "." ). The scheme's bytes are read once, here: they are allowed and need no other
        // look, so the loop below starts after them (or after the colon).
        var i = 0
        while i < n && isSchemeByte(s[i]) { i &+= 1 }
        var pastDelimiter = false
        if i < n && s[i] == UInt8(ascii: ":") {
            guard i > 0 && isAlpha(s[0]) else { return false }
            pastDelimiter = true
            i &+= 1
        }
        while i < n {
            if pastDelimiter {
                // Past the first delimiter only % # [ ] and bytes outside the set need a look.
                i &+= jsonapi_uri_plain_prefix(s.baseAddress.unsafelyUnwrapped + i, n &- i)
                if i == n { break }
            }
            let c = s[i]
            guard c < 0x80, uriAllowed(c) else { return false }
            if !uriSpecial(c) { i &+= 1; continue }
            switch c {
            case UInt8(ascii: "%"):
                guard i &+ 2 < n, hexDigitValue(s[i &+ 1]) < 16, hexDigitValue(s[i &+ 2]) < 16 else { return false }
                i &+= 3
                continue
            case UInt8(ascii: "#"):
                if sawHash { return false }
                sawHash = true
            case UInt8(ascii: "["), UInt8(ascii: "]"):
                brackets = true
            default: break
            }
            if !pastDelimiter {
                // The first delimiter. A colon here comes after a byte no scheme holds (a
                // scheme's colon was taken above).
                if c == UInt8(ascii: ":") { return false }
                pastDelimiter = c == UInt8(ascii: "/") || c == UInt8(ascii: "?") || c == UInt8(ascii: "#")
            }
            i &+= 1
        }
        // Square brackets belong to an IP literal host (`//[::1]`). Elsewhere RFC 3986 does
        // not allow them, but the spec's own examples put them in query strings
        // (`?page[number]=2`), so the query and fragment may hold them; the path may not.
        return !brackets || checkBrackets(s)
    }

    /// A scheme's characters: ALPHA / DIGIT / "+" / "-" / ".".
    @inline(__always)
    static func isSchemeByte(_ c: UInt8) -> Bool {
        isAlpha(c) || (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "+") || c == UInt8(ascii: "-") || c == UInt8(ascii: ".")
    }

    @inline(__always)
    static func isAlpha(_ c: UInt8) -> Bool { (c | 0x20) &- UInt8(ascii: "a") < 26 }

    /// Characters a URI-reference may hold: A-Z a-z 0-9 - . _ ~ : / ? # [ ] @ ! $ & ' ( ) * + , ; = %
    @inline(__always)
    static func uriAllowed(_ c: UInt8) -> Bool {
        // Bit c of the 128-bit set, as two words.
        let low: UInt64 = 0xAFFF_FFFA_0000_0000
        let high: UInt64 = 0x47FF_FFFE_AFFF_FFFF
        return c < 64 ? (low >> UInt64(c)) & 1 == 1 : (high >> UInt64(c &- 64)) & 1 == 1
    }

    /// Characters the URI check looks at more closely: % # [ ] : / ?
    @inline(__always)
    static func uriSpecial(_ c: UInt8) -> Bool {
        c == 0x25 || c == 0x23 || c == 0x5B || c == 0x5D || c == 0x3A || c == 0x2F || c == 0x3F
    }

    static func checkBrackets(_ s: UnsafeRawBufferPointer) -> Bool {
        let n = s.count
        var i = 0
        // Skip a scheme.
        var k = 0
        while k < n, s[k] != UInt8(ascii: ":"), s[k] != UInt8(ascii: "/"), s[k] != UInt8(ascii: "?"), s[k] != UInt8(ascii: "#") { k += 1 }
        if k < n && s[k] == UInt8(ascii: ":") { i = k + 1 }
        // The authority, with an optional IP literal.
        if i + 1 < n && s[i] == UInt8(ascii: "/") && s[i + 1] == UInt8(ascii: "/") {
            i += 2
            var inLiteral = false
            var sawLiteral = false
            while i < n {
                let c = s[i]
                if c == UInt8(ascii: "[") {
                    if inLiteral || sawLiteral { return false }
                    inLiteral = true
                } else if c == UInt8(ascii: "]") {
                    if !inLiteral { return false }
                    inLiteral = false
                    sawLiteral = true
                } else if !inLiteral && (c == UInt8(ascii: "/") || c == UInt8(ascii: "?") || c == UInt8(ascii: "#")) {
                    break
                }
                i += 1
            }
            if inLiteral { return false }
        }
        // The path: no brackets.
        while i < n && s[i] != UInt8(ascii: "?") && s[i] != UInt8(ascii: "#") {
            if s[i] == UInt8(ascii: "[") || s[i] == UInt8(ascii: "]") { return false }
            i += 1
        }
        return true
    }

    /// A link relation type (RFC 8288 §2.1): a registered name (`[a-z][a-z0-9.-]*`) or an
    /// extension relation type (a URI).
    static func isRelationType(_ s: UnsafeRawBufferPointer) -> Bool {
        if s.contains(UInt8(ascii: ":")) { return isURIReference(s) }
        guard let f = s.first, f >= UInt8(ascii: "a") && f <= UInt8(ascii: "z") else { return false }
        return s.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-") }
    }

    /// A language tag (BCP 47), by its general shape: subtags of 1–8 letters or digits
    /// separated by `-`, the first made of letters.
    static func isLanguageTag(_ s: UnsafeRawBufferPointer) -> Bool {
        var subtag = 0
        var first = true
        for c in s {
            if c == UInt8(ascii: "-") {
                if subtag == 0 { return false }
                subtag = 0
                first = false
                continue
            }
            let alpha = (c | 0x20) >= UInt8(ascii: "a") && (c | 0x20) <= UInt8(ascii: "z")
            let digit = c >= 0x30 && c <= 0x39
            if !(alpha || (digit && !first)) { return false }
            subtag += 1
            if subtag > 8 { return false }
        }
        return subtag > 0
    }

    /// A JSON pointer (RFC 6901): empty, or `/` followed by reference tokens where `~` is
    /// only `~0` or `~1`.
    static func isJSONPointer(_ s: UnsafeRawBufferPointer) -> Bool {
        if s.isEmpty { return true }
        guard s[0] == UInt8(ascii: "/") else { return false }
        var i = 0
        while i < s.count {
            if s[i] == UInt8(ascii: "~") {
                guard i + 1 < s.count, s[i + 1] == UInt8(ascii: "0") || s[i + 1] == UInt8(ascii: "1") else { return false }
            }
            i += 1
        }
        return true
    }
}

/// Names (up to 16 bytes) found valid, keyed exactly by kind, length, first eight and last
/// eight bytes: an open-addressing set (linear probing) that stops taking names at half its
/// slots, so a document with endless distinct names costs a check each, never memory.
///
/// (It used to be direct-mapped with 256 slots: by the birthday bound, two of a document's
/// few dozen names usually shared a slot and evicted each other on every resource.)
struct NameCache {
    private struct Slot {
        var length: Int32 = -1
        var kind: Int32 = 0
        var prefix: UInt64 = 0
        var suffix: UInt64 = 0
    }
    private static let size = 1024
    private static let maxEntries = size / 2
    private var slots = [Slot](repeating: Slot(), count: NameCache.size)
    private var entries = 0
    private let seed = HashSeed.process

    @inline(__always)
    private func slot(_ n: Int, _ prefix: UInt64, _ suffix: UInt64, _ kind: Int32) -> Int {
        let h = SeededHash.short(prefix: prefix, suffix: suffix, extra: UInt64(n) | UInt64(UInt32(bitPattern: kind)) &<< 32, seed: seed)
        return Int(truncatingIfNeeded: h &>> 54)  // 10 bits: `size` slots
    }

    /// The slot holding the name, or the empty slot where it would go.
    @inline(__always)
    private func find(_ n: Int, _ prefix: UInt64, _ suffix: UInt64, _ kind: Int32) -> (Int, found: Bool) {
        var i = slot(n, prefix, suffix, kind)
        // Terminates: at most `maxEntries` of the `size` slots are ever filled.
        while true {
            let e = slots[i]
            if e.length < 0 { return (i, false) }
            if e.length == Int32(truncatingIfNeeded: n) && e.prefix == prefix && e.suffix == suffix && e.kind == kind { return (i, true) }
            i = (i &+ 1) & (Self.size &- 1)
        }
    }

    @inline(__always)
    func contains(_ name: UnsafeRawBufferPointer, prefix: UInt64, kind: Int32) -> Bool {
        let n = name.count
        guard n > 0 && n <= 16 else { return false }
        return find(n, prefix, ShortName.suffix(name), kind).found
    }

    mutating func insert(_ name: UnsafeRawBufferPointer, prefix: UInt64, kind: Int32) {
        let n = name.count
        guard n > 0 && n <= 16 && entries < Self.maxEntries else { return }
        let s = ShortName.suffix(name)
        let (i, found) = find(n, prefix, s, kind)
        if found { return }
        slots[i] = Slot(length: Int32(n), kind: kind, prefix: prefix, suffix: s)
        entries &+= 1
    }
}
