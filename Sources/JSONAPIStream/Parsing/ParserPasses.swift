/// The passes of the parsing layer alone, for the benchmark passes (`JSONAPIBenchmarking`),
/// which live outside this module: bare yajl (the floor), the pre-scan, the JSON layer.
package enum ParserPasses {
    /// yajl with no-op callbacks over `bytes`: the floor every other pass is compared with.
    /// Returns false if yajl rejected the input.
    @discardableResult
    package static func bareYajl(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20) -> Bool {
        // `validateStrings: false` states what happens either way: YajlParser always turns
        // yajl's string validation off.
        let parser = YajlParser(bareMultipleValues: true, validateStrings: false)
        var i = 0
        while i < bytes.count {
            let end = min(i + chunkSize, bytes.count)
            if parser.parse(UnsafeRawBufferPointer(rebasing: bytes[i..<end])) != .ok { return false }
            i = end
        }
        return parser.complete() == .ok
    }

    /// The structural pre-scan alone (UTF-8, whitespace, string boundaries, line feeds).
    @discardableResult
    package static func scanOnly(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20) -> Bool {
        var scanner = StructuralScanner()
        var i = 0
        while i < bytes.count {
            let end = min(i + chunkSize, bytes.count)
            do { try scanner.scan(UnsafeRawBufferPointer(rebasing: bytes[i..<end]), base: i) } catch { return false }
            scanner.newlines.removeAll(keepingCapacity: true)
            i = end
        }
        return true
    }

    /// The JSON layer (scanner, yajl, depth, duplicate names) with no document building.
    package static func syntaxOnly(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20, options: ParseOptions = .default) throws(JSONAPIError) {
        let receiver = JSONEventReceiver(options: options)
        let parser = JSONStreamParser(outlet: receiver, options: options)
        try forEachChunk(of: bytes, size: chunkSize) { (chunk) throws(JSONAPIError) in try parser.feed(chunk) }
        try parser.finish()
    }
}
