import TesseraCore

/// Runs a ``ScanlineReader`` a few chunks of rows ahead of the consumer, so that decoding (entropy
/// decoding, inflating) overlaps with what is done to the rows (shrinking, tiling). Only
/// `chunkCount` chunks exist at once, so memory stays proportional to the width.
///
/// The decoder runs on a thread of the ``WorkExecutor`` that is idle at the time; when every thread
/// is busy it runs on the consumer's own thread, chunk by chunk, so a pipeline never waits in the
/// queue behind the work that is waiting for it.
///
/// Work on decoded rows that does not depend on their order (``RowTransform``: colour conversion)
/// is the consumer's, on each chunk as it arrives, except while the producer has filled every
/// chunk and would otherwise wait: then it transforms rows the consumer has not reached.
final class ScanlinePipeline: @unchecked Sendable {
    // @unchecked: chunks are handed back and forth under `condition`; at any moment exactly one
    // thread touches a given chunk, and only the producer touches the reader. The rows of a chunk
    // under transformation are claimed in disjoint batches under `condition`.
    private let reader: any ScanlineReader
    private let rowTransform: RowTransform?
    /// Rows of each chunk claimed for ``rowTransform``, and rows done.
    private var claimedRows: [Int]
    private var transformedRows: [Int]
    /// Rows transformed per claim: large enough that claiming costs nothing beside the work (for
    /// four 16000-pixel rows, a millisecond of LittleCMS or a sixth of one with tables).
    private let rowsPerClaim = 4
    private let rowBytes: Int
    let rowsPerChunk: Int
    private let chunks: [UnsafeMutablePointer<UInt8>]
    private var rowCounts: [Int]
    private var failure: ImageDecodingError?
    private let condition = ConditionLock()
    private var producedChunks = 0
    private var consumedChunks = 0
    private var remainingRows: Int
    private var stopRequested = false
    private var producerFinished = false

    /// Bytes of row buffers this pipeline holds.
    var bufferByteCount: Int { chunks.count * rowsPerChunk * rowBytes }

    /// - Parameter limits: what one chunk may take; a row wider than they allow fails with
    ///   ``ImageDecodingError/tooLarge(pixels:limit:)`` before anything is allocated.
    /// In-place work on `rows` consecutive decoded rows starting at the pointer, independent of
    /// every other row.
    typealias RowTransform = (UnsafeMutablePointer<UInt8>, _ rows: Int) -> Void

    /// - Parameter lookaheadRows: how many rows the producer may run ahead of the consumer, at
    ///   least (three chunks at least): a consumer that works in bursts (a band of tiles encoded at
    ///   once) gives enough that decoding the next band overlaps with the burst.
    init(
        _ reader: any ScanlineReader, limits: AllocationLimits, lookaheadRows: Int = 0, chunkBytes: Int = 1 << 20,
        rowTransform: RowTransform? = nil
    ) throws(ImageDecodingError) {
        self.reader = reader
        self.rowTransform = rowTransform
        let width = reader.outputSize.width, bytesPerPixel = reader.outputFormat.bytesPerPixel
        rowBytes = width * bytesPerPixel
        let rowsPerChunk = max(1, min(64, chunkBytes / max(rowBytes, 1)))
        let chunkCapacity = try limits.byteCount(width: width, rows: rowsPerChunk, bytesPerPixel: bytesPerPixel)
        self.rowsPerChunk = rowsPerChunk
        remainingRows = reader.outputSize.height
        let chunkCount = max(3, (lookaheadRows + rowsPerChunk - 1) / rowsPerChunk + 1)
        chunks = (0..<chunkCount).map { _ in .allocate(capacity: chunkCapacity) }
        rowCounts = [Int](repeating: 0, count: chunkCount)
        claimedRows = rowCounts
        transformedRows = rowCounts
    }

    deinit { chunks.forEach { $0.deallocate() } }

