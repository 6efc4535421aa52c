import CTesseraAV
import TesseraCore

/// Seeking to keyframes, including in containers that list none (MPEG-TS, raw streams), where the
/// demuxer can only search timestamps and may land anywhere, past the keyframe wanted included.
extension MediaInput {
    /// Moves the read position to the video keyframe at or before `time` (seconds from the first
    /// frame), as well as the demuxer can find it; callers check where it landed.
    func seekVideo(toKeyframeBefore time: Double, timing: StreamTiming) throws(VideoError) {
        var status: Int32 = -1
        let flags = context.pointee.iformat.pointee.flags
        if time <= 0, flags & (AVFMT_TS_DISCONT | AVFMT_NOTIMESTAMPS) != 0, flags & AVFMT_NO_BYTE_SEEK == 0 {
            // A timestamp search can land past the first keyframe; byte 0 is where the stream starts.
            status = av.av_seek_frame(context, -1, 0, AVSEEK_FLAG_BYTE)
        }
        if status < 0 {
            status = av.av_seek_frame(context, videoStreamIndex, timing.tick(max(0, time)), AVSEEK_FLAG_BACKWARD)
        }
        if status < 0 {
            // A damaged sync-sample table leaves the demuxer no keyframe to land on. The stream's
            // first frame is one, and reading on from it reaches any time, only slower.
            status = av.av_seek_frame(context, videoStreamIndex, timing.tick(0), AVSEEK_FLAG_ANY)
        }
        guard status >= 0 else { throw .corrupt(reason: "cannot seek to \(time) s: the video's sample index is damaged") }
    }

    /// The last video keyframe at or before `time`, and a time to seek to (with `seekVideo`) from
    /// which reading reaches it: from `asset`'s index when it lists one there, else found by reading
    /// packets only, from ever earlier seeks while the first keyframe after the landing lies past
    /// `time` (MPEG-TS, raw streams).
    func keyframe(atOrBefore time: Double, asset: VideoAsset, timing: StreamTiming) throws(VideoError) -> (seekTime: Double, keyframe: Double) {
        if let indexed = asset.keyframe(atOrBefore: time) { return (indexed, indexed) }
        guard let packet = av.av_packet_alloc() else { throw .decodeFailed(reason: "out of memory") }
        defer { var owned: UnsafeMutablePointer<AVPacket>? = packet; av.av_packet_free(&owned) }
        let tolerance = MediaTime.tolerance
        for stepBack in 0..<12 {
            let from = stepBack == 0 ? time : max(0, time - Double(1 << (stepBack - 1)))
            try seekVideo(toKeyframeBefore: from, timing: timing)
            var latest: Double?
            while av.av_read_frame(context, packet) >= 0 {
                defer { av.av_packet_unref(packet) }
                guard packet.pointee.stream_index == videoStreamIndex, packet.pointee.flags & AV_PKT_FLAG_KEY != 0,
                    packet.pointee.pts != LibAV.noTimestamp
                else { continue }
                let keyframe = timing.seconds(packet.pointee.pts)
                if keyframe > time + tolerance { break }
                latest = keyframe
            }
            if let latest { return (from, latest) }
            if from <= 0 { break }
        }
        throw .corrupt(reason: "no keyframe found at or before \(time) s")
    }
}
