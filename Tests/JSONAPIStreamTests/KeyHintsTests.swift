import Testing

@testable import JSONAPIStream

/// The builder holds one sink's ``KeyHints``; a ``SinkGroup`` chains the others' to it. A
/// chain must reach every hinted table once and never loop, however sinks are grouped.
struct KeyHintsTests {
    @Test func groupedSinksAreHintedOnceWithoutALoop() {
        var strict = DocumentOptions()
        strict.validation = .strict
        let validator = Validator(options: strict)
        let graph = GraphSink(options: strict, policy: .last)
        let v = validator.keyHints!
        let g = graph.keyHints!
        // Grouped as a stream groups them (the validator first): the group's hints are the
        // validator's, and they lead on to the graph's.
        let group = SinkGroup(validator, graph)
        #expect(group.keyHints === v)
        #expect(v.reaches(g))
        // Grouped again, the other way round, and chained to themselves or again: the
        // graph's hints do not lead back to the validator's, so no loop forms.
        _ = SinkGroup(graph, validator)
        g.chain(g)
        v.chain(g)
        #expect(!g.reaches(v))
        // A hint goes down the chain and returns (a loop would not).
        let type = Array("articles".utf8)
        let id = Array("1".utf8)
        type.withUnsafeBytes { t in id.withUnsafeBytes { i in v.hint(type: t, id: i) } }
        // A validator without the compound rules looks no keys up, and is not hinted.
        #expect(Validator(options: DocumentOptions()).keyHints == nil)
    }
}
