import Testing
@testable import JSONAPIStream

/// A batch's bytes (``BatchBytes``): views of the input where it stays valid (the whole input
/// in memory, or the blocks a file is read into, which the views keep), a copy otherwise;
/// either way, the bytes appended, in order.
struct BatchBytesTests {
    static let input = Array("{\"data\":[{\"type\":\"a\",\"id\":\"1\"},{\"type\":\"a\",\"id\":\"2\"}]}".utf8)

    /// The bytes of `b`, its parts, and whether every part lies in `input` (no copy).
    static func read(_ b: borrowing BatchBytes, within input: UnsafeRawBufferPointer) -> (bytes: [UInt8], parts: Int, inside: Bool) {
        var all: [UInt8] = []
        var parts = 0
        var inside = true
        b.forEachPart { bytes, _ in
            all += Array(bytes)
            parts += 1
            inside = inside && bytes.baseAddress.map { $0 >= input.baseAddress! && $0 + bytes.count <= input.baseAddress! + input.count } ?? false
        }
        return (all, parts, inside)
    }

    /// `count` bytes of a new block holding `bytes`.
    static func block(holding bytes: [UInt8]) -> ReadBlock {
        let b = ReadBlock(capacity: bytes.count)
        bytes.withUnsafeBytes { b.base.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        return b
    }

    @Test func stablePiecesThatFollowOnAreOneViewOfTheInput() {
        Self.input.withUnsafeBytes { all in
            var b = BatchBytes(room: 1024)
            // Pieces of every size, one after the other, and an empty one among them.
            var i = 0
            var size = 1
            while i < all.count {
                let end = min(i + size, all.count)
                b.append(UnsafeRawBufferPointer(rebasing: all[i..<end]), in: .stable)
                b.append(UnsafeRawBufferPointer(rebasing: all[end..<end]), in: .stable)
                i = end
                size += 1
            }
            let r = Self.read(b, within: all)
            #expect(r.bytes == Self.input)
            let (room, count, views) = (b.capacity, b.count, b.viewCount)
            #expect(r.inside && r.parts == 1 && views == 1, "one view while the pieces follow on")
            #expect(room <= 16, "no room taken for a copy")
            #expect(count == Self.input.count)
        }
    }

    @Test func aGapStartsAnotherViewAndATransientPieceACopy() {
        Self.input.withUnsafeBytes { all in
            // A gap: the second piece does not follow on from the first; both stay views.
            var gap = BatchBytes(room: 8)
            gap.append(UnsafeRawBufferPointer(rebasing: all[0..<5]), in: .stable)
            gap.append(UnsafeRawBufferPointer(rebasing: all[6..<20]), in: .stable)
            gap.append(UnsafeRawBufferPointer(rebasing: all[20..<30]), in: .stable)
            let g = Self.read(gap, within: all)
            #expect(g.bytes == Array(Self.input[0..<5] + Self.input[6..<30]))
            #expect(g.inside && g.parts == 2, "two views, the second extended")
            #expect(gap.count == 29 && gap.capacity <= 16)

            // A piece valid only while it is fed (a `]` the caller adds, a chunk fed by `feed`):
            // everything becomes a copy, in order.
            var mixed = BatchBytes()
            mixed.append(UnsafeRawBufferPointer(rebasing: all[0..<9]), in: .stable)
            mixed.append(UnsafeRawBufferPointer(rebasing: all[10..<12]), in: .stable)
            let bracket: [UInt8] = Array("]".utf8)
            bracket.withUnsafeBytes { mixed.append($0, in: .transient) }
            let m = Self.read(mixed, within: all)
            #expect(m.bytes == Array(Self.input[0..<9] + Self.input[10..<12]) + bracket)
            #expect(!m.inside && m.parts == 1 && mixed.viewCount == 0)

            // Transient pieces are copied from the first, and what follows is copied too.
            var copied = BatchBytes()
            copied.append(UnsafeRawBufferPointer(rebasing: all[0..<9]), in: .transient)
            copied.append(UnsafeRawBufferPointer(rebasing: all[9..<12]), in: .stable)
            let c = Self.read(copied, within: all)
            #expect(c.bytes == Array(Self.input[0..<12]))
            #expect(!c.inside && copied.viewCount == 0)
        }
    }

    @Test func viewsOfBlocksKeepTheirBlocksAndABlockBoundaryStartsAnotherView() {
        var b = BatchBytes(room: 64)
        weak var first: ReadBlock?
        weak var second: ReadBlock?
        do {
            let one = Self.block(holding: Array(Self.input[0..<30]))
            let two = Self.block(holding: Array(Self.input[30...]))
            first = one
            second = two
            let a = UnsafeRawBufferPointer(start: one.base, count: 30)
            b.append(UnsafeRawBufferPointer(rebasing: a[0..<12]), in: .block(one))
            b.append(UnsafeRawBufferPointer(rebasing: a[12..<30]), in: .block(one))
            // Bytes that follow on in memory but lie elsewhere (here: the same memory called
            // stable) are a view of their own: a view keeps one block only.
            let rest = UnsafeRawBufferPointer(start: two.base, count: Self.input.count - 30)
            b.append(UnsafeRawBufferPointer(rebasing: rest[0..<5]), in: .block(two))
            b.append(UnsafeRawBufferPointer(rebasing: rest[5...]), in: .block(two))
        }
        // The blocks live on in the views after everyone else let go of them.
        #expect(first != nil && second != nil, "the views keep their blocks")
        var all: [UInt8] = []
        var places: [String] = []
        b.forEachPart { bytes, place in
            all += Array(bytes)
            places.append(place.block.map { $0 === first ? "first" : $0 === second ? "second" : "other" } ?? "none")
        }
        #expect(all == Self.input)
        #expect(places == ["first", "second"], "one view per block, each read again in its block")
        #expect(b.capacity <= 64, "no copy")

        // A view of a block followed by the same bytes called stable: two views.
        let one = Self.block(holding: Self.input)
        var c = BatchBytes()
        let whole = UnsafeRawBufferPointer(start: one.base, count: Self.input.count)
        c.append(UnsafeRawBufferPointer(rebasing: whole[0..<10]), in: .block(one))
        c.append(UnsafeRawBufferPointer(rebasing: whole[10...]), in: .stable)
        #expect(c.viewCount == 2)

        // Turned into a copy, the batch lets go of its blocks.
        b.append(UnsafeRawBufferPointer(start: nil, count: 0), in: .transient)
        #expect(first != nil, "nothing appended: still views")
        Array("\n".utf8).withUnsafeBytes { b.append($0, in: .transient) }
        #expect(first == nil && second == nil, "a copy keeps no block")
        var copied: [UInt8] = []
        b.forEachPart { bytes, place in
            copied += Array(bytes)
            #expect(place.isTransient)
        }
        #expect(copied == Self.input + Array("\n".utf8))
    }

    @Test func roomAskedForIsTakenWhenTheBytesAreCopied() {
        Self.input.withUnsafeBytes { all in
            var b = BatchBytes(room: 16)
            b.append(UnsafeRawBufferPointer(rebasing: all[0..<10]), in: .stable)
            b.reserveCapacity(100_000)
            let viewRoom = b.capacity
            #expect(viewRoom <= 16, "a view takes no room")
            b.append(UnsafeRawBufferPointer(rebasing: all[20..<30]), in: .transient)
            let (copyRoom, count) = (b.capacity, b.count)
            #expect(copyRoom >= 100_000, "the copy takes the room asked for")
            #expect(count == 20)
            // Bytes known to be copied take their room at once.
            let eager = BatchBytes(room: 300_000, now: true)
            let eagerRoom = eager.capacity
            #expect(eagerRoom >= 300_000)
        }
    }

    @Test func blankIsWhiteSpaceOnlyEveryWay() {
        let blank = Array(" \n\t\r ".utf8)
        blank.withUnsafeBytes { all in
            var view = BatchBytes()
            view.append(all, in: .stable)
            let viewBlank = view.isJSONBlank
            #expect(viewBlank)
            var copy = BatchBytes()
            copy.append(all, in: .transient)
            copy.append(UnsafeRawBufferPointer(start: nil, count: 0), in: .transient)
            let (copyBlank, count) = (copy.isJSONBlank, copy.count)
            #expect(copyBlank && count == blank.count, "nothing appended")
        }
        // Blank in its first view, not in its second.
        let one = Self.block(holding: blank)
        let two = Self.block(holding: Array("x".utf8))
        var parts = BatchBytes()
        parts.append(UnsafeRawBufferPointer(start: one.base, count: blank.count), in: .block(one))
        let firstOnly = parts.isJSONBlank
        parts.append(UnsafeRawBufferPointer(start: two.base, count: 1), in: .block(two))
        let withSecond = parts.isJSONBlank
        #expect(firstOnly && !withSecond)
        var notBlank = BatchBytes()
        Self.input.withUnsafeBytes { notBlank.append($0, in: .transient) }
        let (blankThen, emptyBlank) = (notBlank.isJSONBlank, BatchBytes().isJSONBlank)
        #expect(!blankThen)
        #expect(emptyBlank, "no bytes")
    }
}
