import CTesseraAV
import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A muxer writing to a hidden temporary file beside the destination, moved into place only by
/// `finish()`: a failed or interrupted export leaves nothing behind under the destination's name.
final class OutputContainer {
    let av: TesseraAV
    let context: UnsafeMutablePointer<AVFormatContext>
    let destination: String
    private let temporary: String
    private var opened = false
    private var finished = false

    init(destination: String, av: TesseraAV) throws(VideoError) {
        self.av = av
        self.destination = destination
        let url = URL(fileURLWithPath: destination)
        temporary =
            url.deletingLastPathComponent()
            .appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).partial").path
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        // The container follows the destination's extension, not the temporary name's.
        let status = av.avformat_alloc_output_context2(&allocated, nil, nil, destination)
        guard status >= 0, let allocated else {
            throw .exportFailed(reason: "no container for '\(url.pathExtension)' files (use .mp4, .mov or .mkv)")
        }
        context = allocated
    }

    deinit {
        if opened { _ = av.avio_closep(&context.pointee.pb) }
        av.avformat_free_context(context)
        if !finished { try? FileManager.default.removeItem(atPath: temporary) }
    }

    /// Fails up front, saying why, when this kind of file cannot hold `codec` (H.264 in WebM, say),
    /// rather than at the header with libav's "Invalid argument". `advice` ends the message.
    func checkCanHold(_ codec: AVCodecID, advice: String) throws(VideoError) {
        // 1: it can; 0: it cannot; negative: the muxer does not say, so let the header decide.
        guard av.avformat_query_codec(context.pointee.oformat, codec, FF_COMPLIANCE_NORMAL) == 0 else { return }
        let name = av.avcodec_get_name(codec).map { String(cString: $0) } ?? "this"
        let kind = URL(fileURLWithPath: destination).pathExtension
        throw .exportFailed(reason: ".\(kind) files cannot hold \(name) (\(advice))")
    }

    /// Whether encoders must put codec headers in their extradata rather than in the stream.
    var wantsGlobalHeader: Bool { context.pointee.oformat.pointee.flags & AVFMT_GLOBALHEADER != 0 }

    func addStream() throws(VideoError) -> UnsafeMutablePointer<AVStream> {
        guard let stream = av.avformat_new_stream(context, nil) else { throw .exportFailed(reason: "out of memory") }
        return stream
    }

    /// Copies the display matrix, so a rotated video stays rotated.
    func copyDisplayMatrix(from source: UnsafeMutablePointer<AVStream>, to stream: UnsafeMutablePointer<AVStream>) {
        var size = 0
        guard let matrix = av.av_stream_get_side_data(source, AV_PKT_DATA_DISPLAYMATRIX, &size), size > 0,
            let copy = av.av_stream_new_side_data(stream, AV_PKT_DATA_DISPLAYMATRIX, size)
        else { return }
        copy.update(from: matrix, count: size)
    }

    func writeHeader() throws(VideoError) {
        let status = av.avio_open(&context.pointee.pb, temporary, AVIO_FLAG_WRITE)
        guard status >= 0 else { throw .exportFailed(reason: "cannot write next to \(destination): \(LibAV.message(status))") }
        opened = true
        let header = av.avformat_write_header(context, nil)
        guard header >= 0 else {
            let kind = URL(fileURLWithPath: destination).pathExtension
            throw .exportFailed(reason: "a .\(kind) file cannot be written with these streams (\(LibAV.message(header))); use .mp4, .mov or .mkv")
        }
    }

    /// Writes `packet` (timestamps already in `stream`'s time base) and takes its data.
    func write(_ packet: UnsafeMutablePointer<AVPacket>) throws(VideoError) {
        let status = av.av_interleaved_write_frame(context, packet)
        guard status >= 0 else { throw .exportFailed(reason: "writing: \(LibAV.message(status))") }
    }

    /// Completes the file and moves it over the destination.
    func finish() throws(VideoError) {
        let trailer = av.av_write_trailer(context)
        _ = av.avio_closep(&context.pointee.pb)
        opened = false
        guard trailer >= 0 else { throw .exportFailed(reason: "container trailer: \(LibAV.message(trailer))") }
        guard rename(temporary, destination) == 0 else {
            throw .exportFailed(reason: "cannot move into place: \(String(cString: strerror(errno)))")
        }
        finished = true
    }
}
