import TesseraCore

/// An output format with its settings.
public enum ImageEncoding: Sendable, Hashable {
    /// JPEG at `quality` 1–100; progressive scans optional. Alpha is dropped (composited over black,
    /// as libvips does).
    case jpeg(quality: Int = 85, progressive: Bool = false)
    /// Lossless PNG; `compressionLevel` 0–9 (zlib).
    case png(compressionLevel: Int = 6)
    /// Lossy WebP at `quality` 0–100.
    case webp(quality: Int = 80)
    /// Lossless WebP.
    case webpLossless

    /// The encoding a file extension names (`jpg`, `jpeg`, `png`, `webp`), with `quality` applied
    /// where the format has one. Nil for an extension Tessera does not write.
    public init?(fileExtension: String, quality: Int? = nil) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg": self = .jpeg(quality: quality ?? 85)
        case "png": self = .png()
        case "webp": self = .webp(quality: quality ?? 80)
        default: return nil
        }
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp, .webpLossless: "webp"
        }
    }
}

/// Why pixels could not be encoded.
public enum ImageEncodingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The format cannot hold an image of this size (WebP stops at 16383 pixels a side, JPEG at 65500).
    case sizeNotSupported(PixelSize, ImageEncoding)
    /// A parameter is out of range.
    case invalidParameter(String)
    /// The codec library failed.
    case encoderFailed(String)

    public var description: String {
        switch self {
        case .sizeNotSupported(let size, let encoding): "\(encoding.fileExtension) cannot store an image of \(size)"
        case .invalidParameter(let message): "invalid parameter: \(message)"
        case .encoderFailed(let message): "encoding failed: \(message)"
        }
    }
}
