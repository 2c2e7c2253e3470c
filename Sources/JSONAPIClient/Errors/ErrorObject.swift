import JSONAPIStream

// `ErrorObject` is the core library's (JSONAPIStream), shared with graphs read from files.
extension ErrorObject {
    /// The error objects of an error document, or `nil` when `body` is not one.
    static func parseDocument(_ body: [UInt8]) -> [ErrorObject]? {
        guard let doc = try? JSONValue(parsing: body), let errors = doc["errors"], case .array = errors else { return nil }
        return ErrorObject.list(errors)
    }
}
