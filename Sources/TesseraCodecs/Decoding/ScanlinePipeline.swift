import Foundation
import TesseraCore

/// Runs a ``ScanlineReader`` on a thread of its own, a few chunks of rows ahead of the consumer, so
/// that decoding (entropy decoding, inflating) overlaps with what is done to the rows (shrinking,
/// tiling). Only `chunkCount` chunks exist at once, so memory stays proportional to the width.
final class ScanlinePipeline: @unchecked Sendable {
    // @unchecked: chunks are handed back and forth under `condition`; at any moment exactly one
    // thread touches a given chunk, and only the producer touches the reader.
    private let reader: any ScanlineReader
    private let rowBytes: Int
    let rowsPerChunk: Int
    private let chunks: [UnsafeMutablePointer<UInt8>]
    private var rowCounts: [Int]
    private var failure: ImageDecodingError?
    private let condition = NSCondition()
    private var producedChunks = 0
    private var consumedChunks = 0

    /// Bytes of row buffers this pipeline holds.
    var bufferByteCount: Int { chunks.count * rowsPerChunk * rowBytes }

    init(_ reader: any ScanlineReader, chunkCount: Int = 3, chunkBytes: Int = 1 << 20) {
        self.reader = reader
        rowBytes = reader.outputSize.width * reader.outputFormat.bytesPerPixel
        let rowsPerChunk = max(1, min(64, chunkBytes / max(rowBytes, 1)))
        let chunkCapacity = rowBytes * rowsPerChunk
        self.rowsPerChunk = rowsPerChunk
        chunks = (0..<chunkCount).map { _ in .allocate(capacity: chunkCapacity) }
        rowCounts = [Int](repeating: 0, count: chunkCount)
    }

    deinit { chunks.forEach { $0.deallocate() } }

    /// Calls `body` with each decoded row, in order, on the calling thread. Throws the decoder's
    /// error after the rows that preceded it.
    func forEachRow(_ body: (UnsafeBufferPointer<UInt8>) -> Void) throws(ImageDecodingError) {
        let thread = Thread { [self] in produce() }
        thread.name = "tessera.decode"
        thread.start()
        while true {
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
        condition.lock()
        let failure = self.failure
        condition.unlock()
        if let failure { throw failure }
    }

    private func produce() {
        var remaining = reader.outputSize.height
        while true {
            condition.lock()
            while producedChunks - consumedChunks == chunks.count { condition.wait() }
            let index = producedChunks % chunks.count
            condition.unlock()
            var count = 0
            var error: ImageDecodingError?
            if remaining > 0 {
                do throws(ImageDecodingError) {
                    count = try reader.readRows(into: chunks[index], maximumRows: min(rowsPerChunk, remaining))
                    if count == 0 { error = .truncated(reason: "the decoder stopped \(remaining) rows early") }
                } catch let thrown {
                    error = thrown
                }
            }
            remaining -= count
            condition.lock()
            rowCounts[index] = count
            if let error { failure = error }
            producedChunks += 1
            condition.signal()
            condition.unlock()
            if count == 0 { return }
        }
    }
}
