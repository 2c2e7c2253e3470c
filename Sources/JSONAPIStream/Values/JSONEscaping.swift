/// Minimal JSON string escaping, as the output contract requires: `"`, `\` and control
/// characters only (`\b \f \n \r \t` in their short forms, the rest as `\u00XX`); `/` and
/// non-ASCII characters are written as UTF-8.
package enum JSONEscaping {
    /// 0: copy as is; otherwise the character after the backslash (`u` for `\u00XX`).
    static let table: [UInt8] = {
        var t = [UInt8](repeating: 0, count: 256)
        for c in 0..<0x20 { t[c] = UInt8(ascii: "u") }
        t[0x08] = UInt8(ascii: "b")
        t[0x0C] = UInt8(ascii: "f")
        t[0x0A] = UInt8(ascii: "n")
        t[0x0D] = UInt8(ascii: "r")
        t[0x09] = UInt8(ascii: "t")
        t[0x22] = UInt8(ascii: "\"")
        t[0x5C] = UInt8(ascii: "\\")
        return t
    }()

    /// Whether `bytes` can be written between quotes as they are.
    @inline(__always)
    static func isPlain(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Eight bytes at a time; the bytes of a short string, or the last ones of a long
        // one, are gathered into one word by loads that may overlap (testing a byte twice
        // changes nothing). Ids and type names are mostly shorter than eight bytes.
        @inline(__always) func plain(_ w: UInt64) -> Bool {
            JSONBytes.specialBytes(in: w & ~(w & 0x8080_8080_8080_8080)) == 0
        }
        let n = bytes.count
        if n >= 8 {
            var i = 0
            while i &+ 8 < n {
                if !plain(bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { return false }
                i &+= 8
            }
            return plain(bytes.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self))
        }
        if n >= 4 {
            let low = UInt64(bytes.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            let high = UInt64(bytes.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self))
            return plain(low | high &<< 32)
        }
        guard n > 0 else { return true }
        // One to three bytes: the first, the middle and the last, the last twice.
        let last = UInt32(bytes[n &- 1])
        let w = UInt32(bytes[0]) | UInt32(bytes[n &>> 1]) &<< 8 | last &<< 16 | last &<< 24
        return plain(UInt64(w) | UInt64(w) &<< 32)
    }

    /// Appends `,"id":…` and `,"lid":…`, each when present (the members after a `type`).
    @inline(__always)
    package static func appendIDs(id: UnsafeRawBufferPointer?, lid: UnsafeRawBufferPointer?, to out: inout ByteArena) {
        if let id { appendMember(#","id":"#, quoting: id, to: &out) }
        if let lid { appendMember(#","lid":"#, quoting: lid, to: &out) }
    }

    /// Appends a resource identifier object: `{"type":…,"id":…,"lid":…}`, `id` and `lid`
    /// when present.
    package static func appendIdentifier(type: UnsafeRawBufferPointer, id: UnsafeRawBufferPointer?, lid: UnsafeRawBufferPointer?, to out: inout ByteArena) {
        appendMember(#"{"type":"#, quoting: type, to: &out)
        appendIDs(id: id, lid: lid, to: &out)
        out.append(0x7D)
    }

    /// Appends `prefix` (a member's name and colon, say), then `bytes` (UTF-8) as a quoted
    /// JSON string, then a colon when `colon`. Bytes that need no escaping (the usual type, id
    /// or name) take one check for room and are copied once, rather than one check per piece.
    @inline(__always)
    package static func appendMember(_ prefix: StaticString, quoting bytes: UnsafeRawBufferPointer, colon: Bool = false, to out: inout ByteArena) {
        guard isPlain(bytes) else {
            out.append(prefix)
            out.append(0x22)
            appendEscaped(bytes, to: &out)
            out.append(0x22)
            if colon { out.append(0x3A) }
            return
        }
        let k = prefix.utf8CodeUnitCount
        let n = bytes.count
        let p = out.reserveTail(k &+ n &+ (colon ? 3 : 2))
        copyBytes(to: p, from: prefix.utf8Start, count: k)
        p.storeBytes(of: 0x22, toByteOffset: k, as: UInt8.self)
        if let b = bytes.baseAddress { copyBytes(to: p + (k &+ 1), from: b, count: n) }
        p.storeBytes(of: 0x22, toByteOffset: k &+ 1 &+ n, as: UInt8.self)
        if colon { p.storeBytes(of: 0x3A, toByteOffset: k &+ 2 &+ n, as: UInt8.self) }
    }

    /// Appends a member name, `"name":`, after a comma when `comma`.
    @inline(__always)
    package static func appendName(_ bytes: UnsafeRawBufferPointer, comma: Bool, to out: inout ByteArena) {
        if comma { appendMember(",", quoting: bytes, colon: true, to: &out) } else { appendMember("", quoting: bytes, colon: true, to: &out) }
    }

    /// Appends `bytes` (UTF-8) to `out` as a quoted JSON string.
    @inline(__always)
    package static func appendQuoted(_ bytes: UnsafeRawBufferPointer, to out: inout ByteArena) {
        out.append(0x22)
        if isPlain(bytes) { out.append(bytes) } else { appendEscaped(bytes, to: &out) }
        out.append(0x22)
    }

    @inline(never)
    static func appendEscaped(_ bytes: UnsafeRawBufferPointer, to out: inout ByteArena) {
        // A lowercase hexadecimal digit (no table: this runs for every escaped string).
        @inline(__always) func hex(_ v: UInt8) -> UInt8 { v < 10 ? 0x30 &+ v : 0x57 &+ v }
        var runStart = 0
        for i in 0..<bytes.count {
            let c = bytes[i]
            let e = table[Int(c)]
            if e == 0 { continue }
            if runStart < i { out.append(UnsafeRawBufferPointer(rebasing: bytes[runStart..<i])) }
            out.append(0x5C, e)
            if e == UInt8(ascii: "u") {
                out.append(UInt8(ascii: "0"), UInt8(ascii: "0"))
                out.append(hex(c >> 4), hex(c & 15))
            }
            runStart = i + 1
        }
        if runStart < bytes.count { out.append(UnsafeRawBufferPointer(rebasing: bytes[runStart...])) }
    }
}

/// Writes ``JSONValue``s as minified JSON text.
struct JSONTextWriter: ~Copyable {
    var arena = ByteArena(capacity: 256)

    var text: String { arena.string(0..<arena.count) }

    mutating func write(_ value: JSONValue) {
        switch value {
        case .null: arena.append("null")
        case .bool(let b): arena.append(b ? "true" : "false")
        case .number(let n): writeUTF8(n.text)
        case .string(let s): writeString(s)
        case .array(let a):
            arena.append(UInt8(ascii: "["))
            for (i, v) in a.enumerated() {
                if i > 0 { arena.append(UInt8(ascii: ",")) }
                write(v)
            }
            arena.append(UInt8(ascii: "]"))
        case .object(let o):
            arena.append(UInt8(ascii: "{"))
            for (i, m) in o.members.enumerated() {
                if i > 0 { arena.append(UInt8(ascii: ",")) }
                writeString(m.key)
                arena.append(UInt8(ascii: ":"))
                write(m.value)
            }
            arena.append(UInt8(ascii: "}"))
        }
    }

    mutating func writeString(_ s: String) {
        var s = s
        s.withUTF8 { JSONEscaping.appendQuoted(UnsafeRawBufferPointer($0), to: &arena) }
    }

    private mutating func writeUTF8(_ s: String) {
        var s = s
        s.withUTF8 { arena.append(UnsafeRawBufferPointer($0)) }
    }
}
