import CPlatform
import Foundation
import Testing
@testable import JSONAPIStream

/// Tables keyed by input bytes use one keyed hash with a per-process random seed: keys that
/// share a prefix spread, keys crafted to collide under one seed (or under the hash the
/// project used before) do not collide under another, and the cost stays linear, counted in
/// slots probed (not in seconds).
struct HashingTests {
    static let seedA = HashSeed(0x1234_5678_9ABC_DEF0)
    static let seedB = HashSeed(0x0FED_CBA9_8765_4321)

    func hash(_ s: String, _ seed: HashSeed) -> UInt64 {
        var s = s
        return s.withUTF8 { SeededHash.bytes(UnsafeRawBufferPointer($0), seed: seed) }
    }

    @Test func theSeedDecides() {
        #expect(hash("articles", Self.seedA) == hash("articles", Self.seedA))
        #expect(hash("articles", Self.seedA) != hash("articles", Self.seedB))
        #expect(hash("a", Self.seedA) != hash("a\u{0}", Self.seedA), "the length is part of the key")
        let long = String(repeating: "x", count: 40)
        #expect(hash(long, Self.seedA) != hash(long + "y", Self.seedA))
        #expect(hash(long + "y", Self.seedA) != hash(long + "z", Self.seedA))
        #expect(HashSeed.parse("0x10") == 16)
        #expect(HashSeed.parse(" 42\n") == 42)
        #expect(HashSeed.parse("forty") == nil)
        #expect(HashSeed(42) == HashSeed(42))
    }

    /// Keys found by search to share their low 12 bits under seed A (what an attacker who
    /// knew the seed could make) all land in one run of slots under A, and spread under B.
    @Test func collisionsCraftedForOneSeedDoNotCollideUnderAnother() {
        var keys: [String] = []
        var i = 0
        // What the interner's table indexes by: the 32-bit hash it keeps.
        func slotHash(_ k: String, _ seed: HashSeed) -> UInt64 {
            var k = k
            return k.withUTF8 { b in
                let raw = UnsafeRawBufferPointer(b)
                let (prefix, suffix) = ShortName.words(raw)
                return ByteInterner.hash(raw, prefix, suffix, tag: 0, seed: seed)
            }
        }
        while keys.count < 200 {
            let k = "id-\(i)"
            if slotHash(k, Self.seedA) & 0xFFF == 0 { keys.append(k) }
            i += 1
        }
        #expect(Set(keys.map { slotHash($0, Self.seedB) & 0xFFF }).count >= 180)

        let underA = Self.internAll(keys.map { Array($0.utf8) }, seed: Self.seedA).probes
        let underB = Self.internAll(keys.map { Array($0.utf8) }, seed: Self.seedB).probes
        #expect(underA > 5_000, "the crafted keys do not collide under the seed they were made for (\(underA))")
        #expect(underB < 2 * keys.count, "\(underB) probes for \(keys.count) keys")
    }

    /// The hash before this one, for 16-byte ids: `prefix ^ suffix·C ^ 16 << 56`, multiplied.
    static func unseeded16(_ prefix: UInt64, _ suffix: UInt64) -> UInt64 {
        var h = (prefix ^ (suffix &* 0xC2B2_AE3D_27D4_EB4F) ^ 16 &<< 56) &* 0x9E37_79B9_7F4A_7C15
        h ^= h &>> 31
        return h
    }

    /// The inverse of an odd number modulo 2^64 (Newton's iteration).
    static func inverse(_ a: UInt64) -> UInt64 {
        var x = a
        for _ in 0..<6 { x = x &* (2 &- a &* x) }
        return x
    }

    @Test func idsThatCollidedUnderTheOldHashStayLinear() {
        let c: UInt64 = 0xC2B2_AE3D_27D4_EB4F
        let cInverse = Self.inverse(c)
        #expect(c &* cInverse == 1)
        let target: UInt64 = 0x5555_AAAA_5555_AAAA
        let n = 20_000
        var ids: [[UInt8]] = []
        for i in 0..<n {
            let prefix = UInt64(i) | 0x2D2D_2D2D_0000_0000
            let suffix = (target ^ prefix) &* cInverse
            var id = [UInt8](repeating: 0, count: 16)
            withUnsafeBytes(of: prefix.littleEndian) { id.replaceSubrange(0..<8, with: $0) }
            withUnsafeBytes(of: suffix.littleEndian) { id.replaceSubrange(8..<16, with: $0) }
            ids.append(id)
        }
        // They are what the attack made: one value under the old hash.
        let old = Set(
            ids.map { id in
                id.withUnsafeBytes { Self.unseeded16($0.loadUnaligned(as: UInt64.self), $0.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) }
            })
        #expect(old.count == 1)
        let result = Self.internAll(ids, seed: .process, tag: 7)
        #expect(result.count == n)
        #expect(result.foundAgain, "an id was not found again as itself")
        #expect(result.probes < 2 * n, "\(result.probes) probes for \(n) ids")
    }

