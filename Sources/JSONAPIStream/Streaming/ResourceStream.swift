/// JSON:API documents read as an `AsyncSequence`: each resource as its object closes, then
/// each document's top level when the document ends.
///
/// ```swift
/// for try await resource in ResourceStream(contentsOf: "articles.json").resources {
///     print(resource.identifier, resource.attributes?["title"] ?? "-")
/// }
/// ```
///
/// The bytes are read and parsed as you iterate, on the iterating task, a chunk at a time
/// (64 KiB by default; one thread: not the two-thread pipeline ``DocumentStream`` may use):
/// a slow consumer reads no further ahead than one chunk, so memory does not grow with the
/// input. Files (gzip and zstd too, as ``InputSource`` reads them), standard input, bytes in
/// memory, or any `AsyncSequence` of bytes (a network body). Cancelling the task ends the
/// iteration with `CancellationError` at the next element. Errors are ``JSONAPIError``s with
/// their positions, as ``DocumentStream`` throws them; under ``ValidationMode/strict`` a rule
/// violation stops the iteration, and in lenient mode it is a ``Event/warning(_:)`` in order.
public struct ResourceStream: AsyncSequence, Sendable {
    /// What the stream gives: a resource as it closes, a document's top level as the
    /// document ends (after its resources), and, in lenient mode, each warning where it was
    /// found (a rule a resource breaks comes before that resource).
    public enum Event: Sendable {
        case resource(StreamedResource)
        case document(StreamedDocument)
        /// A rule broken, or a notice (``ValidationMode/lenient``; under
        /// ``ValidationMode/strict`` the first one is the error that ends the stream).
        case warning(Diagnostic)
    }

    /// A resource or a document's top level.
    public typealias Element = Event

    private enum Input: Sendable {
        case source(InputSource)
        case bytes(@Sendable () -> AsyncByteReader)
    }

    private let input: Input
    private let options: DocumentOptions
    private let chunkSize: Int

    /// The documents of an input source.
    public init(_ source: InputSource, options: DocumentOptions = .default, chunkSize: Int = 1 << 16) {
        input = .source(source)
        self.options = options
        self.chunkSize = InputSource.readSize(chunkSize)
    }

    /// The documents of a file (`-` for standard input).
    public init(contentsOf path: String, options: DocumentOptions = .default, chunkSize: Int = 1 << 16) {
        self.init(InputSource(path: path), options: options, chunkSize: chunkSize)
    }

    /// The documents of an asynchronous sequence of bytes (`URLSession`'s `AsyncBytes`, a
    /// file handle's bytes, your own), read a chunk at a time as the iteration needs them.
    public init<Bytes: AsyncSequence & Sendable>(
        bytes: Bytes, name: String = "bytes", options: DocumentOptions = .default, chunkSize: Int = 1 << 16
    ) where Bytes.Element == UInt8 {
        input = .bytes { AsyncByteReader.Reading(bytes.makeAsyncIterator(), name: name) }
        self.options = options
        self.chunkSize = InputSource.readSize(chunkSize)
    }

    /// Only the resources.
    public var resources: AsyncCompactMapSequence<ResourceStream, StreamedResource> {
        compactMap { event in
            if case .resource(let r) = event { return r }
            return nil
        }
    }

    /// An iterator that reads the input from its start.
    public func makeAsyncIterator() -> Iterator {
        switch input {
        case .source(let s):
            return Iterator(reading: .source(InputPuller(s, chunkSize: chunkSize), s.name), options: options, chunkSize: chunkSize)
        case .bytes(let make):
            return Iterator(reading: .bytes(make()), options: options, chunkSize: chunkSize)
        }
    }

    /// Reads and parses as ``next()`` is called.
    public struct Iterator: AsyncIteratorProtocol {
        private let state: State

        fileprivate init(reading: State.Reading, options: DocumentOptions, chunkSize: Int) {
            state = State(reading: reading, options: options, chunkSize: chunkSize)
        }

