#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A relationship name as it is written (minimally escaped, without its quotes), and its
/// relationship's index; while a line's relationships are ordered.
struct CanonicalName: BitwiseCopyable {
    /// The name as it came when it needs no escaping, otherwise `escapedStart..<escapedEnd`
    /// of ``ResourceWriter/relationshipNames``.
    var name: UnsafeRawBufferPointer
    var escapedStart: Int
    var escapedEnd: Int
    var index: Int
}

/// `--hash`: the digest of a resource line's canonical form (docs/output-contract.md).
extension ResourceWriter {
    /// `,"hash":"…"`: the digest of the canonical form of the line just written from `line`,
    /// without its `primary` member (`identityEnd..<content`).
    ///
    /// The canonical form is written from the parts when it can be: the line's own members,
    /// its relationships and their identifiers are in an order known here, so only the values
    /// the input gave (attributes, links, meta) are read again. Names formatted by `--keys`
    /// and unknown members (whose names may sort anywhere) take the general way: the line's
    /// text read again as a whole. Both give the same bytes (tested over the corpus).
    ///
    /// - Throws: the first time, when libcrypto cannot be loaded.
    func writeHash(_ p: ResourceParts, line: Int, identityEnd: Int, content: Int) throws(JSONAPIError) {
        let hasher: SHA256Hasher
        if let made = self.hasher {
            hasher = made
        } else {
            hasher = try SHA256Hasher()
            self.hasher = hasher
        }
        canonical.removeAll()
        if Self.canonicalFromParts(p, options) {
            writeCanonical(p)
        } else {
            hashed.removeAll()
            out.buffer.withBytes { all in
                hashed.append(UnsafeRawBufferPointer(rebasing: all[line..<identityEnd]))
                hashed.append(UnsafeRawBufferPointer(rebasing: all[content..<all.count]))
            }
            hashed.append(UInt8(ascii: "}"))
            hashed.withBytes { t in canonicalizer.form(t, 0..<t.count, into: &canonical) }
        }
        out.write(#","hash":""#)
        let digits = out.buffer.reserveTail(64)
        canonical.withBytes { hasher.hex($0, into: UnsafeMutableRawBufferPointer(start: digits, count: 64)) }
        out.write(byte: UInt8(ascii: "\""))
    }

    /// Whether the canonical form of `p`'s line can be written from its parts: names as they
    /// are and no unknown members.
    static func canonicalFromParts(_ p: ResourceParts, _ options: OutputOptions) -> Bool {
        guard !options.formatsNames, p.resourceExtras.isEmpty else { return false }
        for r in p.relationships where !r.extras.isEmpty { return false }
        for t in p.identifiers where !t.extras.isEmpty { return false }
        return true
    }

    /// The canonical form of the line, members in the order of their names: `attributes`,
    /// `id`, `lid`, `links`, `meta`, `relationships` (each `data`, `links`, `meta`; an
    /// identifier's `id`, `lid`, `meta`, `type`), `type`.
    private func writeCanonical(_ p: ResourceParts) {
        canonical.append(#"{"attributes":"#)
        if let a = p.attributes { canonicalizer.form(a, 0..<a.count, into: &canonical) } else { canonical.append("{}") }
        JSONEscaping.appendIDs(id: p.id, lid: p.lid, to: &canonical)
        if let l = p.links {
            canonical.append(#","links":"#)
            canonicalizer.form(l, 0..<l.count, into: &canonical)
        }
        if let m = p.meta {
            canonical.append(#","meta":"#)
            canonicalizer.form(m, 0..<m.count, into: &canonical)
        }
        canonical.append(#","relationships":{"#)
        writeCanonicalRelationships(p)
        canonical.append(#"},"type":"#)
        JSONEscaping.appendQuoted(p.type, to: &canonical)
        canonical.append(UInt8(ascii: "}"))
    }

    /// The relationships by the bytes of their written names (without the quotes, a name
    /// before the longer names it begins), as ``Canonical`` orders members.
    private func writeCanonicalRelationships(_ p: ResourceParts) {
        let relationships = p.relationships
        relationshipOrder.removeAll()
        relationshipNames.removeAll()
        for (i, r) in relationships.enumerated() {
            var n = CanonicalName(name: r.name, escapedStart: 0, escapedEnd: 0, index: i)
            if !JSONEscaping.isPlain(r.name) {
                n.escapedStart = relationshipNames.count
                JSONEscaping.appendEscaped(r.name, to: &relationshipNames)
                n.escapedEnd = relationshipNames.count
            }
            relationshipOrder.push(n)
        }
        relationshipNames.withBytes { escaped in
            // The escaped names, now that the arena holding them no longer grows.
            var order = UnsafeMutableBufferPointer(start: relationshipOrder.base, count: relationshipOrder.count)
            for k in order.indices where order[k].escapedEnd > 0 {
                order[k].name = UnsafeRawBufferPointer(rebasing: escaped[order[k].escapedStart..<order[k].escapedEnd])
            }
            order.stableSort { Self.precedes($0.name, $1.name) }
            for k in order.indices {
                canonical.append(k > 0 ? #",""# : #"""#)
                canonical.append(order[k].name)
                canonical.append(#"":"#)
                writeCanonicalRelationship(relationships[order[k].index], p)
            }
        }
    }

    /// Whether name `x` sorts before name `y`: bytewise, a name before the longer names it
    /// begins.
    @inline(__always)
    private static func precedes(_ x: UnsafeRawBufferPointer, _ y: UnsafeRawBufferPointer) -> Bool {
        let shorter = Swift.min(x.count, y.count)
        let r = shorter == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, shorter)
        return r < 0 || (r == 0 && x.count < y.count)
    }

    /// A relationship object: `data`, `links`, `meta`, each when present.
    private func writeCanonicalRelationship(_ rel: ResourceParts.Relationship, _ p: ResourceParts) {
        canonical.append(UInt8(ascii: "{"))
        var first = true
        switch rel.kind {
        case .absent: break
        case .null:
            canonical.append(#""data":null"#)
            first = false
        case .toOne:
            canonical.append(#""data":"#)
            writeCanonicalIdentifier(p.identifiers[rel.targets.lowerBound])
            first = false
        case .toMany:
            canonical.append(#""data":["#)
            for (i, k) in rel.targets.enumerated() {
                if i > 0 { canonical.append(UInt8(ascii: ",")) }
                writeCanonicalIdentifier(p.identifiers[k])
            }
            canonical.append(UInt8(ascii: "]"))
            first = false
        }
        if let l = rel.links {
            canonical.append(first ? #""links":"# : #","links":"#)
            canonicalizer.form(l, 0..<l.count, into: &canonical)
            first = false
        }
        if let m = rel.meta {
            canonical.append(first ? #""meta":"# : #","meta":"#)
            canonicalizer.form(m, 0..<m.count, into: &canonical)
        }
        canonical.append(UInt8(ascii: "}"))
    }

    /// `{"id":…,"lid":…,"meta":…,"type":…}`, each but `type` when present.
    private func writeCanonicalIdentifier(_ t: ResourceParts.Identifier) {
        canonical.append(UInt8(ascii: "{"))
        var first = true
        if let id = t.id {
            canonical.append(#""id":"#)
            JSONEscaping.appendQuoted(id, to: &canonical)
            first = false
        }
        if let lid = t.lid {
            canonical.append(first ? #""lid":"# : #","lid":"#)
            JSONEscaping.appendQuoted(lid, to: &canonical)
            first = false
        }
        if let m = t.meta {
            canonical.append(first ? #""meta":"# : #","meta":"#)
            canonicalizer.form(m, 0..<m.count, into: &canonical)
            first = false
        }
        canonical.append(first ? #""type":"# : #","type":"#)
        JSONEscaping.appendQuoted(t.type, to: &canonical)
        canonical.append(UInt8(ascii: "}"))
    }
}
