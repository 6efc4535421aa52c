public import TesseraCodecs
public import TesseraCore

/// A tiled multi-resolution TIFF (`vips tiffsave --tile --pyramid`, the files iipsrv serves; an
/// OME-TIFF's SubIFDs; a slide's levels) as a ``RegionSource``: its level images are its native
/// levels, each read tile by tile with nothing derived from the file, and JPEG tiles given as
/// stored (``storedTile(level:column:row:)``). Readers are libtiff handles, one thread at a time
/// each; the source takes one from its ``TIFFReaderPool`` for each read (opening one when all are
/// busy) and gives it back.
public struct TIFFPyramidSource: TiledRegionSource {
    public let properties: ImageProperties
    public let nativeLevels: [NativeLevel]
    public let pixelFormat: PixelFormat
    public let micronsPerPixel: Double?
    /// The GeoTIFF tags' reading, when the kind read them.
    private let georeferencing: Result<GeoReference?, ImageDecodingError>
    public var associatedImages: [AssociatedImage] { associated.map(\.description) }
    /// The associated images and the TIFF images they are.
    private let associated: [TIFFAssociatedImage]
    /// TIFF pyramids are read tile by tile, never whole.
    public var holdsWholeImage: Bool { false }
    private let path: String
    /// The level images, when the caller chose them; nil when they are found (`TIFFPyramid`).
    private let images: [TIFFImageAddress]?
    private let identity: FileIdentity
    private let options: DecodeOptions
    private let readers: TIFFReaderPool

    /// The pyramid of the TIFF at `path` (whose identity is `identity` and header `properties`;
    /// its scale `micronsPerPixel` when a kind read one), or nil when it is none to serve from:
    /// strips, one level, a turned image, or levels that stop before one that fits in 2×2 tiles
    /// (then a request could find no level within 2× of what it needs). `georeferencing` is what
    /// its GeoTIFF tags say (``georeference()``), when a kind read them.
    public init?(
        path: String, identity: FileIdentity, properties: ImageProperties, micronsPerPixel: Double? = nil,
        georeferencing: Result<GeoReference?, ImageDecodingError> = .success(nil), options: DecodeOptions, readers: TIFFReaderPool
    ) throws {
        guard let pyramid = try TIFFPyramid(path: path, options: options), let coarsest = pyramid.levelSizes.last,
            coarsest.width <= 2 * pyramid.tileSize.width, coarsest.height <= 2 * pyramid.tileSize.height
        else { return nil }
        self.init(
            pyramid, path: path, images: nil, downsamples: pyramid.levelDownsamples, identity: identity, properties: properties,
            micronsPerPixel: micronsPerPixel, georeferencing: georeferencing, associatedImages: [], options: options, readers: readers)
    }

    /// The levels `images` of the TIFF at `path` (full size first, as a slide's kind tells them
    /// from its other images). The header is the first level's, read here.
    public init(
        path: String, images: [TIFFImageAddress], identity: FileIdentity, micronsPerPixel: Double?, associatedImages: [TIFFAssociatedImage],
        options: DecodeOptions, readers: TIFFReaderPool
    ) throws {
        let pyramid = try TIFFPyramid(path: path, images: images, options: options)
        self.init(
            pyramid, path: path, images: images, downsamples: nil, identity: identity, properties: pyramid.properties,
            micronsPerPixel: micronsPerPixel, georeferencing: .success(nil), associatedImages: associatedImages, options: options,
            readers: readers)
    }

    /// A level's downsample is `downsamples`' (the steps the pyramid was found by), else its size's
    /// ratio to the first's (``NativeLevel/downsample(of:from:)``: a slide's 4.0002 is 4).
    private init(
        _ pyramid: TIFFPyramid, path: String, images: [TIFFImageAddress]?, downsamples: [Int]?, identity: FileIdentity,
        properties: ImageProperties, micronsPerPixel: Double?, georeferencing: Result<GeoReference?, ImageDecodingError>,
        associatedImages: [TIFFAssociatedImage], options: DecodeOptions, readers: TIFFReaderPool
    ) {
        self.georeferencing = georeferencing
        self.properties = properties
        self.path = path
        self.images = images
        self.identity = identity
        self.micronsPerPixel = micronsPerPixel
        associated = associatedImages
        self.options = options
        self.readers = readers
        pixelFormat = pyramid.pixelFormat
        let first = pyramid.levelSizes[0]
        nativeLevels = pyramid.levelSizes.enumerated().map { index, size in
            NativeLevel(
                size: size, downsample: downsamples?[index] ?? NativeLevel.downsample(of: size, from: first), storedTileSize: pyramid.tileSize)
        }
        readers.checkIn(pyramid, for: identity)
    }

