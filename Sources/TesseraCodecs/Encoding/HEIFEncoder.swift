import CTesseraHeif
import FoundationEssentials
import TesseraCore

#if canImport(Glibc)
    import Glibc
#endif

/// Writes AVIF (libaom) and HEIC (x265) through libheif, loaded on first use.
///
/// The pixels go in as interleaved 8-bit RGB(A); libheif converts them to 4:2:0 YCbCr for the
/// codec and tags the result with the matrix it used (nclx), plus the ICC profile when one is given.
enum HEIFEncoder {
    /// x265's presets from slowest to fastest, so that `speed` means the same for both codecs:
    /// 0 the slowest and smallest, 9 the fastest (libaom's own speed scale).
    static let x265Presets = ["placebo", "veryslow", "slower", "slow", "medium", "fast", "faster", "veryfast", "superfast", "ultrafast"]

    /// - Parameters:
    ///   - encoding: ``EncodingFormat/avif(quality:speed:)`` or ``EncodingFormat/heic(quality:speed:)``.
    ///   - profile: embedded as the image's ICC profile (`colr` of type `prof`); nil for sRGB.
    static func encode(
        _ pixels: PixelBuffer, as encoding: EncodingFormat, quality: Int, speed: Int?, profile: ICCProfile?
    ) throws(ImageEncodingError) -> Data {
        let isAVIF = if case .avif = encoding { true } else { false }
        let name = isAVIF ? "AVIF" : "HEIC"
        guard (0...100).contains(quality) else { throw .invalidParameter("\(name) quality \(quality) is not 0–100") }
        if let speed, !(0...9).contains(speed) { throw .invalidParameter("\(name) speed \(speed) is not 0–9") }
        let heif = try encoderTable(Libraries.heif)
        func check(_ error: heif_error) throws(ImageEncodingError) {
            guard error.code != heif_error_Ok else { return }
            var message = error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
            while message.last?.isWhitespace == true { message.removeLast() }
            throw .encoderFailed(message)
        }

        guard let context = heif.heif_context_alloc() else { throw .encoderFailed("libheif could not start") }
        defer { heif.heif_context_free(context) }
        var encoder: OpaquePointer?
        let compression = isAVIF ? heif_compression_AV1 : heif_compression_HEVC
        guard heif.heif_context_get_encoder_for_format(context, compression, &encoder).code == heif_error_Ok, let encoder else {
            throw .libraryUnavailable("libheif has no \(name) encoder (\(isAVIF ? "libaom" : "x265") missing)")
        }
        defer { heif.heif_encoder_release(encoder) }
        try check(heif.heif_encoder_set_lossy_quality(encoder, Int32(quality)))
        if let speed {
            try check(
                isAVIF
                    ? heif.heif_encoder_set_parameter_integer(encoder, "speed", Int32(speed))
                    : heif.heif_encoder_set_parameter_string(encoder, "preset", Self.x265Presets[speed]))
        }

        let input = pixels.converted(to: pixels.format.hasAlpha ? .rgba8 : .rgb8)
        var created: OpaquePointer?
        let chroma = input.format == .rgba8 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
        try check(heif.heif_image_create(Int32(input.width), Int32(input.height), heif_colorspace_RGB, chroma, &created))
        guard let image = created else { throw .encoderFailed("libheif could not make an image of \(input.size)") }
        defer { heif.heif_image_release(image) }
        try check(heif.heif_image_add_plane(image, heif_channel_interleaved, Int32(input.width), Int32(input.height), 8))
        var stride: Int32 = 0
        guard let plane = heif.heif_image_get_plane(image, heif_channel_interleaved, &stride) else {
            throw .encoderFailed("libheif gave no plane for \(input.size)")
        }
        input.bytes.withUnsafeBufferPointer { bytes in
            for y in 0..<input.height {
                (plane + y * Int(stride)).update(from: bytes.baseAddress! + y * input.bytesPerRow, count: input.bytesPerRow)
            }
        }
        if let profile {
            try check(profile.data.withUnsafeBufferPointer { heif.heif_image_set_raw_color_profile(image, "prof", $0.baseAddress, $0.count) })
        }
        guard let options = heif.heif_encoding_options_alloc() else { throw .encoderFailed("libheif could not start") }
        defer { heif.heif_encoding_options_free(options) }
        try check(heif.heif_context_encode_image(context, image, encoder, options, nil))
        var output = TesseraHeifOutput(bytes: nil, size: 0)
        defer { free(output.bytes) }
        try check(tessera_heif_write_to_memory(context, &output))
        guard let bytes = output.bytes else { throw .encoderFailed("libheif wrote nothing") }
        return Data(bytes: bytes, count: output.size)
    }
}
