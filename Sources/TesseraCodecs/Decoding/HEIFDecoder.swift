import CTesseraHeif
import FoundationEssentials
import TesseraCore

/// HEIC and AVIF through libheif. libheif applies the container's rotation and mirroring (irot,
/// imir) as the HEIF standard requires, so sizes here are already upright and orientation is `.up`.
/// libheif is loaded on first use; without it these files fail with `.unsupported`. Derived images'
/// canvases are checked against the limits first (``HEIFDerivedCanvases``).
final class HEIFDecoder {
    private let heif: TesseraHeif
    private let contextHandle: CHandle<OpaquePointer>
    private let imageHandle: CHandle<OpaquePointer>
    private var context: OpaquePointer { contextHandle.pointer }
    private var handle: OpaquePointer { imageHandle.pointer }
    private let data: Data?  // libheif reads in-memory input without copying; keep it alive

    private let derivedCanvases: HEIFDerivedCanvases
    private let limits: AllocationLimits
    /// The top-level images, in page order (``pageIDs``).
    private var pages: [heif_item_id] = []
    /// How many pages the file has: its top-level images (a HEIF collection), 1 for one image.
    var pageCount: Int { max(1, pages.count) }

    /// The most top-level images read as pages.
    static let maximumPageCount = 1 << 16

    /// - Parameter page: which top-level image, from 0: the primary image first (what the file
    ///   shows alone), then the others in the order the file lists them.
    init(_ source: ImageSource, limits: AllocationLimits, page: Int = 0) throws(ImageDecodingError) {
        derivedCanvases = HEIFDerivedCanvases(reading: try source.openStream())
        self.limits = limits
        let heif = try Libraries.heif.get()
        self.heif = heif
        guard let context = heif.heif_context_alloc() else { throw .unsupported(reason: "libheif could not start") }
        contextHandle = CHandle(context) { heif.heif_context_free($0) }
        var data: Data?
        var error: heif_error
        if let path = source.filePath {
            error = heif.heif_context_read_from_file(context, path, nil)
        } else {
            let bytes = try source.loadData()
            data = bytes
            error = bytes.withUnsafeBytes { heif.heif_context_read_from_memory_without_copy(context, $0.baseAddress, $0.count, nil) }
        }
        var handle: OpaquePointer?
        if error.code == heif_error_Ok {
            pages = Self.pageIDs(heif, context)
            guard page >= 0, page < max(1, pages.count) else { throw .noSuchPage(index: page, count: max(1, pages.count)) }
            error =
                page == 0
                ? heif.heif_context_get_primary_image_handle(context, &handle) : heif.heif_context_get_image_handle(context, pages[page], &handle)
        }
        self.data = data
        guard error.code == heif_error_Ok, let handle else { throw Self.failure(error) }
        imageHandle = CHandle(handle) { heif.heif_image_handle_release($0) }
        // A clean-aperture box can crop the image to nothing (found by FuzzDecodeHEIF).
        let width = heif.heif_image_handle_get_width(handle), height = heif.heif_image_handle_get_height(handle)
        guard width > 0, height > 0 else { throw .corrupt(reason: "a HEIF image of \(width)×\(height) pixels") }
    }

    /// The top-level images' IDs, the primary one first, then the rest in the file's order.
    private static func pageIDs(_ heif: TesseraHeif, _ context: OpaquePointer) -> [heif_item_id] {
        let count = Int(heif.heif_context_get_number_of_top_level_images(context))
        guard count > 0, count <= maximumPageCount else { return [] }
        var ids = [heif_item_id](repeating: 0, count: count)
        let filled = Int(heif.heif_context_get_list_of_top_level_image_IDs(context, &ids, Int32(count)))
        ids = Array(ids.prefix(max(0, min(filled, count))))
        var primary: heif_item_id = 0
        guard heif.heif_context_get_primary_image_ID(context, &primary).code == heif_error_Ok, let at = ids.firstIndex(of: primary) else {
            return ids
        }
        ids.remove(at: at)
        return [primary] + ids
    }

