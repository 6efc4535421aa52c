import CTesseraAV
public import TesseraCore

/// What a video file holds, read from its container without decoding a frame.
///
/// All times are in seconds from the video stream's first frame (a stream that starts at 1.4 s,
/// as MPEG-TS streams do, still reports its first frame at 0).
public struct VideoAsset: Sendable, Hashable {
    /// The file the facts were read from.
    public let path: String
    /// Length of the video stream, in seconds: the last frame's time plus its duration.
    public let duration: Double
    /// Frames per second (the container's average or nominal rate).
    public let frameRate: Double
    /// Stored frame size, in pixels, before rotation and pixel-aspect correction.
    public let storedSize: PixelSize
    /// Width ÷ height of one stored pixel (1 for square pixels).
    public let sampleAspectRatio: Double
    /// Quarter turns clockwise, 0–3, that show the video upright (from the display matrix).
    public let clockwiseQuarterTurns: Int
    /// The codec's short name ("h264", "hevc", "vp9", ...).
    public let codec: String
    /// Whether the container has an audio stream (a trim keeps the first one, copied).
    public let hasAudio: Bool
    /// Times of the video stream's keyframes, ascending, from the container's index: all of them in
    /// MP4 and AVI, those with cues in Matroska, none in MPEG-TS or raw streams, which are then
    /// found by reading the stream.
    public let keyframeTimes: [Double]
    /// Number of video frames, as the container states it; nil when it does not (Matroska, MPEG-TS).
    public let frameCount: Int?
    /// The first frame's presentation time in video-stream ticks: the zero of every time above.
    /// Only a full probe finds it where the container does not state it (a fragmented MP4 with
    /// B-frames shows its first frame after a delay), so lighter openings of the file take it from here.
    var firstFrameTick: Int64 = 0
    /// Whether `keyframeTimes` lists every keyframe (MP4, AVI) rather than some (Matroska's cues)
    /// or none (MPEG-TS).
    var keyframeIndexIsComplete = true

    /// Upright display size, in pixels: pixel aspect applied, then the rotation.
    public var displaySize: PixelSize {
        let width = max(1, Int((Double(storedSize.width) * sampleAspectRatio).rounded()))
        let upright = PixelSize(width: width, height: storedSize.height)
        return clockwiseQuarterTurns % 2 == 1 ? upright.transposed : upright
    }

    /// The last indexed keyframe at or before `time` seconds; nil without an index.
    public func keyframe(atOrBefore time: Double) -> Double? {
        keyframeTimes.last { $0 <= time + MediaTime.tolerance }
    }

    /// Duration of one frame, in seconds.
    public var frameDuration: Double { frameRate > 0 ? 1 / frameRate : 0 }

    /// Probes the file at `path`: container header and index only.
    public static func load(path: String) async throws(VideoError) -> VideoAsset {
        try probe(MediaInput(path: path))
    }

    static func probe(_ input: MediaInput) throws(VideoError) -> VideoAsset {
        let av = input.av
        let stream = input.videoStream
        let parameters = stream.pointee.codecpar.pointee
        guard parameters.width > 0, parameters.height > 0 else { throw .corrupt(reason: "the video stream has no frame size") }
        let timing = StreamTiming(input: input)
        let index = timing.keyframeIndex(input: input)
        try checkIndexFitsFile(input: input)
        let duration = timing.duration(frameCountHint: index.frameCount)
        guard duration > 0, index.frameCount != 0 else { throw .empty }
        let sar = parameters.sample_aspect_ratio
        let hasAudio = input.streams.contains { $0.pointee.codecpar.pointee.codec_type == AVMEDIA_TYPE_AUDIO }
        return VideoAsset(
            path: input.path,
            duration: duration,
            frameRate: timing.frameRate,
            storedSize: PixelSize(width: Int(parameters.width), height: Int(parameters.height)),
            sampleAspectRatio: sar.num > 0 && sar.den > 0 ? sar.value : 1,
            clockwiseQuarterTurns: displayQuarterTurns(av: av, stream: stream),
            codec: av.avcodec_get_name(parameters.codec_id).map { String(cString: $0) } ?? "unknown",
            hasAudio: hasAudio,
            keyframeTimes: index.keyframeTimes,
            frameCount: index.frameCount,
            firstFrameTick: timing.startTick,
            keyframeIndexIsComplete: index.complete
        )
    }

    /// The display matrix stores a counter-clockwise angle; an upright picture needs the opposite.
    private static func displayQuarterTurns(av: TesseraAV, stream: UnsafeMutablePointer<AVStream>) -> Int {
        var size = 0
        guard let matrix = av.av_stream_get_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, &size), size >= 36 else { return 0 }
        let counterClockwise = matrix.withMemoryRebound(to: Int32.self, capacity: 9) { av.av_display_rotation_get($0) }
        guard counterClockwise.isFinite else { return 0 }
        let quarterTurns = Int((-counterClockwise / 90).rounded())
        return ((quarterTurns % 4) + 4) % 4
    }

    /// An index entry that points past the end of the file means the tail is missing: the frames
    /// there would fail one by one, so say so up front.
    private static func checkIndexFitsFile(input: MediaInput) throws(VideoError) {
        let av = input.av
        let stream = input.videoStream
        let count = av.avformat_index_get_entries_count(stream)
        // The size from stat: FileManager's attribute is a UInt without Foundation in the process (as
        // in `tessera`), and a cast to Int64 that holds under Foundation left the check undone there.
        guard count > 0, let last = av.avformat_index_get_entry(stream, count - 1),
            let size = FileIdentity(path: input.path).map({ Int64($0.byteCount) })
        else { return }
        let (end, overflow) = last.pointee.pos.addingReportingOverflow(Int64(last.pointee.size))
        if last.pointee.pos >= 0, overflow || end > size {
            throw .truncated(reason: "frames up to byte \(end) are indexed, the file has \(size)")
        }
    }
}
