import CTesseraAV

/// Which input streams go to the output (the video and the first audio stream), and how a packet
/// of each is moved onto the clip's timeline: shifted so the clip's origin is 0, then converted
/// to the output stream's time base.
struct StreamMapping {
    let av: TesseraAV
    let input: MediaInput
    let audioIndex: Int32?
    private(set) var outputs: [Int32: UnsafeMutablePointer<AVStream>] = [:]

    init(input: MediaInput) {
        av = input.av
        self.input = input
        let audio = input.av.av_find_best_stream(input.context, AVMEDIA_TYPE_AUDIO, -1, input.videoStreamIndex, nil, 0)
        audioIndex = audio >= 0 ? audio : nil
        for (index, stream) in input.streams.enumerated() where Int32(index) != input.videoStreamIndex && Int32(index) != audioIndex {
            stream.pointee.discard = AVDISCARD_ALL
        }
    }

    /// Adds an output stream copying the input stream `index`'s codec parameters as they are.
    mutating func addCopiedStream(_ index: Int32, to container: OutputContainer) throws(VideoError) {
        let source = input.streams[Int(index)]
        try container.checkCanHold(source.pointee.codecpar.pointee.codec_id, advice: "copied streams keep their codec; .mkv holds any")
        let stream = try container.addStream()
        guard av.avcodec_parameters_copy(stream.pointee.codecpar, source.pointee.codecpar) >= 0 else {
            throw .exportFailed(reason: "out of memory")
        }
        // The source container's codec tag may mean nothing in the output's; let the muxer choose.
        stream.pointee.codecpar.pointee.codec_tag = 0
        stream.pointee.time_base = source.pointee.time_base
        stream.pointee.sample_aspect_ratio = source.pointee.sample_aspect_ratio
        if index == input.videoStreamIndex { container.copyDisplayMatrix(from: source, to: stream) }
        outputs[index] = stream
    }

    mutating func setOutput(_ stream: UnsafeMutablePointer<AVStream>, for index: Int32) { outputs[index] = stream }

    /// Seconds on the video stream's timeline (0 at its first frame) for a packet of stream `index`.
    func seconds(_ timestamp: Int64, stream index: Int32) -> Double {
        let video = input.videoStream.pointee
        let start = video.start_time == LibAV.noTimestamp ? 0 : video.start_time
        let inVideoTicks = av.av_rescale_q(timestamp, input.streams[Int(index)].pointee.time_base, video.time_base)
        return (Double(inVideoTicks) - Double(start)) * video.time_base.value
    }

    /// A packet duration of stream `index`, in seconds.
    func duration(_ ticks: Int64, stream index: Int32) -> Double {
        Double(ticks) * input.streams[Int(index)].pointee.time_base.value
    }

    /// Moves `packet` of input stream `index` so `origin` (video ticks) becomes 0 and writes it.
    func write(_ packet: UnsafeMutablePointer<AVPacket>, stream index: Int32, origin: Int64, to container: OutputContainer) throws(VideoError) {
        guard let output = outputs[index] else { return }
        let sourceBase = input.streams[Int(index)].pointee.time_base
        let shift = av.av_rescale_q(origin, input.videoStream.pointee.time_base, sourceBase)
        for timestamp in [\AVPacket.pts, \AVPacket.dts] where packet.pointee[keyPath: timestamp] != LibAV.noTimestamp {
            let (moved, overflow) = packet.pointee[keyPath: timestamp].subtractingReportingOverflow(shift)
            guard !overflow else { throw .corrupt(reason: "a packet's timestamp is out of range") }
            packet.pointee[keyPath: timestamp] = moved
        }
        av.av_packet_rescale_ts(packet, sourceBase, output.pointee.time_base)
        packet.pointee.stream_index = output.pointee.index
        packet.pointee.pos = -1
        try container.write(packet)
    }
}
