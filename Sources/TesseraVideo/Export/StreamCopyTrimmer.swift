import CTesseraAV
import TesseraCore

/// Cuts without decoding: packets are copied from the keyframe at or before the start.
///
/// The clip is a prefix of the stream's decode order from that keyframe, ended at the first
/// video packet shown at or after the end. Any frame kept can therefore be decoded: frames that
/// would refer forward to a dropped one are dropped too, so the clip may end a frame or two
/// early rather than with a damaged last frame.
struct StreamCopyTrimmer {
    let input: MediaInput
    let asset: VideoAsset
    private let tolerance = MediaTime.tolerance

    func trim(
        _ range: Range<Double>, output path: String, context: WorkContext, progress: WorkProgress?
    ) throws(VideoError) -> TrimResult {
        let av = input.av
        let container = try OutputContainer(destination: path, av: av)
        var mapping = StreamMapping(input: input)
        let videoIndex = input.videoStreamIndex
        try mapping.addCopiedStream(videoIndex, to: container)
        if let audio = mapping.audioIndex { try mapping.addCopiedStream(audio, to: container) }

        let timing = StreamTiming(input: input)
        let (seekTime, keyframe) = try input.keyframe(atOrBefore: range.lowerBound, asset: asset, timing: timing)
        try input.seekVideo(toKeyframeBefore: seekTime, timing: timing)
        try container.writeHeader()

        guard let packet = av.av_packet_alloc() else { throw .exportFailed(reason: "out of memory") }
        defer { var owned: UnsafeMutablePointer<AVPacket>? = packet; av.av_packet_free(&owned) }
        var origin: Int64?
        var start = range.lowerBound
        var end = range.lowerBound
        var videoDone = false
        progress?.totalUnitCount = ClipExporter.progressUnits
        while av.av_read_frame(input.context, packet) >= 0 {
            defer { av.av_packet_unref(packet) }
            if context.isCancelled { throw .cancelled }
            let index = packet.pointee.stream_index
            guard packet.pointee.pts != LibAV.noTimestamp else { continue }
            let time = mapping.seconds(packet.pointee.pts, stream: index)
            if index == videoIndex {
                ClipExporter.report(time, in: range, to: progress)
                if videoDone { continue }
                if origin == nil {
                    // A clip must open on a keyframe, the one chosen: anything before cannot be decoded.
                    guard packet.pointee.flags & AV_PKT_FLAG_KEY != 0, time >= keyframe - tolerance else { continue }
                    origin = packet.pointee.pts
                    start = time
                    end = time
                }
                if time < start - tolerance { continue }
                if time >= range.upperBound - tolerance { videoDone = true; continue }
                let duration = packet.pointee.duration > 0 ? mapping.duration(packet.pointee.duration, stream: index) : asset.frameDuration
                end = max(end, time + duration)
            } else {
                guard origin != nil, time >= start - tolerance else { continue }
                if time >= range.upperBound - tolerance {
                    if videoDone { break }
                    continue
                }
            }
            try mapping.write(packet, stream: index, origin: origin!, to: container)
        }
        guard origin != nil else { throw .decodeFailed(reason: "no keyframe at or before \(range.lowerBound) s") }
        try container.finish()
        return TrimResult(requestedStart: range.lowerBound, requestedEnd: range.upperBound, start: start, end: end)
    }
}
