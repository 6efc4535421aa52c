import CTesseraAV
import FoundationEssentials
import TesseraCore

/// Cuts on the exact frame: video decoded from the keyframe before the start and re-encoded with
/// libx264 from the first frame at or after it; audio packets copied alongside.
final class ReencodingTrimmer {
    private let input: MediaInput
    private let asset: VideoAsset
    private let av: TesseraAV
    private let crf: Int
    private let preset: String
    private let tolerance = MediaTime.tolerance

    init(input: MediaInput, asset: VideoAsset, crf: Int, preset: String) {
        self.input = input
        self.asset = asset
        av = input.av
        self.crf = crf
        self.preset = preset
    }

    func trim(
        _ range: Range<Double>, output path: String, context: WorkContext, progress: WorkProgress?
    ) throws(VideoError) -> TrimResult {
        let container = try OutputContainer(destination: path, av: av)
        try container.checkCanHold(AV_CODEC_ID_H264, advice: "exact trims are encoded as H.264: use .mp4, .mov or .mkv")
        var mapping = StreamMapping(input: input)
        let encoder = try VideoEncoder(source: input.videoStream, av: av, crf: crf, preset: preset, globalHeader: container.wantsGlobalHeader)
        let videoOut = try container.addStream()
        try encoder.describe(videoOut)
        container.copyDisplayMatrix(from: input.videoStream, to: videoOut)
        mapping.setOutput(videoOut, for: input.videoStreamIndex)
        if let audio = mapping.audioIndex { try mapping.addCopiedStream(audio, to: container) }
        try container.writeHeader()

        let decoder = try VideoDecoder(input: input, threads: activeProcessorCount())
        try decoder.seek(toKeyframeBefore: input.keyframe(atOrBefore: range.lowerBound, asset: asset, timing: decoder.timing).seekTime)
        decoder.skipNonReferenceBefore = range.lowerBound - tolerance

        // Audio read before the first kept frame is known waits here, so both share one origin.
        var origin: Int64?
        var pendingAudio: [UnsafeMutablePointer<AVPacket>] = []
        defer { for packet in pendingAudio { var owned: UnsafeMutablePointer<AVPacket>? = packet; av.av_packet_free(&owned) } }
        let av = self.av
        decoder.otherPacketHandler = { [mapping] packet throws(VideoError) in
            guard packet.pointee.pts != LibAV.noTimestamp else { return }
            let time = mapping.seconds(packet.pointee.pts, stream: packet.pointee.stream_index)
            guard time >= range.lowerBound - self.tolerance, time < range.upperBound - self.tolerance else { return }
            if let origin {
                try mapping.write(packet, stream: packet.pointee.stream_index, origin: origin, to: container)
            } else if let copy = av.av_packet_clone(packet) {
                pendingAudio.append(copy)
            }
        }

        var start: Double?
        var end = range.lowerBound
        progress?.totalUnitCount = ClipExporter.progressUnits
        while let frame = try decoder.nextFrame() {
            if context.isCancelled { throw .cancelled }
            let time = decoder.frameTime
            ClipExporter.report(time, in: range, to: progress)
            if time < range.lowerBound - tolerance { continue }
            if time >= range.upperBound - tolerance { break }
            let timestamp = frame.pointee.best_effort_timestamp
            if origin == nil {
                origin = timestamp
                start = time
                for packet in pendingAudio {
                    try mapping.write(packet, stream: packet.pointee.stream_index, origin: timestamp, to: container)
                }
            }
            let (moved, overflow) = timestamp.subtractingReportingOverflow(origin!)
            guard !overflow else { throw .corrupt(reason: "a frame's timestamp is out of range") }
            frame.pointee.pts = moved
            end = max(end, time + asset.frameDuration)
            try encoder.encode(frame) { packet throws(VideoError) in try container.write(packet) }
        }
        decoder.otherPacketHandler = nil
        guard let start else { throw .decodeFailed(reason: "no frame between \(range.lowerBound) and \(range.upperBound) s") }
        try encoder.encode(nil) { packet throws(VideoError) in try container.write(packet) }
        try container.finish()
        return TrimResult(requestedStart: range.lowerBound, requestedEnd: range.upperBound, start: start, end: end)
    }
}