    /// Every page's size (libheif's, already upright); 0×0 for one it cannot open.
    func pageSizes() -> [PixelSize] {
        guard pages.count > 1 else {
            return [PixelSize(width: Int(heif.heif_image_handle_get_width(handle)), height: Int(heif.heif_image_handle_get_height(handle)))]
        }
        return pages.map { id in
            var page: OpaquePointer?
            guard heif.heif_context_get_image_handle(context, id, &page).code == heif_error_Ok, let page else {
                return PixelSize(width: 0, height: 0)
            }
            defer { heif.heif_image_handle_release(page) }
            return PixelSize(width: Int(max(0, heif.heif_image_handle_get_width(page))), height: Int(max(0, heif.heif_image_handle_get_height(page))))
        }
    }

    func properties(format: ImageFormat, fileByteCount: Int) -> ImageProperties {
        let size = PixelSize(width: Int(heif.heif_image_handle_get_width(handle)), height: Int(heif.heif_image_handle_get_height(handle)))
        let hasAlpha = heif.heif_image_handle_has_alpha_channel(handle) != 0
        let bits = Int(heif.heif_image_handle_get_luma_bits_per_pixel(handle))
        var properties = ImageProperties(
            format: format, size: size, orientation: .up, hasAlpha: hasAlpha, bitsPerComponent: bits > 0 ? bits : 8,
            colorModel: .rgb, frameCount: max(1, Int(heif.heif_context_get_number_of_top_level_images(context))),
            isProgressive: false, fileByteCount: fileByteCount, decodedFormat: hasAlpha ? .rgba8 : .rgb8)
        properties.pageCount = pageCount
        attachColor(to: &properties)
        return properties
    }

    /// The `colr` boxes: an ICC profile (`prof`, `rICC`) wins over `nclx` code points when a file
    /// has both, as in browsers; without either the pixels are sRGB.
    private func attachColor(to properties: inout ImageProperties) {
        let count = heif.heif_image_handle_get_raw_color_profile_size(handle)
        if count > 0 {
            guard count <= ICCProfile.maximumByteCount else {
                properties.warnings.append("ignored the embedded ICC profile: \(count) bytes, over \(ICCProfile.maximumByteCount)")
                return
            }
            var bytes = [UInt8](repeating: 0, count: count)
            if heif.heif_image_handle_get_raw_color_profile(handle, &bytes).code == heif_error_Ok {
                properties.attachProfile(bytes)
                return
            }
        }
        var nclx: UnsafeMutablePointer<heif_color_profile_nclx>?
        let status = heif.heif_image_handle_get_nclx_color_profile(handle, &nclx)
        // libheif 1.15 allocates the struct even when it reports an error (an unknown code point).
        defer { if let nclx { heif.heif_nclx_color_profile_free(nclx) } }
        guard status.code == heif_error_Ok, let nclx else {
            if status.code != heif_error_Color_profile_does_not_exist {
                let reason = status.message.map { String(cString: $0) } ?? "libheif error \(status.code.rawValue)"
                properties.warnings.append("ignored the nclx colour box (\(reason)); colours shown as stored")
            }
            return
        }
        do throws(CodedColorSpace.Unsupported) {
            properties.attachColorSpace(
                try CodedColorSpace(
                    primaries: Int(nclx.pointee.color_primaries.rawValue), transfer: Int(nclx.pointee.transfer_characteristics.rawValue)))
        } catch {
            properties.warnings.append(error.description)
        }
    }

