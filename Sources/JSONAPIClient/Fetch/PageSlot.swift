import Foundation
import JSONAPIStream

/// The consumer of a fetch, with the counters progress reports need. Used on the request
/// sender's queue only.
final class ConsumerBox: @unchecked Sendable {
    let consumer: any DocumentConsumer
    let progress: (@Sendable (FetchProgress) -> Void)?
    private let start = DispatchTime.now().uptimeNanoseconds
    private(set) var pages = 0
    private(set) var bytes = 0

    init(_ consumer: any DocumentConsumer, progress: (@Sendable (FetchProgress) -> Void)?) {
        self.consumer = consumer
        self.progress = progress
    }

    func begin(_ name: String, headers: [String: String]) throws(JSONAPIError) {
        try consumer.beginDocument(named: name, headers: headers)
    }

    @inline(__always)
    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        try consumer.feed(chunk)
        bytes &+= chunk.count
        if let progress { progress(snapshot) }
    }

    func end() throws(JSONAPIError) -> DocumentTopLevel? {
        let top = try consumer.endDocument()
        pages += 1
        if let progress { progress(snapshot) }
        return top
    }

    var snapshot: FetchProgress {
        FetchProgress(
            pages: pages, resources: consumer.resourcesRead, bytes: bytes,
            seconds: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
    }
}

/// Where one page's body goes: into a ``PageBuffer`` while the page waits for its turn
/// (fetched ahead), straight into the consumer once it is attached. Used on the request
/// sender's queue only.
final class PageSlot: @unchecked Sendable {
    let name: String
    private var consumer: ConsumerBox?
    private let buffer = PageBuffer()
    private var begun = false
    /// Whether a byte of this page reached the consumer (a retry is then impossible).
    private(set) var fedConsumer = false
    /// The response's headers (lower-case names), set when its head arrives.
    var headers: [String: String] = [:]

    init(name: String, consumer: ConsumerBox? = nil) {
        self.name = name
        self.consumer = consumer
    }

    /// A new attempt starts: bytes buffered by a failed one are dropped.
    func restart() {
        if !fedConsumer { buffer.removeAll() }
    }

    @inline(__always)
    func receive(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) {
        guard let consumer else {
            try buffer.append(chunk)
            return
        }
        if !begun {
            try consumer.begin(name, headers: headers)
            begun = true
        }
        fedConsumer = true
        try consumer.feed(chunk)
    }

    /// Feeds what was buffered to `consumer`, then streams the rest straight to it.
    func attach(_ consumer: ConsumerBox) throws(JSONAPIError) {
        self.consumer = consumer
        guard buffer.count > 0 else { return }
        try consumer.begin(name, headers: headers)
        begun = true
        fedConsumer = true
        try buffer.drain { (b) throws(JSONAPIError) in try consumer.feed(b) }
    }

    /// Ends the page's document; `nil` when no byte came (an empty body).
    func finish() throws(JSONAPIError) -> DocumentTopLevel?? {
        guard let consumer, begun else { return .none }
        return .some(try consumer.end())
    }
}
