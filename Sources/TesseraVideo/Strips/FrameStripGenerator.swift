public import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Makes frame strips: N frames across a video, each decoded only as far as needed and scaled
/// while decoding, on the `WorkExecutor`, with finished strips kept in a small cache.
///
/// Each strip splits its slots into contiguous runs of about equal decoding work, one per executor
/// thread, so a decoder walks forward through the file instead of seeking back and forth; the
/// executor bounds the decoders running at once, however many strips are asked for.
public actor FrameStripGenerator {
    /// The generator for the process: runs on `WorkExecutor.shared`, keeps 64 MiB of finished strips,
    /// and refuses strips of over 1 GiB of decoded frames.
    public static let shared = FrameStripGenerator()

    private let executor: WorkExecutor
    private let maximumStripBytes: Int
    /// Finished strips by file identity and request, least recently used dropped first.
    private var cache: LRUCache<FrameStripKey, FrameStrip>
    /// Strips decoded rather than served from the cache.
    private(set) var stripsDecoded = 0

    /// - Parameters:
    ///   - executor: where decoding runs; a strip uses up to its thread count of decoders.
    ///   - cacheByteLimit: decoded bytes of finished strips kept for repeated requests.
    ///   - maximumStripBytes: decoded bytes one strip may take (frames × width × height × 4);
    ///     larger requests fail up front instead of growing without bound.
    public init(executor: WorkExecutor = .shared, cacheByteLimit: Int = 64 << 20, maximumStripBytes: Int = 1 << 30) {
        self.executor = executor
        self.maximumStripBytes = maximumStripBytes
        cache = LRUCache(costLimit: cacheByteLimit)
    }

    /// The strip for the video at `path`. Throws only when the video cannot be opened or no slot
    /// at all could be decoded; single failed slots are reported in `FrameStrip.failures`.
    /// `progress` counts frames decoded.
    ///
    /// Cancelling the task stops every decoder at its next frame and throws `CancellationError`.
    /// - Throws: ``VideoError``, `CancellationError`, or `WorkQueueFullError`.
    public func strip(
        path: String, request: FrameStripRequest, progress: WorkProgress? = nil, priority: WorkPriority = .normal
    ) async throws -> FrameStrip {
        try await strip(path: path, asset: nil, request: request, progress: progress, priority: priority)
    }

    /// The strip for a video already probed, which saves probing it again.
    public func strip(
        asset: VideoAsset, request: FrameStripRequest, progress: WorkProgress? = nil, priority: WorkPriority = .normal
    ) async throws -> FrameStrip {
        try await strip(path: asset.path, asset: asset, request: request, progress: progress, priority: priority)
    }

    private func strip(
        path: String, asset probed: VideoAsset?, request: FrameStripRequest, progress: WorkProgress?, priority: WorkPriority
    ) async throws -> FrameStrip {
        guard request.frameCount > 0 else { throw VideoError.decodeFailed(reason: "a strip needs at least one frame") }
        guard let identity = FileIdentity(path: path) else {
            throw VideoError.unreadable(reason: access(path, F_OK) == 0 ? "not a regular file" : String(cString: strerror(errno)))
        }
        if let cached = cache.value(for: FrameStripKey(file: identity, request: request)) { return cached }
        let asset: VideoAsset
        if let probed { asset = probed } else { asset = try await VideoAsset.load(path: path) }
        let slots = FrameSlot.slots(duration: asset.duration, count: request.frameCount)
        let frameSize = request.sizing.frameSize(display: asset.displaySize)
        let (bytes, overflow) = frameSize.byteCount(in: .rgba8).multipliedReportingOverflow(by: request.frameCount)
        guard !overflow, bytes <= maximumStripBytes else {
            throw VideoError.stripTooLarge(bytes: overflow ? .max : bytes, limit: maximumStripBytes)
        }

        let decoders = executor.threadCount
        let runs = FramePick.decodingCosts(slots, asset: asset, mode: request.mode).balancedRuns(slots, count: decoders)
        let threads = max(1, decoders / runs.count)
        progress?.totalUnitCount = slots.count
        let executor = self.executor
        let results = try await withThrowingTaskGroup(of: [Int: Result<(time: Double, image: PixelBuffer), VideoError>].self) { group in
            for run in runs {
                group.addTask {
                    try await executor.run(priority: priority) { context in
                        Self.decode(
                            run, path: path, asset: asset, frameSize: frameSize, mode: request.mode, threads: threads,
                            context: context, progress: progress)
                    }
                }
            }
            var merged: [Int: Result<(time: Double, image: PixelBuffer), VideoError>] = [:]
            for try await partial in group { merged.merge(partial) { first, _ in first } }
            return merged
        }
        if results.values.contains(where: { if case .failure(.cancelled) = $0 { true } else { false } }) {
            throw CancellationError()
        }
        stripsDecoded += 1

        let strip = try Self.assemble(slots: slots, results: results, asset: asset, request: request, frameSize: frameSize)
        cache.insert(strip, for: FrameStripKey(file: identity, request: request), cost: strip.byteCount)
        return strip
    }

    /// Decodes one run of slots on the calling (executor) thread; a slot reached after cancellation
    /// fails as `.cancelled`.
    private static func decode(
        _ run: [FrameSlot], path: String, asset: VideoAsset, frameSize: PixelSize, mode: FrameSamplingMode, threads: Int,
        context: WorkContext, progress: WorkProgress?
    ) -> [Int: Result<(time: Double, image: PixelBuffer), VideoError>] {
        var results: [Int: Result<(time: Double, image: PixelBuffer), VideoError>] = [:]
        do throws(VideoError) {
            let sampler = try FrameSampler(path: path, asset: asset, frameSize: frameSize, mode: mode, threads: threads)
            for slot in run {
                if context.isCancelled { throw .cancelled }
                do throws(VideoError) { results[slot.index] = .success(try sampler.sample(slot)) } catch { results[slot.index] = .failure(error) }
                progress?.advance()
            }
        } catch {
            for slot in run where results[slot.index] == nil { results[slot.index] = .failure(error) }
        }
        return results
    }

    /// Every slot gets a frame: a failed slot borrows from its nearest decoded neighbour (the
    /// earlier one on a tie), so one bad frame never shifts the others along the strip.
    static func assemble(
        slots: [FrameSlot], results: [Int: Result<(time: Double, image: PixelBuffer), VideoError>],
        asset: VideoAsset, request: FrameStripRequest, frameSize: PixelSize
    ) throws(VideoError) -> FrameStrip {
        var failures: [FrameFailure] = []
        let decoded: [Int: (time: Double, image: PixelBuffer)] = results.compactMapValues { try? $0.get() }
        for slot in slots {
            if case .failure(let error) = results[slot.index] { failures.append(FrameFailure(slot: slot.index, error: error)) }
        }
        guard !decoded.isEmpty else { throw failures.first?.error ?? .decodeFailed(reason: "no frame decoded") }
        let frames = slots.map { slot -> StripFrame in
            if let own = decoded[slot.index] { return StripFrame(slot: slot, time: own.time, image: own.image, filledFrom: nil) }
            let donor = (1..<slots.count).lazy.flatMap { [slot.index - $0, slot.index + $0] }.first { decoded[$0] != nil }!
            let borrowed = decoded[donor]!
            return StripFrame(slot: slot, time: borrowed.time, image: borrowed.image, filledFrom: donor)
        }
        return FrameStrip(asset: asset, request: request, frames: frames, failures: failures, frameSize: frameSize)
    }
}
