public import TesseraCodecs
public import TesseraCore

/// One resolution a source keeps or decodes by itself, at no more cost than its own pixels: a
/// JPEG's DCT scalings, a JPEG 2000's resolution levels, a pyramidal TIFF's directories, a slide's
/// levels. Sizes are of the stored (not turned) image, in pixels.
public struct NativeLevel: Sendable, Hashable {
    /// The level's size in pixels.
    public var size: PixelSize
    /// How many full-resolution pixels one level pixel spans on each side: 1 for the full image,
    /// then whatever the source keeps (2, 4, 8 for a JPEG; 4, 16, 32 for an Aperio slide; 3, 9, 27
    /// for an OME-TIFF written so).
    public var downsample: Int
    /// The tiles the level is stored in, each decoded whole to read any pixel of it; nil for a level
    /// read by rows or by areas (a strip TIFF, a JPEG, a JPEG 2000's code blocks).
    public var storedTileSize: PixelSize?

    public init(size: PixelSize, downsample: Int, storedTileSize: PixelSize? = nil) {
        self.size = size
        self.downsample = downsample
        self.storedTileSize = storedTileSize
    }

    /// The downsample of a level of `size` whose full-resolution level is `first`: the sizes'
    /// ratio, averaged over both sides and rounded (46000 / 11500 = 4 for an Aperio level; a
    /// scanner's 46000 / 1437 is 32), at least 1.
    public static func downsample(of size: PixelSize, from first: PixelSize) -> Int {
        max(1, Int(((Double(first.width) / Double(size.width) + Double(first.height) / Double(size.height)) / 2).rounded()))
    }
}

/// Any kind of image the library reads pixels from, answering one question its own cheapest way:
/// *the pixels of this rectangle of this native level*. A JPEG answers with DCT scaling and a
/// window of rows and columns, a TIFF with its strips or tiles, a JPEG 2000 with resolution levels
/// and decode areas, a pyramid with its tiles. The levels clients ask for (halvings: IIIF, Deep
/// Zoom, a viewer) are made from the native ones by ``RegionLevels``, so no host asks what kind of
/// file it holds.
///
/// Reads block: hosts run them on a `WorkExecutor`'s workers (``RegionLevels/pixels(of:reduction:executor:)``),
/// with the worker's context, which a conformer checks between rows or tiles so a cancelled
/// request stops soon. A conformer is opened by its ``RegionSourceKind``.
public protocol RegionSource: Sendable {
    /// The header: stored size (``NativeLevel/size`` of level 0), orientation, colour, format.
    var properties: ImageProperties { get }
    /// The layout of every pixel read.
    var pixelFormat: PixelFormat { get }
    /// The native levels, full resolution first (downsample 1), downsamples increasing.
    var nativeLevels: [NativeLevel] { get }
    /// The tiles a client is told to ask for (info.json), in level pixels: the stored tiles, a
    /// codestream's tiles; nil when the source has none worth following.
    var preferredTileSize: PixelSize? { get }
    /// Whether reading any region holds the whole decoded image in memory at some point (a PNG
    /// with interlacing, a progressive JPEG, a WebP): such a source is held to the area limit, the
    /// others only to the width of their rows.
    var holdsWholeImage: Bool { get }

    /// What ``forEachRow(in:level:context:_:)`` of `rect` costs.
    func cost(of rect: PixelRect, level: Int) -> RegionCost

    /// Calls `body` with each row of `rect` of native level `level` (clipped to it; `rect.width`
    /// pixels of ``pixelFormat`` each), top to bottom, on the calling thread.
    /// - Throws: `ImageDecodingError` (`.cancelled` soon after `context` is cancelled).
    func forEachRow(in rect: PixelRect, level: Int, context: WorkContext, _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws

    /// Tile `(column, row)` of native level `level` in ``NativeLevel/storedTileSize`` tiles, decoded
    /// (cropped at the level's edges). Sources without stored tiles read the tile's area.
    func tile(level: Int, column: Int, row: Int, context: WorkContext) throws -> PixelBuffer

    /// Tile `(column, row)` of native level `level` as the source stores it, a file a client takes
    /// as it is (pass-through: no decode, no encode), when the source can give one: whole (not cut
    /// at the level's edge), present, in a format a browser reads. Nil otherwise, and by default.
    /// Its pixels are ``tile(level:column:row:context:)``'s as a decoder of that format makes them.
    func storedTile(level: Int, column: Int, row: Int) throws -> StoredTile?

    /// The size of one full-resolution pixel on the specimen, in micrometres, from the source's own
    /// metadata (a slide scanner's); nil when it has none. A print resolution (dpi) is not one.
    var micronsPerPixel: Double? { get }

    /// Where the source lies on the Earth (a GeoTIFF's CRS and pixel-to-model transform), which
    /// makes it a map (``MapSource``); nil, by default, for a picture of no place.
    ///
    /// - Throws: `ImageDecodingError` when the source says it is georeferenced in a way that
    ///   cannot be read (absurd GeoKeys, a degenerate transform, a CRS given by parameters).
    func georeference() throws -> GeoReference?

    /// The images a slide keeps beside its levels (its label, macro photo, thumbnail), as OpenSlide
    /// names them; none by default. Only described: a label may carry a patient's name, so no
    /// host serves one unless asked to.
    var associatedImages: [AssociatedImage] { get }

    /// Associated image `name` (one of ``associatedImages``) as a source of its own; nil when the
    /// source has none of that name (and by default). Only a host asked to serve labels calls it.
    ///
    /// - Throws: `ImageDecodingError` when the image is there but cannot be read.
    func associatedImage(named name: String) throws -> (any RegionSource)?

    /// The format's maker as the reader that knows it names it (OpenSlide's vendor: `leica`,
    /// `hamamatsu`); nil, by default, where the kind's name says it.
    var vendor: String? { get }

    /// The file a listing shows for this source when the source is read from several files and
    /// any of them opens it (a DICOM slide: its first level's instance, not its others); nil, by
    /// default, when the source is the file opened.
    var listedFilePath: String? { get }
}

/// An image a slide keeps beside its levels (``RegionSource/associatedImages``).
public struct AssociatedImage: Sendable, Hashable, Codable {
    /// `label`, `macro` or `thumbnail`.
    public var name: String
    /// Its size in pixels.
    public var width: Int
    public var height: Int

