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
    /// AVIF (AV1 in HEIF, libheif with libaom) at `quality` 0–100; `speed` 0–9 trades size for time
    /// (libaom's cpu-used; nil: libheif's default, 6). Alpha kept; 4:2:0 chroma.
    case avif(quality: Int = 50, speed: Int? = nil)
    /// HEIC (HEVC in HEIF, libheif with x265) at `quality` 0–100; `speed` 0–9 picks x265's preset
    /// from placebo to ultrafast (nil: libheif's default, slow). Alpha kept; 4:2:0 chroma.
    case heic(quality: Int = 50, speed: Int? = nil)
    /// An indexed PNG of at most 256 colours chosen by libimagequant (pngquant's library), at the
    /// fewest bits per pixel that hold them, alpha kept in tRNS. `dithering` 0–1 is the
    /// Floyd–Steinberg strength (0: none, 1: full, pngquant's default); it hides banding in
    /// gradients at the cost of noise and size. For graphics whose colours fit in 256.
    case palettePNG(dithering: Double = 1)
    /// GIF: at most 256 colours per frame chosen by libimagequant, `dithering` as for
    /// ``palettePNG(dithering:)``, alpha reduced to one transparent index. Animations keep their
    /// frames (``AnimationEncoder``); GIF carries no colour profile, so pixels are converted to sRGB.
    case gif(dithering: Double = 1)
    /// JPEG 2000 (OpenJPEG), made for serving in place: 1024-px tiles, resolution levels down to
    /// about 256 px, RPCL. Lossy at `quality` 1–100 (a target PSNR, ``JP2Writer/Settings``) or
    /// lossless; JP2 boxes, or a raw codestream (`.j2k`). Alpha kept; the profile embedded.
    case jpeg2000(quality: Int = 85, lossless: Bool = false, rawCodestream: Bool = false)
    /// JPEG XL (libjxl) at `quality` 1–100 (as `cjxl -q`: 90 is about visually lossless, 100
    /// lossless) or lossless. Alpha and the profile kept. Safari shows it; others by `Accept`.
    case jxl(quality: Int = 85, lossless: Bool = false)

    /// The encoding a file extension names (`jpg`, `jpeg`, `png`, `webp`, `avif`, `heic`, `heif`),
    /// with `quality` applied where the format has one. Nil for an extension Tessera does not write.
    public init?(fileExtension: String, quality: Int? = nil) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg": self = .jpeg(quality: quality ?? 85)
        case "png": self = .png()
        case "webp": self = .webp(quality: quality ?? 80)
        case "avif": self = .avif(quality: quality ?? 50)
        case "heic", "heif": self = .heic(quality: quality ?? 50)
        case "gif": self = .gif()
        case "jp2": self = .jpeg2000(quality: quality ?? 85)
        case "jxl": self = .jxl(quality: quality ?? 85)
        case "j2k", "j2c": self = .jpeg2000(quality: quality ?? 85, rawCodestream: true)
        default: return nil
        }
    }

    /// The extensions ``init(fileExtension:quality:)`` knows, as a message lists them.
    public static let writtenExtensions = ".jpg, .png, .webp, .gif, .avif, .heic, .jp2 or .jxl"

    /// The encoding a format name or extension asks for (`jpeg`, `jpg`, `png`, `webp`, `avif`,
    /// `heic`, `gif`, any case).
    public init?(formatName: String, quality: Int? = nil) {
        self.init(fileExtension: formatName, quality: quality)
    }

    /// The encoding the extension of the file at `path` asks for.
    /// - Throws: `InvalidArgumentError` naming the extension when Tessera does not write it.
    public init(outputPath path: String, quality: Int? = nil) throws(InvalidArgumentError) {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        let fileExtension = name.contains(".") ? String(name.split(separator: ".").last!) : ""
        guard let encoding = EncodingFormat(fileExtension: fileExtension, quality: quality) else {
            throw InvalidArgumentError(
                oneLine(path),
                fileExtension.isEmpty
                    ? "has no extension (use \(Self.writtenExtensions))"
                    : "names .\(fileExtension), which Tessera does not write (use \(Self.writtenExtensions))")
        }
        self = encoding
    }

    /// The encoding for a derivative of the image at `inputPath` when none is asked for: the
    /// input's own format when it is one every browser shows (JPEG, PNG, WebP), else PNG for images
    /// with alpha and JPEG for the rest.
    public static func derivative(ofInput inputPath: String, hasAlpha: Bool, quality: Int? = nil) -> EncodingFormat {
        if let same = try? EncodingFormat(outputPath: inputPath, quality: quality) {
            switch same {
            case .jpeg, .png, .webp: return same
            default: break
            }
        }
        return hasAlpha ? .png() : .jpeg(quality: quality ?? 85)
    }

    /// The usual file extension, without the dot: `jpg`, `png`, `webp`, `avif`, `heic`, `gif`, `jp2` or `j2k`.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png, .palettePNG: "png"
        case .webp, .webpLossless: "webp"
        case .avif: "avif"
        case .heic: "heic"
        case .gif: "gif"
        case .jpeg2000(_, _, let raw): raw ? "j2k" : "jp2"
        case .jxl: "jxl"
        }
    }

    /// The media type of the bytes.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png, .palettePNG: "image/png"
        case .webp, .webpLossless: "image/webp"
        case .avif: "image/avif"
        case .heic: "image/heic"
        case .gif: "image/gif"
        case .jpeg2000(_, _, let raw): raw ? "image/j2c" : "image/jp2"
        case .jxl: "image/jxl"
        }
    }
}
