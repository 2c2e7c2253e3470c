import Foundation
import JSONAPIStream

extension JSONAPIClient {
    /// The resources of `path` (and of the pages after it, as `pages` says) as they arrive
    /// from the network: each resource as its object closes, each document's top level as it
    /// ends, and lenient-mode warnings in order (``JSONAPIStream/ResourceStream/Event``).
    ///
    /// ```swift
    /// for try await article in try client.resourceStream("articles", pages: .all()).resources {
    ///     print(article.identifier)
    /// }
    /// ```
    ///
    /// Memory stays bounded however large the body: when the loop falls behind, the client
    /// stops reading the body (the transfer is paused) until the loop has taken what was
    /// parsed, and the loop never waits for a whole body. Requests go through the client as
    /// ``graph(_:query:pages:options:)``'s do (retries, cache, limits); their failures end
    /// the loop with a ``JSONAPIClientError`` after the resources read before them.
    /// Cancelling the task stops the transfer.
    public func resourceStream(
        _ path: String, query: JSONAPIQuery = JSONAPIQuery(), pages: PageFollowing = .first, options: DocumentOptions? = nil
    ) throws(JSONAPIClientError) -> ClientResourceStream {
        ClientResourceStream(client: self, url: try url(path, query: query), pages: pages, options: options ?? configuration.documentOptions)
    }

    /// ``resourceStream(_:query:pages:options:)`` for a URL.
    public func resourceStream(at url: URL, pages: PageFollowing = .first, options: DocumentOptions? = nil) -> ClientResourceStream {
        ClientResourceStream(client: self, url: url, pages: pages, options: options ?? configuration.documentOptions)
    }

    /// The stream a request's body is read for, when its reading waits for room (set around
    /// the fetch of a ``ClientResourceStream``; child tasks inherit it).
    @TaskLocal static var pacing: StreamBridge?
}

/// The resources of an endpoint read through a ``JSONAPIClient`` as an `AsyncSequence`
/// (``JSONAPIClient/resourceStream(_:query:pages:options:)``). Each iteration makes its own
/// requests.
public struct ClientResourceStream: AsyncSequence, Sendable {
    /// A resource, a document's top level, or a warning.
    public typealias Element = ResourceStream.Event

    let client: JSONAPIClient
    let url: URL
    let pages: PageFollowing
    let options: DocumentOptions

    /// Only the resources.
    public var resources: AsyncCompactMapSequence<ClientResourceStream, StreamedResource> {
        compactMap { event in
            if case .resource(let r) = event { return r }
            return nil
        }
    }

    /// An iterator that starts the requests at its first ``Iterator/next()``.
    public func makeAsyncIterator() -> Iterator {
        Iterator(bridge: StreamBridge(client: client, url: url, pages: pages, options: options))
    }

    /// Reads as ``next()`` is called.
    public struct Iterator: AsyncIteratorProtocol {
        let bridge: StreamBridge

        /// The next event; `nil` after the last.
        public mutating func next() async throws -> ResourceStream.Event? {
            try await bridge.next()
        }
    }
}

/// Between the client's consumer queue (where the body is parsed, as a ``DocumentConsumer``)
/// and the task iterating a ``ClientResourceStream``: parsed events wait here, at most
/// ``room`` of them before the reading of the body waits (``waitForRoom()``, which the
/// request's task awaits between chunks: nothing blocks a thread).
///
/// `@unchecked Sendable`: every mutable member is guarded by `lock`, except `stream` and
/// `collector`, used on the client's consumer queue only (one call at a time).
final class StreamBridge: DocumentConsumer, @unchecked Sendable {
    /// Events parsed and not yet taken after which reading waits.
    static let room = 256

    private let client: JSONAPIClient
    private let url: URL
    private let pages: PageFollowing
    private var stream: DocumentStream!

    private let lock = NSLock()
    // Under `lock`:
    private var events = FIFO<ResourceStream.Event>()
    private var ending: Result<Void, any Error>?
    private var reader: CheckedContinuation<Void, Never>?
    private var roomWaiters: [CheckedContinuation<Void, Never>] = []
    private var task: Task<Void, Never>?
    private var started = false

    init(client: JSONAPIClient, url: URL, pages: PageFollowing, options: DocumentOptions) {
        self.client = client
        self.url = url
        self.pages = pages
        // Parsed on the consumer queue as the chunks come, so that events come during `feed`.
        stream = EventCollector.stream(options: options) { [unowned self] in self.push($0) }
        stream.recordsTopLevel = true
    }

    deinit { lock.withLock { task }?.cancel() }

    // MARK: - The consumer queue

    func beginDocument(named name: String) throws(JSONAPIError) { try stream.beginInput(named: name) }

    func feed(_ chunk: UnsafeRawBufferPointer) throws(JSONAPIError) { try stream.feed(chunk) }

    func endDocument() throws(JSONAPIError) -> DocumentTopLevel? {
        try stream.endInput()
        return stream.lastDocument
    }

    var resourcesRead: Int { stream.resourcesRead }

    private func push(_ event: ResourceStream.Event) {
        let waiting: CheckedContinuation<Void, Never>? = lock.withLock {
            events.append(event)
            defer { reader = nil }
            return reader
        }
        waiting?.resume()
    }

    // MARK: - The request's task

    /// Returns once fewer than ``room`` events wait to be taken.
    func waitForRoom() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let now: Bool = lock.withLock {
                if events.count < Self.room || ending != nil { return true }
                roomWaiters.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    private func end(_ result: Result<Void, any Error>) {
        let (waiting, rooms): (CheckedContinuation<Void, Never>?, [CheckedContinuation<Void, Never>]) = lock.withLock {
            if ending == nil { ending = result }
            defer {
                reader = nil
                roomWaiters = []
            }
            return (reader, roomWaiters)
        }
        waiting?.resume()
        for r in rooms { r.resume() }
    }

    private func start() {
        let t = Task { [client, url, pages, self] in
            do {
                try await JSONAPIClient.$pacing.withValue(self) {
                    _ = try await client.fetch(url, pages: pages, into: self)
                }
                let box = QueueBound(value: self.stream!)
                try await client.transport.consume(url) { () throws(JSONAPIError) in try box.value.finish() }
                end(.success(()))
            } catch {
                end(.failure(error))
            }
        }
        lock.withLock { task = t }
    }

    // MARK: - The iterating task

    func next() async throws -> ResourceStream.Event? {
        let first: Bool = lock.withLock {
            defer { started = true }
            return !started
        }
        if first { start() }
        while true {
            try Task.checkCancellation()
            enum Step {
                case event(ResourceStream.Event, [CheckedContinuation<Void, Never>])
                case ended(Result<Void, any Error>)
                case wait
            }
            let step: Step = lock.withLock {
                if let e = events.take() {
                    // Room again once half of it is free: the reading goes on.
                    var rooms: [CheckedContinuation<Void, Never>] = []
                    if events.count <= Self.room / 2 {
                        rooms = roomWaiters
                        roomWaiters = []
                    }
                    return .event(e, rooms)
                }
                if let ending { return .ended(ending) }
                return .wait
            }
            switch step {
            case .event(let e, let rooms):
                for r in rooms { r.resume() }
                return e
            case .ended(let result):
                lock.withLock { ending = .success(()) }
                try result.get()
                return nil
            case .wait:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                        let now: Bool = lock.withLock {
                            if events.count > 0 || ending != nil { return true }
                            reader = c
                            return false
                        }
                        if now { c.resume() }
                    }
                } onCancel: { [self] in
                    lock.withLock { task }?.cancel()
                    end(.failure(CancellationError()))
                }
            }
        }
    }
}
