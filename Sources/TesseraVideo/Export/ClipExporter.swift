import Foundation

/// What a trim produced, in seconds on the source's timeline.
public struct TrimResult: Sendable, Hashable {
    public let requestedStart: Double
    public let requestedEnd: Double
    /// Where the clip really starts: the keyframe at or before the requested start when copying,
    /// the first frame at or after it when re-encoding.
    public let start: Double
    /// Where the clip really ends (the end of its last frame).
    public let end: Double
    public var duration: Double { end - start }
}

/// Writes part of a video to a new file.
public enum ClipExporter {
    /// How the cut is made.
    public enum Method: Sendable, Hashable {
        /// Packets copied untouched, from the keyframe at or before the start: fast and lossless,
        /// but the clip may start early by up to one keyframe interval.
        case streamCopy
        /// Video re-encoded with libx264 so the clip starts on the first frame at or after the
        /// requested start; audio copied. `crf` is x264's constant rate factor (lower is better).
        case exact(crf: Int = 18, preset: String = "fast")
    }

    /// Writes `start..<end` seconds of the video at `path` to `output`, keeping the first audio
    /// stream. The file appears at `output` only when complete.
    public static func trim(
        path: String, from start: Double, to end: Double, output: String, method: Method = .streamCopy
    ) async throws(VideoError) -> TrimResult {
        let input = try MediaInput(path: path)
        let asset = try VideoAsset.probe(input)
        let tolerance = VideoAsset.timeTolerance
        guard start.isFinite, end.isFinite, start >= 0, end > start, end <= asset.duration + tolerance else {
            throw .rangeOutsideDuration(start: start, end: end, duration: asset.duration)
        }
        let range = start..<min(end, asset.duration)
        switch method {
        case .streamCopy:
            return try StreamCopyTrimmer(input: input, asset: asset).trim(range, output: output)
        case .exact(let crf, let preset):
            return try ReencodingTrimmer(input: input, asset: asset, crf: crf, preset: preset).trim(range, output: output)
        }
    }
}
