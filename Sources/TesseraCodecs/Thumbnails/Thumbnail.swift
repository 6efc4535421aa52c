public import TesseraCore

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
    /// The profile ``pixels`` are in; nil for sRGB (see ``DecodedImage/iccProfile``).
    public var iccProfile: ICCProfile?

    /// Memory the result occupies.
    public var decodedByteCount: Int { pixels.byteCount }
}

extension Thumbnail {
    /// What was made, without the pixels: the thumbnail's `Codable` result.
    public var summary: ThumbnailSummary {
        ThumbnailSummary(
            sourceWidth: sourceProperties.size.width, sourceHeight: sourceProperties.size.height,
            width: pixels.width, height: pixels.height, decodeScale: decodeScale, decodedBytes: decodedByteCount)
    }
}

/// A thumbnail's facts, as `tessera thumbnail --json` prints them between `output` and `ms`.
public struct ThumbnailSummary: Sendable, Hashable, Codable {
    /// The source's stored size, in pixels.
    public var sourceWidth: Int
    /// The source's stored height, in pixels.
    public var sourceHeight: Int
    /// The result's size, in pixels.
    public var width: Int
    /// The result's height, in pixels.
    public var height: Int
    /// Full stored width ÷ decoded width (see ``Thumbnail/decodeScale``).
    public var decodeScale: Double
    /// Bytes the result occupies (of one frame, for an animation).
    public var decodedBytes: Int
    /// Frames in an animated result; nil for a still.
    public var frameCount: Int? = nil
}