        /// The next resource or document; `nil` after the last.
        public mutating func next() async throws -> Event? {
            try await state.next()
        }
    }

    /// The stream being read: the parser, what it has given and not yet been taken, and where
    /// the bytes come from. Used by one iterator, on one task at a time.
    fileprivate final class State {
        enum Reading {
            case source(InputPuller, String)
            case bytes(AsyncByteReader)
        }

        private let reading: Reading
        private var stream: DocumentStream!
        /// What the parser gives, in order, until it is taken.
        private var events = FIFO<Event>()
        /// The error that ended the read, thrown once what was read before it is taken.
        private var failure: (any Error)?
        private var begun = false
        private var done = false
        private var chunk: [UInt8] = []
        private let chunkSize: Int

        init(reading: Reading, options: DocumentOptions, chunkSize: Int) {
            self.reading = reading
            self.chunkSize = chunkSize
            // Parsed on the iterating task, so that events come during `feed`.
            stream = EventCollector.stream(options: options) { [unowned self] in self.events.append($0) }
            // Only a byte sequence is gathered here (a source is read into its puller's
            // buffer), and then as its bytes come: no more than 1 MiB is set aside up front,
            // whatever the read size.
            if case .bytes = reading { chunk.reserveCapacity(Swift.min(chunkSize, 1 << 20)) }
        }

        deinit { if !done { stream.abandon() } }

        func next() async throws -> Event? {
            while true {
                if let e = events.take() { return e }
                if let failure {
                    // Once, after what was read before it.
                    self.failure = nil
                    throw failure
                }
                if done { return nil }
                try Task.checkCancellation()
                do {
                    try await readMore()
                } catch {
                    done = true
                    stream.abandon()
                    failure = error
                }
            }
        }

        /// Feeds the parser one more chunk, or ends the stream at the end of the input.
        private func readMore() async throws {
            switch reading {
            case .source(let puller, let name):
                if !begun {
                    begun = true
                    try stream.beginInput(named: name)
                }
                let more = try puller.step { (b) throws(JSONAPIError) in try stream.feed(b) }
                if !more { try end() }
            case .bytes(let reader):
                if !begun {
                    begun = true
                    try stream.beginInput(named: reader.name)
                }
                chunk.removeAll(keepingCapacity: true)
                let more = try await reader.fill(&chunk, upTo: chunkSize)
                if !chunk.isEmpty { try stream.feed(chunk) }
                if !more { try end() }
            }
        }

        private func end() throws(JSONAPIError) {
            done = true
            try stream.finish()
        }
    }
}

/// Turns what a ``DocumentStream`` reads into ``ResourceStream/Event``s (owned copies), handed
/// to `emit` as they come: the iterator's buffer, or the client's stream of a response body.
package final class EventCollector: StreamSink {
    private let emit: (ResourceStream.Event) -> Void

    init(_ emit: @escaping (ResourceStream.Event) -> Void) { self.emit = emit }

    package func resource(_ resource: ResourceView) throws(JSONAPIError) { emit(.resource(StreamedResource(resource))) }

    package func document(_ document: DocumentView) throws(JSONAPIError) { emit(.document(StreamedDocument(document))) }

    /// A stream whose resources, documents and warnings go to `emit` in order. It reads on the
    /// thread that feeds it (never a second one), so the events come during `feed`.
    package static func stream(options: DocumentOptions, emit: @escaping (ResourceStream.Event) -> Void) -> DocumentStream {
        var o = options
        o.parse.concurrency = .sequential
        let stream = DocumentStream(options: o, sinks: [EventCollector(emit)])
        stream.onDiagnostic = { emit(.warning($0)) }
        return stream
    }
}

/// Bytes from an `AsyncSequence`, a chunk at a time (one dynamic call per chunk, not per
/// byte).
class AsyncByteReader: @unchecked Sendable {
    let name: String

    init(name: String) { self.name = name }

