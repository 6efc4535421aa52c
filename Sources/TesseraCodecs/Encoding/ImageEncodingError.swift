public import TesseraCore

/// Why pixels could not be encoded.
public enum ImageEncodingError: TesseraError, Equatable {
    /// The format cannot hold an image of this size (WebP stops at 16383 pixels a side, JPEG at 65500).
    case sizeNotSupported(PixelSize, EncodingFormat)
    /// A parameter is out of range.
    case invalidParameter(String)
    /// The codec library failed.
    case encoderFailed(String)
    /// The library that writes this format (loaded on first use) is missing, or has no encoder for it.
    case libraryUnavailable(String)

    public var description: String {
        switch self {
        case .sizeNotSupported(let size, let encoding): "\(encoding.fileExtension) cannot store an image of \(size)"
        case .invalidParameter(let message): "invalid parameter: \(message)"
        case .encoderFailed(let message): "encoding failed: \(message)"
        case .libraryUnavailable(let message): "library unavailable: \(message)"
        }
    }

    /// `ErrorCategory.tooLarge` for a size the format cannot store, `ErrorCategory.badInput` for a
    /// bad parameter, `ErrorCategory.libraryUnavailable` when the encoder's library is missing, and
    /// `ErrorCategory.internal` when the encoder fails.
    public var category: ErrorCategory {
        switch self {
        case .sizeNotSupported: .tooLarge
        case .invalidParameter: .badInput
        case .encoderFailed: .internal
        case .libraryUnavailable: .libraryUnavailable
        }
    }
}
