public import TesseraCodecs
public import TesseraCore

/// Any image the codecs decode (JPEG, PNG, WebP, GIF, HEIF/AVIF, JPEG XL, BMP/ICO/PNM/TGA, strip
/// and tiled TIFF pages, JPEG 2000, PDF and SVG pages) as a ``RegionSource``: its native levels are
/// the reductions its decoder makes by itself (a JPEG's 1/2, 1/4 and 1/8 DCT scalings, a JPEG
/// 2000's resolution levels; only the full image for the others), and a region is read as
/// `ImageRowReader` reads it: a JPEG's window of rows and columns with the rows above passed
/// over, a JPEG 2000's code blocks, the rows down to it for the others.
public struct DecodedRegionSource: RegionSource {
    /// Where the image's bytes are read from, again for every read.
    public let input: ImageSource
    public let properties: ImageProperties
    /// The limits, page and colour handling every decode uses.
    public let options: DecodeOptions
    public let nativeLevels: [NativeLevel]
    /// What its GeoTIFF tags say, when a kind read them (``georeference()``).
    private let georeferencing: Result<GeoReference?, ImageDecodingError>

    /// The source `input`, whose header `properties` is (`ImageDecoder.probe(_:)`); nothing is
    /// decoded until a region is asked for. `georeferencing` is what its GeoTIFF tags say, when a
    /// kind read them (``GeoTIFFKind``: a GeoTIFF in strips).
    public init(
        _ input: ImageSource, properties: ImageProperties, options: DecodeOptions,
        georeferencing: Result<GeoReference?, ImageDecodingError> = .success(nil)
    ) {
        self.input = input
        self.properties = properties
        self.options = options
        self.georeferencing = georeferencing
        nativeLevels = (0...properties.decoderReductions).map { reduction in
            NativeLevel(size: RegionLevels.levelSize(of: properties.size, reduction: reduction), downsample: 1 << reduction)
        }
    }

    public var pixelFormat: PixelFormat { properties.decodedFormat }

    public func georeference() throws -> GeoReference? { try georeferencing.get() }

    /// A codestream's own tiles, when it has several of a size a client can ask for whole (at
    /// least 64 px, at most 1024: a tile request should stay a few megapixels).
    public var preferredTileSize: PixelSize? {
        guard let codestream = properties.jpeg2000, codestream.tileCount > 1 else { return nil }
        let stored = codestream.tileSize
        return stored.longestSide <= 1024 && min(stored.width, stored.height) >= 64 ? stored : nil
    }

    /// Read by rows only when the decoder streams them: baseline JPEG and non-interlaced PNG still
    /// images, and TIFF. A progressive JPEG keeps every coefficient
    /// until its last scan; an interlaced PNG is decoded whole; an animated PNG's frames are
    /// composed on a canvas. (A TIFF's further directories are pages or reduced levels, each read
    /// by strips or tiles of its own, so its directory count says nothing of what is held.)
    public var holdsWholeImage: Bool {
        if properties.isProgressive { return true }
        return !(properties.format == .tiff || ([.jpeg, .png].contains(properties.format) && properties.frameCount == 1))
    }

    public func cost(of rect: PixelRect, level: Int) -> RegionCost {
        if properties.format == .jpeg { return RegionCost(decodedPixelCount: rect.width * rect.height, rowsPassedOver: rect.y) }
        // A JPEG 2000 region is decoded from its own code blocks: nothing above it is read.
        if properties.format.isJPEG2000 { return RegionCost(decodedPixelCount: rect.width * rect.height, rowsPassedOver: 0) }
        return RegionCost(decodedPixelCount: nativeLevels[level].size.width * (rect.y + rect.height), rowsPassedOver: rect.y)
    }

    public func forEachRow(in rect: PixelRect, level: Int, context: WorkContext, _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws {
        let reader = try ImageRowReader(input, options: options, reduction: level)
        guard reader.rowReduction == level else { throw ImageDecodingError.unsupported(reason: "the decoder cannot shrink as asked") }
        try reader.forEachRow(in: rect, context: context, body)
    }
}
