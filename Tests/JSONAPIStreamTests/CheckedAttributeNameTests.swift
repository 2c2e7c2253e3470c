import Foundation
import Testing
@testable import JSONAPIStream

/// An attribute's name equal to the name the same place of an earlier resource had is known
/// valid at once (the builder's `checkedAttributes`): only valid names are kept there, so an
/// invalid name is reported wherever it comes, as often as it comes, whatever came before it,
/// on one thread and in the pipeline, at every read size.
struct CheckedAttributeNameTests {
    /// A document of resources of type `t` whose attributes are `names` (each with the value 1).
    static func document(_ resources: [[String]]) -> String {
        let data = resources.enumerated().map { (i, names) in
            let attributes = names.map { #""\#($0)":1"# }.joined(separator: ",")
            return #"{"type":"t","id":"\#(i)","attributes":{\#(attributes)}}"#
        }
        return #"{"data":[\#(data.joined(separator: ","))]}"#
    }

    /// The R38 warnings of `resources` (lenient), as pointers and columns.
    static func findings(_ resources: [[String]], sourceLocation: Testing.SourceLocation = #_sourceLocation) -> [String] {
        let (_, warnings, error) = KnownMemberNameTests.outcome(document(resources), sourceLocation: sourceLocation)
        #expect(error == nil, sourceLocation: sourceLocation)
        #expect(warnings.allSatisfy { $0.rule == .R38 }, "\(warnings)", sourceLocation: sourceLocation)
        return warnings.map { "\($0.pointer) \($0.location.column)" }
    }

    @Test func anInvalidNameIsReportedAtAPlaceWhereAValidOneWas() {
        let resources = [["title", "ab"], ["title", "a+b"], ["title", "ab"], ["title", "a+b"]]
        let input = Self.document(resources)
        let columns = (1...2).map { KnownMemberNameTests.column(of: #""a+b""#, occurrence: $0, in: input) }
        #expect(Self.findings(resources) == ["/data/1/attributes/a+b \(columns[0])", "/data/3/attributes/a+b \(columns[1])"])
        // Invalid first, then valid, then invalid again at that place.
        #expect(
            Self.findings([["a+b"], ["ab"], ["a+b"], ["a+b"]]).map { $0.split(separator: " ")[0] } == [
                "/data/0/attributes/a+b", "/data/2/attributes/a+b", "/data/3/attributes/a+b",
            ])
        // The same name escaped (`\u0061` is `a`): the name as read is checked.
        #expect(Self.findings([["ab", "title"], [#"\u0061+b"#, "title"]]).map { $0.split(separator: " ")[0] } == ["/data/1/attributes/a+b"])
    }

    @Test func longNamesAndLatePlacesAreCheckedEachTime() {
        // Past 16 bytes (not kept by place) and past the 32 places kept.
        let many = (0..<33).map { "n\($0)" }
        let resources = [many + ["x+y", "a-long-attribute-name"], many + ["x+y", "a-long-attribute+name"], many + ["x+y", "a-long-attribute+name"]]
        #expect(
            Self.findings(resources).map { $0.split(separator: " ")[0] } == [
                "/data/0/attributes/x+y", "/data/1/attributes/x+y", "/data/1/attributes/a-long-attribute+name", "/data/2/attributes/x+y",
                "/data/2/attributes/a-long-attribute+name",
            ])
    }

    @Test func strictModeStopsAtAnInvalidNameAfterValidOnes() {
        var strict = DocumentOptions()
        strict.validation = .strict
        let input = Self.document([["title", "ab"], ["title", "ab"], ["title", "a+b"]])
        let (_, _, error) = KnownMemberNameTests.outcome(input, options: strict)
        #expect(error?.rule == .R38)
        #expect(error?.location?.column == KnownMemberNameTests.column(of: #""a+b""#, occurrence: 1, in: input))
    }
}
