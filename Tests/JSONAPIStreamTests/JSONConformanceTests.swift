import Foundation
import Testing
@testable import JSONAPIStream

/// The public JSONTestSuite parsing cases (nst/JSONTestSuite, MIT), when present: set
/// `JSON_TEST_SUITE` to their folder, or keep them at `../shared/JSONTestSuite/test_parsing`.
/// The expected data comes from an independent decoder (`Scripts/conformance-gold.py`).
struct JSONConformanceTests {
    static let suite: URL? = {
        let env = ProcessInfo.processInfo.environment["JSON_TEST_SUITE"]
        let url =
            env.map { URL(fileURLWithPath: $0) }
            ?? repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/JSONTestSuite/test_parsing")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }()

    struct Expected: Decodable {
        var accepted: Bool
        var value: String?
        var duplicateNames: Bool?
    }

    static let expected: [String: Expected] = {
        let data = try! Data(contentsOf: corpusURL("conformance/expected.json"))
        return try! JSONDecoder().decode([String: Expected].self, from: data)
    }()

    @Test(.enabled(if: suite != nil, "JSONTestSuite not present"), arguments: [1, 2, 3, 7, 64, 4096, 0])
    func suiteAtChunkSize(_ chunk: Int) throws {
        let dir = try #require(Self.suite)
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".json") }.sorted()
        #expect(names.count > 300)
        var wrong: [String] = []
        for name in names {
            let input = Array(try Data(contentsOf: dir.appendingPathComponent(name)))
            var options = ParseOptions()
            options.multipleDocuments = false
            options.duplicateMembers = .allowInValues
            let receiver = JSONValueReceiver(options: options)
            receiver.storesEverything = true
            let parser = JSONStreamParser(outlet: receiver, options: options)
            let result: Result<[JSONValue], JSONAPIError>
            do throws(JSONAPIError) {
                try feedChunked(input, chunk: chunk) { (b) throws(JSONAPIError) in try parser.feed(b) }
                try parser.finish()
                result = .success(receiver.values)
            } catch { result = .failure(error) }
            let exp = Self.expected[name]
            switch (name.first, result) {
            case ("y", .success(let v)), ("i", .success(let v)):
                // Accepted: the data must be exactly what the reference decoder gives.
                if exp?.accepted != true || v.count != 1 || v[0].jsonText != exp?.value {
                    wrong.append("\(name): accepted as \(v.map(\.jsonText).joined().prefix(80)) but reference says \(exp?.value?.prefix(80) ?? "reject")")
                }
            case ("y", .failure(let e)):
                wrong.append("\(name): rejected: \(e)")
            case ("n", .success(let v)):
                wrong.append("\(name): accepted as \(v.map(\.jsonText).joined().prefix(80))")
            case ("n", .failure(let e)), ("i", .failure(let e)):
                // Rejected: with a specific rule and a position inside the input.
                guard let d = e.diagnostic, d.location.offset <= input.count else {
                    wrong.append("\(name): rejected without a position: \(e)")
                    continue
                }
            default:
                break
            }
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong outcomes at chunk size \(chunk):\n\(wrong.joined(separator: "\n"))")
    }
}
