import FoundationEssentials
import TesseraCodecs
import TesseraCore

/// Encodes and writes tiles while the builder goes on decoding: each tile goes to a thread of the
/// ``WorkExecutor`` that is idle at the time (at most `jobs` at once), or is encoded on the
/// builder's own thread when none is, so memory stays bounded however fast rows arrive and a
/// build never waits in the queue behind other work. Files go to a ``TileSink``: a directory or an
/// object store.
final class TileWriter: @unchecked Sendable {
    // @unchecked: the counters and the failure are only touched under `lock`.
    private let sink: any TileSink
    private let encoding: EncodingFormat
    /// Embedded in every tile: the profile the tiles' pixels are in (nil: sRGB).
    private let iccProfile: ICCProfile?
    private let jobs: Int
    private let executor: WorkExecutor
    private let lock = ConditionLock()
    private var inFlight = 0
    private var failure: (any Error)?
    private var tiles = 0
    private var bytes = 0

    init(sink: any TileSink, encoding: EncodingFormat, iccProfile: ICCProfile? = nil, jobs: Int, executor: WorkExecutor = .shared) {
        self.sink = sink
        self.encoding = encoding
        self.iccProfile = iccProfile
        self.jobs = max(1, jobs)
        self.executor = executor
    }

    /// Tile files written so far.
    var tileCount: Int { lock.withLock { tiles } }
    /// Bytes of tile files written so far.
    var byteCount: Int { lock.withLock { bytes } }

    /// Encodes `pixels` once and writes it at every path in `paths`, on another thread if one is idle.
    func submit(_ pixels: PixelBuffer, paths: [String]) {
        let reserved = lock.withLock { () -> Bool in
            guard inFlight < jobs else { return false }
            inFlight += 1
            return true
        }
        if reserved {
            let handedOff = executor.runIfIdle { [self] in
                write(pixels, paths: paths)
                lock.withLock {
                    inFlight -= 1
                    lock.broadcast()
                }
            }
            if handedOff { return }
            lock.withLock { inFlight -= 1 }
        }
        write(pixels, paths: paths)
    }

    /// Waits for every tile handed off; throws the first failure.
    func finish() throws {
        let firstFailure = lock.withLock { () -> (any Error)? in
            while inFlight > 0 { lock.wait() }
            return failure
        }
        if let firstFailure { throw firstFailure }
    }

    private func write(_ pixels: PixelBuffer, paths: [String]) {
        do {
            let data = try ImageEncoder.encode(pixels, as: encoding, iccProfile: iccProfile)
            for path in paths { try sink.store(data, at: path) }
            lock.withLock {
                tiles += paths.count
                bytes += data.count * paths.count
            }
        } catch {
            lock.withLock { if failure == nil { failure = error } }
        }
    }
}
