import CTesseraCairo
import TesseraCore

/// A cairo image surface and its drawing context, for the vector renderers (librsvg for SVG,
/// poppler for PDF): made at the size to draw at, drawn on, then read out as a ``PixelBuffer``.
/// Its memory is the surface, 4 bytes a pixel, freed with it.
final class CairoCanvas {
    let cairo: TesseraCairoTable
    let size: PixelSize
    /// Opaque canvases are painted white first and read out as RGB; the others start transparent
    /// and are read out as RGBA with the alpha cairo premultiplied divided out.
    let isOpaque: Bool
    private let surface: OpaquePointer
    /// What the renderer draws through; valid until ``pixels()``.
    private(set) var context: OpaquePointer?

    init(size: PixelSize, opaque: Bool) throws(ImageDecodingError) {
        let cairo = try Libraries.cairo.get()
        self.cairo = cairo
        self.size = size
        isOpaque = opaque
        let format = Int32(opaque ? TESSERA_CAIRO_FORMAT_RGB24 : TESSERA_CAIRO_FORMAT_ARGB32)
        guard let surface = cairo.cairo_image_surface_create(format, Int32(size.width), Int32(size.height)) else {
            throw .unsupported(reason: "cairo could not allocate \(size)")
        }
        self.surface = surface
        guard cairo.cairo_surface_status(surface) == TESSERA_CAIRO_STATUS_SUCCESS, let context = cairo.cairo_create(surface) else {
            cairo.cairo_surface_destroy(surface)
            throw .unsupported(reason: "cairo could not allocate \(size)")
        }
        self.context = context
        if opaque {
            cairo.cairo_set_source_rgb(context, 1, 1, 1)
            cairo.cairo_paint(context)
        }
    }

    deinit {
        if let context { cairo.cairo_destroy(context) }
        cairo.cairo_surface_destroy(surface)
    }

    /// Ends drawing and returns what was drawn: `.rgb8` for an opaque canvas, else `.rgba8`.
    func pixels() throws(ImageDecodingError) -> PixelBuffer {
        if let context { cairo.cairo_destroy(context) }
        context = nil
        cairo.cairo_surface_flush(surface)
        guard let data = cairo.cairo_image_surface_get_data(surface) else { throw .corrupt(reason: "cairo returned no pixels") }
        let stride = Int(cairo.cairo_image_surface_get_stride(surface))
        let (width, height) = (size.width, size.height)
        var pixels = PixelBuffer(width: width, height: height, format: isOpaque ? .rgb8 : .rgba8)
        let channels = pixels.format.bytesPerPixel
        pixels.bytes.withUnsafeMutableBufferPointer { output in
            for y in 0..<height {
                let row = UnsafeRawPointer(data + y * stride)
                for x in 0..<width {
                    // A native-endian 32-bit word: (alpha or unused), red, green, blue.
                    let word = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
                    let d = (y * width + x) * channels
                    guard !isOpaque else {
                        output[d] = UInt8(truncatingIfNeeded: word >> 16)
                        output[d + 1] = UInt8(truncatingIfNeeded: word >> 8)
                        output[d + 2] = UInt8(truncatingIfNeeded: word)
                        continue
                    }
                    let alpha = Int(word >> 24)
                    output[d + 3] = UInt8(alpha)
                    guard alpha > 0 else { continue }
                    for (channel, shift) in [(0, 16), (1, 8), (2, 0)] as [(Int, UInt32)] {
                        let premultiplied = Int(word >> shift & 0xFF)
                        output[d + channel] = UInt8(min(255, (premultiplied * 255 + alpha / 2) / alpha))
                    }
                }
            }
        }
        return pixels
    }
}

extension TesseraCairoTable {
    /// A GError's message, freeing the error; `fallback` when there is none.
    func message(taking error: UnsafeMutablePointer<TesseraGError>?, default fallback: String) -> String {
        guard let error else { return fallback }
        defer { g_error_free(error) }
        return String(cString: error.pointee.message)
    }
}
