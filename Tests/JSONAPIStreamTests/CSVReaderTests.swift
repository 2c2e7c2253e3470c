import Foundation
import Testing

@testable import JSONAPIStream

/// The CSV reader of `jsonapi denormalize` reads a table a read at a time: the records are the
/// same wherever the reads end, and a malformed file is an error naming its line.
struct CSVReaderTests {
    struct Record: Equatable, CustomStringConvertible {
        var cells: [String]
        var quoted: [Bool]
        var description: String { "\(cells) \(quoted)" }
    }

    /// The records of `text`, fed in pieces that end at `cuts`.
    private func records(_ text: String, cuts: [Int] = []) throws -> [Record] {
        let bytes = Array(text.utf8)
        var reader = CSVReader(file: "t.csv")
        var out: [Record] = []
        let take = { (cells: [CSVReader.Cell]) throws(JSONAPIError) in
            out.append(Record(cells: cells.map(\.text), quoted: cells.map(\.quoted)))
        }
        var from = 0
        for cut in cuts + [bytes.count] {
            try bytes[from..<cut].withUnsafeBytes { b in try reader.feed(b, record: take) }
            from = cut
        }
        try reader.finish(record: take)
        return out
    }

    private func message(_ text: String, cuts: [Int] = []) -> String? {
        do {
            _ = try records(text, cuts: cuts)
            return nil
        } catch {
            return "\(error)"
        }
    }

    static let sample =
        "id,name,note\r\n1,\"a, b\",\"say \"\"hi\"\"\"\n2,,\"\"\r3,\"two\nlines\",x\n,\n\"last\""

    static let expected = [
        Record(cells: ["id", "name", "note"], quoted: [false, false, false]),
        Record(cells: ["1", "a, b", "say \"hi\""], quoted: [false, true, true]),
        Record(cells: ["2", "", ""], quoted: [false, false, true]),
        Record(cells: ["3", "two\nlines", "x"], quoted: [false, true, false]),
        Record(cells: ["", ""], quoted: [false, false]),
        Record(cells: ["last"], quoted: [true]),
    ]

    @Test func cellsAndLineEnds() throws {
        #expect(try records(Self.sample) == Self.expected)
        // A blank line is a record of one empty cell; the last line end ends the last record.
        #expect(try records("a\n\nb\n").map(\.cells) == [["a"], [""], ["b"]])
        #expect(try records("a\r\n").map(\.cells) == [["a"]])
        #expect(try records("a\r").map(\.cells) == [["a"]])
        #expect(try records("a,").map(\.cells) == [["a", ""]])
        #expect(try records("").isEmpty)
        // A quote inside an unquoted cell is text.
        #expect(try records("a\"b,c\n").map(\.cells) == [["a\"b", "c"]])
    }

    /// Every place a read can end, and a byte per read, give the same records.
    @Test func readsEndingAnywhere() throws {
        let n = Self.sample.utf8.count
        for cut in 0...n {
            #expect(try records(Self.sample, cuts: [cut]) == Self.expected, "cut at \(cut)")
        }
        #expect(try records(Self.sample, cuts: Array(1..<n)) == Self.expected)
    }

    @Test func malformedFilesNameTheirLine() {
        // The quoted cell opened on line 2 (its line end inside is counted, not a new record).
        let open = "a,b\n1,\"x\ny,z\n"
        for cuts in [[], [7], [8]] {
            #expect(message(open, cuts: cuts) == "input error: t.csv, line 2: a quoted CSV cell is not closed at the end of the file")
        }
        let junk = "a\r\n\"x\"\"\"\ny\n\"z\"q\n"
        for cuts in [[], [13], [14]] {
            #expect(message(junk, cuts: cuts) == "input error: t.csv, line 4: \"q\" after a quoted CSV cell, where a comma or a line end belongs")
        }
        #expect(message("\"a\"\u{1}") == "input error: t.csv, line 1: byte 0x01 after a quoted CSV cell, where a comma or a line end belongs")
    }
}
