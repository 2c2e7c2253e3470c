import Testing

@testable import JSONAPIStream

/// The graph's record tables against `Array`, the model they replace.
struct RecordTableTests {
    struct Record: Equatable {
        var a: UInt32
        var b: Int
    }

    /// Appends past the point where the storage becomes a growing mapping (256 KiB), with every
    /// record checked afterwards. A table that is not shared grows its own storage (`mremap`
    /// from then on), never a copy of it: the storage object stays the same.
    @Test func appendsGrowInPlaceAndKeepEveryRecord() {
        var t = RecordTable<Record>()
        #expect(t.isEmpty && t.capacity == 0)
        t.append(Record(a: 0, b: 0))
        let storage = t.storageIdentity
        let n = 300_000  // 4.8 MB of 16-byte records
        for i in 1..<n { t.append(Record(a: UInt32(i), b: -i)) }
        #expect(t.count == n && t.capacity >= n)
        #expect(t.storageIdentity == storage, "the storage was copied as it grew")
        #expect(t.indices.allSatisfy { t[$0] == Record(a: UInt32($0), b: -$0) })
        t[12] = Record(a: 1, b: 2)
        #expect(t[12] == Record(a: 1, b: 2) && t[13] == Record(a: 13, b: -13))
    }

    /// Appending to a table known unshared, past every growth (in the heap, then mapped): the
    /// records `append` gives, and the table's own storage object throughout.
    @Test func appendingToAnOwnTableKeepsEveryRecord() {
        var own = RecordTable<Record>()
        var model = RecordTable<Record>()
        own.appendToOwn(Record(a: 0, b: 0))
        model.append(Record(a: 0, b: 0))
        let storage = own.storageIdentity
        for i in 1..<100_000 {
            own.appendToOwn(Record(a: UInt32(i), b: ~i))
            model.append(Record(a: UInt32(i), b: ~i))
        }
        #expect(own.count == 100_000 && own.storageIdentity == storage)
        #expect(own.elementsEqual(model))
        // After a copy that is gone, the table is its own again.
        do {
            let copy = own
            #expect(copy.count == own.count)
        }
        own.appendToOwn(Record(a: 7, b: 7))
        #expect(own.count == 100_001 && own[100_000] == Record(a: 7, b: 7) && own[99_999] == Record(a: 99_999, b: ~99_999))
    }

    @Test func copiesShareUntilOneChanges() {
        var a = RecordTable<Record>()
        for i in 0..<100 { a.append(Record(a: UInt32(i), b: i)) }
        var b = a
        #expect(b.storageIdentity == a.storageIdentity)
        b[0] = Record(a: 99, b: 99)
        #expect(b.storageIdentity != a.storageIdentity)
        b.append(Record(a: 100, b: 100))
        #expect(a.count == 100 && a[0] == Record(a: 0, b: 0))
        #expect(b.count == 101 && b[0] == Record(a: 99, b: 99))
        let c = b
        b.removeSubrange(50...)
        #expect(c.count == 101 && b.count == 50 && c[60] == Record(a: 60, b: 60))
    }

    /// Random appends, replacements, insertions and cuts, as the duplicate merger makes them,
    /// give what an `Array` gives.
    @Test func rangeReplacementMatchesArray() {
        var rng = SystemRandomNumberGenerator()
        var table = RecordTable<Record>()
        var model: [Record] = []
        var next = 0
        func fresh(_ k: Int) -> [Record] {
            defer { next += k }
            return (0..<k).map { Record(a: UInt32(truncatingIfNeeded: next + $0), b: next + $0) }
        }
        for _ in 0..<2_000 {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                let r = fresh(1)[0]
                table.append(r)
                model.append(r)
            case 1:
                let lo = Int.random(in: 0...model.count, using: &rng)
                let hi = Int.random(in: lo...model.count, using: &rng)
                let new = fresh(Int.random(in: 0..<8, using: &rng))
                table.replaceSubrange(lo..<hi, with: new)
                model.replaceSubrange(lo..<hi, with: new)
            case 2:
                let cut = Int.random(in: 0...model.count, using: &rng)
                table.removeSubrange(cut...)
                model.removeSubrange(cut...)
            default:
                let new = fresh(Int.random(in: 0..<300, using: &rng))
                table.append(contentsOf: new)
                model.append(contentsOf: new)
            }
            #expect(Array(table) == model)
            if Array(table) != model { return }
        }
    }
}