    /// Calls `body` with each decoded row, in order, on the calling thread. Throws the decoder's
    /// error after the rows that preceded it, and `.cancelled` at the first chunk boundary after
    /// `context` is cancelled.
    func forEachRow(
        context: WorkContext = .uncancellable, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(ImageDecodingError) {
        guard WorkExecutor.shared.runIfIdle({ [self] in produce() }) else {
            return try forEachRowInline(context: context, body)
        }
        defer { stopProducer() }
        while true {
            if context.isCancelled { throw .cancelled }
            condition.lock()
            while producedChunks == consumedChunks { condition.wait() }
            let index = consumedChunks % chunks.count
            let count = rowCounts[index]
            condition.unlock()
            if count == 0 { break }
            transformRemainingRows(of: index, count: count)
            for row in 0..<count {
                body(UnsafeBufferPointer(start: chunks[index] + row * rowBytes, count: rowBytes))
            }
            condition.lock()
            consumedChunks += 1
            condition.signal()
            condition.unlock()
        }
        if let failure = condition.withLock({ failure }) { throw failure }
    }

    /// Decoding and consuming in turn on one thread, through the first chunk.
    private func forEachRowInline(
        context: WorkContext, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(ImageDecodingError) {
        while true {
            if context.isCancelled { throw .cancelled }
            let (count, error) = readChunk(into: chunks[0])
            rowTransform?(chunks[0], count)
            for row in 0..<count {
                body(UnsafeBufferPointer(start: chunks[0] + row * rowBytes, count: rowBytes))
            }
            if let error { throw error }
            if count == 0 { return }
        }
    }

    /// Decodes the next chunk's rows; the error that ended the rows, if any.
    private func readChunk(into chunk: UnsafeMutablePointer<UInt8>) -> (count: Int, error: ImageDecodingError?) {
        guard remainingRows > 0 else { return (0, nil) }
        do throws(ImageDecodingError) {
            let count = try reader.readRows(into: chunk, maximumRows: min(rowsPerChunk, remainingRows))
            remainingRows -= count
            return (count, count == 0 ? .truncated(reason: "the decoder stopped \(remainingRows) rows early") : nil)
        } catch {
            return (0, error)
        }
    }

    /// Asks the producer to stop after its current chunk and waits until it has, so the reader and
    /// the chunks are never touched after the consumer has gone.
    private func stopProducer() {
        condition.stopProducer({ stopRequested = true }, until: { producerFinished })
    }

    private func produce() {
        while true {
            condition.lock()
            while producedChunks - consumedChunks == chunks.count && !stopRequested {
                // Every chunk is full: rather than idle, transform rows the consumer has not reached.
                if !transformUnclaimedRows() { condition.wait() }
            }
            guard !stopRequested else {
                producerFinished = true
                condition.broadcast()
                condition.unlock()
                return
            }
            let index = producedChunks % chunks.count
            condition.unlock()
            let (count, error) = readChunk(into: chunks[index])
            condition.lock()
            rowCounts[index] = count
            claimedRows[index] = 0
            transformedRows[index] = 0
            if let error { failure = error }
            producedChunks += 1
            condition.broadcast()
            if count == 0 { producerFinished = true }
            condition.unlock()
            if count == 0 { return }
        }
    }

    /// Transforms the rows of chunk `index` that nobody has claimed, in batches, then waits for
    /// batches the producer still holds, so every row is done before it is read.
    private func transformRemainingRows(of index: Int, count: Int) {
        guard let rowTransform else { return }
        condition.lock()
        while claimedRows[index] < count { transformBatch(of: index, count: count, rowTransform) }
        while transformedRows[index] < count { condition.wait() }
        condition.unlock()
    }

    /// Claims the next batch of chunk `index`'s `count` rows and transforms it, with `condition`
    /// held on entry and exit and released while it works.
    private func transformBatch(of index: Int, count: Int, _ rowTransform: RowTransform) {
        let start = claimedRows[index]
        let rows = min(rowsPerClaim, count - start)
        claimedRows[index] += rows
        condition.unlock()
        rowTransform(chunks[index] + start * rowBytes, rows)
        condition.lock()
        transformedRows[index] += rows
        condition.broadcast()
    }

    /// The producer's share of ``rowTransform``, with `condition` held (released while it works):
    /// one batch of the newest decoded chunk that has rows unclaimed, furthest from the consumer.
    /// False when there is none. Only when every chunk is full: the decoder is the slower side
    /// whenever the transform is cheap (tables: a 16000×12000 pyramid to tmpfs took 2.16 s with
    /// the consumer converting alone, 2.44 s with the producer doing half of every chunk, 2.63 s
    /// doing all), and when it is not, the producer fills every chunk and then helps.
    private func transformUnclaimedRows() -> Bool {
        guard let rowTransform else { return false }
        for chunk in stride(from: producedChunks - 1, through: consumedChunks, by: -1) {
            let index = chunk % chunks.count
            guard claimedRows[index] < rowCounts[index] else { continue }
            transformBatch(of: index, count: rowCounts[index], rowTransform)
            return true
        }
        return false
    }
}