    public init(name: String, size: PixelSize) {
        self.name = name
        width = size.width
        height = size.height
    }
}

/// A tile's stored bytes, complete: ``RegionSource/storedTile(level:column:row:)``.
public struct StoredTile: Sendable, Equatable {
    /// The file's bytes.
    public var bytes: [UInt8]
    /// Their format.
    public var format: ImageFormat

    public init(bytes: [UInt8], format: ImageFormat) {
        self.bytes = bytes
        self.format = format
    }
}

extension RegionSource {
    public var preferredTileSize: PixelSize? { nativeLevels.first?.storedTileSize }

    public func storedTile(level: Int, column: Int, row: Int) throws -> StoredTile? { nil }

    public var micronsPerPixel: Double? { nil }

    public func georeference() throws -> GeoReference? { nil }

    public var listedFilePath: String? { nil }

    public var associatedImages: [AssociatedImage] { [] }

    public func associatedImage(named name: String) throws -> (any RegionSource)? { nil }

    public var vendor: String? { nil }

    public func tile(level: Int, column: Int, row: Int, context: WorkContext) throws -> PixelBuffer {
        let tileSize = preferredTileSize ?? PixelSize(width: 256, height: 256)
        let rect = PixelRect(x: column * tileSize.width, y: row * tileSize.height, width: tileSize.width, height: tileSize.height)
        return try pixels(of: rect, level: level, context: context)
    }

    /// `rect` of native level `level` (clipped to it), as one buffer.
    public func pixels(of rect: PixelRect, level: Int, context: WorkContext = .uncancellable) throws -> PixelBuffer {
        let size = nativeLevels[level].size
        let rect = rect.intersection(PixelRect(x: 0, y: 0, width: size.width, height: size.height))
        guard rect.width > 0, rect.height > 0 else { throw ImageDecodingError.corrupt(reason: "the region lies outside the image") }
        let format = pixelFormat, rowBytes = rect.width * format.bytesPerPixel
        var y = 0
        return try PixelBuffer(width: rect.width, height: rect.height, format: format) { target in
            try forEachRow(in: rect, level: level, context: context) { row in
                guard y < rect.height else { return }
                (target.baseAddress! + y * rowBytes).update(from: row.baseAddress!, count: rowBytes)
                y += 1
            }
            guard y == rect.height else { throw ImageDecodingError.truncated(reason: "the source stopped after \(y) of \(rect.height) rows") }
        }
    }
}

/// A source whose levels are stored in tiles, each decoded whole (``RegionSource/tile(level:column:row:context:)``):
/// its rows are assembled from one row of tiles at a time, so a region costs the tiles it touches
/// and memory is one row of them.
public protocol TiledRegionSource: RegionSource {}

extension TiledRegionSource {
    public func forEachRow(in rect: PixelRect, level: Int, context: WorkContext, _ body: (UnsafeBufferPointer<UInt8>) -> Void) throws {
        let size = nativeLevels[level].size
        let rect = rect.intersection(PixelRect(x: 0, y: 0, width: size.width, height: size.height))
        guard rect.width > 0, rect.height > 0, let tileSize = nativeLevels[level].storedTileSize else { return }
        var band = TileComposer.TileBand(rect: rect, tileSize: tileSize, format: pixelFormat)
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: band.rowBytes)
        defer { row.deallocate() }
        for y in 0..<rect.height {
            try band.assemble(row: y, into: row) { column, tileRow in
                try context.checkCancellation()
                return try tile(level: level, column: column, row: tileRow, context: context)
            }
            body(UnsafeBufferPointer(start: row, count: band.rowBytes))
        }
    }

    public func cost(of rect: PixelRect, level: Int) -> RegionCost {
        guard let tileSize = nativeLevels[level].storedTileSize else {
            return RegionCost(decodedPixelCount: rect.width * rect.height, rowsPassedOver: 0)
        }
        let tiles = TileComposer.tiles(covering: rect, tileSize: tileSize).count
        return RegionCost(decodedPixelCount: tiles * tileSize.width * tileSize.height, rowsPassedOver: 0)
    }
}
