public import TesseraCore

/// How a file stores colour.
public enum ColorModel: String, Sendable, Hashable, Codable {
    /// Grey levels, red-green-blue, CMYK (decoded to RGB), or indices into a palette of colours.
    case gray, rgb, cmyk, palette
}

/// What a probe learns from an image's headers, without decoding pixels.
public struct ImageProperties: Sendable, Hashable, Codable {
    /// The format, as sniffed from the bytes.
    public var format: ImageFormat
    /// The stored size in pixels (before orientation).
    public var size: PixelSize
    /// How stored pixels turn upright. HEIF's decoder applies its own rotation, so HEIF reports `.up`.
    public var orientation: Orientation
    /// Whether the image has transparency (an alpha channel, a transparent palette entry or colour
    /// key, a GIF frame that does not cover its screen), so that it decodes with alpha.
    public var hasAlpha: Bool
    /// Bits per sample as stored (1, 2, 4, 8, 16; palette images give the index depth).
    public var bitsPerComponent: Int
    /// How the file stores colour (not how it decodes: see ``decodedFormat``).
    public var colorModel: ColorModel
    /// Frames in an animation or multi-page file; 1 for a still image.
    public var frameCount: Int
    /// Progressive JPEG or interlaced PNG/GIF.
    public var isProgressive: Bool
    /// Size of the encoded file in bytes.
    public var fileByteCount: Int
    /// The pixel format a full decode produces.
    public var decodedFormat: PixelFormat
    /// The profile that describes the stored pixels: the embedded ICC profile, when the file has
    /// one that passed ``ICCProfile/init(validating:)``, or one built from the colour space the file
    /// states in numbers (HEIF/AVIF `nclx`, PNG `cICP`, `cHRM`/`gAMA`; its description says so).
    /// Nil for sRGB, stated or assumed.
    public var iccProfile: ICCProfile?
    /// What the probe noticed and worked around, one line each (an embedded profile it ignored);
    /// a decode's (``DecodedImage/properties``) also what the decoder met (image data that broke off
    /// after some rows, shown as far as it went; a chunk whose CRC failed).
    public var warnings: [String] = []
    /// A PDF page's size in points (1/72 inch), unrounded; ``size`` is it in pixels at the resolution
    /// of the page's images (``DecodeOptions/pdfMaximumDPI``), 72 dpi for a page without any.
    /// ``frameCount`` is then the document's page count. Nil for other formats.
    public var pageSize: PointSize?
    /// The pages of a document (a PDF's pages, a multi-page TIFF's images, not the reduced levels
    /// of a pyramidal one), each an image of its own that ``DecodeOptions/pageIndex`` picks; the
    /// other properties are of that page. 1 for every other image. A probe counts them all; a
    /// decode of a TIFF reads its directories only as far as the page it decodes, so its
    /// properties count no further.
    public var pageCount = 1
    /// For an animated GIF, WebP, APNG or JPEG XL (more than one frame): each frame's duration and the loop
    /// count. Nil for a still image.
    public var animation: AnimationTiming?
    /// A JPEG 2000 codestream's tiles, resolution levels and coding choices; nil for other formats.
    public var jpeg2000: JPEG2000Layout?

    /// How many times 2 the format's decoder shrinks by itself, at no more cost than the smaller
    /// image: JPEG's DCT scaling (to 1/8), a JPEG 2000 codestream's resolution levels; 0 otherwise.
    public var decoderReductions: Int {
        switch format {
        case .jpeg: 3
        case .jp2, .j2k: jpeg2000?.decoderReductions ?? 0
        default: 0
        }
    }

    /// The upright size in pixels, after orientation.
    public var displaySize: PixelSize { orientation.displaySize(ofStored: size) }

    /// Memory a full decode takes, in bytes: `width × height × bytes per pixel` of ``decodedFormat``.
    public var decodedByteCount: Int { size.byteCount(in: decodedFormat) }

    /// Records the profile bytes a header found: kept when they are a sound profile for pixels of
    /// this colour model, else left out with a warning (the pixels decode all the same). A profile
    /// for other pixels (an RGB profile on grey pixels, common when a tool copies the colour
    /// original's profile) is ignored, as browsers and libpng ignore it.
    mutating func attachProfile(_ bytes: [UInt8]?) {
        guard let bytes else { return }
        do {
            let profile = try ICCProfile(validating: bytes)
            if let expected = profileSpace, profile.colorSpace != expected, [.rgb, .gray, .cmyk].contains(profile.colorSpace) {
                warnings.append(
                    "the embedded \(profile.colorSpace.rawValue) profile cannot describe \(colorModel.rawValue) pixels: ignored")
                return
            }
            iccProfile = profile
        } catch {
            warnings.append(error.description)
        }
    }

    /// The colour space a profile of these pixels describes (palette colours are RGB).
    private var profileSpace: ICCProfile.ColorSpace? {
        switch colorModel {
        case .gray: .gray
        case .rgb, .palette: .rgb
        case .cmyk: .cmyk
        }
    }

    /// Records a colour space the file states in numbers (no profile was embedded): its profile,
    /// unless it is sRGB. Without LittleCMS no profile can be built; the pixels then stay as stored.
    mutating func attachColorSpace(_ space: CodedColorSpace) {
        guard !space.isSRGB else { return }
        if let profile = space.profile {
            iccProfile = profile
        } else {
            warnings.append("the colour space \(space.name) could not be turned into a profile (LittleCMS unavailable); colours shown as stored")
        }
    }
}

