import CTesseraCairo
import CTesseraPDF
import FoundationEssentials
import TesseraCore

/// Renders one page of a PDF with poppler-glib and cairo, on white paper, as pdftoppm and libvips
/// do. A page is vector art: a smaller request renders at that size directly, so shrinking costs
/// nothing, and the pixel limit is checked on the size asked for before anything is drawn. A page's
/// nominal size is at the resolution of the images it holds (``PDFResolution``: a page scanned at
/// 300 dpi is 300 dpi), one pixel per point (72 dpi) when it has none. poppler-glib is loaded on
/// first use; without it PDF fails with `.libraryUnavailable`.
///
/// The document is parsed from memory (the file mapped), so it cannot make poppler read other files.
final class PDFDecoder {
    /// The page's size in points (1/72 inch), as the page's box states it.
    let pageSize: PointSize
    /// The page's size in pixels: its size in points at its images' resolution (``PDFResolution``).
    private(set) var size: PixelSize
    let pageCount: Int
    let pageIndex: Int
    private let pdf: TesseraPDF
    /// The document's bytes, which poppler reads in place for as long as the document lives.
    private let data: Data
    private let document: CHandle<OpaquePointer>
    private let page: CHandle<OpaquePointer>
    private let resolution: PDFResolution
    /// The file the document was read from (nil: from memory), by which its image sizes are kept.
    private let filePath: String?
    /// The sizes of the file's image XObjects, scanned for once, when a page first has an image.
    private var imageSizes: [PixelSize]?

    /// - Parameters:
    ///   - pageIndex: which page, from 0.
    ///   - options: the resolutions and pixel limit the page's size is chosen within.
    init(_ source: ImageSource, pageIndex: Int, options: DecodeOptions = DecodeOptions()) throws(ImageDecodingError) {
        let cairo = try Libraries.cairo.get()
        let pdf = try Libraries.poppler.get()
        self.pdf = pdf
        self.pageIndex = pageIndex
        resolution = PDFResolution(options)
        filePath = source.filePath
        data = try source.loadData()
        var error: UnsafeMutablePointer<TesseraGError>?
        let opened = data.withUnsafeBytes { bytes in
            // Not copied: `data` outlives the document, which holds its own reference to the GBytes.
            let wrapped = cairo.g_bytes_new_static(bytes.baseAddress, bytes.count)
            defer { cairo.g_bytes_unref(wrapped) }
            return pdf.poppler_document_new_from_bytes(wrapped, nil, &error)
        }
        guard let opened else {
            // poppler's "encrypted" error (POPPLER_ERROR_ENCRYPTED, 1): a password is needed.
            let encrypted = error?.pointee.code == 1
            let message = cairo.message(taking: error, default: "poppler could not read the document")
            throw encrypted ? .unsupported(reason: message) : .corrupt(reason: message)
        }
        document = CHandle(opened) { cairo.g_object_unref(UnsafeMutableRawPointer($0)) }
        pageCount = Int(pdf.poppler_document_get_n_pages(opened))
        guard pageCount > 0 else { throw .corrupt(reason: "the PDF has no pages") }
        guard pageIndex >= 0, pageIndex < pageCount else { throw .noSuchPage(index: pageIndex, count: pageCount) }
        guard let loaded = pdf.poppler_document_get_page(opened, Int32(pageIndex)) else {
            throw .corrupt(reason: "poppler could not read page \(pageIndex + 1)")
        }
        page = CHandle(loaded) { cairo.g_object_unref(UnsafeMutableRawPointer($0)) }
        guard let points = Self.pointSize(of: loaded, pdf) else {
            var width = 0.0, height = 0.0
            pdf.poppler_page_get_size(loaded, &width, &height)
            throw .corrupt(reason: "page \(pageIndex + 1) has no usable size (\(width)×\(height) points)")
        }
        pageSize = points
        size = PixelSize(width: 0, height: 0)  // every property set, so the page can be measured
        size = pixelSize(of: loaded, points: points)
    }

    /// Every page's size in pixels (as ``size``), read from the open document; a page poppler
    /// cannot read, or with no usable size, is 0×0. Each page's content is run once to find where
    /// its images are drawn (none is decoded).
    func pageSizes() -> [PixelSize] {
        let cairo = try? Libraries.cairo.get()
        return (0..<pageCount).map { index in
            guard let loaded = pdf.poppler_document_get_page(document.pointer, Int32(index)) else { return PixelSize(width: 0, height: 0) }
            defer { cairo?.g_object_unref(UnsafeMutableRawPointer(loaded)) }
            guard let points = Self.pointSize(of: loaded, pdf) else { return PixelSize(width: 0, height: 0) }
            return pixelSize(of: loaded, points: points)
        }
    }

    /// The page's size in points, when it is usable (at least half a point, under 10^7 points).
    private static func pointSize(of page: OpaquePointer, _ pdf: TesseraPDF) -> PointSize? {
        var width = 0.0, height = 0.0
        pdf.poppler_page_get_size(page, &width, &height)
        guard width.isFinite, height.isFinite, width >= 0.5, height >= 0.5, width < 1e7, height < 1e7 else { return nil }
        return PointSize(width: width, height: height)
    }

    /// The pixels `page`, of `points`, is rendered with: at its images' resolution.
    private func pixelSize(of page: OpaquePointer, points: PointSize) -> PixelSize {
        resolution.size(of: points, placements: placements(on: page)) {
            if let imageSizes { return imageSizes }
            let sizes = PDFResolution.imageSizes(of: data, file: filePath)
            imageSizes = sizes
            return sizes
        }
    }

    /// The size in points of where each image on `page` is drawn (its bounding box), as poppler
    /// finds them by running the page's content with no image decoded.
    private func placements(on page: OpaquePointer) -> [PointSize] {
        guard let list = pdf.poppler_page_get_image_mapping(page) else { return [] }
        defer { pdf.poppler_page_free_image_mapping(list) }
        var placements: [PointSize] = []
        var node: UnsafeMutablePointer<TesseraGList>? = list
        while let current = node {
            if let mapping = current.pointee.data?.assumingMemoryBound(to: TesseraPopplerImageMapping.self).pointee {
                let width = abs(mapping.area.x2 - mapping.area.x1), height = abs(mapping.area.y2 - mapping.area.y1)
                if width.isFinite, height.isFinite { placements.append(PointSize(width: width, height: height)) }
            }
            node = current.pointee.next
        }
        return placements
    }

    func properties(fileByteCount: Int) -> ImageProperties {
        var properties = ImageProperties(
            format: .pdf, size: size, orientation: .up, hasAlpha: false, bitsPerComponent: 8, colorModel: .rgb,
            frameCount: pageCount, isProgressive: false, fileByteCount: fileByteCount, decodedFormat: .rgb8)
        properties.pageSize = pageSize
        properties.pageCount = pageCount
        return properties
    }

    /// Renders the page scaled to fill `target` pixels, on white.
    func render(at target: PixelSize) throws(ImageDecodingError) -> PixelBuffer {
        let canvas = try CairoCanvas(size: target, opaque: true)
        guard let context = canvas.context else { throw .corrupt(reason: "cairo could not draw") }
        canvas.cairo.cairo_scale(context, Double(target.width) / pageSize.width, Double(target.height) / pageSize.height)
        pdf.poppler_page_render(page.pointer, context)
        return try withExtendedLifetime(document) { () throws(ImageDecodingError) in try canvas.pixels() }
    }
}
