import CTesseraPDF
import FoundationEssentials
import TesseraCore

/// Renders one page of a PDF with poppler-glib and cairo, on white paper, as pdftoppm and libvips
/// do. A page is vector art: a smaller request renders at that size directly, so shrinking costs
/// nothing, and the pixel limit is checked on the size asked for before anything is drawn. Sizes
/// are at 72 dpi: one pixel per point. poppler-glib is loaded on first use; without it PDF fails
/// with `.libraryUnavailable`.
///
/// The document is parsed from memory (the file mapped), so it cannot make poppler read other files.
final class PDFDecoder {
    /// The page's size in points (1/72 inch), as the page's box states it.
    let pageSize: PointSize
    /// The page's size in pixels at 72 dpi: its size in points, rounded up.
    let size: PixelSize
    let pageCount: Int
    let pageIndex: Int
    private let pdf: TesseraPDF
    /// The document's bytes, which poppler reads in place for as long as the document lives.
    private let data: Data
    private let document: CHandle<OpaquePointer>
    private let page: CHandle<OpaquePointer>

    /// - Parameter pageIndex: which page, from 0.
    init(_ source: ImageSource, pageIndex: Int) throws(ImageDecodingError) {
        let pdf = try LibPoppler.table()
        self.pdf = pdf
        self.pageIndex = pageIndex
        data = try source.loadData()
        guard data.count <= Int(Int32.max) else { throw .unsupported(reason: "a PDF of more than 2 GB") }
        var error: UnsafeMutablePointer<TesseraPDFError>?
        let opened = data.withUnsafeBytes { bytes in
            // poppler only reads the bytes; its parameter is not const for historical reasons.
            pdf.poppler_document_new_from_data(
                UnsafeMutablePointer(mutating: bytes.bindMemory(to: CChar.self).baseAddress!), Int32(bytes.count), nil, &error)
        }
        guard let opened else {
            let message = Self.message(taking: error, pdf, default: "poppler could not read the document")
            // poppler's "encrypted" error (POPPLER_ERROR_ENCRYPTED, 1): a password is needed.
            throw error?.pointee.code == 1 ? .unsupported(reason: message) : .corrupt(reason: message)
        }
        document = CHandle(opened) { pdf.g_object_unref(UnsafeMutableRawPointer($0)) }
        pageCount = Int(pdf.poppler_document_get_n_pages(opened))
        guard pageCount > 0 else { throw .corrupt(reason: "the PDF has no pages") }
        guard pageIndex >= 0, pageIndex < pageCount else { throw .noSuchPage(index: pageIndex, count: pageCount) }
        guard let loaded = pdf.poppler_document_get_page(opened, Int32(pageIndex)) else {
            throw .corrupt(reason: "poppler could not read page \(pageIndex + 1)")
        }
        page = CHandle(loaded) { pdf.g_object_unref(UnsafeMutableRawPointer($0)) }
        var width = 0.0, height = 0.0
        pdf.poppler_page_get_size(loaded, &width, &height)
        guard width.isFinite, height.isFinite, width >= 0.5, height >= 0.5, width < 1e7, height < 1e7 else {
            throw .corrupt(reason: "page \(pageIndex + 1) has no usable size (\(width)×\(height) points)")
        }
        pageSize = PointSize(width: width, height: height)
        size = PixelSize(width: Int(width.rounded(.up)), height: Int(height.rounded(.up)))
    }

    func properties(fileByteCount: Int) -> ImageProperties {
        var properties = ImageProperties(
            format: .pdf, size: size, orientation: .up, hasAlpha: false, bitsPerComponent: 8, colorModel: .rgb,
            frameCount: pageCount, isProgressive: false, fileByteCount: fileByteCount, decodedFormat: .rgb8)
        properties.pageSize = pageSize
        return properties
    }

    /// Renders the page scaled to fill `target` pixels, on white.
    func render(at target: PixelSize) throws(ImageDecodingError) -> PixelBuffer {
        let format = Int32(TESSERA_PDF_CAIRO_FORMAT_RGB24)
        guard let surface = pdf.cairo_image_surface_create(format, Int32(target.width), Int32(target.height)) else {
            throw .unsupported(reason: "cairo could not allocate \(target)")
        }
        defer { pdf.cairo_surface_destroy(surface) }
        guard pdf.cairo_surface_status(surface) == TESSERA_PDF_CAIRO_STATUS_SUCCESS, let context = pdf.cairo_create(surface) else {
            throw .unsupported(reason: "cairo could not allocate \(target)")
        }
        pdf.cairo_set_source_rgb(context, 1, 1, 1)
        pdf.cairo_paint(context)
        pdf.cairo_scale(context, Double(target.width) / pageSize.width, Double(target.height) / pageSize.height)
        pdf.poppler_page_render(page.pointer, context)
        pdf.cairo_destroy(context)
        pdf.cairo_surface_flush(surface)
        guard let data = pdf.cairo_image_surface_get_data(surface) else { throw .corrupt(reason: "cairo returned no pixels") }
        let stride = Int(pdf.cairo_image_surface_get_stride(surface))
        var pixels = PixelBuffer(width: target.width, height: target.height, format: .rgb8)
        pixels.bytes.withUnsafeMutableBufferPointer { output in
            for y in 0..<target.height {
                let row = UnsafeRawPointer(data + y * stride)
                for x in 0..<target.width {
                    // cairo's RGB24 is a native-endian 32-bit word, xRGB.
                    let word = row.loadUnaligned(fromByteOffset: x * 4, as: UInt32.self)
                    let d = (y * target.width + x) * 3
                    output[d] = UInt8(truncatingIfNeeded: word >> 16)
                    output[d + 1] = UInt8(truncatingIfNeeded: word >> 8)
                    output[d + 2] = UInt8(truncatingIfNeeded: word)
                }
            }
        }
        return withExtendedLifetime(document) { pixels }
    }

    /// A GError's message, freeing the error; `fallback` when there is none.
    private static func message(
        taking error: UnsafeMutablePointer<TesseraPDFError>?, _ pdf: TesseraPDF, default fallback: String
    ) -> String {
        guard let error else { return fallback }
        defer { pdf.g_error_free(error) }
        return String(cString: error.pointee.message)
    }
}
