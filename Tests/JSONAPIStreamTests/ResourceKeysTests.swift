import Testing

@testable import JSONAPIStream

/// `ResourceKeys` numbers `(type, id)` and `(type, lid)` the same whether a type is found in its
/// small cache of types (a `SymbolCache<FewNames>`) or interned again: ten types in turn and
/// at random (some evict others), names longer than 16 bytes, names that share their first and
/// last eight bytes, and an id and a lid with the same text.
struct ResourceKeysTests {
    @Test func keysAreTheSameWhateverTheRecentTypes() {
        let types = [
            "a", "people", "articles", "comments", "tags", "x-long-type-name-over-16", "abcdefgh12345678",
            "abcdefgh_2345678", "abcdefgh12345678z", "abcdefgh",
        ]
        var keys = ResourceKeys()
        var expected: [String: UInt32] = [:]
        var seeded = XorShift(seed: 5)
        for round in 0..<3_000 {
            // In turn (more than four types thrash the recent ones), then at random.
            let type = round < 1_000 ? types[round % types.count] : types[Int(seeded.next() % UInt64(types.count))]
            let id = "\(seeded.next() % 50)"
            let isLid = seeded.next() % 3 == 0
            let key = Array(type.utf8).withUnsafeBytes { t in Array(id.utf8).withUnsafeBytes { keys.intern(type: t, id: $0, isLid: isLid) } }
            let name = "\(type)|\(isLid ? "lid" : "id")|\(id)"
            if let known = expected[name] {
                #expect(key == known, "\(name)")
            } else {
                #expect(!expected.values.contains(key), "\(name) got another key's number")
                expected[name] = key
            }
        }
        #expect(keys.count == expected.count)
    }
}
