public import TesseraCore

/// How a decode may spend memory and what it may accept.
public struct DecodeOptions: Sendable, Hashable {
    /// 16383 × 16383, libvips' own sanity limit: about 1 GiB as RGBA.
    public static let defaultMaximumPixelCount = 268_402_689

    /// The most pixels a *full-size* decode may allocate. Larger images fail with
    /// ``ImageDecodingError/tooLarge(pixels:limit:)`` before any pixel memory is taken.
    public var maximumPixelCount: Int
    /// Accept a file that ends early, returning the rows decoded so far (the rest left as the
    /// decoder fills them). By default truncation is an error, as in Pillow (a file may still be
    /// arriving), but for a still GIF cut inside its image data, which is shown as browsers show it,
    /// with a warning. Damaged data in a complete file is shown as far as it decodes either way
    /// (``DecodedImage/isTruncated``).
    public var allowsTruncatedData: Bool
    /// The smallest size (in stored orientation) the caller needs. Decoders that can shrink while
    /// decoding (JPEG's DCT scaling, libwebp's scaler) return the smallest image that still covers
    /// it; vector art (SVG, PDF) is drawn at the size that covers it, larger than its nominal size
    /// too; the others decode at full size. Nil means full (nominal) size.
    public var minimumSize: PixelSize?
    /// What happens to pixels an embedded ICC profile describes: converted to sRGB (the default)
    /// or left as they are, tagged with the profile.
    public var colorManagement: ColorManagement
    /// Which page of a document (a PDF, a multi-page TIFF: ``ImageProperties/pageCount``), from 0:
    /// probed, decoded and thumbnailed as if it were the only one. A page the document lacks is
    /// ``ImageDecodingError/noSuchPage(index:count:)``; any page but the first of another image too.
    public var pageIndex: Int
    /// The least resolution a PDF page is rendered at, in dots (pixels) per inch: a page with no
    /// images is rendered at it. 72 (the default) is one pixel per point; less is taken as 72.
    public var pdfMinimumDPI: Double = 72
    /// The most resolution, in dots per inch, the images a PDF page holds raise it to: a page is
    /// rendered at the resolution of its finest image (a 300-dpi scan at 300 dpi) up to this, and
    /// within ``maximumPixelCount`` (down to 72 dpi, never lower). Default 600.
    public var pdfMaximumDPI: Double = 600
    /// One image of a TIFF by its place in the file, decoded instead of a page: a slide's label,
    /// macro photo or thumbnail, which are not pages (NewSubfileType marks them reduced). Nil: the
    /// page ``pageIndex`` names.
    public var tiffImage: TIFFImageAddress?
    /// Whether a JPEG 2000 codestream's three components are Y, Cb and Cr at any sampling (an Aperio
    /// slide's compression 33003 tiles say so only in the TIFF around them), turned into RGB as
    /// sYCC is; without it only a `colr` box or subsampled chroma says so.
    var jpeg2000SamplesAreYCbCr = false

    /// Options with the defaults of every decode: ``defaultMaximumPixelCount``, truncation refused,
    /// full size, pixels converted to sRGB, the first page.
    public init(
        maximumPixelCount: Int = DecodeOptions.defaultMaximumPixelCount,
        allowsTruncatedData: Bool = false,
        minimumSize: PixelSize? = nil,
        colorManagement: ColorManagement = .convertToSRGB,
        pageIndex: Int = 0
    ) {
        self.maximumPixelCount = maximumPixelCount
        self.allowsTruncatedData = allowsTruncatedData
        self.minimumSize = minimumSize
        self.colorManagement = colorManagement
        self.pageIndex = pageIndex
    }

    /// What one buffer sized from the file may take: ``maximumPixelCount`` pixels, and the bytes of
    /// that many of the widest pixels.
    var limits: AllocationLimits { AllocationLimits(maximumPixelCount: maximumPixelCount) }
}

/// A decoded image with what is known about it.
public struct DecodedImage: Sendable {
    /// The pixels as stored (orientation not applied), possibly reduced while decoding.
    public var pixels: PixelBuffer
    /// The file's header facts.
    public var properties: ImageProperties
    /// The reduction taken while decoding: full width ÷ decoded width (1 for a full-size decode,
    /// 8 for JPEG's 1/8 DCT scaling).
    public var decodeScale: Double {
        Double(properties.size.width) / Double(pixels.width)
    }
    /// True when not every row could be decoded: the file ended early and
    /// ``DecodeOptions/allowsTruncatedData`` accepted it, or its image data broke off after some rows
    /// (shown as far as it decodes, the rest blank, with a line in ``ImageProperties/warnings``).
    public var isTruncated: Bool
    /// The profile ``pixels`` are in; nil for sRGB. The source's profile when it was kept
    /// (``ColorManagement/keepSourceProfile``) or could not be applied (a CMYK profile, LittleCMS
    /// missing): an encoder that embeds it shows the colours right all the same.
    public var iccProfile: ICCProfile?

    /// - Parameter profile: what `pixels` are in: the file's profile, or nil when the decoder
    ///   converted them already (``ScanlineReader/convertsColor``).
    init(pixels: PixelBuffer, properties: ImageProperties, profile: ICCProfile?, isTruncated: Bool, colorManagement: ColorManagement) {
        self.pixels = pixels
        self.properties = properties
        self.isTruncated = isTruncated
        iccProfile = ColorConverter.shared.manage(&self.pixels, profile: profile, colorManagement)
    }
}
