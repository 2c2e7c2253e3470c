import Foundation
import PropertyBased
import Testing
@testable import JSONAPIStream

/// Random graphs: written as a document, read, written again, read again: the same graph.
struct RoundTripPropertyTests {
    struct Model: Sendable, CustomStringConvertible {
        var resources: [(type: String, id: String, attributes: [(String, JSONValue)], links: [(String, String, Int)], primary: Bool)]
        var description: String { document }

        /// The document text the model stands for.
        var document: String {
            var data: [JSONValue] = []
            var included: [JSONValue] = []
            for r in resources {
                var o = JSONObject()
                o.append("type", .string(r.type))
                o.append("id", .string(r.id))
                o.append("attributes", .object(JSONObject(r.attributes.map { (key: $0.0, value: $0.1) })))
                var rels = JSONObject()
                for (name, targetType, targetIndex) in r.links {
                    let target = ResourceIdentifier(type: targetType, id: "\(targetIndex)")
                    rels.append(name, ["data": target.jsonValue])
                }
                o.append("relationships", .object(rels))
                if r.primary { data.append(.object(o)) } else { included.append(.object(o)) }
            }
            let doc: JSONValue = ["data": .array(data), "included": .array(included), "meta": ["n": .number(JSONNumber(resources.count))]]
            return doc.jsonText
        }
    }

    static let names = ["title", "body", "first-name", "Title", "x1", "é-name", "emoji😀"]
    static let strings = ["", "plain", "q\"uote", "back\\slash", "line\nfeed", "\u{0}nul", "tab\t", "ünï", "😀", "/slash"]
    static let numbers = ["0", "-0", "1.10", "1e400", "123456789012345678901234567890", "-3.5E-7", "42"]

    static var value: Generator<JSONValue, some SendableSequenceType> {
        Gen.oneOf(
            Gen.element(of: strings).map { JSONValue.string($0!) },
            Gen.element(of: numbers).map { JSONValue.number(JSONNumber($0!)!) },
            Gen.bool.map { JSONValue.bool($0) },
            Gen.always(JSONValue.null),
            Gen.element(of: strings).array(of: 0...3).map { JSONValue.array($0.map { .string($0!) }) },
            Gen.element(of: numbers).map { JSONValue.object(JSONObject([(key: "nested", value: .number(JSONNumber($0!)!))])) }
        )
    }

    static var model: Generator<Model, some SendableSequenceType> {
        zip(
            Gen.int(in: 1...12),
            zip(Gen.element(of: names), value).array(of: 0...4).array(of: 12...12),
            zip(Gen.element(of: ["author", "tags", "parent"]), Gen.element(of: ["a", "b"]), Gen.int(in: 0...15)).array(of: 0...3).array(of: 12...12),
            Gen.bool.array(of: 12...12)
        ).map { count, attributes, links, primary in
            var resources: [(type: String, id: String, attributes: [(String, JSONValue)], links: [(String, String, Int)], primary: Bool)] = []
            for i in 0..<count {
                // Unique attribute names per resource (JSON names must not repeat).
                var seen = Set<String>()
                let attrs = attributes[i].compactMap { pair -> (String, JSONValue)? in
                    guard let name = pair.0, seen.insert(name).inserted else { return nil }
                    return (name, pair.1)
                }
                var seenRel = Set<String>()
                let rels = links[i].compactMap { l -> (String, String, Int)? in
                    guard let name = l.0, let type = l.1, seenRel.insert(name).inserted, !seen.contains(name) else { return nil }
                    return (name, type, l.2)
                }
                resources.append((i % 2 == 0 ? "a" : "b", "\(i)", attrs, rels, primary[i] || i == 0))
            }
            return Model(resources: resources)
        }
    }

    @Test func randomGraphsRoundTrip() async {
        await propertyCheck(count: 200, input: Self.model) { model in
            var o = DocumentOptions()
            o.validation = .off
            do {
                let first = try Graph(json: model.document, options: o)
                first.checkInvariants()
                let encoded = try first.document()
                let second = try Graph(bytes: encoded, options: o)
                second.checkInvariants()
                // The same graph: the same flat form.
                let a = try normalize(model.document, format: .json, document: o)
                let b = try normalize(String(decoding: encoded, as: UTF8.self), format: .json, document: o)
                #expect(a == b)
                // And the model's values are in it, exactly.
                for r in model.resources {
                    let res = try #require(second[type: r.type, id: r.id])
                    for (name, value) in r.attributes { #expect(res.attributes[name]?.jsonValue == value) }
                    #expect(res.isPrimary == r.primary)
                }
            } catch {
                Issue.record("\(error)")
            }
        }
    }
}
