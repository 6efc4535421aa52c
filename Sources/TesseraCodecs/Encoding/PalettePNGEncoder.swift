import CTesseraQuant
import CTesseraShims
import FoundationEssentials
import TesseraCore

/// Writes indexed PNGs: libimagequant (loaded on first use) picks at most 256 colours and maps the
/// pixels to them, dithered or not; libpng writes them at the fewest bits per pixel that hold the
/// palette (1, 2, 4 or 8), with the alpha of translucent entries in tRNS.
///
/// An image of 256 colours or fewer keeps them exactly. Memory: a copy of the pixels as RGBA
/// (4 bytes a pixel) and one byte a pixel of indices, besides libimagequant's histogram.
enum PalettePNGEncoder {
    static func encode(_ pixels: PixelBuffer, dithering: Double, profile: ICCProfile?) throws(ImageEncodingError) -> Data {
        guard (0...1).contains(dithering) else { throw .invalidParameter("dithering \(dithering) is not 0–1") }
        let quant: TesseraQuant
        do { quant = try Libraries.imageQuant.get() } catch {
            // The loader's own reason ("cannot load libimagequant.so.0 …"), not its description,
            // which would say "library unavailable" a second time.
            guard case .libraryUnavailable(let reason) = error else { throw .libraryUnavailable(error.description) }
            throw .libraryUnavailable(reason)
        }
        let rgba = pixels.converted(to: .rgba8)
        let (palette, indices) = try quantize(rgba, dithering: dithering, quant)
        // Translucent entries first, so tRNS lists only those.
        let order = palette.indices.sorted { (palette[$0].a < 255 ? 0 : 1, $0) < (palette[$1].a < 255 ? 0 : 1, $1) }
        var position = [UInt8](repeating: 0, count: palette.count)
        for (new, old) in order.enumerated() { position[old] = UInt8(new) }
        let colours = order.flatMap { [palette[$0].r, palette[$0].g, palette[$0].b] }
        let alphas = order.map { palette[$0].a }.prefix { $0 < 255 }
        let bitDepth =
            switch palette.count {
            case ...2: 1
            case ...4: 2
            case ...16: 4
            default: 8
            }

        let handle = CHandle.allocate(TesseraPNGEncoder(), destroy: tessera_png_encoder_destroy)
        let encoder = handle.pointer
        guard tessera_png_encoder_init(encoder) == 0 else { throw .encoderFailed("libpng could not start") }
        var status = colours.withUnsafeBufferPointer { colours in
            Array(alphas).withUnsafeBufferPointer { alphas in
                (profile?.data ?? []).withUnsafeBufferPointer { icc in
                    tessera_png_write_palette_header(
                        encoder, UInt32(rgba.width), UInt32(rgba.height), Int32(bitDepth), colours.baseAddress,
                        Int32(palette.count), alphas.baseAddress, Int32(alphas.count), 9, icc.baseAddress, UInt32(icc.count))
                }
            }
        }
        var row = [UInt8](repeating: 0, count: rgba.width)
        for y in 0..<rgba.height where status == 0 {
            for x in 0..<rgba.width { row[x] = position[Int(indices[y * rgba.width + x])] }
            status = tessera_png_write_row(encoder, row)
        }
        if status == 0 { status = tessera_png_finish(encoder) }
        guard status == 0, let output = encoder.pointee.output else {
            throw .encoderFailed(String(decoding: withUnsafeBytes(of: encoder.pointee.message) { Array($0.prefix { $0 != 0 }) }, as: UTF8.self))
        }
        return withExtendedLifetime(handle) { Data(bytes: output, count: encoder.pointee.outputSize) }
    }

    /// The palette libimagequant chose and one index per pixel.
    /// - Parameter speed: libimagequant's 1 (slowest, best palette) to 10; 4 is its default.
    static func quantize(
        _ rgba: PixelBuffer, dithering: Double, speed: Int = 4, _ quant: TesseraQuant
    ) throws(ImageEncodingError) -> ([liq_color], [UInt8]) {
        guard let attributes = quant.liq_attr_create() else { throw .encoderFailed("libimagequant could not start") }
        defer { quant.liq_attr_destroy(attributes) }
        _ = quant.liq_set_max_colors(attributes, 256)
        _ = quant.liq_set_speed(attributes, Int32(speed))
        var indices = [UInt8](repeating: 0, count: rgba.width * rgba.height)
        let palette = rgba.bytes.withUnsafeBufferPointer { bytes -> [liq_color]? in
            // Gamma 0: libimagequant's default, sRGB's.
            guard let image = quant.liq_image_create_rgba(attributes, bytes.baseAddress!, Int32(rgba.width), Int32(rgba.height), 0)
            else { return nil }
            defer { quant.liq_image_destroy(image) }
            var result: OpaquePointer?
            guard quant.liq_image_quantize(image, attributes, &result) == LIQ_OK, let result else { return nil }
            defer { quant.liq_result_destroy(result) }
            _ = quant.liq_set_dithering_level(result, Float(dithering))
            let written = indices.withUnsafeMutableBytes { quant.liq_write_remapped_image(result, image, $0.baseAddress!, $0.count) }
            guard written == LIQ_OK, let chosen = quant.liq_get_palette(result) else { return nil }
            return withUnsafeBytes(of: chosen.pointee.entries) { entries in
                Array(entries.bindMemory(to: liq_color.self).prefix(Int(chosen.pointee.count)))
            }
        }
        guard let palette, !palette.isEmpty else { throw .encoderFailed("libimagequant could not quantise \(rgba.size)") }
        return (palette, indices)
    }
}
