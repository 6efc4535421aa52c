import CTesseraAV
import FoundationEssentials

/// libx264 through libavcodec, set up to match a source stream: same size, pixel aspect, colour
/// description and time base; frames in other pixel formats are converted to 4:2:0 first.
final class VideoEncoder {
    private let av: TesseraAV
    private let context: UnsafeMutablePointer<AVCodecContext>
    private let packet: UnsafeMutablePointer<AVPacket>
    private var output: UnsafeMutablePointer<AVStream>?
    private var converter: OpaquePointer?
    private var converted: UnsafeMutablePointer<AVFrame>?

    init(source: UnsafeMutablePointer<AVStream>, av: TesseraAV, crf: Int, preset: String, globalHeader: Bool) throws(VideoError) {
        self.av = av
        guard let codec = av.avcodec_find_encoder_by_name("libx264") ?? av.avcodec_find_encoder(AV_CODEC_ID_H264) else {
            throw .unsupportedCodec("no H.264 encoder in this build of libavcodec")
        }
        guard let context = av.avcodec_alloc_context3(codec), let packet = av.av_packet_alloc() else {
            throw .exportFailed(reason: "out of memory")
        }
        self.context = context
        self.packet = packet
        let parameters = source.pointee.codecpar.pointee
        context.pointee.width = parameters.width
        context.pointee.height = parameters.height
        context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
        context.pointee.sample_aspect_ratio = parameters.sample_aspect_ratio
        context.pointee.color_range = parameters.color_range
        context.pointee.colorspace = parameters.color_space
        context.pointee.color_primaries = parameters.color_primaries
        context.pointee.color_trc = parameters.color_trc
        context.pointee.time_base = source.pointee.time_base
        context.pointee.framerate = source.pointee.avg_frame_rate
        context.pointee.thread_count = 0
        if globalHeader { context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER }
        _ = av.av_opt_set(context.pointee.priv_data, "preset", preset, 0)
        _ = av.av_opt_set(context.pointee.priv_data, "crf", String(crf), 0)
        let status = av.avcodec_open2(context, codec, nil)
        guard status >= 0 else { throw .exportFailed(reason: "opening the H.264 encoder: \(LibAV.message(status))") }
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = self.context
        av.avcodec_free_context(&context)
        var packet: UnsafeMutablePointer<AVPacket>? = self.packet
        av.av_packet_free(&packet)
        av.av_frame_free(&converted)
        if let converter { av.sws_freeContext(converter) }
    }

    /// Sets `stream` up to carry this encoder's output.
    func describe(_ stream: UnsafeMutablePointer<AVStream>) throws(VideoError) {
        guard av.avcodec_parameters_from_context(stream.pointee.codecpar, context) >= 0 else { throw .exportFailed(reason: "out of memory") }
        stream.pointee.time_base = context.pointee.time_base
        stream.pointee.sample_aspect_ratio = context.pointee.sample_aspect_ratio
        output = stream
    }

    /// Encodes `frame` (pts in the source time base) and hands each finished packet, already in
    /// the output stream's time base, to `write`. A nil frame flushes the encoder.
    func encode(_ frame: UnsafeMutablePointer<AVFrame>?, write: (UnsafeMutablePointer<AVPacket>) throws(VideoError) -> Void) throws(VideoError) {
        var input = frame
        if let frame, frame.pointee.format != AV_PIX_FMT_YUV420P.rawValue {
            input = try convert(frame)
        }
        input?.pointee.pict_type = AV_PICTURE_TYPE_NONE
        let sent = av.avcodec_send_frame(context, input)
        guard sent >= 0 || (frame == nil && sent == LibAV.endOfFile) else { throw .exportFailed(reason: "encoding: \(LibAV.message(sent))") }
        while true {
            let received = av.avcodec_receive_packet(context, packet)
            if received == LibAV.again || received == LibAV.endOfFile { return }
            guard received >= 0, let output else { throw .exportFailed(reason: "encoding: \(LibAV.message(received))") }
            // x264 leaves durations unset; without them the container drops the last frame's.
            if packet.pointee.duration <= 0, context.pointee.framerate.num > 0 {
                let frameTicks = AVRational(num: context.pointee.framerate.den, den: context.pointee.framerate.num)
                packet.pointee.duration = av.av_rescale_q(1, frameTicks, context.pointee.time_base)
            }
            av.av_packet_rescale_ts(packet, context.pointee.time_base, output.pointee.time_base)
            packet.pointee.stream_index = output.pointee.index
            try write(packet)
        }
    }

    private func convert(_ frame: UnsafeMutablePointer<AVFrame>) throws(VideoError) -> UnsafeMutablePointer<AVFrame> {
        if converted == nil {
            converted = av.av_frame_alloc()
            guard let converted else { throw .exportFailed(reason: "out of memory") }
            converted.pointee.format = AV_PIX_FMT_YUV420P.rawValue
            converted.pointee.width = context.pointee.width
            converted.pointee.height = context.pointee.height
            guard av.av_frame_get_buffer(converted, 0) >= 0 else { throw .exportFailed(reason: "out of memory") }
            converter = av.sws_getContext(
                frame.pointee.width, frame.pointee.height, AVPixelFormat(frame.pointee.format),
                context.pointee.width, context.pointee.height, AV_PIX_FMT_YUV420P,
                SWS_BICUBIC, nil, nil, nil)
        }
        guard let converted, let converter else { throw .exportFailed(reason: "no conversion to 4:2:0") }
        _ = frame.withPlanes { sourcePlanes, sourceStrides in
            converted.withPlanes { targetPlanes, targetStrides in
                av.sws_scale(converter, readOnly(sourcePlanes), sourceStrides, 0, frame.pointee.height, targetPlanes, targetStrides)
            }
        }
        converted.pointee.pts = frame.pointee.pts
        return converted
    }
}
