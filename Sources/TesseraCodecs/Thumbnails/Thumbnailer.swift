import FoundationEssentials
public import TesseraCore

/// Makes display-sized images without paying for the full-size bitmap, as ImageIO's
/// `CGImageSourceCreateThumbnailAtIndex` does.
///
/// The decoder shrinks first wherever the codec can (JPEG's DCT scaling, libwebp's scaler, SVG
/// rendered at size). Rows then stream through a box filter that reduces by whole factors to within
/// 2–4× of the target, holding one row of sums; a Lanczos-3 pass makes the exact size. JPEG, PNG,
/// GIF and TIFF therefore never hold the full image: memory follows the target and the width.
/// HEIF/AVIF and animated WebP are decoded whole (bounded by
/// ``ThumbnailOptions/maximumPixelCount``), unless an embedded thumbnail may be used; so is an
/// interlaced PNG, whose rows are final only after the last Adam7 pass.
public struct Thumbnailer: Sendable {
    /// A thumbnailer; it holds no state, so one may be shared freely.
    public init() {}

    /// Makes the thumbnail on the `WorkExecutor`, at `priority`.
    ///
    /// Cancelling the task stops the decode at the next chunk of rows and throws `CancellationError`.
    /// - Throws: ``ImageDecodingError``, `CancellationError`, or `WorkQueueFullError`.
    public func thumbnail(
        _ source: ImageSource, options: ThumbnailOptions, priority: WorkPriority = .normal,
        executor: WorkExecutor = .shared
    ) async throws -> Thumbnail {
        try await executor.run(priority: priority) { context in
            do {
                return try thumbnail(source, options: options, context: context)
            } catch ImageDecodingError.cancelled {
                throw CancellationError()
            }
        }
    }

    /// Makes the thumbnail on the calling thread.
    public func thumbnail(_ source: ImageSource, options: ThumbnailOptions) throws(ImageDecodingError) -> Thumbnail {
        try thumbnail(source, options: options, context: .uncancellable)
    }

    func thumbnail(
        _ source: ImageSource, options: ThumbnailOptions, context: WorkContext
    ) throws(ImageDecodingError) -> Thumbnail {
        // Colour is managed once, on the finished thumbnail, not on the larger decode — except
        // that readers of 16-bit samples convert them before reducing them to 8 bits, and WebP and
        // SVG, decoded whole at about the target size already, convert as they are decoded.
        var decodeOptions = DecodeOptions(
            maximumPixelCount: options.maximumPixelCount, allowsTruncatedData: options.allowsTruncatedData,
            colorManagement: options.colorManagement, pageIndex: options.pageIndex)
        let header = try Header(source, options: decodeOptions)
        let properties = header.properties
        if options.colorManagement == .convertToSRGB, let profile = properties.iccProfile {
            ColorConverter.shared.prepare(profile, format: properties.decodedFormat)
        }
        let storedTarget = options.storedTargetSize(for: properties)
        decodeOptions.minimumSize = storedTarget
        var memory = WorkingMemory()

        var reduced: (pixels: PixelBuffer, decodeScale: Double, isTruncated: Bool, embedded: Bool, profile: ICCProfile?)
        if options.embeddedThumbnail == .ifAbsent, let embedded = embeddedThumbnail(header, covering: storedTarget) {
            reduced = (embedded, 1, false, true, properties.iccProfile)
            memory.hold(embedded.byteCount)
        } else {
            let decoded = try decodeReduced(
                header, storedTarget: storedTarget, options: decodeOptions, context: context, memory: &memory)
            reduced = (decoded.pixels, decoded.decodeScale, decoded.isTruncated, false, decoded.profile)
        }

        var thumbnail = Self.finished(
            reduced.pixels, profile: reduced.profile, sourceProperties: properties, decodeScale: reduced.decodeScale, options: options,
            memory: &memory)
        thumbnail.usedEmbeddedThumbnail = reduced.embedded
        thumbnail.isTruncated = reduced.isTruncated
        return thumbnail
    }

    /// The thumbnail of an image already reduced to within a few times its target by another
    /// reader (a slide's or a pyramid's own levels: TesseraTiles' `RegionLevels`), finished as
    /// a decode reduced here is: resampled to the target, turned upright, cropped to the box, its
    /// colour managed from `profile` (nil: the pixels are sRGB).
    ///
    /// - Parameters:
    ///   - reduced: the stored (not turned) pixels, at least the target's size where the source is.
    ///   - profile: the profile `reduced` is in; nil for sRGB.
    ///   - sourceProperties: the source's header (its size and orientation set the target).
    ///   - decodeScale: full stored width ÷ `reduced`'s width.
    ///   - options: the thumbnail's size, turn and colour handling.
    public static func finished(
        _ reduced: PixelBuffer, profile: ICCProfile?, sourceProperties: ImageProperties, decodeScale: Double, options: ThumbnailOptions
    ) -> Thumbnail {
        var memory = WorkingMemory()
        memory.hold(reduced.byteCount)
        return finished(reduced, profile: profile, sourceProperties: sourceProperties, decodeScale: decodeScale, options: options, memory: &memory)
    }

