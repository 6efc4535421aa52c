import CGIF
import CTesseraQuant
import CWebP
public import FoundationEssentials
public import TesseraCore

/// Writes an animation frame by frame: WebP through libwebpmux's WebPAnimEncoder (which stores
/// only what changed between frames), GIF through giflib with a palette of its own for each frame
/// chosen by libimagequant.
///
/// Frames are added as they are made and not kept: memory is the encoder's canvases (a couple of
/// frames' worth) and the encoded bytes so far.
public final class AnimationEncoder {
    private enum Backend {
        case webp(encoder: OpaquePointer, config: WebPConfig)
        case gif(GIFWriter, dithering: Double)
    }

    /// Every frame's size, in pixels.
    public let size: PixelSize
    /// The format being written: WebP (lossy or lossless) or GIF.
    public let format: EncodingFormat
    private var backend: Backend
    private var timestampMilliseconds = 0
    private var frameCount = 0

    /// - Parameters:
    ///   - size: every frame's size, in pixels.
    ///   - format: ``EncodingFormat/webp(quality:)``, ``EncodingFormat/webpLossless`` or ``EncodingFormat/gif(dithering:)``.
    ///   - loopCount: how many times the animation plays, 0 forever (see ``AnimationTiming/loopCount``).
    public init(size: PixelSize, format: EncodingFormat, loopCount: Int) throws(ImageEncodingError) {
        self.size = size
        self.format = format
        guard loopCount >= 0, loopCount <= 65535 else { throw .invalidParameter("loop count \(loopCount) is not 0–65535") }
        switch format {
        case .webp, .webpLossless:
            guard size.width <= 16383, size.height <= 16383 else { throw .sizeNotSupported(size, format) }
            var options = WebPAnimEncoderOptions()
            guard WebPAnimEncoderOptionsInit(&options) != 0 else { throw .encoderFailed("libwebp version mismatch") }
            options.anim_params.loop_count = Int32(loopCount)
            // No forced key frames (as libvips sets it): each frame is then encoded as the
            // rectangle that changed, once, instead of also whole as a key-frame candidate.
            options.kmin = Int32.max - 1
            options.kmax = Int32.max
            var config = WebPConfig()
            guard WebPConfigInit(&config) != 0 else { throw .encoderFailed("libwebp version mismatch") }
            if case .webp(let quality) = format {
                guard (0...100).contains(quality) else { throw .invalidParameter("WebP quality \(quality) is not 0–100") }
                config.quality = Float(quality)
            } else {
                config.lossless = 1
            }
            guard let encoder = WebPAnimEncoderNew(Int32(size.width), Int32(size.height), &options) else {
                throw .encoderFailed("libwebp could not start an animation of \(size)")
            }
            backend = .webp(encoder: encoder, config: config)
        case .gif(let dithering):
            guard (0...1).contains(dithering) else { throw .invalidParameter("dithering \(dithering) is not 0–1") }
            guard size.width <= 65535, size.height <= 65535 else { throw .sizeNotSupported(size, format) }
            backend = .gif(try GIFWriter(size: size, loopCount: loopCount), dithering: dithering)
        default:
            throw .invalidParameter("\(format.fileExtension) does not hold an animation (use webp or gif)")
        }
    }

    deinit {
        if case .webp(let encoder, _) = backend { WebPAnimEncoderDelete(encoder) }
    }

    /// Adds a frame of ``size`` (any pixel format, sRGB) that shows for `duration` seconds.
    public func add(_ frame: PixelBuffer, duration: Double) throws(ImageEncodingError) {
        guard frame.size == size else { throw .invalidParameter("a frame of \(frame.size) in an animation of \(size)") }
        let rgba = frame.converted(to: .rgba8)
        switch backend {
        case .webp(let encoder, var config):
            var picture = WebPPicture()
            guard WebPPictureInit(&picture) != 0 else { throw .encoderFailed("libwebp version mismatch") }
            picture.use_argb = 1
            picture.width = Int32(size.width)
            picture.height = Int32(size.height)
            defer { WebPPictureFree(&picture) }
            let imported = rgba.bytes.withUnsafeBufferPointer { WebPPictureImportRGBA(&picture, $0.baseAddress, Int32(rgba.bytesPerRow)) }
            guard imported != 0, WebPAnimEncoderAdd(encoder, &picture, Int32(timestampMilliseconds), &config) != 0 else {
                throw .encoderFailed(Self.message(encoder))
            }
        case .gif(let writer, let dithering):
            try writer.add(rgba, centiseconds: Int((duration * 100).rounded()), dithering: dithering)
        }
        timestampMilliseconds += max(0, Int((duration * 1000).rounded()))
        frameCount += 1
    }

    /// The encoded animation.
    public func finish() throws(ImageEncodingError) -> Data {
        guard frameCount > 0 else { throw .invalidParameter("an animation without frames") }
        switch backend {
        case .webp(let encoder, _):
            var assembled = WebPData()
            defer { WebPDataClear(&assembled) }
            guard WebPAnimEncoderAdd(encoder, nil, Int32(timestampMilliseconds), nil) != 0,
                WebPAnimEncoderAssemble(encoder, &assembled) != 0, let bytes = assembled.bytes
            else { throw .encoderFailed(Self.message(encoder)) }
            return Data(bytes: bytes, count: assembled.size)
        case .gif(let writer, _):
            return try writer.finish()
        }
    }

