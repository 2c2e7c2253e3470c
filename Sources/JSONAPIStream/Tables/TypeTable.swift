#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The JSON types an attribute's values had across the rows of its type.
package struct ValueKinds: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }
    package static let null = ValueKinds(rawValue: 1)
    package static let boolean = ValueKinds(rawValue: 2)
    /// An integer literal that a 64-bit integer and a double both hold exactly.
    package static let integer = ValueKinds(rawValue: 4)
    /// Any other number a double holds (a fraction, an exponent, an integer past 64 bits).
    package static let double = ValueKinds(rawValue: 8)
    /// A number a double would change (``SafeNumbers``).
    package static let decimal = ValueKinds(rawValue: 16)
    package static let string = ValueKinds(rawValue: 32)
    package static let object = ValueKinds(rawValue: 64)
    package static let array = ValueKinds(rawValue: 128)

    /// The kind of a stored JSON value.
    package static func of(_ v: UnsafeRawBufferPointer) -> ValueKinds {
        switch v[0] {
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .boolean
        default: return number(v)
        }
    }

    static func number(_ t: UnsafeRawBufferPointer) -> ValueKinds {
        guard SafeNumbers.isSafe(t) else { return .decimal }
        return isIntegerLiteral(t) && fitsInt64(t) ? .integer : .double
    }

    @inline(__always)
    package static func isIntegerLiteral(_ t: UnsafeRawBufferPointer) -> Bool {
        for c in t where c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { return false }
        return true
    }

    /// Whether an integer literal (no leading zeros, as JSON has them) is in Int64's range.
    static func fitsInt64(_ t: UnsafeRawBufferPointer) -> Bool {
        let negative = t.first == UInt8(ascii: "-")
        let digits = t.count - (negative ? 1 : 0)
        if digits < 19 { return true }
        if digits > 19 { return false }
        let limit: StaticString = negative ? "9223372036854775808" : "9223372036854775807"
        let l = UnsafeRawBufferPointer(start: limit.utf8Start, count: 19)
        for k in 0..<19 {
            let c = t[t.count - 19 + k]
            if c != l[k] { return c < l[k] }
        }
        return true
    }

    /// The column type that holds every value of these kinds without change.
    package var columnType: ColumnType {
        let k = subtracting(.null)
        if k.isEmpty || k == .string { return .string }
        if k == .boolean { return .boolean }
        if k == .integer { return .integer }
        if k.isSubset(of: [.integer, .double]) { return .double }
        if k.isSubset(of: [.integer, .double, .decimal]) { return .decimal }
        return .json
    }
}

/// One resource type's table while the input is read: its file, the columns its attributes
/// make and the JSON types their values had, and its rows, spilled to a temporary file in
/// the output directory (the column set is known only at the end of the input).
///
/// An attribute gets a column named after it (after `--keys`), in the order names first
/// appear. An attribute whose name starts with `_`, or equals `id`, `lid` or an earlier
/// column's name ignoring ASCII case, gets none: its values go to the row's `_other`, as
/// `{"attributes":{…}}`.
///
/// One thread uses a table at a time (a worker's, or the caller's once handed over), and
/// no access to one of its properties overlaps another: the per-row properties are
/// `@exclusivity(unchecked)`, which saves the run-time checks of a class's stored properties.
final class TypeTable {
    struct Column {
        /// As the output names it (after `--keys`), UTF-8.
        var name: [UInt8]
        var kinds: ValueKinds = []
    }

    /// A distinct attribute name as stored (quoted, minimally escaped).
    struct AttributeName {
        /// Its column, or -1: the attribute goes to `_other`.
        var column: Int32
        /// The number of its name as the output writes it (after `--keys`): two stored names
        /// with one number in one resource are an error, column or not.
        var written: Int32
        /// `"name"` as written into `_other` (after `--keys`).
        var quoted: [UInt8]
    }