extension ImageProperties {
    /// The header of a source that is not one of the codecs' files (a slide's level set, a generated
    /// image): 8-bit pixels stored as `decodedFormat`, upright, one frame, under `format`'s name.
    public init(format: ImageFormat, size: PixelSize, decodedFormat: PixelFormat, fileByteCount: Int) {
        let isGray = decodedFormat == .gray8 || decodedFormat == .grayAlpha8
        self.init(
            format: format, size: size, orientation: .up, hasAlpha: decodedFormat.hasAlpha, bitsPerComponent: 8,
            colorModel: isGray ? .gray : .rgb, frameCount: 1, isProgressive: false, fileByteCount: fileByteCount,
            decodedFormat: decodedFormat)
    }
}

extension ImageProperties {
    // The JSON form is what `tessera info --json` has always printed after `path`; the decoded
    // format is not a key of its own but follows from `decodedBytes` (or, for an empty image,
    // from the colour model and alpha).
    private enum CodingKeys: String, CodingKey {
        case format, width, height, orientation, displayWidth, displayHeight, hasAlpha, bitsPerComponent, colorModel
        case frameCount, progressive, fileBytes, decodedBytes, iccProfile, colorSpace, warnings
        case pageCount, pageWidth, pageHeight
        case duration, loopCount, frameDurations
        case jpeg2000
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        format = try container.decode(ImageFormat.self, forKey: .format)
        size = PixelSize(width: try container.decode(Int.self, forKey: .width), height: try container.decode(Int.self, forKey: .height))
        orientation = try container.decode(Orientation.self, forKey: .orientation)
        hasAlpha = try container.decode(Bool.self, forKey: .hasAlpha)
        bitsPerComponent = try container.decode(Int.self, forKey: .bitsPerComponent)
        colorModel = try container.decode(ColorModel.self, forKey: .colorModel)
        frameCount = try container.decode(Int.self, forKey: .frameCount)
        isProgressive = try container.decode(Bool.self, forKey: .progressive)
        fileByteCount = try container.decode(Int.self, forKey: .fileBytes)
        let decodedBytes = try container.decode(Int.self, forKey: .decodedBytes)
        let bytesPerPixel = size.area > 0 ? decodedBytes / size.area : 0
        decodedFormat =
            switch bytesPerPixel {
            case 1: .gray8
            case 2: .grayAlpha8
            case 3: .rgb8
            case 4: .rgba8
            default: (colorModel == .gray ? PixelFormat.gray8 : .rgb8).withAlpha(hasAlpha)
            }
        // Only the profile's description travels in JSON, not its bytes.
        iccProfile = nil
        warnings = try container.decodeIfPresent([String].self, forKey: .warnings) ?? []
        pageCount = try container.decodeIfPresent(Int.self, forKey: .pageCount) ?? 1
        if let width = try container.decodeIfPresent(Double.self, forKey: .pageWidth),
            let height = try container.decodeIfPresent(Double.self, forKey: .pageHeight)
        {
            pageSize = PointSize(width: width, height: height)
        }
        if let loopCount = try container.decodeIfPresent(Int.self, forKey: .loopCount) {
            animation = AnimationTiming(
                frameDurations: try container.decode([Double].self, forKey: .frameDurations), loopCount: loopCount)
        }
        jpeg2000 = try container.decodeIfPresent(JPEG2000Layout.self, forKey: .jpeg2000)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(size.width, forKey: .width)
        try container.encode(size.height, forKey: .height)
        try container.encode(orientation, forKey: .orientation)
        try container.encode(displaySize.width, forKey: .displayWidth)
        try container.encode(displaySize.height, forKey: .displayHeight)
        try container.encode(hasAlpha, forKey: .hasAlpha)
        try container.encode(bitsPerComponent, forKey: .bitsPerComponent)
        try container.encode(colorModel, forKey: .colorModel)
        try container.encode(frameCount, forKey: .frameCount)
        try container.encode(isProgressive, forKey: .progressive)
        try container.encode(fileByteCount, forKey: .fileBytes)
        try container.encode(decodedByteCount, forKey: .decodedBytes)
        // The profile by its description (its bytes are not for JSON) and what it describes.
        if let iccProfile {
            try container.encode(iccProfile.description ?? "unnamed", forKey: .iccProfile)
            try container.encode(iccProfile.colorSpace, forKey: .colorSpace)
        }
        if !warnings.isEmpty { try container.encode(warnings, forKey: .warnings) }
        // A document's pages, and a PDF page's size in points.
        if pageCount > 1 || pageSize != nil { try container.encode(pageCount, forKey: .pageCount) }
        if let pageSize {
            try container.encode(pageSize.width, forKey: .pageWidth)
            try container.encode(pageSize.height, forKey: .pageHeight)
        }
        // An animation's play: its length in seconds, how many times it plays (0: forever), and
        // each frame's duration in seconds.
        if let animation {
            try container.encode(animation.duration, forKey: .duration)
            try container.encode(animation.loopCount, forKey: .loopCount)
            try container.encode(animation.frameDurations, forKey: .frameDurations)
        }
        try container.encodeIfPresent(jpeg2000, forKey: .jpeg2000)
    }
}
