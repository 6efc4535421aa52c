/// An image file format Tessera reads, identified from content, never from a file name.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable, Codable {
    /// One case per format read; the raw values (`jpeg`, `heic`…) are what `--json` output prints.
    /// `heic` is any HEIF image that is not AVIF; `jp2` is JPEG 2000 in JP2 boxes, `j2k` a raw
    /// JPEG 2000 codestream (`.j2k`, `.j2c`; HTJ2K too).
    /// `jxl` is JPEG XL, a bare codestream or in its ISO BMFF container. `ico` is a Windows icon
    /// or cursor (ICO/CUR), `pnm` any Netpbm file (PBM, PGM, PPM, plain or binary, and PAM), `tga`
    /// Truevision TGA. `dicom` is a DICOM whole-slide image's instance, read by its own kind
    /// (``DICOMInstance``), `slide` a vendor's whole-slide format read through OpenSlide
    /// (``OpenSlideFile``: NDPI, MRXS, SCN, BIF…); neither is decoded by ``ImageDecoder`` nor
    /// sniffed by ``init(sniffing:)``.
    case jpeg, png, gif, webp, heic, avif, tiff, svg, pdf, jp2, j2k, jxl, bmp, ico, pnm, tga, dicom, slide

    /// The format's media type, as a file of it is served.
    public var mediaType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .gif: "image/gif"
        case .webp: "image/webp"
        case .heic: "image/heic"
        case .avif: "image/avif"
        case .tiff: "image/tiff"
        case .svg: "image/svg+xml"
        case .pdf: "application/pdf"
        case .jp2: "image/jp2"
        case .j2k: "image/j2c"
        case .jxl: "image/jxl"
        case .bmp: "image/bmp"
        case .ico: "image/vnd.microsoft.icon"
        case .pnm: "image/x-portable-anymap"
        case .tga: "image/x-tga"
        case .dicom: "application/dicom"
        case .slide: "application/octet-stream"
        }
    }

    /// JPEG 2000, boxed or raw.
    public var isJPEG2000: Bool { self == .jp2 || self == .j2k }

    /// Vector art (SVG, PDF): rendered at any size, so it is drawn at the size asked for, larger
    /// than its nominal size too.
    public var isVector: Bool { self == .svg || self == .pdf }

    /// How many leading bytes ``init(sniffing:)`` wants to see (fewer work, with less certainty for SVG).
    public static let sniffLength = 4096

    /// Identifies the format from the first bytes of a file, or nil if it is none Tessera reads.
    public init?(sniffing prefix: some Collection<UInt8>) {
        let bytes = Array(prefix.prefix(Self.sniffLength))
        func starts(_ signature: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + signature.count && Array(bytes[offset..<offset + signature.count]) == signature
        }
        if starts([0xFF, 0xD8, 0xFF]) {
            self = .jpeg
        } else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            self = .png
        } else if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) {
            self = .gif
        } else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) {
            self = .webp
        } else if starts([0x49, 0x49, 0x2A, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2A])
            || starts([0x49, 0x49, 0x2B, 0x00]) || starts([0x4D, 0x4D, 0x00, 0x2B])
        {
            self = .tiff
        } else if starts(Array("ftyp".utf8), at: 4), let format = Self.isoBaseMediaFormat(bytes) {
            self = format
        } else if starts([0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            self = .jp2
        } else if starts([0xFF, 0x4F, 0xFF, 0x51]) {
            self = .j2k
        } else if starts([0xFF, 0x0A]) || starts([0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) {
            self = .jxl
        } else if starts(Array("%PDF-".utf8)) {
            self = .pdf
        } else if Self.looksLikeSVG(bytes) {
            self = .svg
        } else if starts([0x1F, 0x8B]), let content = Inflate.gzipPrefix(bytes[...], limit: Self.sniffLength), Self.looksLikeSVG(content) {
            // A gzipped SVG (.svgz), as librsvg and browsers read it.
            self = .svg
        } else if starts(Array("BM".utf8)) && bytes.count >= 18
            && [12, 40, 52, 56, 64, 108, 124].contains(Int(bytes[14]) | Int(bytes[15]) << 8)
        {
            self = .bmp
        } else if bytes.count >= 14, starts([0, 0, 1, 0]) || starts([0, 0, 2, 0]),
            (1...256).contains(Int(bytes[4]) | Int(bytes[5]) << 8), bytes[9] == 0
        {
            // A directory of 1…256 images whose first entry's reserved byte is 0: an MP4 whose
            // first box is 256 bytes long also starts 00 00 01 00, but "ft" follows.
            self = .ico
        } else if bytes.count >= 3, bytes[0] == UInt8(ascii: "P"), (UInt8(ascii: "1")...UInt8(ascii: "7")).contains(bytes[1]),
            [0x20, 0x09, 0x0A, 0x0D].contains(bytes[2])
        {
            self = .pnm
        } else if Self.isPlausibleTGAHeader(bytes) {
            self = .tga
        } else {
            return nil
        }
    }

    /// Reads the `ftyp` box: its major brand and compatible brands name HEIF or AVIF.
    private static func isoBaseMediaFormat(_ bytes: [UInt8]) -> ImageFormat? {
        guard bytes.count >= 16 else { return nil }
        let boxSize = Int(bytes[0]) << 24 | Int(bytes[1]) << 16 | Int(bytes[2]) << 8 | Int(bytes[3])
        let end = min(max(boxSize, 16), bytes.count)
        var brands = [String(decoding: bytes[8..<12], as: UTF8.self)]
        var offset = 16
        while offset + 4 <= end {
            brands.append(String(decoding: bytes[offset..<offset + 4], as: UTF8.self))
            offset += 4
        }
        if brands.contains(where: { $0 == "avif" || $0 == "avis" }) { return .avif }
        let heifBrands: Set = ["heic", "heix", "heim", "heis", "hevc", "hevx", "mif1", "msf1"]
        return brands.contains(where: heifBrands.contains) ? .heic : nil
    }

    /// TGA has no magic number (a version 2 file has a footer, which a prefix cannot show): its
    /// 18-byte header is taken for one when every field is in range, as Pillow's reader checks it,
    /// and stricter: a known image type, a colour map exactly when the type needs one (or an
    /// unused one), a depth the type allows, a non-zero size, no interleaving. The first bytes of
    /// video containers and of the other formats fail it.
    static func isPlausibleTGAHeader(_ bytes: some Collection<UInt8>) -> Bool {
        let header = Array(bytes.prefix(18))
        guard header.count == 18, header[1] <= 1 else { return false }
        let type = header[2], mapEntryBits = header[7], depth = header[16], descriptor = header[17]
        let width = Int(header[12]) | Int(header[13]) << 8, height = Int(header[14]) | Int(header[15]) << 8
        guard width > 0, height > 0, descriptor & 0xC0 == 0, descriptor & 0x0F <= 8 else { return false }
        if header[1] == 1 {
            let mapLength = Int(header[5]) | Int(header[6]) << 8
            guard mapLength > 0, [15, 16, 24, 32].contains(mapEntryBits) else { return false }
        }
        switch type {
        case 1, 9: return header[1] == 1 && depth == 8
        case 2, 10: return [15, 16, 24, 32].contains(depth)
        case 3, 11: return depth == 8 || depth == 16
        default: return false
        }
    }

    /// SVG is XML text whose root is `<svg`: accept text that starts with markup and has an svg element.
    private static func looksLikeSVG(_ bytes: [UInt8]) -> Bool {
        var text = bytes[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        guard let first = text.first(where: { !($0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }),
            first == UInt8(ascii: "<")
        else { return false }
        let string = String(decoding: text, as: UTF8.self)
        return string.contains("<svg")
    }
}
