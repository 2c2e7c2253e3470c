import Foundation
import Testing
@testable import JSONAPIStream

/// A compound document with every kind of attribute value and every shape of relationship:
/// to-one, to-many, null, absent (links only), not included, and a cycle (comments point back
/// at their article).
let decodingDocument = #"""
    {"data":[{"type":"articles","id":"1",
      "attributes":{"title":"JSON:API paints my bikeshed!","body":"Line one\nLine \"two\" \u0001 é 🚲",
        "views":1024,"rating":4.5,"ratio":1.25e-3,"score":123456789012345678901234567890,"big":9007199254740993,
        "huge":1e400,"tiny":1e-400,"negativeZero":-0,"published":true,
        "publishedAt":"2026-03-01T12:30:00Z","editedAt":"2026-03-02T08:00:00.250+01:00","deletedAt":null,
        "tags-list":["json","api"],"dimensions":{"width":800,"height":600.5,"aspect-ratio":"4:3"},
        "status":"draft","homepage":"/articles/1","price":"19.99","counts":{"a":1,"b":2},"matrix":[[1,2],[3]],
        "nothing":[],"empty":{}},
      "relationships":{
        "author":{"data":{"type":"people","id":"9"},"links":{"related":"/articles/1/author"}},
        "comments":{"data":[{"type":"comments","id":"5"},{"type":"comments","id":"12"}],"meta":{"count":2}},
        "editor":{"data":null},
        "reviewer":{"data":{"type":"people","id":"404"}},
        "history":{"links":{"related":"/articles/1/history"}},
        "watchers":{"data":[{"type":"people","id":"9"},{"type":"people","id":"404"}]}},
      "links":{"self":"http://example.com/articles/1"},"meta":{"revision":3}}],
     "included":[
      {"type":"people","id":"9","attributes":{"first-name":"Dan","last_name":"Gebhardt","twitter":"dgeb","age":"old"}},
      {"type":"comments","id":"5","attributes":{"body":"First!"},
       "relationships":{"author":{"data":{"type":"people","id":"2"}},"article":{"data":{"type":"articles","id":"1"}}}},
      {"type":"comments","id":"12","attributes":{"body":"I like XML better"},
       "relationships":{"author":{"data":{"type":"people","id":"9"}},"article":{"data":{"type":"articles","id":"1"}}}}],
     "meta":{"total":1}}
    """#

func decodingGraph(chunk: Int = 0) throws -> Graph { try graph(decodingDocument, chunk: chunk) }

/// The first primary resource of `decodingDocument`.
func article1() throws -> Resource { try #require(try decodingGraph().primary.first) }

/// The `debugDescription` of a `DecodingError`.
func message(_ error: any Error) -> String {
    guard let e = error as? DecodingError else { return "\(error)" }
    switch e {
    case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c): return c.debugDescription
    @unknown default: return "\(e)"
    }
}

/// The coding path of a `DecodingError`, as strings.
func path(_ error: any Error) -> [String] {
    guard let e = error as? DecodingError else { return [] }
    let keys: [any CodingKey]
    switch e {
    case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): keys = c.codingPath
    case .keyNotFound(let k, let c): keys = c.codingPath + [k]
    @unknown default: keys = []
    }
    return keys.map { $0.intValue.map { "\($0)" } ?? $0.stringValue }
}

/// Which case a `DecodingError` is.
func kind(_ error: any Error) -> String {
    guard let e = error as? DecodingError else { return "not a DecodingError" }
    switch e {
    case .typeMismatch: return "typeMismatch"
    case .valueNotFound: return "valueNotFound"
    case .keyNotFound: return "keyNotFound"
    case .dataCorrupted: return "dataCorrupted"
    @unknown default: return "unknown"
    }
}

/// Runs `body`, expecting a `DecodingError`; returns it.
func decodingError<T>(_ body: () throws -> T) -> (any Error)? {
    do {
        let v = try body()
        Issue.record("expected an error, decoded \(v)")
        return nil
    } catch {
        return error
    }
}
