import TesseraCore

/// A display-sized image and how it was made.
public struct Thumbnail: Sendable {
    /// The result, upright when ``ThumbnailOptions/createThumbnailWithTransform`` is set.
    public var pixels: PixelBuffer
    /// The source's header facts.
    public var sourceProperties: ImageProperties
    /// The reduction taken inside the decoder (JPEG DCT scaling, libwebp's scaler, SVG rendering):
    /// full stored width ÷ decoded width. 1 when the decoder produced full-size rows.
    public var decodeScale: Double
    /// True when an embedded thumbnail was used instead of the image.
    public var usedEmbeddedThumbnail: Bool
    /// The most bytes Tessera's own buffers held at once while making it (rows, sums, intermediate
    /// and output bitmaps); codec libraries' internal state comes on top.
    public var peakWorkingByteCount: Int
    /// True when the source ended early and truncation was allowed.
    public var isTruncated: Bool

    /// Memory the result occupies.
    public var decodedByteCount: Int { pixels.byteCount }
}
