import TesseraCore

/// Runs an animation's frame decoder up to two frames ahead of the consumer, so decoding and
/// composing the next frame overlaps with what is done to this one (shrinking, encoding).
///
/// The decoder runs on a thread of the ``WorkExecutor`` that is idle at the time; when every
/// thread is busy it runs on the consumer's own thread, frame by frame, as ``ScanlinePipeline``
/// does for rows, so the pipeline never waits in the queue behind the work waiting for it. A frame
/// handed over shares the canvas's storage until the decoder draws the next one, which then copies
/// the canvas: memory is the reader's (``AnimatedImage/workingByteCount``) and two frames more.
final class AnimationFramePipeline: @unchecked Sendable {
    // @unchecked: `reader` is touched only by the producer (or, inline, only by the consumer);
    // everything else only under `condition`.
    private let reader: AnimationFrameReader
    private let condition = ConditionLock()
    private var ready: [AnimationFrame] = []
    private var failure: ImageDecodingError?
    private var producerFinished = false
    private var stopRequested = false
    private let lookahead = 2

    init(_ reader: AnimationFrameReader) { self.reader = reader }

    /// Calls `body` with each frame, in order, on the calling thread. Throws the decoder's error
    /// after the frames before it, `body`'s error at once, and `.cancelled` between frames once
    /// `context` is cancelled.
    func forEachFrame(context: WorkContext, _ body: (AnimationFrame) throws -> Void) throws {
        guard WorkExecutor.shared.runIfIdle({ [self] in produce() }) else {
            while let frame = try reader.next() {
                if context.isCancelled { throw ImageDecodingError.cancelled }
                try body(frame)
            }
            return
        }
        defer { stopProducer() }
        while true {
            if context.isCancelled { throw ImageDecodingError.cancelled }
            condition.lock()
            while ready.isEmpty && !producerFinished { condition.wait() }
            guard !ready.isEmpty else {
                let failure = self.failure
                condition.unlock()
                if let failure { throw failure }
                return
            }
            let frame = ready.removeFirst()
            condition.broadcast()
            condition.unlock()
            try body(frame)
        }
    }

    private func produce() {
        while true {
            condition.lock()
            while ready.count >= lookahead && !stopRequested { condition.wait() }
            let stop = stopRequested
            condition.unlock()
            let next: AnimationFrame?
            var error: ImageDecodingError?
            if stop {
                next = nil
            } else {
                do throws(ImageDecodingError) { next = try reader.next() } catch let caught {
                    next = nil
                    error = caught
                }
            }
            condition.lock()
            if let next { ready.append(next) } else { (producerFinished, failure) = (true, error) }
            condition.broadcast()
            condition.unlock()
            if next == nil { return }
        }
    }

    /// Stops the producer and waits until it has let go of the reader.
    private func stopProducer() {
        condition.stopProducer({ stopRequested = true }, until: { producerFinished })
    }
}
