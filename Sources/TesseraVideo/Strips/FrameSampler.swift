import CTesseraAV
import TesseraCore

/// Picks and scales the frame for each slot it is given, in time order, on one decoder.
///
/// Consecutive slots share work: when the next target lies ahead in the same group of pictures,
/// decoding simply goes on instead of seeking back to the keyframe.
final class FrameSampler {
    private static let tolerance = MediaTime.tolerance

    private let decoder: VideoDecoder
    private let scaler: FrameScaler
    private let asset: VideoAsset
    private let storedSize: PixelSize
    private let orientation: Orientation
    private let mode: FrameSamplingMode
    /// A copy (by reference) of the last frame passed over, for a target beyond the last frame.
    private let previous: UnsafeMutablePointer<AVFrame>
    /// Time of the frame the decoder returned last; nil when the next read needs a seek.
    private var position: Double?
    /// The keyframe decoded last, for slots that share it.
    private var lastKeyframe: (key: Double, picture: (time: Double, image: PixelBuffer))?

    init(path: String, asset: VideoAsset, frameSize: PixelSize, mode: FrameSamplingMode, threads: Int) throws(VideoError) {
        let input = try MediaInput(path: path, fullProbe: false)
        input.discardAllButVideo()
        decoder = try VideoDecoder(input: input, threads: threads, startTick: asset.firstFrameTick)
        guard let previous = input.av.av_frame_alloc() else { throw .decodeFailed(reason: "out of memory") }
        self.previous = previous
        scaler = FrameScaler(av: input.av)
        self.asset = asset
        self.mode = mode
        orientation = [Orientation.up, .right, .down, .left][asset.clockwiseQuarterTurns]
        storedSize = orientation.swapsDimensions ? frameSize.transposed : frameSize
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = previous
        decoder.input.av.av_frame_free(&frame)
    }

    /// The frame for `slot`: its presentation time in seconds and its upright picture.
    func sample(_ slot: FrameSlot) throws(VideoError) -> (time: Double, image: PixelBuffer) {
        do {
            switch FramePick(slot: slot, asset: asset, mode: mode) {
            case .keyframe(let key): return try keyframeFrame(key)
            case .firstFrame(let target): return try firstFrame(atOrAfter: target)
            case .nearestKeyframe(let time): return try nearestKeyframe(to: time)
            }
        } catch {
            position = nil
            throw error
        }
    }

    /// The keyframe at `key` seconds, decoded alone; if the demuxer lands elsewhere, decoding
    /// forward to it instead.
    private func keyframeFrame(_ key: Double) throws(VideoError) -> (time: Double, image: PixelBuffer) {
        if let lastKeyframe, lastKeyframe.key == key { return lastKeyframe.picture }
        let picture = try decodeKeyframe(key)
        lastKeyframe = (key, picture)
        return picture
    }

    private func decodeKeyframe(_ key: Double) throws(VideoError) -> (time: Double, image: PixelBuffer) {
        try decoder.seek(toKeyframeBefore: key)
        position = nil
        decoder.skipNonReferenceBefore = -.infinity
        if let frame = try decoder.nextFrame(stopAfterNextPacket: true), abs(decoder.frameTime - key) <= Self.tolerance {
            return try capture(frame, time: decoder.frameTime)
        }
        return try firstFrame(atOrAfter: key)
    }