    /// The largest embedded thumbnail that covers `minimum`, decoded; nil when there is none.
    func embeddedThumbnail(covering minimum: PixelSize) -> PixelBuffer? {
        let count = Int(heif.heif_image_handle_get_number_of_thumbnails(handle))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: count)
        let listed = Int(heif.heif_image_handle_get_list_of_thumbnail_IDs(handle, &ids, Int32(count)))
        var best: (handle: CHandle<OpaquePointer>, size: PixelSize)?
        for id in ids.prefix(listed) {
            var thumbnail: OpaquePointer?
            guard heif.heif_image_handle_get_thumbnail(handle, id, &thumbnail).code == heif_error_Ok, let thumbnail else { continue }
            let owned = CHandle(thumbnail) { [heif] in heif.heif_image_handle_release($0) }
            let size = PixelSize(width: Int(heif.heif_image_handle_get_width(thumbnail)), height: Int(heif.heif_image_handle_get_height(thumbnail)))
            if size.width >= minimum.width, size.height >= minimum.height, size.area > (best?.size.area ?? 0) {
                best = (owned, size)
            }
        }
        guard let best else { return nil }
        let format: PixelFormat = heif.heif_image_handle_has_alpha_channel(best.handle.pointer) != 0 ? .rgba8 : .rgb8
        return try? decode(best.handle.pointer, format: format, expectedSize: best.size)
    }

    func decode(format: PixelFormat, expectedSize: PixelSize) throws(ImageDecodingError) -> PixelBuffer {
        try decode(handle, format: format, expectedSize: expectedSize)
    }

    /// Decodes the primary image and hands its rows to `body`, top to bottom, straight from
    /// libheif's bitmap: no second full-size copy is made.
    func decodeRows(
        format: PixelFormat, expectedSize: PixelSize, _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(ImageDecodingError) {
        try decodeRows(handle, format: format, expectedSize: expectedSize, body)
    }

    private func decode(
        _ handle: OpaquePointer, format: PixelFormat, expectedSize: PixelSize
    ) throws(ImageDecodingError) -> PixelBuffer {
        var pixels = PixelBuffer(width: expectedSize.width, height: expectedSize.height, format: format)
        let bytesPerRow = pixels.bytesPerRow
        var row = 0
        try pixels.bytes.withUnsafeMutableBufferPointer { (output) throws(ImageDecodingError) in
            try decodeRows(handle, format: format, expectedSize: expectedSize) { source in
                (output.baseAddress! + row * bytesPerRow).update(from: source.baseAddress!, count: bytesPerRow)
                row += 1
            }
        }
        return pixels
    }

    private func decodeRows(
        _ handle: OpaquePointer, format: PixelFormat, expectedSize: PixelSize,
        _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(ImageDecodingError) {
        // Probing reports what the file claims; only a decode allocates the canvases.
        try derivedCanvases.check(limits)
        var image: OpaquePointer?
        let chroma = format == .rgba8 ? heif_chroma_interleaved_RGBA : heif_chroma_interleaved_RGB
        let error = heif.heif_decode_image(handle, &image, heif_colorspace_RGB, chroma, nil)
        guard error.code == heif_error_Ok, let image else { throw Self.failure(error) }
        defer { heif.heif_image_release(image) }
        var stride: Int32 = 0
        let width = Int(heif.heif_image_get_width(image, heif_channel_interleaved))
        let height = Int(heif.heif_image_get_height(image, heif_channel_interleaved))
        guard let plane = heif.heif_image_get_plane_readonly(image, heif_channel_interleaved, &stride),
            width == expectedSize.width, height == expectedSize.height
        else { throw .corrupt(reason: "libheif returned an image of an unexpected size") }
        let bytesPerRow = width * format.bytesPerPixel
        for row in 0..<height {
            body(UnsafeBufferPointer(start: plane + row * Int(stride), count: bytesPerRow))
        }
    }

    static func failure(_ error: heif_error) -> ImageDecodingError {
        var message = error.message.map { String(cString: $0) } ?? "libheif error"
        while message.last?.isWhitespace == true { message.removeLast() }  // some end in "\n"
        switch error.code {
        case heif_error_Memory_allocation_error where error.subcode == heif_suberror_Security_limit_exceeded:
            // libheif refuses images over 32768² (its own bomb guard) before it makes a handle, so
            // its message is the only place the two sizes are stated.
            let sizes = message.matches(of: /(\d+)x(\d+)/).compactMap { match -> Int? in
                guard let width = Int(match.1), let height = Int(match.2) else { return nil }
                return PixelSize(width: width, height: height).area
            }
            return sizes.count == 2 ? .tooLarge(pixels: sizes[0], limit: sizes[1]) : .unsupported(reason: message)
        case heif_error_Invalid_input where error.subcode == heif_suberror_End_of_data:
            return .truncated(reason: message)
        case heif_error_Unsupported_filetype, heif_error_Unsupported_feature:
            return .unsupported(reason: message)
        default:
            return .corrupt(reason: message)
        }
    }
}
