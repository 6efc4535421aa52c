import CTesseraAV
import FoundationEssentials

/// One opened input file: owns its `AVFormatContext` and knows its best video stream.
///
/// Not thread-safe: each worker opens its own, because a demuxer has one read position.
final class MediaInput {
    let av: TesseraAV
    let path: String
    let context: UnsafeMutablePointer<AVFormatContext>
    let videoStreamIndex: Int32

    /// Opens `path` and reads enough to know its streams. Throws a `VideoError` that says whether
    /// the file is missing, not a video at all, cut short, or holds no video stream.
    ///
    /// `fullProbe` false skips ffmpeg's stream analysis when the container header already gives
    /// codec, size and rate: that analysis decodes frames (a 1080p decode per open, paid again by
    /// every strip worker) to learn details such as the pixel aspect from the H.264 headers, which
    /// a worker gets from the `VideoAsset` instead.
    init(path: String, fullProbe: Bool = true) throws(VideoError) {
        let av = try LibAV.table()
        try Self.checkReadable(path)
        // Mapped, not read: only the pages of the box headers visited are loaded. Only on a full
        // probe: strip workers (`fullProbe` false) reopen a file a probe has already checked.
        // Every file, not only those that start with 'ftyp': libavformat takes a file for MP4 by
        // the boxes it finds anywhere near its start (a fuzzed 'ftys' box, then 'moov' and 'moof',
        // opened as MP4). Another container is one box cut at the file's end, walked at once.
        if fullProbe, let file = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped),
            let reason = ContainerDiagnosis.implausibleSampleTable(file)
        {
            throw .corrupt(reason: reason)
        }
        var opened: UnsafeMutablePointer<AVFormatContext>?
        let openStatus = av.avformat_open_input(&opened, path, nil, nil)
        guard openStatus >= 0, let context = opened else {
            throw ContainerDiagnosis.failure(path: path, code: openStatus)
        }
        // Every stored property is set only once nothing can fail, so deinit never sees half a state.
        var best = av.av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        var infoStatus: Int32 = 0
        if fullProbe || best < 0 || !Self.isDescribed(context.pointee.streams[Int(best)]!) {
            infoStatus = av.avformat_find_stream_info(context, nil)
            best = av.av_find_best_stream(context, AVMEDIA_TYPE_VIDEO, -1, -1, nil, 0)
        }
        guard best >= 0 else {
            av.avformat_close_input(&opened)
            if infoStatus < 0 { throw ContainerDiagnosis.failure(path: path, code: infoStatus) }
            throw .noVideoStream
        }
        self.av = av
        self.path = path
        self.context = context
        videoStreamIndex = best
    }

    deinit {
        var pointer: UnsafeMutablePointer<AVFormatContext>? = context
        av.avformat_close_input(&pointer)
    }

    var videoStream: UnsafeMutablePointer<AVStream> { context.pointee.streams[Int(videoStreamIndex)]! }

    var streams: [UnsafeMutablePointer<AVStream>] {
        (0..<Int(context.pointee.nb_streams)).map { context.pointee.streams[$0]! }
    }

    /// Tells the demuxer to skip every packet outside the video stream, so reads cost nothing for them.
    func discardAllButVideo() {
        for (index, stream) in streams.enumerated() where index != Int(videoStreamIndex) {
            stream.pointee.discard = AVDISCARD_ALL
        }
    }

    private static func isDescribed(_ stream: UnsafeMutablePointer<AVStream>) -> Bool {
        let parameters = stream.pointee.codecpar.pointee
        let rate = stream.pointee.avg_frame_rate
        return parameters.codec_id != AV_CODEC_ID_NONE && parameters.width > 0 && parameters.height > 0
            && rate.num > 0 && rate.den > 0
    }

    private static func checkReadable(_ path: String) throws(VideoError) {
        var isDirectory = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .notFound
        }
        guard !isDirectory else { throw .unreadable(reason: "is a directory") }
        guard FileManager.default.isReadableFile(atPath: path) else { throw .unreadable(reason: "permission denied") }
    }
}
