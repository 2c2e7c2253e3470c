import Foundation
import Testing
@testable import JSONAPIStream

/// The names a resource, a relationship or an identifier object is made of (`type`, `id`,
/// `attributes`, `data`…) are taken at once by the document builder: found by one lookup,
/// their repeats checked by a bit of the object's level rather than its list of names. They
/// must give the same findings, positions and JSON pointers as every other name, escaped or
/// not, on one thread and in the pipeline, at every read size.
struct KnownMemberNameTests {
    /// NDJSON of `input`, its warnings and its error, read whole and at several read sizes,
    /// on one thread and pipelined: every outcome must be the same; returns it.
    static func outcome(
        _ input: String, options: DocumentOptions = .default, sourceLocation: Testing.SourceLocation = #_sourceLocation
    ) -> (String, [Diagnostic], JSONAPIError?) {
        func run(chunk: Int, pipelined: Bool) -> (String, [Diagnostic], JSONAPIError?) {
            InPlaceReadTests.normalize(bytes(input), size: chunk, coalesce: options.parse.coalesceBytes, pipelined: pipelined, document: options)
        }
        let whole = run(chunk: 0, pipelined: false)
        for chunk in [0, 1, 2, 3, 5, 7, 13] {
            for pipelined in [false, true] where chunk != 0 || pipelined {
                let r = run(chunk: chunk, pipelined: pipelined)
                #expect(r.1 == whole.1 && r.2 == whole.2, "read size \(chunk), pipelined \(pipelined): \(r) against \(whole)", sourceLocation: sourceLocation)
                if r.2 == nil { #expect(r.0 == whole.0, "read size \(chunk), pipelined \(pipelined)", sourceLocation: sourceLocation) }
            }
        }
        return whole
    }

    /// The column (1-based) of the `occurrence`th (1-based) `"needle` in `input`.
    static func column(of needle: String, occurrence: Int, in input: String) -> Int {
        var from = input.startIndex
        var found = input.startIndex
        for _ in 0..<occurrence {
            let r = input.range(of: needle, range: from..<input.endIndex)!
            found = r.lowerBound
            from = r.upperBound
        }
        return input.distance(from: input.startIndex, to: found) + 1
    }

    @Test func theLookupAnswersAsClassifyDoes() {
        let table = DocumentBuilder.makeKnownNames()
        let known = ["data", "included", "meta", "links", "jsonapi", "errors", "type", "id", "lid", "attributes", "relationships"]
        // Each known name, and names that share all but one thing with one: a byte more or
        // less, the same first eight bytes, the same length with another last byte, another
        // case; and names of every length up to 16 that are none of them.
        var names = known
        for k in known {
            names += [String(k.dropLast()), k + "s", k + "_", k.uppercased(), String(k.dropLast()) + "X", "X" + k.dropFirst(), k + k]
        }
        names += ["", "a", "attribut", "attributez", "attributesX", "relations", "relationshipz", "relationshipsX", "includedX", "include"]
        names += (0...16).map { String(repeating: "q", count: $0) }
        for name in names {
            let b = Array(name.utf8)
            b.withUnsafeBytes { b in
                let prefix = ShortName.prefix(b)
                let expected = DocumentBuilder.classify(b, prefix: prefix)
                #expect(DocumentBuilder.knownMember(b, prefix: prefix, entry: table[DocumentBuilder.knownNameSlot(prefix)]) == expected, "\(name)")
                #expect((expected != .other) == known.contains(name), "\(name)")
            }
        }
    }

    @Test func aRepeatedKnownNameIsRefusedEscapedOrNot() {
        // (input, the repeated name as written the second time and which occurrence of that
        // text it is, the pointer)
        let cases: [(String, String, Int, String)] = [
            (#"{"data":{"type":"a","id":"1","type":"b"}}"#, #""type""#, 2, "/data/type"),
            (#"{"data":{"type":"a","id":"1","typ\u0065":"b"}}"#, #""typ\u0065""#, 1, "/data/type"),
            (#"{"data":{"t\u0079pe":"a","id":"1","type":"b"}}"#, #""type""#, 1, "/data/type"),
            (#"{"data":{"type":"a","id":"1","attributes":{},"attributes":{}}}"#, #""attributes""#, 2, "/data/attributes"),
            (#"{"data":{"type":"a","id":"1","relationships":{},"relationships":{}}}"#, #""relationships""#, 2, "/data/relationships"),
            (#"{"data":[{"type":"a","id":"1","meta":{},"links":{},"meta":{}}]}"#, #""meta""#, 2, "/data/0/meta"),
            (#"{"data":null,"included":[{"type":"a","id":"1"},{"type":"a","lid":"2","lid":"3"}]}"#, #""lid""#, 2, "/included/1/lid"),
            (#"{"data":{"type":"a","id":"1","relationships":{"r":{"data":{"type":"x","id":"2","id":"3"}}}}}"#, #""id""#, 3, "/data/relationships/r/data/id"),
            (
                #"{"data":{"type":"a","id":"1","relationships":{"r":{"data":[{"type":"x","id":"2","meta":{},"meta":1}]}}}}"#, #""meta""#, 2,
                "/data/relationships/r/data/0/meta"
            ),
            (#"{"data":{"type":"a","id":"1","relationships":{"r":{"data":null,"links":{},"data":null}}}}"#, #""data""#, 3, "/data/relationships/r/data"),
            (#"{"data":{"type":"a","id":"1","relationships":{"r":{"data":null,"d\u0061ta":null}}}}"#, #""d\u0061ta""#, 1, "/data/relationships/r/data"),
        ]
        for (input, second, occurrence, pointer) in cases {
            let column = Self.column(of: second, occurrence: occurrence, in: input)
            for policy in [DuplicateMemberPolicy.reject, .allowInValues] {
                var options = DocumentOptions.default
                options.parse.duplicateMembers = policy
                let (_, _, error) = Self.outcome(input, options: options)
                let d = error?.diagnostic
                #expect(d?.rule == .J11 && d?.severity == .error, "\(input): \(String(describing: error))")
                #expect(d?.pointer == pointer, "\(input): \(String(describing: d))")
                #expect(d?.location.column == column, "\(input): \(String(describing: d))")
            }
        }
    }

    @Test func namesOfOtherObjectsAreTheirOwn() throws {
        // The same known name in an enclosing object, a sibling object and a value: no repeat.
        let input = #"""
            {"data":[{"type":"a","id":"1","meta":{"type":1,"id":2,"meta":3},"relationships":{"data":{"data":{"type":"b","id":"1","meta":{"meta":1}},"meta":{"data":1}},"meta":{"data":[{"type":"b","id":"2"},{"type":"b","id":"3"}]}},"attributes":{"included":{"data":1},"links":1}},{"type":"a","id":"2"}],"meta":{"data":1}}
            """#
        let (out, warnings, error) = Self.outcome(input)
        #expect(error == nil, "\(String(describing: error))")
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(out.contains(#""attributes":{"included":{"data":1},"links":1}"#), "\(out)")
        #expect(out.contains(#""meta":{"type":1,"id":2,"meta":3}"#), "\(out)")
    }

    @Test func pointersNameTheKnownMembersOnTheWay() {
        // A finding inside the value of a known name, after it, and after an unknown one.
        let cases: [(String, Rule, String)] = [
            (#"{"data":{"type":"a","id":"1","attributes":{"x":"\ud800"}}}"#, .J03, "/data/attributes/x"),
            (#"{"data":{"type":"a","id":"1","attributes":{"x":1,"x":2}}}"#, .J11, "/data/attributes/x"),
            (#"{"data":{"type":"a","id":"1","relationships":{"r":{"meta":{"a":1,"a":2}}}}}"#, .J11, "/data/relationships/r/meta/a"),
            (#"{"data":{"type":"a","id":"1","relationships":{"r":{"data":{"type":"b","id":"2","meta":{"q":[1,{"z":1,"z":2}]}}}}}}"#, .J11, "/data/relationships/r/data/meta/q/1/z"),
            (#"{"data":{"type":"a","id":"1","bogus":{"q":1,"q":2}}}"#, .J11, "/data/bogus/q"),
            (#"{"data":{"type":"a","bogus":1,"id":"1","links":{"self":1,"self":2}}}"#, .J11, "/data/links/self"),
        ]
        for (input, rule, pointer) in cases {
            let (_, _, error) = Self.outcome(input)
            #expect(error?.diagnostic?.rule == rule, "\(input): \(String(describing: error))")
            #expect(error?.diagnostic?.pointer == pointer, "\(input): \(String(describing: error?.diagnostic))")
        }
        // Warnings too: an identifier's type that is not a string, and an unknown member.
        var lenient = DocumentOptions.default
        lenient.validation = .lenient
        let (_, warnings, _) = Self.outcome(#"{"data":{"type":"a","id":"1","lid":"x","bogus":1,"links":{}}}"#, options: lenient)
        #expect(warnings.contains { $0.rule == .R14 && $0.pointer == "/data/bogus" }, "\(warnings)")
    }

    @Test func unknownMembersAfterKnownOnesKeepTheirNames() throws {
        // An unknown member is kept as "name":value: its name is the object's last entry,
        // whatever known names came before it.
        let input = #"{"data":{"type":"a","id":"1","attributes":{"t":1},"extra":{"k":[1]},"relationships":{"r":{"data":null,"also":2}},"links":{"self":"s"},"more":3}}"#
        let (out, _, error) = Self.outcome(input)
        #expect(error == nil, "\(String(describing: error))")
        let flat = try normalize(input, format: .json)
        #expect(flat.contains(#""extra":{"k":[1]}"#) && flat.contains(#""more":3"#) && flat.contains(#""also":2"#), "\(flat)")
        #expect(out.contains(#""extra":{"k":[1]}"#) && out.contains(#""more":3"#), "\(out)")
    }

    /// `self` and `related`, taken at once in a links object (``ValueChecker``): they count as
    /// a relationship's link, are refused in an error's links, and their look-alikes take
    /// the common way (a name that is not a standard link name, or that is invalid).
    @Test func selfAndRelatedAreLinkNamesAtOnce() {
        var lenient = DocumentOptions.default
        lenient.validation = .lenient
        func rules(_ input: String) -> [Rule] {
            let (_, warnings, error) = Self.outcome(input, options: lenient)
            #expect(error == nil, "\(input): \(String(describing: error))")
            return warnings.map(\.rule)
        }
        func relationshipLinks(_ links: String) -> String {
            #"{"data":{"type":"a","id":"1","relationships":{"r":{"links":{\#(links)}}}}}"#
        }
        // One of self or related is enough for a relationship; a look-alike is not (R19).
        #expect(rules(relationshipLinks(#""self":"/s""#)).isEmpty)
        #expect(rules(relationshipLinks(#""related":"/r""#)).isEmpty)
        #expect(rules(relationshipLinks(#""next":"/n","related":"/r""#)).isEmpty)
        for other in [#""Self":"/s""#, #""selfs":"/s""#, #""relate":"/r""#, #""relatedX":"/r""#] {
            #expect(rules(relationshipLinks(other)).contains(.R19), "\(other)")
        }
        // A link's value is checked after them as after any link name (R27: not a URI).
        #expect(rules(relationshipLinks(#""self":"a b""#)).contains(.R27))
        // An error's links may hold only about and type.
        let error = { (name: String) in #"{"errors":[{"status":"500","links":{"\#(name)":"/x"}}]}"# }
        #expect(rules(error("self")).contains(.R35))
        #expect(rules(error("related")).contains(.R35))
        #expect(rules(error("about")).isEmpty)
    }
}
