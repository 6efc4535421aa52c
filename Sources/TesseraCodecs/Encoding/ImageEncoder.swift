import CTesseraShims
import CWebP
public import FoundationEssentials
public import TesseraCore

/// Encodes a `PixelBuffer` to JPEG, PNG (full colour or indexed), WebP, GIF, AVIF or HEIC bytes.
public enum ImageEncoder {
    /// The encoded bytes of `pixels`, a whole file.
    /// - Parameters:
    ///   - pixels: the image, in any pixel format; a format without alpha (JPEG) gets it composited
    ///     over black.
    ///   - encoding: the format and its quality settings.
    ///   - iccProfile: the profile `pixels` are in (``DecodedImage/iccProfile``), embedded in
    ///     the output (JPEG APP2, PNG iCCP, WebP ICCP, HEIF colr) byte for byte. Nil: the pixels are sRGB and the
    ///     output is untagged, which every viewer takes for sRGB. When the format cannot carry the
    ///     profile for these pixels (a gray profile in WebP, which is always RGB), the pixels are
    ///     converted to sRGB instead, so an output is never tagged with a profile it does not match.
    /// - Throws: ``ImageEncodingError``: a size the format cannot store, a bad parameter, an
    ///   encoder library that is missing or fails.
    public static func encode(
        _ pixels: PixelBuffer, as encoding: EncodingFormat, iccProfile: ICCProfile? = nil
    ) throws(ImageEncodingError) -> Data {
        var pixels = pixels
        var profile = iccProfile
        if let given = profile, !canEmbed(given, for: pixels.format, in: encoding) {
            profile = ColorConverter.shared.manage(&pixels, profile: given, .convertToSRGB)
            if profile != nil { throw .invalidParameter("a \(given.colorSpace.rawValue) profile cannot describe \(pixels.format) pixels") }
        }
        switch encoding {
        case .jpeg(let quality, let progressive):
            guard (1...100).contains(quality) else { throw .invalidParameter("JPEG quality \(quality) is not 1–100") }
            guard pixels.width <= 65500, pixels.height <= 65500 else { throw .sizeNotSupported(pixels.size, encoding) }
            return try encodeJPEG(pixels, quality: quality, progressive: progressive, profile: profile)
        case .png(let level):
            guard (0...9).contains(level) else { throw .invalidParameter("PNG compression level \(level) is not 0–9") }
            if (1...2).contains(level), let fast = try FastPNGWriter.encode(pixels, profile: profile) { return fast }
            return try encodePNG(pixels, compressionLevel: level, profile: profile)
        case .webp(let quality):
            guard (0...100).contains(quality) else { throw .invalidParameter("WebP quality \(quality) is not 0–100") }
            return try withProfile(profile, try encodeWebP(pixels, quality: quality, lossless: false, encoding: encoding))
        case .webpLossless:
            return try withProfile(profile, try encodeWebP(pixels, quality: 100, lossless: true, encoding: encoding))
        case .avif(let quality, let speed), .heic(let quality, let speed):
            return try HEIFEncoder.encode(pixels, as: encoding, quality: quality, speed: speed, profile: profile)
        case .palettePNG(let dithering):
            return try PalettePNGEncoder.encode(pixels, dithering: dithering, profile: profile)
        case .jpeg2000(let quality, let lossless, let raw):
            return try JP2Writer.encode(
                pixels, settings: JP2Writer.Settings(isLossless: lossless, quality: quality, isRawCodestream: raw), iccProfile: profile)
        case .jxl(let quality, let lossless):
            return try JXLEncoder.encode(pixels, quality: quality, lossless: lossless, profile: profile)
        case .gif:
            let encoder = try AnimationEncoder(size: pixels.size, format: encoding, loopCount: 1)
            try encoder.add(pixels, duration: 0)
            return try encoder.finish()
        }
    }

    /// Whether `encoding` can carry `profile` for pixels of `format` as it writes them.
    private static func canEmbed(_ profile: ICCProfile, for format: PixelFormat, in encoding: EncodingFormat) -> Bool {
        switch (encoding, profile.colorSpace) {
        // These write RGB whatever the pixels: only an RGB profile describes what they hold.
        case (.webp, .rgb), (.webpLossless, .rgb), (.avif, .rgb), (.heic, .rgb), (.palettePNG, .rgb): true
        case (.webp, _), (.webpLossless, _), (.avif, _), (.heic, _), (.palettePNG, _), (.gif, _): false
        case (_, .rgb): !format.isGray
        case (_, .gray): format.isGray
        default: false
        }
    }