    /// A table past the caches is rebuilt a group of entries at a time (their slots asked for
    /// before any is written), and a caller that hashed a name ahead interns it with that hash
    /// (`lookupStart(of:tag:)`, `intern(_:tag:hash:prefix:)`, as the merge of workers' pieces does). 60,000
    /// names of 1 to 40 bytes under two tags, some interned with their hash: each has its own
    /// number, is found again as it, and the table stays linear.
    /// `name` interned as a caller that looked it up ahead does: its lookup's start first.
    static func internAhead(_ interner: inout ByteInterner, _ name: UnsafeRawBufferPointer, tag: UInt32) -> UInt32 {
        let start = interner.lookupStart(of: name, tag: tag)
        return interner.intern(name, tag: tag, hash: start.hash, prefix: start.prefix)
    }

    @Test func aTableRebuiltPastTheCachesFindsEveryName() {
        var interner = ByteInterner(seed: Self.seedA)
        var names: [([UInt8], UInt32)] = []
        for i in 0..<60_000 {
            let text = String(repeating: "x", count: i % 33) + String(i)
            names.append((Array(text.utf8), UInt32(i % 2)))
        }
        for (i, (name, tag)) in names.enumerated() {
            let n = name.withUnsafeBytes { b in
                i % 3 == 0 ? Self.internAhead(&interner, b, tag: tag) : interner.intern(b, tag: tag)
            }
            #expect(n == UInt32(i))
        }
        let outgrows = interner.outgrowsCache
        #expect(outgrows, "the table must be past the caches for its rebuilds to go by groups")
        var found = true
        var again = true
        for (i, (name, tag)) in names.enumerated() {
            name.withUnsafeBytes { b in
                if interner.find(b, tag: tag) != UInt32(i) { found = false }
                // Interning again, with the hash or without, adds nothing.
                if Self.internAhead(&interner, b, tag: tag) != UInt32(i) || interner.intern(b, tag: tag) != UInt32(i) {
                    again = false
                }
            }
        }
        let count = interner.count
        let probes = interner.lookupProbes
        #expect(found && again)
        #expect(count == names.count)
        #expect(probes < 2 * names.count, "\(probes) probes for \(names.count) names")
    }

    /// A table slot keeps a name's first eight bytes, not its last: two names of 9 to 16
    /// bytes that share their first eight, their length, their home slot and the bits of
    /// hash a slot keeps look alike in the slot, and their entries tell them apart. (A slot
    /// that decided such names by what it keeps would give the second the first's number:
    /// two resources merged into one.)
    @Test func namesAlikeInTheirSlotAreToldApartByTheirEntries() throws {
        // The home slot in a new interner's table of 64 and the hash's top 11 bits (of 32),
        // as the slot keeps them.
        func slotLook(_ name: [UInt8]) -> UInt64 {
            name.withUnsafeBytes { b in
                let (prefix, suffix) = ShortName.words(b)
                let h = ByteInterner.hash(b, prefix, suffix, tag: 0, seed: Self.seedA)
                return (h &>> 21) &<< 6 | (h & 63)
            }
        }
        var seen: [UInt64: [UInt8]] = [:]
        var pair: ([UInt8], [UInt8])?
        for i in 1000..<10_000 where pair == nil {
            let name = Array("resource-\(i)".utf8)
            if let other = seen[slotLook(name)] { pair = (other, name) } else { seen[slotLook(name)] = name }
        }
        let (a, b) = try #require(pair, "no two of 9,000 names look alike in a slot (17 bits)")
        #expect(a.count == 13 && b.count == 13 && a.prefix(8) == b.prefix(8) && a != b)

        var interner = ByteInterner(seed: Self.seedA)
        let first = a.withUnsafeBytes { interner.intern($0) }
        #expect(b.withUnsafeBytes { interner.find($0) } == nil)
        let second = b.withUnsafeBytes { interner.intern($0) }
        #expect(first == 0 && second == 1)
        #expect(a.withUnsafeBytes { interner.find($0) } == 0)
        #expect(b.withUnsafeBytes { interner.find($0) } == 1)
        #expect(interner.lookupProbes == 3, "the second name goes in the slot after the first's")
    }

