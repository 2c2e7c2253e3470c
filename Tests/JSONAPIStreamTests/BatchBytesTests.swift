import Testing
@testable import JSONAPIStream

/// A batch's bytes (``BatchBytes``): a view of the input while its pieces are stable and
/// follow on from one another there, a copy otherwise; either way, the bytes appended.
struct BatchBytesTests {
    static let input = Array("{\"data\":[{\"type\":\"a\",\"id\":\"1\"},{\"type\":\"a\",\"id\":\"2\"}]}".utf8)

    /// The bytes of `b`, and whether they are a view into `input` (no copy).
    static func read(_ b: borrowing BatchBytes, within input: UnsafeRawBufferPointer) -> ([UInt8], Bool) {
        b.withBytes { bytes in
            let inside = bytes.baseAddress.map { $0 >= input.baseAddress! && $0 + bytes.count <= input.baseAddress! + input.count } ?? false
            return (Array(bytes), inside)
        }
    }

    @Test func stablePiecesThatFollowOnAreAViewOfTheInput() {
        Self.input.withUnsafeBytes { all in
            var b = BatchBytes(room: 1024)
            // Pieces of every size, one after the other, and an empty one among them.
            var i = 0
            var size = 1
            while i < all.count {
                let end = min(i + size, all.count)
                b.append(UnsafeRawBufferPointer(rebasing: all[i..<end]), stable: true)
                b.append(UnsafeRawBufferPointer(rebasing: all[end..<end]), stable: true)
                i = end
                size += 1
            }
            let (bytes, isView) = Self.read(b, within: all)
            #expect(bytes == Self.input)
            let (room, count) = (b.capacity, b.count)
            #expect(isView, "no copy while the pieces follow on")
            #expect(room <= 16, "no room taken for a copy")
            #expect(count == Self.input.count)
        }
    }

    @Test func aGapOrAnUnstablePieceTurnsTheViewIntoACopy() {
        Self.input.withUnsafeBytes { all in
            // A gap: the second piece does not follow on from the first.
            var gap = BatchBytes(room: 8)
            gap.append(UnsafeRawBufferPointer(rebasing: all[0..<5]), stable: true)
            gap.append(UnsafeRawBufferPointer(rebasing: all[6..<20]), stable: true)
            gap.append(UnsafeRawBufferPointer(rebasing: all[20..<30]), stable: true)
            let (g, gIsView) = Self.read(gap, within: all)
            #expect(g == Array(Self.input[0..<5] + Self.input[6..<30]))
            #expect(!gIsView)

            // A piece from elsewhere (a `]` the caller adds, a chunk fed by `feed`).
            var mixed = BatchBytes()
            mixed.append(UnsafeRawBufferPointer(rebasing: all[0..<9]), stable: true)
            let bracket: [UInt8] = Array("]".utf8)
            bracket.withUnsafeBytes { mixed.append($0, stable: false) }
            let (m, mIsView) = Self.read(mixed, within: all)
            #expect(m == Array(Self.input[0..<9]) + bracket)
            #expect(!mIsView)

            // Unstable pieces are copied from the first.
            var copied = BatchBytes()
            copied.append(UnsafeRawBufferPointer(rebasing: all[0..<9]), stable: false)
            copied.append(UnsafeRawBufferPointer(rebasing: all[9..<12]), stable: true)
            let (c, cIsView) = Self.read(copied, within: all)
            #expect(c == Array(Self.input[0..<12]))
            #expect(!cIsView)
        }
    }

    @Test func roomAskedForIsTakenWhenTheBytesAreCopied() {
        Self.input.withUnsafeBytes { all in
            var b = BatchBytes(room: 16)
            b.append(UnsafeRawBufferPointer(rebasing: all[0..<10]), stable: true)
            b.reserveCapacity(100_000)
            let viewRoom = b.capacity
            #expect(viewRoom <= 16, "a view takes no room")
            b.append(UnsafeRawBufferPointer(rebasing: all[20..<30]), stable: true)
            let (copyRoom, count) = (b.capacity, b.count)
            #expect(copyRoom >= 100_000, "the copy takes the room asked for")
            #expect(count == 20)
            // Bytes known to be copied take their room at once.
            let eager = BatchBytes(room: 300_000, now: true)
            let eagerRoom = eager.capacity
            #expect(eagerRoom >= 300_000)
        }
    }

    @Test func blankIsWhiteSpaceOnlyEitherWay() {
        let blank = Array(" \n\t\r ".utf8)
        blank.withUnsafeBytes { all in
            var view = BatchBytes()
            view.append(all, stable: true)
            let viewBlank = view.isJSONBlank
            #expect(viewBlank)
            var copy = BatchBytes()
            copy.append(all, stable: false)
            copy.append(UnsafeRawBufferPointer(start: nil, count: 0), stable: false)
            let (copyBlank, count) = (copy.isJSONBlank, copy.count)
            #expect(copyBlank && count == blank.count, "nothing appended")
        }
        var notBlank = BatchBytes()
        Self.input.withUnsafeBytes { notBlank.append($0, stable: false) }
        let (blankThen, emptyBlank) = (notBlank.isJSONBlank, BatchBytes().isJSONBlank)
        #expect(!blankThen)
        #expect(emptyBlank, "no bytes")
    }
}