    /// The keyframe nearest `time` where the container lists only some keyframes or none, found
    /// with every other frame discarded undecoded: seek to `time` (or, while that lands past it, ever earlier), then
    /// walk keyframe by keyframe to the last one at or before `time` and the first one after it.
    private func nearestKeyframe(to time: Double) throws(VideoError) -> (time: Double, image: PixelBuffer) {
        position = nil
        decoder.keyframesOnly = true
        defer { decoder.keyframesOnly = false }
        let av = decoder.input.av
        // Some decoders (VP9) decode every frame whatever they are told: pass over those.
        func nextKeyframe() throws(VideoError) -> (frame: UnsafeMutablePointer<AVFrame>, time: Double)? {
            while let frame = try decoder.nextFrame() {
                if frame.pointee.key_frame != 0 { return (frame, decoder.frameTime) }
            }
            return nil
        }
        for stepBack in 0..<8 {
            let from = stepBack == 0 ? time : max(0, time - Double(1 << stepBack))
            try decoder.seek(toKeyframeBefore: from)
            guard let first = try nextKeyframe() else { continue }
            if first.time > time + Self.tolerance, from > 0 { continue }
            var before: Double?
            var next: (frame: UnsafeMutablePointer<AVFrame>, time: Double)? = first
            while let current = next, current.time <= time + Self.tolerance {
                av.av_frame_unref(previous)
                av.av_frame_move_ref(previous, current.frame)
                before = current.time
                next = try nextKeyframe()
            }
            switch (before, next) {
            case (let before?, let after?) where after.time - time < time - before - Self.tolerance:
                return try capture(after.frame, time: after.time)
            case (let before?, _): return try capture(previous, time: before)
            case (nil, let after?): return try capture(after.frame, time: after.time)
            case (nil, nil): continue
            }
        }
        throw .decodeFailed(reason: "no keyframe found near \(time) s")
    }

    /// `stepBack` counts how often a seek already landed past the target; each retry starts one
    /// keyframe (or, without an index, twice as many seconds) earlier.
    private func firstFrame(atOrAfter target: Double, stepBack: Int = 0) throws(VideoError) -> (time: Double, image: PixelBuffer) {
        let keyframes = asset.keyframeTimes
        let keyIndex = keyframes.lastIndex { $0 <= target + Self.tolerance }
        let key = keyIndex.flatMap { $0 - stepBack >= 0 ? keyframes[$0 - stepBack] : nil }
        let canContinue =
            stepBack == 0
            && position.map {
                $0 < target - Self.tolerance && (key ?? -.infinity) <= $0 + Self.tolerance
            } ?? false
        var afterSeek = false
        if !canContinue {
            try decoder.seek(toKeyframeBefore: key ?? (stepBack == 0 ? target : max(0, target - Double(1 << stepBack))))
            afterSeek = true
        }
        // Frames before the target are never shown, so those nothing refers to need not be decoded;
        // the last frame stays decodable because a target past it falls back to it.
        let lastFrameTime = asset.duration - 1.5 * asset.frameDuration
        decoder.skipNonReferenceBefore = min(target, lastFrameTime) - Self.tolerance
        decoder.input.av.av_frame_unref(previous)
        var havePrevious = false
        while let frame = try decoder.nextFrame() {
            let time = decoder.frameTime
            position = time
            if afterSeek, time > target + Self.tolerance, target > 0, stepBack < 8 {
                // The demuxer landed past the target (an index in decode time, or none at all).
                return try firstFrame(atOrAfter: target, stepBack: stepBack + 1)
            }
            afterSeek = false
            if time >= target - Self.tolerance { return try capture(frame, time: time) }
            // move_ref overwrites without releasing: the frame held before must be let go first.
            decoder.input.av.av_frame_unref(previous)
            decoder.input.av.av_frame_move_ref(previous, frame)
            havePrevious = true
        }
        position = nil
        if afterSeek, target > 0, stepBack < 8 {
            // Nothing decodable followed the seek: it landed past the last keyframe before the end.
            return try firstFrame(atOrAfter: target, stepBack: stepBack + 1)
        }
        guard havePrevious else { throw .decodeFailed(reason: "no frame at or after \(target) s") }
        return try capture(previous, time: decoder.timing.seconds(previous.pointee.best_effort_timestamp))
    }

    private func capture(_ frame: UnsafeMutablePointer<AVFrame>, time: Double) throws(VideoError) -> (time: Double, image: PixelBuffer) {
        let stored = try scaler.scale(frame, to: storedSize)
        return (time, orientation.apply(to: stored))
    }
}
