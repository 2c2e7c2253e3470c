import Foundation
import Testing

@testable import JSONAPIStream

/// `Denormalizer` reads resource lines that start with `type` straight into JSON text
/// (``NormalizedRecordReader``) and every other record as a `JSONValue` tree: both ways must
/// give the same documents, and problems must be reported where they are in the input.
struct DenormalizerRecordTests {
    /// The document denormalized from `text` (NDJSON or flat JSON).
    static func denormalize(_ text: String, workers: Int? = nil) throws(JSONAPIError) -> String {
        var options = DocumentOptions.default
        options.parse.workers = workers
        options.parse.workerBatchBytes = 4096
        let d = Denormalizer(options: options)
        try d.read(.bytes(Array(text.utf8), name: "in.ndjson"), chunkSize: 7)
        let out = ByteWriter()
        try d.write(to: out)
        return out.string
    }

    /// The error `text` ends with.
    static func failure(_ text: String) -> JSONAPIError? {
        do throws(JSONAPIError) {
            _ = try denormalize(text)
            return nil
        } catch {
            return error
        }
    }

    /// Lines with every kind of value, escapes, the members normalize adds, a resource with
    /// no identity, and a repeated resource (merged: the later member wins).
    static let lines = [
        #"{"type":"articles","id":"1","primary":true,"hash":"ab12","attributes":{"title":"Caf\u00e9 \"quoted\" \\ / \t","n":-1.5e-7,"big":123456789012345678901234567890,"ok":true,"no":false,"none":null,"list":[1,[2,[]],{},{"a":{"b":[null]}}],"emoji":"😀"},"relationships":{"author":{"data":{"type":"people","id":"9"}},"tags":{"data":[{"type":"tags","id":"t1"},{"type":"tags","id":"t2","meta":{"x":1}}],"links":{"self":"/a/1/tags"}}},"links":{"self":"/a/1"},"meta":{"m":[]}}"#,
        #"{"type":"people","id":"9","attributes":{"name":"Dan"},"relationships":{}}"#,
        #"  { "type" : "tags" , "id" : "t1" , "attributes" : { "label" : "x" } }  "#,
        #"{"type":"tags","lid":"local-1","attributes":{"label":"no id"}}"#,
        #"{"type":"drafts","attributes":{"title":"nothing to name it by"},"primary":true}"#,
        #"{"type":"people","id":"9","attributes":{"name":"Dan again","age":40},"relationships":{}}"#,
        #"{"document":{"data":[{"type":"articles","id":"1"},{"type":"drafts"}],"meta":{"page":1}}}"#,
    ]

    /// The same line with `type` later: read as a tree.
    static func typeLater(_ line: String) throws -> String {
        let v = try JSONValue(parsing: Array(line.utf8))
        var o = JSONObject()
        for m in v.objectValue!.members where m.key != "type" { o.append(m.key, m.value) }
        o.append("type", v["type"]!)
        var w = JSONTextWriter()
        w.write(.object(o))
        return w.text
    }

