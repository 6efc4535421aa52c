import CTesseraAV

/// Decodes the video stream of one `MediaInput`, frame by frame, from wherever it was last sought.
///
/// Owns the codec context, one packet and one frame; the frame returned by `nextFrame` stays
/// valid until the next call. Not thread-safe: one per worker.
final class VideoDecoder {
    let input: MediaInput
    let timing: StreamTiming
    private let av: TesseraAV
    private let codec: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    let frame: UnsafeMutablePointer<AVFrame>
    private var drained = false
    private var sentEndOfStream = false
    /// Frames whose time is before this (seconds) may be skipped when no other frame refers to them.
    var skipNonReferenceBefore: Double = -.infinity
    /// Discards every frame but keyframes without decoding them.
    var keyframesOnly = false
    /// Receives the packets of other streams read on the way (the packet is unreferenced after);
    /// without one they are dropped. Set `MediaInput.discardAllButVideo()` to not read them at all.
    var otherPacketHandler: ((UnsafeMutablePointer<AVPacket>) throws(VideoError) -> Void)?

    /// - Parameter startTick: the first frame's tick, from the asset's full probe, so that a light
    ///   opening of the file counts times from the same zero.
    init(input: MediaInput, threads: Int, startTick: Int64? = nil) throws(VideoError) {
        let av = input.av
        let parameters: UnsafeMutablePointer<AVCodecParameters> = input.videoStream.pointee.codecpar
        guard let decoder = av.avcodec_find_decoder(parameters.pointee.codec_id) else {
            throw .unsupportedCodec(av.avcodec_get_name(parameters.pointee.codec_id).map { String(cString: $0) } ?? "unknown")
        }
        guard let context = av.avcodec_alloc_context3(decoder) else { throw .decodeFailed(reason: "out of memory") }
        var packet = av.av_packet_alloc()
        var frame = av.av_frame_alloc()
        func fail(_ error: VideoError) -> VideoError {
            var optional: UnsafeMutablePointer<AVCodecContext>? = context
            av.avcodec_free_context(&optional)
            av.av_packet_free(&packet)
            av.av_frame_free(&frame)
            return error
        }
        guard let packetPointer = packet, let framePointer = frame else { throw fail(.decodeFailed(reason: "out of memory")) }
        var status = av.avcodec_parameters_to_context(context, parameters)
        context.pointee.thread_count = Int32(max(1, threads))
        context.pointee.pkt_timebase = input.videoStream.pointee.time_base
        if status >= 0 { status = av.avcodec_open2(context, decoder, nil) }
        guard status >= 0 else { throw fail(.unsupportedCodec(LibAV.message(status))) }
        self.input = input
        self.av = av
        self.codec = context
        self.packet = packetPointer
        self.frame = framePointer
        timing = StreamTiming(input: input, startTick: startTick)
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = codec
        av.avcodec_free_context(&context)
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av.av_packet_free(&packet)
        var frame: UnsafeMutablePointer<AVFrame>? = self.frame
        av.av_frame_free(&frame)
    }

    /// Seconds from the first frame for the frame `nextFrame` returned last.
    var frameTime: Double {
        let timestamp = frame.pointee.best_effort_timestamp != LibAV.noTimestamp ? frame.pointee.best_effort_timestamp : frame.pointee.pts
        return timing.seconds(timestamp)
    }

    /// Moves the read position to the keyframe at or before `time` (seconds), as the demuxer finds
    /// it, and drops decoder state. Callers check where it landed: demuxers differ in how exactly
    /// they honour a presentation time.
    func seek(toKeyframeBefore time: Double) throws(VideoError) {
        try input.seekVideo(toKeyframeBefore: time, timing: timing)
        av.avcodec_flush_buffers(codec)
        drained = false
        sentEndOfStream = false
    }

    /// The next frame in presentation order, or nil at the end of the stream.
    ///
    /// With `stopAfterNextKeyframe`, the decoder is told the stream ends right after the next
    /// packet, which makes an H.264 decoder with B-frame delay hand out a keyframe at once instead of
    /// after two or three more frames; a seek is needed before decoding on.
    func nextFrame(stopAfterNextPacket: Bool = false) throws(VideoError) -> UnsafeMutablePointer<AVFrame>? {
        codec.pointee.skip_loop_filter = stopAfterNextPacket ? AVDISCARD_ALL : AVDISCARD_DEFAULT
        while true {
            if drained { return nil }
            let received = av.avcodec_receive_frame(codec, frame)
            if received >= 0 { return frame }
            if received == LibAV.endOfFile { drained = true; return nil }
            guard received == LibAV.again else { throw .decodeFailed(reason: LibAV.message(received)) }
            if sentEndOfStream { drained = true; return nil }
            try sendNextPacket()
            if stopAfterNextPacket { sendEndOfStream() }
        }
    }

    private func sendNextPacket() throws(VideoError) {
        while true {
            let read = av.av_read_frame(input.context, packet)
            if read < 0 {
                // End of file and read errors alike: decode what is buffered, then report the end.
                sendEndOfStream()
                return
            }
            defer { av.av_packet_unref(packet) }
            guard packet.pointee.stream_index == input.videoStreamIndex else {
                try otherPacketHandler?(packet)
                continue
            }
            let time = packet.pointee.pts == LibAV.noTimestamp ? Double.infinity : timing.seconds(packet.pointee.pts)
            codec.pointee.skip_frame = keyframesOnly ? AVDISCARD_NONKEY : time < skipNonReferenceBefore ? AVDISCARD_NONREF : AVDISCARD_DEFAULT
            let sent = av.avcodec_send_packet(codec, packet)
            // A damaged packet costs its own frame, not the stream: keep going with the next.
            if sent >= 0 || sent == LibAV.invalidData { return }
            if sent == LibAV.again { return }
            throw .decodeFailed(reason: LibAV.message(sent))
        }
    }

    private func sendEndOfStream() {
        guard !sentEndOfStream else { return }
        sentEndOfStream = true
        _ = av.avcodec_send_packet(codec, nil)
    }
}
