public import TesseraCore

/// What thumbnail to make: the counterpart of ImageIO's `CGImageSourceCreateThumbnailAtIndex` options.
public struct ThumbnailOptions: Sendable, Hashable {
    /// How the thumbnail's size follows from the image's.
    public enum Sizing: Sendable, Hashable {
        /// Aspect-fit: the longest side is at most `maxPixelSize` pixels
        /// (`kCGImageSourceThumbnailMaxPixelSize`). Nil means full size.
        case fit(maxPixelSize: Int?)
        /// Placed in a box by a content mode: fit inside it, fill it, or fill it and centre-crop the
        /// overflow so the result is the box. Never enlarged.
        case box(PixelSize, mode: ContentMode)
    }

    /// Whether an embedded thumbnail (EXIF IFD1 in JPEG, a HEIF thumbnail item) may be used.
    public enum EmbeddedThumbnailPolicy: Sendable, Hashable {
        /// `kCGImageSourceCreateThumbnailFromImageAlways`: always build from the full image.
        case fromImageAlways
        /// `kCGImageSourceCreateThumbnailFromImageIfAbsent`: use the embedded thumbnail when there is
        /// one at least as large as the result, otherwise build from the image.
        case ifAbsent
    }

    /// The size bound: a longest side, or a box and a content mode.
    public var sizing: Sizing
    /// `kCGImageSourceCreateThumbnailWithTransform`: turn the result upright by the EXIF orientation,
    /// with the size bound applying to the upright result. When false, pixels stay as stored.
    public var createThumbnailWithTransform: Bool
    /// Whether a thumbnail embedded in the file may stand in for the image.
    public var embeddedThumbnail: EmbeddedThumbnailPolicy
    /// Accept a file that ends early (the missing part stays blank).
    public var allowsTruncatedData: Bool
    /// The most pixels a format that cannot stream (HEIF, animated WebP, interlaced PNG) may decode
    /// at full size. Streaming paths never hold the full image and ignore it.
    public var maximumPixelCount: Int
    /// Converted to sRGB from an embedded profile (the default), or kept in the source's colour
    /// space with the profile in ``Thumbnail/iccProfile``. The conversion runs on the thumbnail's
    /// pixels, after shrinking: the cheapest place.
    public var colorManagement: ColorManagement
    /// Which page of a PDF, from 0 (``DecodeOptions/pageIndex``).
    public var pageIndex: Int
    /// The most canvas pixels an animated thumbnail may compose, all frames counted (frames ×
    /// canvas area): each frame is composed and shrunk at full canvas size, so time follows this.
    /// A 92 KB GIF can hold 4000 frames of 2048×2048, 16.8 gigapixels of work. The default,
    /// 2³⁰, is 100 frames of 3200×3200, or 500 of 1920×1080.
    public var maximumAnimationPixelCount = 1 << 30

    /// - Parameters:
    ///   - sizing: the size bound, applied to the upright result when `createThumbnailWithTransform`.
    ///   - createThumbnailWithTransform: turn the result upright by the EXIF orientation.
    ///   - embeddedThumbnail: whether an embedded thumbnail may be used.
    ///   - allowsTruncatedData: accept a file that ends early.
    ///   - maximumPixelCount: the most pixels a full-size decode may take (formats that cannot stream).
    ///   - colorManagement: convert to sRGB, or keep the source's colour space and its profile.
    ///   - pageIndex: the page of a PDF, from 0.
    public init(
        sizing: Sizing,
        createThumbnailWithTransform: Bool = true,
        embeddedThumbnail: EmbeddedThumbnailPolicy = .fromImageAlways,
        allowsTruncatedData: Bool = false,
        maximumPixelCount: Int = DecodeOptions.defaultMaximumPixelCount,
        colorManagement: ColorManagement = .convertToSRGB,
        pageIndex: Int = 0
    ) {
        self.sizing = sizing
        self.createThumbnailWithTransform = createThumbnailWithTransform
        self.embeddedThumbnail = embeddedThumbnail
        self.allowsTruncatedData = allowsTruncatedData
        self.maximumPixelCount = maximumPixelCount
        self.colorManagement = colorManagement
        self.pageIndex = pageIndex
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

    /// The size the image is resampled to, for an image whose (upright, if transformed) size is
    /// `size`: aspect kept, sides rounded to the nearest pixel and at least 1, never larger than
    /// `size` — unless the source is vector art (SVG, PDF), which has no pixels to enlarge and is
    /// rendered at the size asked for, as vipsthumbnail and pdftoppm do. A centre crop cuts this
    /// down to the box afterwards.
    public func targetSize(for size: PixelSize, isVector: Bool = false) -> PixelSize {
        switch sizing {
        case .fit(nil): size
        case .fit(let maxPixelSize?):
            isVector ? size.scaled(by: Double(max(maxPixelSize, 1)) / Double(size.longestSide)) : size.fitted(maxPixelSize: maxPixelSize)
        case .box(let box, let mode): size.scaled(toward: box, mode: mode, allowsUpscaling: isVector)
        }
    }

    /// ``targetSize(for:isVector:)`` of an image whose header is `properties`, as its stored
    /// pixels are resampled to it: before they are turned upright (sides swapped for a turn).
    public func storedTargetSize(for properties: ImageProperties) -> PixelSize {
        let orientation = createThumbnailWithTransform ? properties.orientation : .up
        let target = targetSize(for: orientation.displaySize(ofStored: properties.size), isVector: properties.format.isVector)
        return orientation.swapsDimensions ? target.transposed : target
    }
}
