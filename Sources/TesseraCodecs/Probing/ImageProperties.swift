import TesseraCore

/// How a file stores colour.
public enum ColorModel: String, Sendable, Hashable, Codable {
    case gray, rgb, cmyk, palette
}

/// What a probe learns from an image's headers, without decoding pixels.
public struct ImageProperties: Sendable, Hashable {
    public var format: ImageFormat
    /// The stored size in pixels (before orientation).
    public var size: PixelSize
    /// How stored pixels turn upright. HEIF's decoder applies its own rotation, so HEIF reports `.up`.
    public var orientation: Orientation
    public var hasAlpha: Bool
    /// Bits per sample as stored (1, 2, 4, 8, 16; palette images give the index depth).
    public var bitsPerComponent: Int
    public var colorModel: ColorModel
    /// Frames in an animation or multi-page file; 1 for a still image.
    public var frameCount: Int
    /// Progressive JPEG or interlaced PNG/GIF.
    public var isProgressive: Bool
    /// Size of the encoded file in bytes.
    public var fileByteCount: Int
    /// The pixel format a full decode produces.
    public var decodedFormat: PixelFormat

    /// The upright size in pixels, after orientation.
    public var displaySize: PixelSize { orientation.displaySize(ofStored: size) }

    /// Memory a full decode takes, in bytes: `width × height × bytes per pixel` of ``decodedFormat``.
    public var decodedByteCount: Int { size.byteCount(in: decodedFormat) }
}
