import TesseraCore

/// Runs a ``ScanlineReader`` a few chunks of rows ahead of the consumer, so that decoding (entropy
/// decoding, inflating) overlaps with what is done to the rows (shrinking, tiling). Only
/// `chunkCount` chunks exist at once, so memory stays proportional to the width.
///
/// The decoder runs on a thread of the ``WorkExecutor`` that is idle at the time; when every thread
/// is busy it runs on the consumer's own thread, chunk by chunk, so a pipeline never waits in the
/// queue behind the work that is waiting for it.
final class ScanlinePipeline: @unchecked Sendable {
    // @unchecked: chunks are handed back and forth under `condition`; at any moment exactly one
    // thread touches a given chunk, and only the producer touches the reader.
    private let reader: any ScanlineReader
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
    init(
        _ reader: any ScanlineReader, limits: AllocationLimits, chunkCount: Int = 3, chunkBytes: Int = 1 << 20
    ) throws(ImageDecodingError) {
        self.reader = reader
        let width = reader.outputSize.width, bytesPerPixel = reader.outputFormat.bytesPerPixel
        rowBytes = width * bytesPerPixel
        let rowsPerChunk = max(1, min(64, chunkBytes / max(rowBytes, 1)))
        let chunkCapacity = try limits.byteCount(width: width, rows: rowsPerChunk, bytesPerPixel: bytesPerPixel)
        self.rowsPerChunk = rowsPerChunk
        remainingRows = reader.outputSize.height
        chunks = (0..<chunkCount).map { _ in .allocate(capacity: chunkCapacity) }
        rowCounts = [Int](repeating: 0, count: chunkCount)
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
        condition.lock()
        stopRequested = true
        condition.broadcast()
        while !producerFinished { condition.wait() }
        condition.unlock()
    }

    private func produce() {
        while true {
            condition.lock()
            while producedChunks - consumedChunks == chunks.count && !stopRequested { condition.wait() }
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
            if let error { failure = error }
            producedChunks += 1
            condition.broadcast()
            if count == 0 { producerFinished = true }
            condition.unlock()
            if count == 0 { return }
        }
    }
}