    private static func encodeJPEG(
        _ pixels: PixelBuffer, quality: Int, progressive: Bool, profile: ICCProfile?
    ) throws(ImageEncodingError) -> Data {
        let input = pixels.format.isGray ? pixels.converted(to: .gray8) : pixels.converted(to: .rgb8)
        let handle = CHandle.allocate(TesseraJPEGEncoder(), destroy: tessera_jpeg_encoder_destroy)
        let encoder = handle.pointer
        guard tessera_jpeg_encoder_init(encoder) == 0 else { throw .encoderFailed("libjpeg could not start") }
        func message() -> String { cMessage(encoder.pointee.message) }
        encoder.pointee.info.image_width = UInt32(input.width)
        encoder.pointee.info.image_height = UInt32(input.height)
        encoder.pointee.info.input_components = Int32(input.format.bytesPerPixel)
        encoder.pointee.info.in_color_space = input.format == .gray8 ? JCS_GRAYSCALE : JCS_RGB
        guard tessera_jpeg_start_compress(encoder, Int32(quality), progressive ? 1 : 0) == 0 else {
            throw .encoderFailed(message())
        }
        if let profile {
            let status = profile.data.withUnsafeBufferPointer { tessera_jpeg_write_icc_profile(encoder, $0.baseAddress, UInt32($0.count)) }
            guard status == 0 else { throw .encoderFailed(message()) }
        }
        var status: Int32 = 0
        input.bytes.withUnsafeBufferPointer { bytes in
            for y in 0..<input.height where status == 0 {
                var row: UnsafeMutablePointer<UInt8>? = UnsafeMutablePointer(mutating: bytes.baseAddress! + y * input.bytesPerRow)
                status = tessera_jpeg_write_scanlines(encoder, &row, 1)
            }
        }
        guard status == 0, tessera_jpeg_finish_compress(encoder) == 0, let output = encoder.pointee.output else {
            throw .encoderFailed(message())
        }
        return withExtendedLifetime(handle) { Data(bytes: output, count: Int(encoder.pointee.outputSize)) }
    }

    private static func encodePNG(_ pixels: PixelBuffer, compressionLevel: Int, profile: ICCProfile?) throws(ImageEncodingError) -> Data {
        let handle = CHandle.allocate(TesseraPNGEncoder(), destroy: tessera_png_encoder_destroy)
        let encoder = handle.pointer
        guard tessera_png_encoder_init(encoder) == 0 else { throw .encoderFailed("libpng could not start") }
        let colorType: Int32 =
            switch pixels.format {
            case .gray8: PNG_COLOR_TYPE_GRAY
            case .grayAlpha8: PNG_COLOR_TYPE_GRAY_ALPHA
            case .rgb8: PNG_COLOR_TYPE_RGB
            case .rgba8: PNG_COLOR_TYPE_RGB_ALPHA
            }
        var status = (profile?.data ?? []).withUnsafeBufferPointer { icc in
            tessera_png_write_header(
                encoder, UInt32(pixels.width), UInt32(pixels.height), colorType, Int32(compressionLevel),
                icc.baseAddress, UInt32(icc.count))
        }
        pixels.bytes.withUnsafeBufferPointer { bytes in
            for y in 0..<pixels.height where status == 0 {
                status = tessera_png_write_row(encoder, bytes.baseAddress! + y * pixels.bytesPerRow)
            }
        }
        if status == 0 { status = tessera_png_finish(encoder) }
        guard status == 0, let output = encoder.pointee.output else {
            throw .encoderFailed(cMessage(encoder.pointee.message))
        }
        return withExtendedLifetime(handle) { Data(bytes: output, count: encoder.pointee.outputSize) }
    }

    private static func encodeWebP(
        _ pixels: PixelBuffer, quality: Int, lossless: Bool, encoding: EncodingFormat
    ) throws(ImageEncodingError) -> Data {
        guard pixels.width <= 16383, pixels.height <= 16383 else { throw .sizeNotSupported(pixels.size, encoding) }
        let input = pixels.converted(to: pixels.format.hasAlpha ? .rgba8 : .rgb8)
        var output: UnsafeMutablePointer<UInt8>?
        let width = Int32(input.width), height = Int32(input.height), stride = Int32(input.bytesPerRow)
        let size = input.bytes.withUnsafeBufferPointer { bytes -> Int in
            switch (input.format, lossless) {
            case (.rgba8, false): WebPEncodeRGBA(bytes.baseAddress, width, height, stride, Float(quality), &output)
            case (.rgba8, true): WebPEncodeLosslessRGBA(bytes.baseAddress, width, height, stride, &output)
            case (_, false): WebPEncodeRGB(bytes.baseAddress, width, height, stride, Float(quality), &output)
            case (_, true): WebPEncodeLosslessRGB(bytes.baseAddress, width, height, stride, &output)
            }
        }
        defer { WebPFree(output) }
        guard size > 0, let output else { throw .encoderFailed("libwebp could not encode \(input.size)") }
        return Data(bytes: output, count: size)
    }

    /// `webp` with an ICCP chunk holding `profile` (libwebpmux adds the VP8X header that needs).
    private static func withProfile(_ profile: ICCProfile?, _ webp: Data) throws(ImageEncodingError) -> Data {
        guard let profile else { return webp }
        guard let mux = WebPMuxNew() else { throw .encoderFailed("libwebpmux could not start") }
        defer { WebPMuxDelete(mux) }
        var assembled = WebPData()
        defer { WebPDataClear(&assembled) }
        let status = webp.withUnsafeBytes { image in
            profile.data.withUnsafeBufferPointer { icc in
                var imageData = WebPData(bytes: image.bindMemory(to: UInt8.self).baseAddress, size: image.count)
                var iccData = WebPData(bytes: icc.baseAddress, size: icc.count)
                guard WebPMuxSetImage(mux, &imageData, 1) == WEBP_MUX_OK, WebPMuxSetChunk(mux, "ICCP", &iccData, 1) == WEBP_MUX_OK
                else { return WEBP_MUX_BAD_DATA }
                return WebPMuxAssemble(mux, &assembled)
            }
        }
        guard status == WEBP_MUX_OK, let bytes = assembled.bytes else { throw .encoderFailed("libwebpmux could not add the ICC profile") }
        return Data(bytes: bytes, count: assembled.size)
    }
}