    /// Interns `keys` (distinct) in order; the count, whether each is found again as its own
    /// number, and the lookup probes of the table.
    static func internAll(_ keys: [[UInt8]], seed: HashSeed, tag: UInt32 = 0) -> (count: Int, foundAgain: Bool, probes: Int) {
        var interner = ByteInterner(seed: seed)
        for key in keys {
            key.withUnsafeBytes { b in _ = interner.intern(b, tag: tag) }
        }
        var found = true
        for (i, key) in keys.enumerated() {
            let n = key.withUnsafeBytes { b in interner.find(b, tag: tag) }
            if n != UInt32(i) { found = false }
        }
        return (interner.count, found, interner.lookupProbes)
    }

    /// Names of eight bytes or fewer that share their first three (`k0000001`) filled one run
    /// of the member-name table: 100,000 of them cost 5·10^9 probes. Now a few per name.
    @Test func membersSharingAPrefixStayLinear() throws {
        let n = 100_000
        var text = "{"
        for i in 0..<n { text += (i == 0 ? "" : ",") + "\"k\(String(format: "%07d", i))\":\(i)" }
        text += "}"
        let options = ParseOptions.default
        func parse(_ text: String) throws(JSONAPIError) -> MemberCounter {
            let receiver = MemberCounter(options: options)
            let parser = JSONStreamParser(outlet: receiver, options: options)
            try feedChunked(Array(text.utf8), chunk: 0) { (b) throws(JSONAPIError) in try parser.feed(b) }
            try parser.finish()
            return receiver
        }
        let receiver = try parse(text)
        #expect(receiver.members == n)
        #expect(receiver.memberTableProbes < 6 * n, "\(receiver.memberTableProbes) probes for \(n) members")

        // And a duplicate among them is still found.
        let duplicated = String(text.dropLast()) + ",\"k0054321\":0}"
        do {
            _ = try parse(duplicated)
            Issue.record("the duplicate was not found")
        } catch {
            #expect(error.diagnostic?.rule == .J11)
        }
    }

    /// Counts member names and builds nothing.
    final class MemberCounter: JSONEventReceiver {
        var members = 0
        override func onKey(_ name: UnsafeRawBufferPointer, escaped: Bool) -> Bool {
            members += 1
            return true
        }
    }

    @Test func internedNamesSharingAPrefixSpread() {
        let n = 100_000
        let result = Self.internAll((0..<n).map { Array("r\(String(format: "%07d", $0))".utf8) }, seed: .process)
        #expect(result.count == n)
        #expect(result.foundAgain)
        #expect(result.probes < 2 * n, "\(result.probes) probes for \(n) names")
    }

