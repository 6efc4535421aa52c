public import TesseraCore

/// An output format with its settings.
public enum EncodingFormat: Sendable, Hashable {
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

    /// The encoding a format name or extension asks for (`jpeg`, `jpg`, `png`, `webp`, any case).
    public init?(formatName: String, quality: Int? = nil) {
        self.init(fileExtension: formatName, quality: quality)
    }

    /// The encoding the extension of the file at `path` asks for.
    /// - Throws: ``InvalidArgumentError`` naming the extension when Tessera does not write it.
    public init(outputPath path: String, quality: Int? = nil) throws(InvalidArgumentError) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let fileExtension = name.contains(".") ? String(name.split(separator: ".").last!) : ""
        guard let encoding = EncodingFormat(fileExtension: fileExtension, quality: quality) else {
            throw InvalidArgumentError(
                oneLine(path), fileExtension.isEmpty ? "has no extension (use .jpg, .png or .webp)"
                    : "names .\(fileExtension), which Tessera does not write (use .jpg, .png or .webp)")
        }
        self = encoding
    }

    /// The encoding for a derivative of the image at `inputPath` when none is asked for: the
    /// input's own format when Tessera writes it, else PNG for images with alpha and JPEG for the rest.
    public static func derivative(ofInput inputPath: String, hasAlpha: Bool, quality: Int? = nil) -> EncodingFormat {
        if let same = try? EncodingFormat(outputPath: inputPath, quality: quality) { return same }
        return hasAlpha ? .png() : .jpeg(quality: quality ?? 85)
    }

    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .webp, .webpLossless: "webp"
        }
    }
}