    public func tile(level: Int, column: Int, row: Int, context: WorkContext) throws -> PixelBuffer {
        try context.checkCancellation()
        return try withReader { try $0.tile(level: level, column: column, row: row) }
    }

    public func georeference() throws -> GeoReference? { try georeferencing.get() }

    public func storedTile(level: Int, column: Int, row: Int) throws -> StoredTile? {
        try withReader { try $0.storedTile(level: level, column: column, row: row) }.map { StoredTile(bytes: $0, format: .jpeg) }
    }

    /// An associated image is its TIFF image, decoded whole as the codecs decode any (a label is
    /// a few hundred pixels, in strips).
    public func associatedImage(named name: String) throws -> (any RegionSource)? {
        guard let image = associated.first(where: { $0.description.name == name })?.image else { return nil }
        var options = self.options
        options.tiffImage = image
        return DecodedRegionSource(.file(path), properties: try ImageDecoder(options: options).probe(.file(path)), options: options)
    }

    /// `body` with a reader of the file, given back to the pool after (dropped when `body` throws:
    /// a handle whose read failed may be left mid-directory).
    private func withReader<Result>(_ body: (TIFFPyramid) throws -> Result) throws -> Result {
        let pyramid = try readers.checkOut(identity) ?? open()
        let result = try body(pyramid)
        readers.checkIn(pyramid, for: identity)
        return result
    }

    private func open() throws -> TIFFPyramid {
        let opened: TIFFPyramid? =
            if let images { try TIFFPyramid(path: path, images: images, options: options) } else {
                try TIFFPyramid(path: path, options: options)
            }
        guard let opened, opened.levelSizes == nativeLevels.map(\.size) else {
            throw ImageDecodingError.corrupt(reason: "the TIFF pyramid changed while it was being read")
        }
        return opened
    }
}

/// An image a TIFF keeps beside its levels, and where it is in the file.
public struct TIFFAssociatedImage: Sendable {
    public var description: AssociatedImage
    public var image: TIFFImageAddress

    public init(_ description: AssociatedImage, image: TIFFImageAddress) {
        self.description = description
        self.image = image
    }
}

/// Idle `TIFFPyramid` readers, a few per file, so that concurrent reads use handles of their own
/// and none reopens the file for a tile. Files are dropped least recently used first.
public final class TIFFReaderPool: Sendable {
    /// A reader moved between threads whole: taken out under the pool's lock, used by the one
    /// thread that took it, and put back after.
    private final class Reader: @unchecked Sendable {
        let pyramid: TIFFPyramid
        init(_ pyramid: TIFFPyramid) { self.pyramid = pyramid }
    }

    private let idle: Locked<LRUCache<FileIdentity, [Reader]>>
    private let readersPerFile: Int

    /// - Parameters:
    ///   - fileLimit: files whose idle readers are kept.
    ///   - readersPerFile: readers kept open per file between reads (the worker count).
    public init(fileLimit: Int = 256, readersPerFile: Int) {
        idle = Locked(LRUCache(costLimit: fileLimit))
        self.readersPerFile = max(1, readersPerFile)
    }

    fileprivate func checkOut(_ identity: FileIdentity) -> TIFFPyramid? {
        idle.withLock { cache in
            guard var readers = cache.value(for: identity), let reader = readers.popLast() else { return nil }
            _ = cache.insert(readers, for: identity, cost: 1)
            return reader.pyramid
        }
    }

    fileprivate func checkIn(_ pyramid: TIFFPyramid, for identity: FileIdentity) {
        idle.withLock { cache in
            var readers = cache.peek(identity) ?? []
            if readers.count < readersPerFile { readers.append(Reader(pyramid)) }
            _ = cache.insert(readers, for: identity, cost: 1)
        }
    }
}
