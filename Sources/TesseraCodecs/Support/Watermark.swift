import CTesseraCairo
public import TesseraCore

#if canImport(Glibc)
    import Glibc
#endif

/// Text drawn into an image's pixels, for substitutes that must say what they are wherever they
/// are shown or copied: white with a dark outline, at two-fifths opacity, across the image's
/// diagonal, sized to the image. Drawn by cairo (loaded on first use) on a transparent layer the
/// image's size, then composited over the pixels.
public enum Watermark {
    /// `pixels` with `text` drawn across them, in the same format.
    ///
    /// - Parameters:
    ///   - text: one line of UTF-8 text (a control character is drawn as a space).
    ///   - pixels: the image, any format; not changed.
    /// - Returns: a new buffer of `pixels`' size and format.
    /// - Throws: ``ImageDecodingError/libraryUnavailable(reason:)`` when cairo is missing.
    public static func draw(_ text: String, on pixels: PixelBuffer) throws(ImageDecodingError) -> PixelBuffer {
        let canvas = try CairoCanvas(size: pixels.size, opaque: false)
        guard let context = canvas.context else { return pixels }
        let cairo = canvas.cairo
        let line = String(text.map { $0.isNewline || ($0.asciiValue ?? 32) < 32 ? " " : $0 })
        let (width, height) = (Double(pixels.width), Double(pixels.height))
        let angle = -atan2(height, width)
        let diagonal = (width * width + height * height).squareRoot()
        cairo.cairo_select_font_face(context, "sans-serif", UInt32(TESSERA_CAIRO_FONT_SLANT_NORMAL), UInt32(TESSERA_CAIRO_FONT_WEIGHT_BOLD))
        cairo.cairo_set_font_size(context, 100)
        var extents = TesseraCairoTextExtents()
        cairo.cairo_text_extents(context, line, &extents)
        // Seven tenths of the diagonal wide, and no taller than a fifth of the shorter side.
        let size = max(6, min(100 * diagonal * 0.7 / max(extents.width, 1), min(width, height) / 5 / max(extents.height, 1) * 100))
        cairo.cairo_set_font_size(context, size)
        cairo.cairo_text_extents(context, line, &extents)
        cairo.cairo_translate(context, width / 2, height / 2)
        cairo.cairo_rotate(context, angle)
        cairo.cairo_move_to(context, -extents.width / 2 - extents.xBearing, -extents.height / 2 - extents.yBearing)
        cairo.cairo_text_path(context, line)
        cairo.cairo_set_source_rgba(context, 1, 1, 1, 0.4)
        cairo.cairo_fill_preserve(context)
        cairo.cairo_set_line_width(context, max(1, size / 30))
        cairo.cairo_set_source_rgba(context, 0, 0, 0, 0.3)
        cairo.cairo_stroke(context)
        let layer = try canvas.pixels()
        return composite(layer, over: pixels)
    }

    /// `layer` (RGBA, straight alpha) over `pixels`, in `pixels`' format (a gray image takes the
    /// layer's luminance).
    private static func composite(_ layer: PixelBuffer, over pixels: PixelBuffer) -> PixelBuffer {
        var result = pixels
        let channels = pixels.format.bytesPerPixel
        let colourChannels = pixels.format.hasAlpha ? channels - 1 : channels
        result.bytes.withUnsafeMutableBufferPointer { output in
            layer.bytes.withUnsafeBufferPointer { top in
                for index in 0..<(pixels.width * pixels.height) {
                    let alpha = Int(top[index * 4 + 3])
                    guard alpha > 0 else { continue }
                    let (red, green, blue) = (Int(top[index * 4]), Int(top[index * 4 + 1]), Int(top[index * 4 + 2]))
                    let colour = colourChannels == 1 ? [(red * 77 + green * 150 + blue * 29) >> 8] : [red, green, blue]
                    for channel in 0..<colourChannels {
                        let below = Int(output[index * channels + channel])
                        output[index * channels + channel] = UInt8((colour[channel] * alpha + below * (255 - alpha) + 127) / 255)
                    }
                }
            }
        }
        return result
    }
}