    /// Appends up to `limit` bytes to `chunk`; `false` once the sequence has ended.
    func fill(_ chunk: inout [UInt8], upTo limit: Int) async throws -> Bool { false }

    /// The reader of one sequence's iterator. `@unchecked Sendable`: used by one iterator at
    /// a time, as ``ResourceStream/Iterator`` is.
    final class Reading<I: AsyncIteratorProtocol>: AsyncByteReader, @unchecked Sendable where I.Element == UInt8 {
        private var iterator: I

        init(_ iterator: I, name: String) {
            self.iterator = iterator
            super.init(name: name)
        }

        override func fill(_ chunk: inout [UInt8], upTo limit: Int) async throws -> Bool {
            while chunk.count < limit {
                guard let b = try await iterator.next() else { return false }
                chunk.append(b)
            }
            return true
        }
    }
}

/// A resource read by a ``ResourceStream``: its own copy of what the document gave.
public struct StreamedResource: Sendable, Hashable, CustomStringConvertible {
    /// Its type.
    public var type: String
    /// Its id, when it has one.
    public var id: String?
    /// Its local id, when it has one.
    public var lid: String?
    /// Whether it is primary data (not `included`).
    public var isPrimary: Bool
    /// The number of the document it came from among those read (0 for the first).
    public var documentIndex: Int
    /// Where its object starts in the input.
    public var position: SourcePosition
    /// Its JSON pointer in its document (`/data/0`, `/included/3`).
    public var pointer: String
    /// Its `attributes` (an object; nil when absent).
    public var attributes: JSONValue?
    /// Its relationships, in order.
    public var relationships: [StreamedRelationship]
    /// Its `links`.
    public var links: JSONValue?
    /// Its `meta`.
    public var meta: JSONValue?

    init(_ r: ResourceView) {
        type = r.type
        id = r.id
        lid = r.lid
        isPrimary = r.isPrimary
        documentIndex = r.documentIndex
        position = r.position
        pointer = r.pointer
        attributes = r.attributes
        relationships = r.relationships
        links = r.links
        meta = r.meta
    }

    /// Its identifier.
    public var identifier: ResourceIdentifier { ResourceIdentifier(type: type, id: id, lid: lid) }

    /// The relationship named `name`.
    public func relationship(_ name: String) -> StreamedRelationship? { relationships.first { $0.name == name } }

    /// `articles/1`.
    public var description: String { identifier.description }
}

/// A document's top level as a ``ResourceStream`` gives it, when the document ends.
public struct StreamedDocument: Sendable, Hashable {
    /// Its number among the documents read (0 for the first).
    public var index: Int
    /// Where it starts in its input.
    public var position: SourcePosition
    /// Whether `data` was absent, `null`, one resource or an array.
    public var primaryShape: PrimaryDataShape
    /// Its top-level `meta`.
    public var meta: JSONValue?
    /// Its top-level `links`.
    public var links: JSONValue?
    /// Its `jsonapi` object.
    public var jsonapi: JSONValue?
    /// Its error objects, typed (empty when it has none).
    public var errors: [ErrorObject]
    /// Its unknown and `@`-members, in order.
    public var otherMembers: JSONObject

    /// Its Atomic Operations request (`atomic:operations`, in ``otherMembers``) as typed
    /// operations, in order, as ``Graph/atomicOperations`` gives them; empty without one.
    /// (The resources of an `atomic:results` response come as resource events.)
    public var atomicOperations: [AtomicOperation] {
        otherMembers["atomic:operations"]?.arrayValue?.compactMap(AtomicOperation.init) ?? []
    }

    init(_ d: DocumentView) {
        index = d.index
        position = d.position
        primaryShape = d.primaryShape
        meta = d.meta
        links = d.links
        jsonapi = d.jsonapi
        errors = d.errors.map(ErrorObject.list) ?? []
        var others = JSONObject()
        for m in d.otherMembers { others[m.name] = m.value }
        otherMembers = others
    }
}
