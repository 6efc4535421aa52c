import CTesseraCairo
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

    /// The largest document a gzipped SVG may inflate to: 64 MB of XML is far beyond any drawing.
    static let maximumDocumentBytes = 64 << 20

    init(_ source: ImageSource) throws(ImageDecodingError) {
        let cairo = try Libraries.cairo.get()
        let svg = try Libraries.rsvg.get()
        self.svg = svg
        var data = try source.loadData()
        if data.starts(with: [0x1F, 0x8B]) {
            // SVGZ, inflated here with a bound: librsvg would inflate it whole, however far a few
            // hostile bytes of gzip go.
            guard let inflated = Inflate.gunzip(Array(data)[...], limit: Self.maximumDocumentBytes) else {
                throw .corrupt(reason: "a gzipped SVG that is damaged or inflates past \(Self.maximumDocumentBytes >> 20) MB")
            }
            data = Data(inflated)
        }
        var error: UnsafeMutablePointer<TesseraGError>?
        let parsed = data.withUnsafeBytes {
            svg.rsvg_handle_new_from_data($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count, &error)
        }
        guard let parsed else {
            throw .corrupt(reason: cairo.message(taking: error, default: "librsvg could not parse the document"))
        }
        rsvg = CHandle(parsed) { cairo.g_object_unref(UnsafeMutableRawPointer($0)) }
        // Physical units (mm, in, pt) at CSS's 96 pixels per inch, as browsers draw them
        // (librsvg's default is 90: a 210 mm page came out 745 pixels wide, not 794).
        svg.rsvg_handle_set_dpi(parsed, 96)
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

    /// Renders the whole document scaled into `target` pixels, on transparency.
    func render(at target: PixelSize) throws(ImageDecodingError) -> PixelBuffer {
        let canvas = try CairoCanvas(size: target, opaque: false)
        var viewport = TesseraRsvgRectangle(x: 0, y: 0, width: Double(target.width), height: Double(target.height))
        var error: UnsafeMutablePointer<TesseraGError>?
        guard let context = canvas.context, svg.rsvg_handle_render_document(handle, context, &viewport, &error) != 0 else {
            throw .corrupt(reason: canvas.cairo.message(taking: error, default: "librsvg could not render"))
        }
        return try canvas.pixels()
    }
}
