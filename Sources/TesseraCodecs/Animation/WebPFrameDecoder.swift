import CWebP
import FoundationEssentials
import TesseraCore

/// Decodes an animated WebP's frames one after another with libwebp's WebPAnimDecoder, which
/// applies WebP's own disposal and blending. The file is mapped, not read; libwebp holds two
/// canvases (the frame being made and the one before it) besides the copy handed out.
final class WebPFrameDecoder: AnimationFrameDecoding {
    private let data: Data
    private let decoder: OpaquePointer
    private let durations: [Double]
    let canvasSize: PixelSize
    /// The file's profile, applied to each frame when colour is converted to sRGB.
    private let profile: ICCProfile?
    private var frameIndex = 0

    init(source: ImageSource, header: WebPHeader, timing: [Double], profile: ICCProfile?, options: DecodeOptions) throws(ImageDecodingError) {
        // libwebp's two canvases and the copy made of each frame.
        try options.limits.check(header.size, .rgba8)
        data = try source.loadData()
        canvasSize = header.size
        durations = timing
        self.profile = options.colorManagement == .convertToSRGB ? profile : nil
        var animationOptions = WebPAnimDecoderOptions()
        guard WebPAnimDecoderOptionsInit(&animationOptions) != 0 else { throw .unsupported(reason: "libwebp version mismatch") }
        animationOptions.color_mode = MODE_RGBA
        animationOptions.use_threads = 0
        // WebPAnimDecoder keeps the pointer to the bytes it is given; `data` outlives it.
        let made = data.withUnsafeBytes { encoded -> OpaquePointer? in
            var webpData = WebPData(bytes: encoded.baseAddress?.assumingMemoryBound(to: UInt8.self), size: encoded.count)
            return WebPAnimDecoderNew(&webpData, &animationOptions)
        }
        guard let made else { throw .corrupt(reason: "libwebp could not parse the animation") }
        decoder = made
    }

    deinit { WebPAnimDecoderDelete(decoder) }

    func nextFrame() throws(ImageDecodingError) -> AnimationFrame? {
        guard WebPAnimDecoderHasMoreFrames(decoder) != 0 else { return nil }
        var canvas: UnsafeMutablePointer<UInt8>?
        var timestamp: Int32 = 0
        guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
            throw frameIndex == 0
                ? .corrupt(reason: "libwebp could not decode the first frame")
                : .corrupt(reason: "libwebp could not decode frame \(frameIndex + 1)")
        }
        var pixels = PixelBuffer(
            width: canvasSize.width, height: canvasSize.height, format: .rgba8,
            bytes: [UInt8](UnsafeBufferPointer(start: canvas, count: canvasSize.byteCount(in: .rgba8))))
        if let profile { _ = ColorConverter.shared.manage(&pixels, profile: profile, .convertToSRGB) }
        defer { frameIndex += 1 }
        return AnimationFrame(index: frameIndex, pixels: pixels, duration: frameIndex < durations.count ? durations[frameIndex] : 0.1)
    }
}
