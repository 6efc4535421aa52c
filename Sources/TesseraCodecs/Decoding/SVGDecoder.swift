import CTesseraSVG
import FoundationEssentials
import TesseraCore

/// Rasterises SVG with librsvg and cairo. Vector art has no pixels to discard, so a smaller request
/// renders directly at that size. Input is always parsed from memory, so a document cannot make
/// librsvg load other local files. librsvg is loaded on first use; without it SVG fails with
/// `.unsupported`.
final class SVGDecoder {
    /// The intrinsic size in pixels: the width and height attributes, or the viewBox without them.
    let size: PixelSize
    private let svg: TesseraSVG
    private let rsvg: CHandle<OpaquePointer>
    private var handle: OpaquePointer { rsvg.pointer }

    init(_ source: ImageSource) throws(ImageDecodingError) {
        let svg = try LibRSVG.table()
        self.svg = svg
        let data = try source.loadData()
        var error: UnsafeMutablePointer<TesseraGError>?
        let parsed = data.withUnsafeBytes {
            svg.rsvg_handle_new_from_data($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, &error)
        }
        guard let parsed else {
            throw .corrupt(reason: Self.message(taking: error, svg, default: "librsvg could not parse the document"))
        }
        rsvg = CHandle(parsed) { svg.g_object_unref(UnsafeMutableRawPointer($0)) }
        var width = 0.0, height = 0.0
        if svg.rsvg_handle_get_intrinsic_size_in_pixels(parsed, &width, &height) == 0 {
            var hasWidth: TesseraGBoolean = 0, hasHeight: TesseraGBoolean = 0, hasViewBox: TesseraGBoolean = 0
            var lengthWidth = TesseraRsvgLength(), lengthHeight = TesseraRsvgLength()
            var viewBox = TesseraRsvgRectangle()
            svg.rsvg_handle_get_intrinsic_dimensions(parsed, &hasWidth, &lengthWidth, &hasHeight, &lengthHeight, &hasViewBox, &viewBox)
            if hasViewBox != 0 {
                width = viewBox.width
                height = viewBox.height
            }
        }
        guard width.isFinite, height.isFinite, width >= 0.5, height >= 0.5, width < 1e9, height < 1e9 else {
            throw .unsupported(reason: "SVG without a usable width, height or viewBox")
        }
        size = PixelSize(width: Int(width.rounded(.up)), height: Int(height.rounded(.up)))
    }

    func properties(fileByteCount: Int) -> ImageProperties {
        ImageProperties(
            format: .svg, size: size, orientation: .up, hasAlpha: true, bitsPerComponent: 8, colorModel: .rgb,
            frameCount: 1, isProgressive: false, fileByteCount: fileByteCount, decodedFormat: .rgba8)
    }

    /// Renders the whole document scaled into `target` pixels.
    func render(at target: PixelSize) throws(ImageDecodingError) -> PixelBuffer {
        let format = Int32(TESSERA_CAIRO_FORMAT_ARGB32)
        guard let surface = svg.cairo_image_surface_create(format, Int32(target.width), Int32(target.height)) else {
            throw .unsupported(reason: "cairo could not allocate \(target)")
        }
        defer { svg.cairo_surface_destroy(surface) }
        guard svg.cairo_surface_status(surface) == TESSERA_CAIRO_STATUS_SUCCESS, let context = svg.cairo_create(surface) else {
            throw .unsupported(reason: "cairo could not allocate \(target)")
        }
        var viewport = TesseraRsvgRectangle(x: 0, y: 0, width: Double(target.width), height: Double(target.height))
        var error: UnsafeMutablePointer<TesseraGError>?
        let rendered = svg.rsvg_handle_render_document(handle, context, &viewport, &error)
        svg.cairo_destroy(context)
        if rendered == 0 {
            throw .corrupt(reason: Self.message(taking: error, svg, default: "librsvg could not render"))
        }
        svg.cairo_surface_flush(surface)
        guard let data = svg.cairo_image_surface_get_data(surface) else { throw .corrupt(reason: "cairo returned no pixels") }
        let stride = Int(svg.cairo_image_surface_get_stride(surface))
        var pixels = PixelBuffer(width: target.width, height: target.height, format: .rgba8)
        pixels.bytes.withUnsafeMutableBufferPointer { output in
            for y in 0..<target.height {
                let row = UnsafeRawPointer(data + y * stride)
                for x in 0..<target.width {
                    // cairo's ARGB32 is a native-endian 32-bit word, premultiplied.
                    let argb = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
                    let alpha = Int(argb >> 24)
                    let d = (y * target.width + x) * 4
                    output[d + 3] = UInt8(alpha)
                    guard alpha > 0 else { continue }
                    for (channel, shift) in [(0, 16), (1, 8), (2, 0)] as [(Int, UInt32)] {
                        let premultiplied = Int(argb >> shift & 0xFF)
                        output[d + channel] = UInt8(min(255, (premultiplied * 255 + alpha / 2) / alpha))
                    }
                }
            }
        }
        return pixels
    }

    /// A GError's message, freeing the error; `fallback` when there is none.
    private static func message(
        taking error: UnsafeMutablePointer<TesseraGError>?, _ svg: TesseraSVG, default fallback: String
    ) -> String {
        guard let error else { return fallback }
        defer { svg.g_error_free(error) }
        return String(cString: error.pointee.message)
    }
}