    /// What a row has besides its attributes (``takeRow(_:flags:)``).
    struct RowFlags: OptionSet {
        let rawValue: UInt32
        static let lid = RowFlags(rawValue: 1)
        static let links = RowFlags(rawValue: 2)
        static let meta = RowFlags(rawValue: 4)
        /// Unknown members, or attributes that are not an object.
        static let other = RowFlags(rawValue: 8)
    }

    let type: [UInt8]
    let file: String
    let spillPath: String
    @exclusivity(unchecked) var rows = 0
    @exclusivity(unchecked) private(set) var columns: [Column] = []
    /// Stored attribute names, numbered as `attributeNames`.
    @exclusivity(unchecked) var names = ByteInterner()
    @exclusivity(unchecked) private(set) var attributeNames: [AttributeName] = []
    /// Attribute names as written (after `--keys`), numbered (``AttributeName/written``),
    /// and by number the column (or -1) and the row that last had it.
    private var writtenNames = ByteInterner()
    private var writtenColumns: [Int32] = []
    @exclusivity(unchecked) private var writtenLastRow: [Int] = []
    /// Column names folded to ASCII lower case (with `id` and `lid`).
    private var folded: Set<[UInt8]> = [Array("id".utf8), Array("lid".utf8)]
    @exclusivity(unchecked) var hasLid = false
    @exclusivity(unchecked) var hasLinks = false
    @exclusivity(unchecked) var hasMeta = false
    @exclusivity(unchecked) var hasOther = false
    /// The fewest columns a row had (a row with fewer than all of them gets `_missing`).
    @exclusivity(unchecked) var fewestColumns = Int.max

    /// Rows not yet written to the spill file, and what was.
    @exclusivity(unchecked) var spill = ByteArena(capacity: 4096)
    @exclusivity(unchecked) var spilledBytes = 0
    /// A worker's table (``TableSink/collects``): each row's attributes for the caller's
    /// ``takeRow(_:flags:)``, as `count | flags << 32` and then `count` entries.
    @exclusivity(unchecked) var rowRecords: [UInt64] = []

    init(type: [UInt8], file: String, spillPath: String) {
        self.type = type
        self.file = file
        self.spillPath = spillPath
    }

    var hasMissing: Bool { fewestColumns < columns.count }

    /// The number of a stored attribute name, adding it (and its column) when new.
    func attribute(_ stored: UnsafeRawBufferPointer, keys: OutputOptions) -> Int {
        let before = names.count
        let k = Int(names.intern(stored))
        if names.count > before { addName(stored, keys: keys) }
        return k
    }

    private func addName(_ stored: UnsafeRawBufferPointer, keys: OutputOptions) {
        var raw = ByteArena(capacity: stored.count)
        StoredJSON.appendUnescaped(UnsafeRawBufferPointer(rebasing: stored[1..<stored.count - 1]), to: &raw)
        var name = raw.array(0..<raw.count)
        var formatted: [UInt8] = []
        if name.withUnsafeBytes({ keys.formatName($0, into: &formatted) }) { name = formatted }
        var quoted = ByteArena(capacity: name.count + 2)
        name.withUnsafeBytes { JSONEscaping.appendQuoted($0, to: &quoted) }
        // A name written as an earlier one was has its column (or none); a new one gets a
        // column unless it starts with `_` or equals one ignoring case.
        let before = writtenNames.count
        let number = Int(name.withUnsafeBytes { writtenNames.intern($0) })
        if writtenNames.count > before {
            var column: Int32 = -1
            let lower = name.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
            if name.first != UInt8(ascii: "_") && !folded.contains(lower) {
                column = Int32(columns.count)
                columns.append(Column(name: name))
                folded.insert(lower)
            }
            writtenColumns.append(column)
            writtenLastRow.append(-1)
        }
        attributeNames.append(AttributeName(column: writtenColumns[number], written: Int32(number), quoted: quoted.array(0..<quoted.count)))
    }