    private static func message(_ encoder: OpaquePointer) -> String {
        WebPAnimEncoderGetError(encoder).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "libwebp could not encode the animation"
    }
}

/// giflib's writer over a growing buffer: GIF89a, the loop extension, and full-canvas frames each
/// with its own colour table.
private final class GIFWriter {
    var output = Data()
    private var gif: UnsafeMutablePointer<GifFileType>?
    private let size: PixelSize

    init(size: PixelSize, loopCount: Int) throws(ImageEncodingError) {
        self.size = size
        var error: Int32 = 0
        guard let gif = EGifOpen(Unmanaged.passUnretained(self).toOpaque(), gifWrite, &error) else {
            throw .encoderFailed("giflib could not start (error \(error))")
        }
        self.gif = gif
        EGifSetGifVersion(gif, true)
        try check(EGifPutScreenDesc(gif, Int32(size.width), Int32(size.height), 8, 0, nil))
        // Browsers play a GIF without the extension once; its count is repetitions after the first play.
        if loopCount != 1 {
            let repetitions = loopCount == 0 ? 0 : loopCount - 1
            try check(EGifPutExtensionLeader(gif, APPLICATION_EXT_FUNC_CODE))
            try check(Array("NETSCAPE2.0".utf8).withUnsafeBufferPointer { EGifPutExtensionBlock(gif, 11, $0.baseAddress) })
            let loop: [UInt8] = [1, UInt8(repetitions & 0xFF), UInt8(repetitions >> 8)]
            try check(loop.withUnsafeBufferPointer { EGifPutExtensionBlock(gif, 3, $0.baseAddress) })
            try check(EGifPutExtensionTrailer(gif))
        }
    }

    deinit {
        if let gif { EGifCloseFile(gif, nil) }
    }

    /// Adds a frame covering the canvas. Alpha becomes GIF's one transparent index (under half
    /// opaque is transparent); a frame with transparency clears itself before the next, so what
    /// shows through it is never an earlier frame.
    func add(_ rgba: PixelBuffer, centiseconds: Int, dithering: Double) throws(ImageEncodingError) {
        guard let gif else { throw .encoderFailed("the GIF is already finished") }
        var binary = rgba
        var hasTransparency = false
        binary.bytes.withUnsafeMutableBufferPointer { bytes in
            for pixel in stride(from: 0, to: bytes.count, by: 4) {
                if bytes[pixel + 3] < 128 {
                    bytes[pixel] = 0; bytes[pixel + 1] = 0; bytes[pixel + 2] = 0; bytes[pixel + 3] = 0
                    hasTransparency = true
                } else {
                    bytes[pixel + 3] = 255
                }
            }
        }
        let quant = try encoderTable(Libraries.imageQuant)
        // Speed 8: a palette per frame at a fifth of the default's time (100 frames of 128 pixels:
        // 1.4 s instead of 6.6), for a difference frames flicking by do not show.
        let (palette, indices) = try PalettePNGEncoder.quantize(binary, dithering: dithering, speed: 8, quant)
        let transparent = palette.firstIndex { $0.a < 128 }
        // GIF's colour tables hold a power of two entries, at least 2.
        var tableSize = 2
        while tableSize < palette.count { tableSize *= 2 }
        var colors = palette.map { GifColorType(Red: $0.r, Green: $0.g, Blue: $0.b) }
        colors += Array(repeating: GifColorType(Red: 0, Green: 0, Blue: 0), count: tableSize - palette.count)
        let delay = min(max(centiseconds, 0), 65535)
        let disposal: UInt8 = hasTransparency ? 2 : 1
        let control: [UInt8] = [
            disposal << 2 | (transparent != nil ? 1 : 0), UInt8(delay & 0xFF), UInt8(delay >> 8), UInt8(transparent ?? 0),
        ]
        try check(control.withUnsafeBufferPointer { EGifPutExtension(gif, GRAPHICS_EXT_FUNC_CODE, 4, $0.baseAddress) })
        guard let map = colors.withUnsafeMutableBufferPointer({ GifMakeMapObject(Int32(tableSize), $0.baseAddress) }) else {
            throw .encoderFailed("giflib could not make a colour table")
        }
        defer { GifFreeMapObject(map) }
        try check(EGifPutImageDesc(gif, 0, 0, Int32(size.width), Int32(size.height), false, map))
        var row = [GifPixelType](repeating: 0, count: size.width)
        for y in 0..<size.height {
            for x in 0..<size.width { row[x] = indices[y * size.width + x] }
            try check(row.withUnsafeMutableBufferPointer { EGifPutLine(gif, $0.baseAddress, Int32(size.width)) })
        }
    }

    func finish() throws(ImageEncodingError) -> Data {
        guard let gif else { return output }
        self.gif = nil
        var error: Int32 = 0
        guard EGifCloseFile(gif, &error) == GIF_OK else { throw .encoderFailed("giflib could not finish the GIF (error \(error))") }
        return output
    }

    private func check(_ status: Int32) throws(ImageEncodingError) {
        if status == GIF_ERROR { throw .encoderFailed("giflib error \(gif?.pointee.Error ?? 0)") }
    }
}

private let gifWrite: OutputFunc = { gif, bytes, count in
    guard let gif, let bytes, count > 0, let context = gif.pointee.UserData else { return 0 }
    Unmanaged<GIFWriter>.fromOpaque(context).takeUnretainedValue().output.append(bytes, count: Int(count))
    return count
}
