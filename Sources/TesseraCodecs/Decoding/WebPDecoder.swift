import CWebP
import FoundationEssentials
import TesseraCore

/// Decodes WebP with libwebp: stills straight into our buffer (scaled by libwebp's own scaler when a
/// smaller size is enough, though a lossless image is still decoded whole inside libwebp), animations through WebPAnimDecoder, which composites the first frame
/// onto the full canvas.
enum WebPDecoder {
    static func decode(_ source: ImageSource, header: WebPHeader, options: DecodeOptions) throws(ImageDecodingError) -> PixelBuffer {
        if header.isAnimated {
            // Three canvases of this size exist at once: WebPAnimDecoder's two (the frame being
            // built and the one before it) and the copy returned.
            try options.limits.check(header.size, .rgba8)
            return try decodeFirstFrame(try source.loadData(), size: header.size)
        }
        let target = header.size.scaledToCover(options.minimumSize)
        try options.limits.check(target, header.decodedFormat)
        // Whatever size it is asked for, libwebp holds a lossless image whole as 4-byte ARGB words
        // (a backward reference may reach any pixel decoded before it), and a lossy image's alpha
        // plane whole at a byte per pixel: a 30-byte file can ask for 1 GB.
        if header.isLossless {
            try options.limits.check(header.size, .rgba8)
        } else if header.decodedFormat.hasAlpha {
            try options.limits.check(header.size, .gray8)
        }
        var pixels = PixelBuffer(width: target.width, height: target.height, format: header.decodedFormat)
        var config = WebPDecoderConfig()
        guard WebPInitDecoderConfig(&config) != 0 else { throw .unsupported(reason: "libwebp version mismatch") }
        if target != header.size {
            config.options.use_scaling = 1
            config.options.scaled_width = Int32(target.width)
            config.options.scaled_height = Int32(target.height)
        }
        config.options.use_threads = 1  // lossy in-loop filtering on a second thread, as libvips does
        config.output.colorspace = header.decodedFormat == .rgba8 ? MODE_RGBA : MODE_RGB
        config.output.is_external_memory = 1
        // Fed in chunks through libwebp's incremental decoder, which drops the bytes it no longer
        // needs, so the whole file is never held at once.
        let stream = try source.openStream()
        var status = VP8_STATUS_SUSPENDED
        pixels.bytes.withUnsafeMutableBufferPointer { output in
            config.output.u.RGBA.rgba = output.baseAddress
            config.output.u.RGBA.stride = Int32(pixels.bytesPerRow)
            config.output.u.RGBA.size = output.count
            guard let decoder = WebPIDecode(nil, 0, &config) else {
                status = VP8_STATUS_OUT_OF_MEMORY
                return
            }
            defer { WebPIDelete(decoder) }
            while status == VP8_STATUS_SUSPENDED {
                let chunk = stream.read(256 << 10)
                if chunk.isEmpty {
                    status = VP8_STATUS_NOT_ENOUGH_DATA
                    break
                }
                status = chunk.withUnsafeBufferPointer { WebPIAppend(decoder, $0.baseAddress, $0.count) }
            }
        }
        try check(status)
        return pixels
    }

    private static func decodeFirstFrame(_ data: Data, size: PixelSize) throws(ImageDecodingError) -> PixelBuffer {
        try data.withUnsafeBytes { (encoded: UnsafeRawBufferPointer) -> Result<PixelBuffer, ImageDecodingError> in
            Result { () throws(ImageDecodingError) -> PixelBuffer in
                var webpData = WebPData(bytes: encoded.baseAddress?.assumingMemoryBound(to: UInt8.self), size: encoded.count)
                var animationOptions = WebPAnimDecoderOptions()
                guard WebPAnimDecoderOptionsInit(&animationOptions) != 0 else {
                    throw .unsupported(reason: "libwebp version mismatch")
                }
                animationOptions.color_mode = MODE_RGBA
                animationOptions.use_threads = 0
                guard let decoder = WebPAnimDecoderNew(&webpData, &animationOptions) else {
                    throw .corrupt(reason: "libwebp could not parse the animation")
                }
                defer { WebPAnimDecoderDelete(decoder) }
                var canvas: UnsafeMutablePointer<UInt8>?
                var timestamp: Int32 = 0
                guard WebPAnimDecoderGetNext(decoder, &canvas, &timestamp) != 0, let canvas else {
                    throw encoded.count < 64
                        ? .truncated(reason: "animation ends early") : .corrupt(reason: "libwebp could not decode the first frame")
                }
                let count = size.byteCount(in: .rgba8)
                return PixelBuffer(
                    width: size.width, height: size.height, format: .rgba8,
                    bytes: [UInt8](UnsafeBufferPointer(start: canvas, count: count)))
            }
        }.get()
    }

    private static func check(_ status: VP8StatusCode) throws(ImageDecodingError) {
        switch status {
        case VP8_STATUS_OK: return
        case VP8_STATUS_NOT_ENOUGH_DATA: throw .truncated(reason: "the WebP data ends early")
        case VP8_STATUS_UNSUPPORTED_FEATURE: throw .unsupported(reason: "a WebP feature libwebp does not decode")
        case VP8_STATUS_OUT_OF_MEMORY: throw .unsupported(reason: "libwebp ran out of memory")
        default: throw .corrupt(reason: "libwebp status \(status.rawValue)")
        }
    }
}