    /// The name attribute `k` is written with (after `--keys`), as text.
    func writtenName(_ k: Int) -> String {
        writtenNames.string(of: UInt32(attributeNames[k].written))
    }

    /// Notes that row `row` has the attribute numbered `k`; false when it had another with
    /// the same name as written (two names that `--keys` makes one).
    @inline(__always)
    func claim(_ k: Int, row: Int) -> Bool {
        let n = Int(attributeNames[k].written)
        if writtenLastRow[n] == row { return false }
        writtenLastRow[n] = row
        return true
    }

    /// Takes a row into the table's columns: `entries` are its attributes, each
    /// `number | kinds << 32` (``attribute(_:keys:)``, ``ValueKinds``), with distinct names
    /// as written (``claim(_:row:)``).
    @inline(__always)
    func takeRow(_ entries: UnsafeBufferPointer<UInt64>, flags: RowFlags) {
        var present = 0
        attributeNames.withUnsafeBufferPointer { names in
            columns.withUnsafeMutableBufferPointer { all in
                for e in entries {
                    let c = Int(names[Int(UInt32(truncatingIfNeeded: e))].column)
                    if c < 0 {
                        hasOther = true
                        continue
                    }
                    all[c].kinds.formUnion(ValueKinds(rawValue: UInt8(truncatingIfNeeded: e >> 32)))
                    present += 1
                }
            }
        }
        fewestColumns = min(fewestColumns, present)
        if flags.contains(.lid) { hasLid = true }
        if flags.contains(.links) { hasLinks = true }
        if flags.contains(.meta) { hasMeta = true }
        if flags.contains(.other) { hasOther = true }
        rows += 1
    }

    // MARK: - Spilling

    /// Appends one field of a spilled row: its length (4 bytes, or all ones for none) and bytes.
    @inline(__always)
    func spillField(_ bytes: UnsafeRawBufferPointer?) {
        guard let bytes else {
            spill.append(0xFF, 0xFF)
            spill.append(0xFF, 0xFF)
            return
        }
        spillLength(bytes.count)
        spill.append(bytes)
    }

    @inline(__always)
    func spillLength(_ n: Int) {
        let v = UInt32(truncatingIfNeeded: n)
        spill.append(UInt8(truncatingIfNeeded: v), UInt8(truncatingIfNeeded: v >> 8))
        spill.append(UInt8(truncatingIfNeeded: v >> 16), UInt8(truncatingIfNeeded: v >> 24))
    }

