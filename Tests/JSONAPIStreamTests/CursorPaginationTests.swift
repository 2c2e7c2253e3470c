import JSONAPIStream
import Testing

/// The Cursor Pagination profile's pieces in a document (issue 21, item 9).
@Suite struct CursorPaginationPieces {
    static let profile = CursorPagination.profile

    @Test func pageMetaAndItemCursorsAreRead() throws {
        let graph = try Graph(
            json: #"""
                {"data":[{"type":"articles","id":"1","meta":{"page":{"cursor":"c1"}}},{"type":"articles","id":"2"}],
                 "meta":{"page":{"rangeTruncated":true,"total":250,"estimatedTotal":{"bestGuess":300}}},
                 "links":{"prev":null,"next":"/articles?page[after]=c1"}}
                """#)
        #expect(CursorPagination.Page(graph.meta) == CursorPagination.Page(rangeTruncated: true, total: 250, estimatedTotal: 300))
        #expect(graph.primary.map(\.pageCursor) == ["c1", nil])
        #expect(CursorPagination.Page(nil) == CursorPagination.Page())
        let plain = try Graph(json: #"{"data":[],"meta":{"page":{"size":10}}}"#)
        #expect(CursorPagination.Page(plain.meta) == CursorPagination.Page())
    }

    @Test func theProfilesErrorsAreToldByTheirType() throws {
        let graph = try Graph(
            json: #"""
                {"errors":[
                  {"status":"400","links":{"type":"\#(Self.profile)/max-size-exceeded"},"source":{"parameter":"page[size]"},"meta":{"page":{"maxSize":100}}},
                  {"status":"400","links":{"type":"\#(Self.profile)/invalid-parameter-value"},"source":{"parameter":"page[after]"}},
                  {"status":"400","links":{"type":"http://jsonapi.org/profiles/ethanresnick/cursor-pagination/range-pagination-not-supported"}},
                  {"status":"400","code":"unsupported-sort","source":{"parameter":"sort"}},
                  {"status":"400","links":{"type":"\#(Self.profile)/max-size-exceeded"}},
                  {"status":"400","links":{"type":"https://example.com/errors/max-size-exceeded"}},
                  {"status":"422","title":"Invalid"}
                ]}
                """#)
        #expect(
            graph.errors.map(\.cursorPaginationError) == [
                .maxSizeExceeded(maxSize: 100), .invalidParameterValue(parameter: "page[after]"), .rangePaginationNotSupported,
                .unsupportedSort, .maxSizeExceeded(maxSize: nil), nil, nil,
            ])
    }
}
