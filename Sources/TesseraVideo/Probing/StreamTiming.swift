import CTesseraAV

/// Converts the video stream's ticks to seconds from its first frame, and reads its index.
struct StreamTiming: Sendable {
    let timeBase: AVRational
    /// Tick of the first frame's presentation time.
    let startTick: Int64
    private let streamDuration: Int64
    private let containerDuration: Int64
    /// Frames per second, as the container states or ffmpeg guesses it.
    let frameRate: Double

    /// - Parameter startTick: the first frame's tick when already known from a full probe
    ///   (`VideoAsset.firstFrameTick`); otherwise the stream's start time as opened.
    init(input: MediaInput, startTick knownStart: Int64? = nil) {
        let stream = input.videoStream.pointee
        timeBase = stream.time_base
        startTick = knownStart ?? (stream.start_time == LibAV.noTimestamp ? 0 : stream.start_time)
        streamDuration = stream.duration
        containerDuration = input.context.pointee.duration
        let rate = input.av.av_guess_frame_rate(input.context, input.videoStream, nil)
        frameRate = rate.value
    }

    /// Seconds from the first frame for a presentation timestamp in stream ticks. In floating
    /// point: a file's ticks may be anything, and their difference can overflow 64 bits (found by
    /// FuzzVideo).
    func seconds(_ tick: Int64) -> Double { (Double(tick) - Double(startTick)) * timeBase.value }

    /// Stream ticks for a time in seconds from the first frame, rounded to the nearest tick, and
    /// held within 64 bits (a hostile time base makes any time a huge number of ticks).
    func tick(_ seconds: Double) -> Int64 {
        Self.clamped(Double(startTick) + (seconds / timeBase.value).rounded())
    }

    /// `value` as an Int64, saturating at the ends of its range; 0 for NaN.
    static func clamped(_ value: Double) -> Int64 {
        guard !value.isNaN else { return 0 }
        // 2⁶³ as a Double; every Double below it converts exactly.
        if value >= 9_223_372_036_854_775_808.0 { return .max }
        if value <= -9_223_372_036_854_775_808.0 { return .min }
        return Int64(value)
    }

    /// The stream's duration in seconds; falls back to the container's, then to frames ÷ rate.
    func duration(frameCountHint: Int?) -> Double {
        if streamDuration != LibAV.noTimestamp, streamDuration > 0 { return Double(streamDuration) * timeBase.value }
        if containerDuration != LibAV.noTimestamp, containerDuration > 0 {
            return max(0, Double(containerDuration) / 1_000_000 - Double(startTick) * timeBase.value)
        }
        if let frames = frameCountHint, frameRate > 0 { return Double(frames) / frameRate }
        return 0
    }

    /// The presentation times of the keyframes in the container's index, ascending, in seconds.
    ///
    /// MP4 indexes by decode time, which runs ahead of presentation time by the B-frame delay; the
    /// first entry is the first frame shown, so its gap to the stream's start corrects them all.
    ///
    /// The frame count is what the container states, or the length of an MP4 index, which lists
    /// every frame (a fragmented file states no count); an index of cues, as in Matroska, lists
    /// only some, so its length counts nothing.
    /// `complete` says whether the index lists every keyframe (MP4, AVI) or only some (Matroska's
    /// cues) or none (MPEG-TS).
    func keyframeIndex(input: MediaInput) -> (keyframeTimes: [Double], frameCount: Int?, complete: Bool) {
        let av = input.av
        let stream = input.videoStream
        let count = Int(av.avformat_index_get_entries_count(stream))
        let format = String(cString: input.context.pointee.iformat.pointee.name)
        let indexesEveryFrame = format.hasPrefix("mov,") || format == "avi"
        let stated = stream.pointee.nb_frames > 0 ? Int(stream.pointee.nb_frames) : indexesEveryFrame && count > 0 ? count : nil
        guard count > 0, let first = av.avformat_index_get_entry(stream, 0) else { return ([], stated, false) }
        let decodeDelay = Double(startTick) - Double(first.pointee.timestamp)
        var times: [Double] = []
        for index in 0..<count {
            guard let entry = av.avformat_index_get_entry(stream, Int32(index)),
                entry.pointee.flags & AVINDEX_KEYFRAME != 0
            else { continue }
            times.append((Double(entry.pointee.timestamp) + decodeDelay - Double(startTick)) * timeBase.value)
        }
        return (times.sorted(), stated, indexesEveryFrame)
    }
}
