import Foundation
import TesseraCore

/// Makes frame strips: N frames across a video, each decoded only as far as needed and scaled
/// while decoding, on a bounded number of decoders, with finished strips kept in a small cache.
///
/// Decoding runs on at most `maximumDecoders` threads in total, however many strips are asked
/// for at once; each strip splits its slots into contiguous runs of about equal decoding work, one
/// per decoder, so a decoder walks forward through the file instead of seeking back and forth.
public actor FrameStripGenerator {
    public static let shared = FrameStripGenerator()

    private let maximumDecoders: Int
    private let maximumStripBytes: Int
    private var cache: FrameStripCache
    private var decodersInUse = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    /// Strips decoded rather than served from the cache.
    private(set) var stripsDecoded = 0

    /// - Parameters:
    ///   - maximumDecoders: decoder threads across all strips; defaults to the active core count.
    ///   - cacheByteLimit: decoded bytes of finished strips kept for repeated requests.
    ///   - maximumStripBytes: decoded bytes one strip may take (frames × width × height × 4);
    ///     larger requests fail up front instead of growing without bound.
    public init(
        maximumDecoders: Int = ProcessInfo.processInfo.activeProcessorCount, cacheByteLimit: Int = 64 << 20,
        maximumStripBytes: Int = 1 << 30
    ) {
        self.maximumDecoders = max(1, maximumDecoders)
        self.maximumStripBytes = maximumStripBytes
        cache = FrameStripCache(byteLimit: cacheByteLimit)
    }

    /// The strip for the video at `path`. Throws only when the video cannot be opened or no slot
    /// at all could be decoded; single failed slots are reported in `FrameStrip.failures`.
    public func strip(path: String, request: FrameStripRequest) async throws(VideoError) -> FrameStrip {
        try await strip(path: path, asset: nil, request: request)
    }

    /// The strip for a video already probed, which saves probing it again.
    public func strip(asset: VideoAsset, request: FrameStripRequest) async throws(VideoError) -> FrameStrip {
        try await strip(path: asset.path, asset: asset, request: request)
    }

    private func strip(path: String, asset probed: VideoAsset?, request: FrameStripRequest) async throws(VideoError) -> FrameStrip {
        guard request.frameCount > 0 else { throw .decodeFailed(reason: "a strip needs at least one frame") }
        let identity = try FileIdentity(path: path)
        if let cached = cache.strip(for: identity, request: request) { return cached }
        let asset: VideoAsset
        if let probed { asset = probed } else { asset = try await VideoAsset.load(path: path) }
        let slots = FrameSlot.slots(duration: asset.duration, count: request.frameCount)
        let frameSize = request.sizing.frameSize(display: asset.displaySize)
        let (bytes, overflow) = frameSize.byteCount(in: .rgba8).multipliedReportingOverflow(by: request.frameCount)
        guard !overflow, bytes <= maximumStripBytes else {
            throw .stripTooLarge(bytes: overflow ? .max : bytes, limit: maximumStripBytes)
        }

        let runs = FramePick.decodingCosts(slots, asset: asset, mode: request.mode).balancedRuns(slots, count: maximumDecoders)
        let workers = runs.count
        await acquire(workers)
        let threads = max(1, maximumDecoders / workers)
        let results = await withTaskGroup(of: [Int: Result<(time: Double, image: PixelBuffer), VideoError>].self) { group in
            for run in runs {
                group.addTask { await Self.decode(run, path: path, asset: asset, frameSize: frameSize, mode: request.mode, threads: threads) }
            }
            var merged: [Int: Result<(time: Double, image: PixelBuffer), VideoError>] = [:]
            for await partial in group { merged.merge(partial) { first, _ in first } }
            return merged
        }
        release(workers)
        stripsDecoded += 1

        let strip = try Self.assemble(slots: slots, results: results, asset: asset, request: request, frameSize: frameSize)
        cache.insert(strip, for: identity)
        return strip
    }

    private static func decode(
        _ run: [FrameSlot], path: String, asset: VideoAsset, frameSize: PixelSize, mode: FrameSamplingMode, threads: Int
    ) async -> [Int: Result<(time: Double, image: PixelBuffer), VideoError>] {
        // libav blocks for the whole run: keep it off the cooperative pool's few threads.
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var results: [Int: Result<(time: Double, image: PixelBuffer), VideoError>] = [:]
                do {
                    let sampler = try FrameSampler(path: path, asset: asset, frameSize: frameSize, mode: mode, threads: threads)
                    for slot in run {
                        do throws(VideoError) { results[slot.index] = .success(try sampler.sample(slot)) }
                        catch { results[slot.index] = .failure(error) }
                    }
                } catch let error as VideoError {
                    for slot in run { results[slot.index] = .failure(error) }
                } catch {
                    for slot in run { results[slot.index] = .failure(.decodeFailed(reason: "\(error)")) }
                }
                continuation.resume(returning: results)
            }
        }
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

    private func acquire(_ decoders: Int) async {
        while decodersInUse + decoders > maximumDecoders {
            await withCheckedContinuation { waiting.append($0) }
        }
        decodersInUse += decoders
    }

    private func release(_ decoders: Int) {
        decodersInUse -= decoders
        let resumed = waiting
        waiting.removeAll()
        for continuation in resumed { continuation.resume() }
    }
}
