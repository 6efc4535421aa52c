import TesseraCore

/// What thumbnail to make: the counterpart of ImageIO's `CGImageSourceCreateThumbnailAtIndex` options.
public struct ThumbnailOptions: Sendable, Hashable {
    /// How the thumbnail's size follows from the image's.
    public enum Sizing: Sendable, Hashable {
        /// Aspect-fit: the longest side is at most `maxPixelSize` pixels
        /// (`kCGImageSourceThumbnailMaxPixelSize`). Nil means full size.
        case fit(maxPixelSize: Int?)
        /// Aspect-fit inside a box: both sides at most the box's.
        case fitInside(box: PixelSize)
        /// Aspect-fill: the short side covers `box`; the overflow is cropped away, centred, only if
        /// `crop` is true.
        case fill(box: PixelSize, crop: Bool)
    }

    /// Whether an embedded thumbnail (EXIF IFD1 in JPEG, a HEIF thumbnail item) may be used.
    public enum EmbeddedThumbnailPolicy: Sendable, Hashable {
        /// `kCGImageSourceCreateThumbnailFromImageAlways`: always build from the full image.
        case fromImageAlways
        /// `kCGImageSourceCreateThumbnailFromImageIfAbsent`: use the embedded thumbnail when there is
        /// one at least as large as the result, otherwise build from the image.
        case ifAbsent
    }

    public var sizing: Sizing
    /// `kCGImageSourceCreateThumbnailWithTransform`: turn the result upright by the EXIF orientation,
    /// with the size bound applying to the upright result. When false, pixels stay as stored.
    public var createThumbnailWithTransform: Bool
    public var embeddedThumbnail: EmbeddedThumbnailPolicy
    /// Accept a file that ends early (the missing part stays blank).
    public var allowsTruncatedData: Bool
    /// The most pixels a format that cannot stream (HEIF, animated WebP, interlaced PNG) may decode
    /// at full size. Streaming paths never hold the full image and ignore it.
    public var maximumPixelCount: Int

    public init(
        sizing: Sizing,
        createThumbnailWithTransform: Bool = true,
        embeddedThumbnail: EmbeddedThumbnailPolicy = .fromImageAlways,
        allowsTruncatedData: Bool = false,
        maximumPixelCount: Int = DecodeOptions.defaultMaximumPixelCount
    ) {
        self.sizing = sizing
        self.createThumbnailWithTransform = createThumbnailWithTransform
        self.embeddedThumbnail = embeddedThumbnail
        self.allowsTruncatedData = allowsTruncatedData
        self.maximumPixelCount = maximumPixelCount
    }

    /// Aspect-fit with the longest side at most `maxPixelSize` pixels.
    public init(maxPixelSize: Int?) {
        self.init(sizing: .fit(maxPixelSize: maxPixelSize))
    }

    /// Aspect-fit into a view of `pointSize` on a screen of `scale`: the longest side is at most
    /// `max(width, height) × scale` pixels.
    public init(pointSize: PointSize, scale: DisplayScale) {
        let pixels = pointSize.pixels(at: scale)
        self.init(maxPixelSize: pixels.longestSide)
    }

    /// The result's size for an image whose (upright, if transformed) size is `size`: aspect kept,
    /// sides rounded to the nearest pixel and at least 1, never larger than `size`.
    public func targetSize(for size: PixelSize) -> PixelSize {
        let scale: Double
        switch sizing {
        case .fit(let maxPixelSize):
            guard let maxPixelSize else { return size }
            scale = Double(max(maxPixelSize, 1)) / Double(size.longestSide)
        case .fitInside(let box):
            scale = min(Double(box.width) / Double(size.width), Double(box.height) / Double(size.height))
        case .fill(let box, _):
            scale = max(Double(box.width) / Double(size.width), Double(box.height) / Double(size.height))
        }
        guard scale < 1 else { return size }
        return PixelSize(
            width: max(1, Int((Double(size.width) * scale).rounded())),
            height: max(1, Int((Double(size.height) * scale).rounded())))
    }
}