    @Test func sha256MatchesTheFIPSVectors() throws {
        let hasher = try SHA256Hasher()
        func hex(_ text: String) -> String { Array(text.utf8).withUnsafeBytes { hasher.hex($0) } }
        #expect(hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")
                == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(
            hex(String(repeating: "a", count: 1_000_000))
                == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }
}

/// A key table asks for its slots ahead of their lookups (``KeyHints``, ``KeyTranslation``)
/// once it is larger than half of a core's level 2 cache, as the system reports it: on a
/// core of 512 KiB a table of 1 MiB (a graph of 16 MB) is not in cache between two lookups.
struct CacheSizeTests {
    /// The first core's level 2 cache as Linux's sysfs gives it (`cpu0/cache/index*/`), a
    /// source other than the one the library asks (glibc's `sysconf`).
    static func sysfsLevel2Bytes() -> Int? {
        #if os(Linux)
        let dir = "/sys/devices/system/cpu/cpu0/cache"
        for k in 0..<8 {
            func read(_ name: String) -> String? {
                (try? String(contentsOfFile: "\(dir)/index\(k)/\(name)", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            guard read("level") == "2", read("type") != "Instruction", let size = read("size") else { continue }
            if size.hasSuffix("K") { return Int(size.dropLast()).map { $0 << 10 } }
            if size.hasSuffix("M") { return Int(size.dropLast()).map { $0 << 20 } }
            return Int(size)
        }
        #endif
        return nil
    }

    @Test func theThresholdIsHalfTheLevel2Cache() {
        let l2 = Int(jsonapi_l2_cache_bytes())
        if let sysfs = Self.sysfsLevel2Bytes() { #expect(l2 == sysfs, "sysconf and sysfs disagree") }
        let bytes = l2 > 0 ? min(max(l2 / 2, 128 << 10), 1 << 20) : 512 << 10
        #expect(ByteInterner.cachedSlots * MemoryLayout<ByteInterner.Slot>.stride == bytes)
        #expect(MemoryLayout<ByteInterner.Slot>.stride == 16)
    }

    /// The flag the hot paths read follows the table's doublings: false while the table
    /// (at most half full, from 64 slots) is within the threshold, true from the doubling
    /// that takes it past.
    @Test func aTableOutgrowsTheCacheAtTheDoublingPastTheThreshold() {
        var interner = ByteInterner(seed: HashingTests.seedA)
        var size = 64
        for i in 0..<(ByteInterner.cachedSlots + 10) {
            _ = interner.intern(String(i))
            if (i + 1) * 2 > size { size *= 2 }
            let outgrows = interner.outgrowsCache
            if outgrows != (size > ByteInterner.cachedSlots) {
                Issue.record("after \(i + 1) names (table of \(size) slots): outgrowsCache \(outgrows)")
                return
            }
        }
        let outgrows = interner.outgrowsCache
        #expect(outgrows)
    }
}

/// A graph worker's next piece takes the slot table of the piece before it
/// (``ByteInterner/takeSlots(from:)``), cleared.
struct SlotReuseTests {
    static func names(_ range: Range<Int>, _ prefix: String) -> [[UInt8]] { range.map { Array("\(prefix)\($0)".utf8) } }

    /// The interner that gave its slots up still reads its entries (what a merge reads); the
    /// one that took them numbers its names from 0 and finds each, none of the other's
    /// (a table not cleared would find the old names' slots).
    @Test func aTakenTableIsClearedAndTheGiverKeepsItsEntries() {
        var first = ByteInterner(seed: HashingTests.seedA)
        let old = Self.names(0..<5_000, "old-")
        for (i, name) in old.enumerated() { #expect(name.withUnsafeBytes { first.intern($0, tag: 3) } == UInt32(i)) }
        var next = ByteInterner(seed: HashingTests.seedA)
        let before = next.memoryFootprint
        next.takeSlots(from: &first)
        #expect(first.count == old.count)
        #expect((0..<old.count).allSatisfy { Array(first.bytes(of: UInt32($0))) == old[$0] && first.tag(of: UInt32($0)) == 3 })
        #expect(next.memoryFootprint - before >= 8_192 * 16 - 64 * 16, "the larger table is taken")
        #expect(old.allSatisfy { name in name.withUnsafeBytes { next.find($0, tag: 3) } == nil }, "an old name found in a taken table")
        let new = Self.names(0..<3_000, "new-") + old.prefix(100)
        for (i, name) in new.enumerated() { #expect(name.withUnsafeBytes { next.intern($0, tag: 3) } == UInt32(i)) }
        #expect(new.enumerated().allSatisfy { i, name in name.withUnsafeBytes { next.find($0, tag: 3) } == UInt32(i) })
        #expect(next.count == new.count)
    }

    /// A table no larger than the taker's own is left where it is, both interners working.
    @Test func aSmallerTableIsNotTaken() {
        var small = ByteInterner(seed: HashingTests.seedA)
        _ = small.intern("a")
        var large = ByteInterner(seed: HashingTests.seedA)
        large.reserveCapacity(1_000)
        let footprint = large.memoryFootprint
        large.takeSlots(from: &small)
        #expect(large.memoryFootprint == footprint)
        #expect(large.intern("a") == 0 && large.find("a") == 0)
        #expect(small.find("a") == 0 && small.intern("b") == 1)
    }

    /// An interner whose slots were taken refuses a lookup, rather than answering from the
    /// empty table it is left with.
    @Test func aGivenUpInternerRefusesLookups() async {
        await #expect(processExitsWith: .failure) {
            var interner = ByteInterner(seed: HashingTests.seedA)
            for i in 0..<100 { _ = interner.intern("kept-\(i)") }
            var taker = ByteInterner(seed: HashingTests.seedA)
            taker.takeSlots(from: &interner)
            _ = interner.find("kept-1")
        }
        await #expect(processExitsWith: .failure) {
            var interner = ByteInterner(seed: HashingTests.seedA)
            for i in 0..<100 { _ = interner.intern("kept-\(i)") }
            var taker = ByteInterner(seed: HashingTests.seedA)
            taker.takeSlots(from: &interner)
            _ = interner.intern("kept-1")
        }
    }
}