    @Test func linesReadAsTextGiveWhatTreesGive() throws {
        let asText = try Self.denormalize(Self.lines.joined(separator: "\n") + "\n")
        let treeLines = try Self.lines.map { $0.contains(#""document""#) ? $0 : try Self.typeLater($0) }
        let asTrees = try Self.denormalize(treeLines.joined(separator: "\n") + "\n")
        #expect(asText == asTrees)
        // What the document holds: normalize's members gone, values as written, the later
        // member of a repeated resource, the anonymous resource as primary data.
        let doc = try JSONValue(parsing: Array(asText.utf8))
        let data = doc["data"]!.arrayValue!
        #expect(data.count == 2)
        #expect(data[0]["attributes"]?["title"] == .string("Café \"quoted\" \\ / \t"))
        #expect(data[0]["attributes"]?["big"]?.numberValue?.text == "123456789012345678901234567890")
        #expect(data[0]["attributes"]?["n"]?.numberValue?.text == "-1.5e-7")
        #expect(data[0]["attributes"]?["emoji"] == .string("😀"))
        #expect(data[0]["primary"] == nil && data[0]["hash"] == nil)
        #expect(data[0]["relationships"]?["tags"]?["data"]?[1]?["meta"]?["x"] == 1)
        #expect(data[1]["type"] == .string("drafts") && data[1]["id"] == nil && data[1]["primary"] == nil)
        let included = doc["included"]!.arrayValue!
        let dan = included.first { $0["type"] == .string("people") }
        #expect(dan?["attributes"]?["name"] == .string("Dan again"))
        #expect(included.contains { $0["lid"] == .string("local-1") })
        #expect(doc["meta"]?["page"] == 1)
    }

    @Test func aLineThatIsAnotherKindAfterAllIsReadAsOne() throws {
        // `document` takes precedence over `type`, wherever it is in the record.
        let later = #"{"type":"articles","id":"1","document":{"data":{"type":"articles","id":"1"},"meta":{"n":1}}}"#
        let first = #"{"document":{"data":{"type":"articles","id":"1"},"meta":{"n":1}},"type":"articles","id":"1"}"#
        let line = #"{"type":"articles","id":"1","attributes":{"t":"x"}}"#
        let a = try Self.denormalize(line + "\n" + later + "\n")
        let b = try Self.denormalize(line + "\n" + first + "\n")
        #expect(a == b)
        #expect(try JSONValue(parsing: Array(a.utf8))["meta"]?["n"] == 1)
        // An operation line too.
        let op = #"{"type":"x","operation":{"op":"remove","ref":{"type":"articles","id":"1"}}}"#
        let c = try Self.denormalize(op + "\n" + #"{"document":{"data":null,"jsonapi":{"ext":["https://jsonapi.org/ext/atomic"]}}}"# + "\n")
        #expect(try JSONValue(parsing: Array(c.utf8))["atomic:operations"]?.arrayValue?.count == 1)
    }

    /// Flat objects with `resources` moved first (`data` after it): still read entry by entry.
    static func resourcesFirst(_ flat: String) throws -> String {
        try rearranged(flat) { o in
            o.members.filter { $0.key == "resources" } + o.members.filter { $0.key != "resources" }
        }
    }

    /// Flat objects with their members other than `data` and `resources` moved first: read as
    /// one tree (an object without such members is read entry by entry), and how many are.
    static func othersFirst(_ flat: String) throws -> (text: String, trees: Int) {
        var trees = 0
        let text = try rearranged(flat) { o in
            let others = o.members.filter { $0.key != "data" && $0.key != "resources" }
            if !others.isEmpty { trees += 1 }
            return others + o.members.filter { $0.key == "resources" } + o.members.filter { $0.key == "data" }
        }
        return (text, trees)
    }

    static func rearranged(_ flat: String, _ order: (JSONObject) -> [JSONObject.Member]) throws -> String {
        var out = ""
        for line in flat.split(separator: "\n") {
            let v = try JSONValue(parsing: Array(line.utf8))
            out += JSONValue.object(JSONObject(order(v.objectValue!))).jsonText + "\n"
        }
        return out
    }

    /// Every corpus document and request, normalized to flat JSON: read entry by entry (as
    /// normalize writes it, `data` first, and with `resources` first) and read as one tree
    /// (another member first), the same document.
    @Test(arguments: ["documents", "requests"])
    func flatObjectsReadEntryByEntryGiveWhatTreesGive(_ folder: String) throws {
        let dir = corpusURL(folder)
        var compared = 0
        var trees = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() where name.hasSuffix(".json") && name != "manifest.json" {
            let text = try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8)
            var options = DocumentOptions.default
            if folder == "requests" {
                options.context =
                    name.hasPrefix("relationship-update") ? .relationshipUpdate : name.hasPrefix("update") ? .update : .create
            }
            let flat = try normalize(text, format: .json, document: options)
            #expect(flat.hasPrefix(#"{"data":"#), "\(name)")
            let streamed = try Self.denormalize(flat)
            #expect(try Self.denormalize(try Self.resourcesFirst(flat)) == streamed, "\(name)")
            let others = try Self.othersFirst(flat)
            #expect(try Self.denormalize(others.text) == streamed, "\(name)")
            trees += others.trees
            compared += 1
        }
        #expect(compared > 8)
        #expect(folder == "requests" || trees > 4, "the documents have top-level members besides data")
    }

    @Test func flatObjectsOfEveryShape() throws {
        // A lid-keyed resource, an anonymous one (keyed ""), an entry whose lid is not a
        // string, members between and after data and resources, two flat objects in one
        // input (the second merges into the first).
        let flat = [
            #"{"data":[{"type":"a","id":"1"},{"type":"a","lid":"l1"},{"type":"d"},{"type":"a","id":"404"}],"meta":{"before":true},"resources":{"a":{"1":{"attributes":{"x":[1,{"y":null}]},"relationships":{"b":{"data":{"type":"b","id":"2"}}}},"l1":{"lid":"l1","attributes":{}},"7":{"lid":7,"attributes":{"z":"\u00e9\n"}}},"b":{"2":{"attributes":{"n":1.0e2},"relationships":{}}},"d":{"":{"attributes":{"anon":true},"relationships":{}}}},"links":{"self":"/x"},"jsonapi":{"version":"1.1"}}"#,
            #"{"data":{"type":"b","id":"2"},"resources":{"b":{"2":{"attributes":{"n":3},"relationships":{}}}}}"#,
            #"{"data":null,"resources":{},"errors":[{"status":"500"}]}"#,
        ]
        for k in 0..<flat.count {
            let text = flat[...k].joined(separator: "\n") + "\n"
            let streamed = try Self.denormalize(text)
            #expect(try Self.denormalize(try Self.resourcesFirst(text)) == streamed, "\(k)")
            #expect(try Self.denormalize(try Self.othersFirst(text).text) == streamed, "\(k)")
        }
        let doc = try JSONValue(parsing: Array(try Self.denormalize(flat[0] + "\n").utf8))
        let data = try #require(doc["data"]?.arrayValue)
        #expect(data.count == 4)
        #expect(data[1]["id"] == nil && data[1]["lid"] == .string("l1"))
        #expect(data[2]["type"] == .string("d") && data[2]["attributes"]?["anon"] == true)
        #expect(data[3].objectValue?.members.map(\.key) == ["type", "id"])
        #expect(doc["meta"]?["before"] == true && doc["links"]?["self"] == .string("/x"))
        let included = try #require(doc["included"]?.arrayValue)
        #expect(included.contains { $0["id"] == .string("7") && $0["lid"] == nil && $0["attributes"]?["z"] == .string("é\n") })
        #expect(included.contains { $0["type"] == .string("b") && $0["attributes"]?["n"]?.numberValue?.text == "1.0e2" })
    }

    @Test func flatObjectsThatAreNotNormalizeOutputSaySo() throws {
        let cases = [
            (#"{"data":null,"resources":[]}"#, #"not normalize output: "resources" is not an object"#),
            (#"{"data":null,"resources":{"a":{"1":{}},"b":[1]}}"#, #"not normalize output: resources of "b" are not an object"#),
            (#"{"data":null,"resources":{"a":{"1":"x"}}}"#, "not normalize output: a resource entry is not an object"),
            (#"{"data":null,"resources":{"a":{"1":[]}}}"#, "not normalize output: a resource entry is not an object"),
        ]
        for (text, message) in cases {
            let streamed = Self.failure("\n" + text + "\n")
            let dataLast = Self.failure("\n" + (try Self.resourcesFirst(text)))
            let asTree = Self.failure("\n" + #"{"meta":{},"# + text.dropFirst() + "\n")
            #expect(streamed?.diagnostic?.rule == .N03, "\(text)")
            #expect(streamed?.diagnostic?.message == message, "\(text): \(String(describing: streamed))")
            #expect(streamed?.diagnostic?.location.line == 2)
            #expect(dataLast?.diagnostic?.message == message)
            #expect(asTree?.diagnostic?.message == message)
        }
        // A JSON error after the problem, in the same object, comes first (as for a tree,
        // which is only looked at once it is whole).
        let both = Self.failure(#"{"data":null,"resources":{"a":[]},"meta":{"x":tru}}"# + "\n")
        #expect(both?.diagnostic?.rule != .N03)
        #expect(both?.diagnostic?.location.column == 47)
    }

    /// A document at the depth limit normalizes to records nested up to two levels deeper (a
    /// document line's members under `document`, a flat entry's under `resources` and its
    /// type); they come back.
    @Test func aDocumentAtTheDepthLimitComesBack() throws {
        let depth = Limits.default.maxDepth
        // The document's own levels: the document, meta (or the resource, attributes), x.
        func nested(_ levels: Int) -> String { String(repeating: "[", count: levels) + String(repeating: "]", count: levels) }
        let inMeta = #"{"data":null,"meta":{"x":\#(nested(depth - 2))}}"#
        let inAttributes = #"{"data":{"type":"a","id":"1","attributes":{"x":\#(nested(depth - 3))}}}"#
        for text in [inMeta, inAttributes] {
            let document = try JSONValue(parsing: Array(text.utf8))
            #expect(throws: JSONAPIError.self) { try JSONValue(parsing: Array((#"{"d":"# + text + "}").utf8)) }
            for format in [OutputFormat.ndjson, .json] {
                let records = try normalize(text, format: format)
                let back = try JSONValue(parsing: Array(try Self.denormalize(records).utf8))
                #expect(back["meta"] == document["meta"], "\(format)")
                #expect(back["data"]?["attributes"] == document["data"]?["attributes"], "\(format)")
            }
        }
    }

    /// An input that breaks off inside a flat object leaves nothing of it behind for the next
    /// input read by the same denormalizer.
    @Test func aBrokenOffFlatObjectLeavesNothingBehind() throws {
        let d = Denormalizer()
        #expect(throws: JSONAPIError.self) {
            try d.read(.bytes(Array(#"{"resources":{"a":{"1":{"attributes":{"x":1}}}},"data":[tru"#.utf8), name: "broken"))
        }
        try d.read(.bytes(Array((#"{"data":{"type":"b","id":"2"},"resources":{"b":{"2":{"attributes":{}}}}}"# + "\n").utf8), name: "next"))
        let out = ByteWriter()
        try d.write(to: out)
        #expect(out.string == #"{"data":{"type":"b","id":"2","attributes":{}}}"# + "\n")
    }

    @Test func workersGiveTheSameDocument() throws {
        var many: [String] = []
        for i in 0..<400 {
            let attributes = #"{"n":\#(i),"s":"\#(String(repeating: "x", count: i % 50))"}"#
            let author = #"{"data":{"type":"people","id":"p\#(i % 7)"}}"#
            many.append(#"{"type":"articles","id":"\#(i % 300)","primary":true,"attributes":\#(attributes),"relationships":{"author":\#(author)}}"#)
        }
        many.append(#"{"document":{"data":[\#((0..<300).map { #"{"type":"articles","id":"\#($0)"}"# }.joined(separator: ","))]}}"#)
        let text = many.joined(separator: "\n") + "\n"
        let one = try Self.denormalize(text, workers: 1)
        let two = try Self.denormalize(text, workers: 2)
        #expect(one == two)
        #expect(try JSONValue(parsing: Array(one.utf8))["data"]?.arrayValue?.count == 300)
    }

    @Test func problemsAreReportedWhereTheyAre() throws {
        let good = #"{"type":"a","id":"1"}"#
        // A bad literal inside a resource line read as text: line 3, at the token.
        let bad = Self.failure(good + "\n" + good + "\n" + #"{"type":"a","id":"2","attributes":{"x":tru}}"# + "\n")
        #expect(bad?.diagnostic?.location.line == 3)
        #expect(bad?.diagnostic?.location.column == 40)
        // A repeated member name inside the line's values (J11).
        let repeated = Self.failure(#"{"type":"a","id":"1","attributes":{"x":1,"x":2}}"# + "\n")
        #expect(repeated?.diagnostic?.rule == .J11)
        #expect(repeated?.diagnostic?.location.line == 1)
        // Records that are not normalize output.
        #expect(Self.failure("{}\n")?.diagnostic?.rule == .N03)
        #expect(Self.failure("[1]\n")?.diagnostic?.rule == .N03)
        #expect(Self.failure(good + "\n" + "42\n")?.diagnostic?.location.line == 2)
        // A line cut short.
        #expect(Self.failure(#"{"type":"a","id":"1","attributes":{"#)?.diagnostic?.rule == .J09)
    }
}