    private static func finished(
        _ reduced: PixelBuffer, profile: ICCProfile?, sourceProperties properties: ImageProperties, decodeScale: Double,
        options: ThumbnailOptions, memory: inout WorkingMemory
    ) -> Thumbnail {
        let orientation = options.createThumbnailWithTransform ? properties.orientation : .up
        let storedTarget = options.storedTargetSize(for: properties)
        var pixels = reduced
        if pixels.size != storedTarget {
            let filterRows = 6 * (pixels.height / max(storedTarget.height, 1) + 1) + 1
            memory.peak(
                with: storedTarget.width * pixels.format.bytesPerPixel * 4 * filterRows
                    + storedTarget.byteCount(in: pixels.format))
            pixels = LanczosResampler.resize(pixels, to: storedTarget)
        }
        memory.release(reduced.byteCount)
        memory.hold(pixels.byteCount)
        if orientation != .up {
            memory.peak(with: pixels.byteCount)
            pixels = orientation.apply(to: pixels)
        }
        if case .box(let box, .centerCrop) = options.sizing {
            pixels = pixels.centerCropped(to: box)
        }
        let managed = ColorConverter.shared.manage(&pixels, profile: profile, options.colorManagement)
        return Thumbnail(
            pixels: pixels, sourceProperties: properties, decodeScale: decodeScale, usedEmbeddedThumbnail: false,
            peakWorkingByteCount: memory.peakBytes, isTruncated: false, iccProfile: managed)
    }

    /// The image reduced by the decoder and the box filter to within a few times `storedTarget`
    /// (`decodeOptions.minimumSize`), and the profile its pixels are in (nil: sRGB).
    private func decodeReduced(
        _ header: Header, storedTarget: PixelSize, options decodeOptions: DecodeOptions, context: WorkContext,
        memory: inout WorkingMemory
    ) throws(ImageDecodingError) -> (pixels: PixelBuffer, decodeScale: Double, isTruncated: Bool, profile: ICCProfile?) {
        let full = header.properties.size
        let profile = header.properties.iccProfile
        if let reader = try header.scanlineReader(options: decodeOptions) {
            let pixels = try Self.shrinkStreaming(
                reader, toward: storedTarget, limits: decodeOptions.limits, context: context, memory: &memory)
            return (pixels, Double(full.width) / Double(reader.outputSize.width), reader.isTruncated, reader.convertsColor ? nil : profile)
        }
        if case .heif(let heif) = header.kind {
            // libheif decodes whole; its bitmap is shrunk in place, without a second full-size copy.
            let format = header.properties.decodedFormat
            try decodeOptions.limits.check(full, format)
            var shrinker = BoxShrinker(inputSize: full, format: format, toward: storedTarget)
            memory.hold(full.byteCount(in: format) + shrinker.workingByteCount)
            try heif.decodeRows(format: format, expectedSize: full) { shrinker.append(row: $0) }
            memory.release(full.byteCount(in: format))
            return (shrinker.result(), 1, false, profile)
        }
        // libwebp's scaler averages areas (a proper low-pass) and SVG and PDF render at any size, so
        // they are asked for the target itself; what remains is at most a pixel of rounding.
        let decoded = try ImageDecoder(options: decodeOptions).decode(header)
        memory.hold(decoded.pixels.byteCount)
        let shrunk = Self.shrink(decoded.pixels, toward: storedTarget, memory: &memory)
        return (shrunk, decoded.decodeScale, decoded.isTruncated, decoded.iccProfile)
    }

    private static func shrinkStreaming(
        _ reader: any ScanlineReader, toward target: PixelSize, limits: AllocationLimits, context: WorkContext,
        memory: inout WorkingMemory
    ) throws(ImageDecodingError) -> PixelBuffer {
        let size = reader.outputSize
        let pipeline = try ScanlinePipeline(reader, limits: limits)
        var shrinker = BoxShrinker(inputSize: size, format: reader.outputFormat, toward: target)
        memory.hold(pipeline.bufferByteCount + shrinker.workingByteCount)
        try pipeline.forEachRow(context: context) { shrinker.append(row: $0) }
        memory.release(pipeline.bufferByteCount)
        return shrinker.result()
    }

    private static func shrink(_ pixels: PixelBuffer, toward target: PixelSize, memory: inout WorkingMemory) -> PixelBuffer {
        let shrinker = BoxShrinker(inputSize: pixels.size, format: pixels.format, toward: target)
        guard shrinker.reduces else { return pixels }
        memory.hold(shrinker.workingByteCount)
        memory.release(pixels.byteCount)
        return BoxShrinker.reduce(pixels, toward: target)
    }

    /// The embedded JPEG (EXIF IFD1) or HEIF thumbnail, decoded, when it covers the target.
    private func embeddedThumbnail(_ header: Header, covering target: PixelSize) -> PixelBuffer? {
        switch header.kind {
        case .jpeg(let jpeg):
            guard let block = jpeg.exifBlock, let range = jpeg.exif.thumbnailRange else { return nil }
            let embedded = ImageSource.data(Data(block[range]))
            guard let size = try? ImageDecoder().probe(embedded).size,
                size.width >= target.width, size.height >= target.height
            else { return nil }
            return try? ImageDecoder().decode(embedded).pixels
        case .heif(let heif):
            return heif.embeddedThumbnail(covering: target)
        default:
            return nil
        }
    }
}

/// Tracks the bytes Tessera's own buffers hold, and the most they ever held at once.
struct WorkingMemory {
    private(set) var currentBytes = 0
    private(set) var peakBytes = 0

    mutating func hold(_ bytes: Int) {
        currentBytes += bytes
        peakBytes = max(peakBytes, currentBytes)
    }

    mutating func release(_ bytes: Int) { currentBytes = max(0, currentBytes - bytes) }

    /// Records a transient allocation of `bytes` on top of what is held.
    mutating func peak(with bytes: Int) { peakBytes = max(peakBytes, currentBytes + bytes) }
}