    /// Writes the rows held in memory to the spill file.
    func flushSpill() throws(JSONAPIError) {
        guard spill.count > 0 else { return }
        let fd = open(spillPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw JSONAPIError.input("cannot write \(spillPath): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try spill.withBytes { (b) throws(JSONAPIError) in try writeAll(fd, b, path: spillPath) }
        spilledBytes += spill.count
        spill.removeAll()
        spill.giveBack(ifAbove: 1 << 20, to: 64 * 1024)
    }

    /// Passes every spilled row to `body`, in order (the spill file, then what is in memory),
    /// then removes the spill file.
    func forEachSpilledRow(_ body: (SpilledRow) throws(JSONAPIError) -> Void) throws(JSONAPIError) {
        if spilledBytes > 0 {
            try flushSpill()
            let fd = open(spillPath, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw JSONAPIError.input("cannot read \(spillPath): \(String(cString: strerror(errno)))") }
            defer {
                close(fd)
                unlink(spillPath)
            }
            var buffer = ByteArena(capacity: 1 << 20)
            var ended = false
            while true {
                // Whole rows from the front of the buffer; then read more.
                var used = 0
                try buffer.withBytes { (b) throws(JSONAPIError) in
                    while b.count - used >= 4 {
                        let n = Int(b.loadUnaligned(fromByteOffset: used, as: UInt32.self).littleEndian)
                        guard b.count - used - 4 >= n else { break }
                        try body(SpilledRow(UnsafeRawBufferPointer(rebasing: b[used + 4..<used + 4 + n])))
                        used += 4 + n
                    }
                }
                buffer.removeFirst(used)
                if ended {
                    guard buffer.count == 0 else { throw JSONAPIError.input("\(spillPath) ends inside a row (was it changed while the run went on?)") }
                    break
                }
                // A row longer than the buffer doubles what is read next.
                let want = max(1 << 20, buffer.count)
                let p = buffer.reserveTail(want)
                var got = 0
                repeat { got = read(fd, p, want) } while got < 0 && errno == EINTR
                buffer.shrink(by: want - max(got, 0))
                guard got >= 0 else { throw JSONAPIError.input("cannot read \(spillPath): \(String(cString: strerror(errno)))") }
                if got == 0 { ended = true }
            }
        } else {
            var used = 0
            try spill.withBytes { (b) throws(JSONAPIError) in
                while used < b.count {
                    let n = Int(b.loadUnaligned(fromByteOffset: used, as: UInt32.self).littleEndian)
                    try body(SpilledRow(UnsafeRawBufferPointer(rebasing: b[used + 4..<used + 4 + n])))
                    used += 4 + n
                }
            }
        }
        spill = ByteArena(capacity: 16)
    }
}

/// A row as spilled: flags, then id, lid, attributes, links, meta and the unknown members
/// (`"name":value,…`), each as a 4-byte length (all ones: none) and its bytes.
struct SpilledRow {
    var id: UnsafeRawBufferPointer?
    var lid: UnsafeRawBufferPointer?
    var attributes: UnsafeRawBufferPointer?
    var links: UnsafeRawBufferPointer?
    var meta: UnsafeRawBufferPointer?
    var other: UnsafeRawBufferPointer?

    init(_ b: UnsafeRawBufferPointer) {
        var at = 0
        func field() -> UnsafeRawBufferPointer? {
            let n = b.loadUnaligned(fromByteOffset: at, as: UInt32.self).littleEndian
            at += 4
            if n == .max { return nil }
            defer { at += Int(n) }
            return UnsafeRawBufferPointer(rebasing: b[at..<at + Int(n)])
        }
        id = field()
        lid = field()
        attributes = field()
        links = field()
        meta = field()
        other = field()
    }
}

/// File names for tables: safe for any type name on any file system.
///
/// ASCII letters, digits, `-` and `_` stay; every other byte of the name's UTF-8 (and a
/// leading `_`, so that no type's file can be taken for one of the `_` files) is written
/// `%XX`. An empty name is `%`. Past 200 bytes, the name is cut and ends with `~` and a
/// hash of the whole. A name equal to an earlier one ignoring case (two types that a
/// case-insensitive file system would put in one file) gets `~2`, `~3`, ...
enum TableFileNames {
    static func escape(_ type: UnsafeRawBufferPointer) -> String {
        if type.isEmpty { return "%" }
        var out: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for (k, c) in type.enumerated() {
            let plain = (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == UInt8(ascii: "-") || (c == UInt8(ascii: "_") && k > 0)
            if plain {
                out.append(c)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex[Int(c >> 4)])
                out.append(hex[Int(c & 15)])
            }
        }
        if out.count > 200 {
            var cut = 180
            // Not inside a %XX.
            while cut > 0 && (out[cut - 1] == UInt8(ascii: "%") || (cut >= 2 && out[cut - 2] == UInt8(ascii: "%"))) { cut -= 1 }
            let h = SeededHash.bytes(type, seed: HashSeed(0x6a73_6f6e_6170_6921))
            out = Array(out[..<cut]) + Array(("~" + String(h, radix: 16)).utf8)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The name for `type` (without extension), unique ignoring case among `taken`.
    static func unique(_ type: UnsafeRawBufferPointer, taken: inout Set<String>) -> String {
        let base = escape(type)
        var name = base
        var k = 1
        while taken.contains(name.lowercased()) {
            k += 1
            name = base + "~\(k)"
        }
        taken.insert(name.lowercased())
        return name
    }
}
