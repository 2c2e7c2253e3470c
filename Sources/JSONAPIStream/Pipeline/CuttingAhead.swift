/// A large document cut by elements ahead of a ``ParallelReader``'s decision, so that a
/// worker reads its first ranges while the reader is still looking for a document's end in
/// the first ``ParallelReader/decisionBytes`` (the input is then one large document, or
/// not), rather than after it: on the eighth VM kind a worker starts about 0.2 ms into a
/// 15.7 MB graph rather than 0.7 ms (one core's idle time a run 1.21 → 1.00 ms).
///
/// The reader cuts ahead only an input of known size, at least the decision's bytes, whose
/// bytes stay where they are (the batches view them): the only input, read from its first
/// byte, on workers that may read ranges of elements (``ParallelReader/speculate(on:in:)``).
/// The batches cut go to the workers as far as the window has room, never waiting for a
/// delivery (which would read on the caller's stream: no way back). When a document ends in
/// the first bytes, everything cut is dropped with the workers that read it (``drop()``):
/// they are started anew, as a worker's parser that met an error in a dropped range would
/// give it again, and nothing read was delivered. Otherwise the batcher that cut ahead is the
/// one the decision takes (``adopt(didCutRange:)``): it has read what was gathered, cut as it
/// would have.
final class CuttingAhead {
    /// The batcher that reads the input if it is one large document.
    let batcher: ElementBatcher
    private let delivery: BatchDelivery
    /// Batches cut and not yet handed over (the window was full), in input order.
    private var waiting: [ParallelBatch] = []
    /// Ranges cut, told to the reader's ``ParallelReader/didCutRange`` once the input is known
    /// to be cut so.
    private var cuts: [(bytes: Int, atArrayEnd: Bool)] = []

    /// Starts the workers, for ranges of elements, and a batcher for an input named `name`.
    init(batchBytes: Int, continuationBytes: Int, inputNamed name: String?, delivery: BatchDelivery) {
        batcher = ElementBatcher(batchBytes: batchBytes, continuationBytes: continuationBytes)
        batcher.beginInput(named: name)
        self.delivery = delivery
        delivery.startWorkers(perWorker: 2, batchBytes: batchBytes)
    }

    /// Keeps a batch the batcher handed over (``ParallelReader/handOver(_:)``).
    func keep(_ batch: ParallelBatch) { waiting.append(batch) }

    /// Keeps a range's cut for ``ParallelReader/didCutRange``.
    func keepCut(_ bytes: Int, atArrayEnd: Bool) { cuts.append((bytes, atArrayEnd)) }

    /// Cuts `bytes` (just gathered by `reader`), and hands over the batches cut as far as the
    /// window has room; `handedRange` is called after each range handed over.
    func feed(_ bytes: UnsafeRawBufferPointer, in place: ChunkPlace, to reader: ParallelReader, handedRange: () -> Void) throws(JSONAPIError) {
        try batcher.feed(bytes, in: place, to: reader)
        while let b = waiting.first, delivery.hasRoom(for: b) {
            waiting.removeFirst()
            if b.onCaller {
                try delivery.keep(b)
            } else {
                try delivery.dispatch(b)
                handedRange()
            }
        }
    }

    /// The input is one large document: tells `didCutRange` the ranges cut so far and returns
    /// the batches not handed over yet, which the reader hands over now, in order.
    func adopt(didCutRange: ((_ bytes: Int, _ atArrayEnd: Bool) -> Void)?) -> [ParallelBatch] {
        for (bytes, atArrayEnd) in cuts { didCutRange?(bytes, atArrayEnd) }
        cuts = []
        defer { waiting = [] }
        return waiting
    }

    /// The input is not one large document: drops what was cut and the workers that read it.
    func drop() {
        waiting = []
        cuts = []
        delivery.retract()
    }
}
