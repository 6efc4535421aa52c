/// The memory layout of one pixel: 8 bits per channel, channels interleaved.
///
/// Alpha is always *straight* (not premultiplied): a colour channel holds the colour as if the pixel
/// were opaque. Resamplers premultiply internally and undo it on the way out.
public enum PixelFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// One luminance byte.
    case gray8
    /// Luminance then alpha.
    case grayAlpha8
    /// Red, green, blue.
    case rgb8
    /// Red, green, blue, alpha.
    case rgba8

    /// Bytes one pixel occupies, which is also its channel count.
    public var bytesPerPixel: Int {
        switch self {
        case .gray8: 1
        case .grayAlpha8: 2
        case .rgb8: 3
        case .rgba8: 4
        }
    }

    /// Whether a pixel carries an alpha channel (always its last byte).
    public var hasAlpha: Bool { self == .grayAlpha8 || self == .rgba8 }

    /// Whether colour is one luminance channel rather than red, green and blue.
    public var isGray: Bool { self == .gray8 || self == .grayAlpha8 }

    /// Index of the alpha channel within a pixel, if there is one.
    public var alphaChannelIndex: Int? { hasAlpha ? bytesPerPixel - 1 : nil }

    /// The format with the same colour channels and an alpha channel added or removed.
    public func withAlpha(_ alpha: Bool) -> PixelFormat {
        switch (isGray, alpha) {
        case (true, false): .gray8
        case (true, true): .grayAlpha8
        case (false, false): .rgb8
        case (false, true): .rgba8
        }
    }
}
