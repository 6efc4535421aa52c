public import TesseraCore

/// What a trim produced, in seconds on the source's timeline.
public struct TrimResult: Sendable, Hashable, Codable {
    /// The start asked for, in seconds.
    public let requestedStart: Double
    /// The end asked for, in seconds.
    public let requestedEnd: Double
    /// Where the clip really starts: the keyframe at or before the requested start when copying,
    /// the first frame at or after it when re-encoding.
    public let start: Double
    /// Where the clip really ends (the end of its last frame).
    public let end: Double
    /// The clip's length, in seconds: ``end`` − ``start``.
    public var duration: Double { end - start }

    // The JSON form is what `tessera trim --json` has always printed; it has no requested end, so a
    // decoded result takes the real end for it.
    private enum CodingKeys: String, CodingKey { case requestedStart, start, end, duration }

    /// A result from the times asked for and the times the clip really has, in seconds.
    public init(requestedStart: Double, requestedEnd: Double, start: Double, end: Double) {
        self.requestedStart = requestedStart
        self.requestedEnd = requestedEnd
        self.start = start
        self.end = end
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            requestedStart: try container.decode(Double.self, forKey: .requestedStart),
            requestedEnd: try container.decode(Double.self, forKey: .end),
            start: try container.decode(Double.self, forKey: .start), end: try container.decode(Double.self, forKey: .end))
    }

    /// `requestedStart, start, end, duration`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(requestedStart, forKey: .requestedStart)
        try container.encode(start, forKey: .start)
        try container.encode(end, forKey: .end)
        try container.encode(duration, forKey: .duration)
    }
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
    /// stream, on the `WorkExecutor`; `progress` follows the source time reached. The file appears
    /// at `output` only when complete.
    ///
    /// Cancelling the task stops at the next packet or frame, leaves no file behind, and throws
    /// `CancellationError`.
    /// - Throws: ``VideoError``, `CancellationError`, or `WorkQueueFullError`.
    public static func trim(
        path: String, from start: Double, to end: Double, output: String, method: Method = .streamCopy,
        progress: WorkProgress? = nil, priority: WorkPriority = .normal, executor: WorkExecutor = .shared
    ) async throws -> TrimResult {
        try await executor.run(priority: priority) { context in
            do {
                return try trim(
                    path: path, from: start, to: end, output: output, method: method,
                    context: context, progress: progress)
            } catch VideoError.cancelled {
                throw CancellationError()
            }
        }
    }

    static func trim(
        path: String, from start: Double, to end: Double, output: String, method: Method,
        context: WorkContext, progress: WorkProgress?
    ) throws(VideoError) -> TrimResult {
        let input = try MediaInput(path: path)
        let asset = try VideoAsset.probe(input)
        let tolerance = MediaTime.tolerance
        guard start.isFinite, end.isFinite, start >= 0, end > start, end <= asset.duration + tolerance else {
            throw .rangeOutsideDuration(start: start, end: end, duration: asset.duration)
        }
        let range = start..<min(end, asset.duration)
        switch method {
        case .streamCopy:
            return try StreamCopyTrimmer(input: input, asset: asset)
                .trim(range, output: output, context: context, progress: progress)
        case .exact(let crf, let preset):
            return try ReencodingTrimmer(input: input, asset: asset, crf: crf, preset: preset)
                .trim(range, output: output, context: context, progress: progress)
        }
    }

    /// Progress units of a trim: thousandths of the range.
    static let progressUnits = 1000

    /// Reports the source time a trimmer has reached.
    static func report(_ time: Double, in range: Range<Double>, to progress: WorkProgress?) {
        guard let progress, range.upperBound > range.lowerBound else { return }
        let done = (time - range.lowerBound) / (range.upperBound - range.lowerBound)
        progress.completedUnitCount = Int((min(max(done, 0), 1) * Double(progressUnits)).rounded(.down))
    }
}
