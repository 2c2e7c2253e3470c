/// The passes `jsonapi bench` and the benchmark harness compare, each over the same bytes.
///
/// ``bareYajl(_:chunkSize:validateStrings:)`` is the floor: yajl itself with callbacks that
/// do nothing (numbers through `yajl_number`, so it does not convert them), fed in the same
/// chunks as the other passes.
public enum BenchmarkPasses {
    /// yajl with no-op callbacks over `bytes`: the floor every other pass is compared with.
    /// Returns false if yajl rejected the input.
    @discardableResult
    public static func bareYajl(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20, validateStrings: Bool = true) -> Bool {
        let parser = YajlParser(bareMultipleValues: true, validateStrings: validateStrings)
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
    public static func scanOnly(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20) -> Bool {
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
    public static func syntaxOnly(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20) throws(JSONAPIError) {
        let receiver = JSONEventReceiver(options: .default)
        let parser = JSONStreamParser(receiver: receiver, options: .default)
        var i = 0
        while i < bytes.count {
            let end = min(i + chunkSize, bytes.count)
            try parser.feed(UnsafeRawBufferPointer(rebasing: bytes[i..<end]))
            i = end
        }
        try parser.finish()
    }

    /// Building a ``Graph``.
    public static func graph(_ bytes: UnsafeRawBufferPointer, chunkSize: Int = 1 << 20, options: DocumentOptions = .default) throws(JSONAPIError) -> Graph {
        let parser = GraphParser(options: options)
        var i = 0
        while i < bytes.count {
            let end = min(i + chunkSize, bytes.count)
            try parser.feed(UnsafeRawBufferPointer(rebasing: bytes[i..<end]))
            i = end
        }
        return try parser.finish()
    }
}
