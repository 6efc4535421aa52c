import CTesseraJXL
import FoundationEssentials
import TesseraCore

/// Decodes an animated JPEG XL's frames one after another through libjxl, which composes each
/// (blending, frames of no duration folded into the next) and turns it upright: every frame is the
/// whole canvas, RGBA. libjxl holds its own canvas and the reference frames the file keeps for
/// later ones; the file is copied into it once.
final class JXLFrameDecoder: AnimationFrameDecoding {
    private let frames: OpaquePointer
    private let durations: [Double]
    let canvasSize: PixelSize
    /// The pixels' profile, applied to each frame when colour is converted to sRGB.
    private let profile: ICCProfile?
    private var frameIndex = 0

    init(_ jxl: JXLDecoder, profile: ICCProfile?, options: DecodeOptions) throws(ImageDecodingError) {
        // libjxl's canvas and the frame handed out.
        try options.limits.check(jxl.size, .rgba8)
        canvasSize = jxl.size
        durations = jxl.frameDurations
        self.profile = options.colorManagement == .convertToSRGB ? profile : nil
        var error = [CChar](repeating: 0, count: 256)
        let opened = jxl.data.withUnsafeBytes { bytes in
            tessera_jxl_frames_open(
                bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), bytes.count, Int32(Libraries.threadCount), &error)
        }
        guard let opened else { throw .corrupt(reason: Self.text(error)) }
        frames = opened
    }

    deinit { tessera_jxl_frames_close(frames) }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func nextFrame() throws(ImageDecodingError) -> AnimationFrame? {
        var error = [CChar](repeating: 0, count: 256)
        var truncated: Int32 = 0
        var status: Int32 = 0
        var pixels = PixelBuffer(width: canvasSize.width, height: canvasSize.height, format: .rgba8) { target in
            status = tessera_jxl_frames_next(frames, target.baseAddress!, target.count, &error, &truncated)
        }
        guard status >= 0 else {
            let reason = "frame \(frameIndex + 1): " + Self.text(error)
            throw truncated != 0 ? .truncated(reason: reason) : .corrupt(reason: reason)
        }
        guard status == 1 else { return nil }
        if let profile { _ = ColorConverter.shared.manage(&pixels, profile: profile, .convertToSRGB) }
        defer { frameIndex += 1 }
        return AnimationFrame(index: frameIndex, pixels: pixels, duration: frameIndex < durations.count ? durations[frameIndex] : 0.1)
    }
}
