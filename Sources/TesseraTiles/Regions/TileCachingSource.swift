public import TesseraCodecs
public import TesseraCore

/// A source stored in tiles, read through a cache of decoded tiles its host keeps (the server's
/// decoded-tile cache): reads that need the same stored tile, such as neighbouring map tiles
/// warped from it, decode it once. Everything else is the source's own.
public struct TileCachingSource: TiledRegionSource {
    /// The tile of (`level`, `column`, `row`), from the cache or, when it is not there, made by
    /// `decode` and kept.
    public typealias Cache = @Sendable (_ level: Int, _ column: Int, _ row: Int, _ decode: () throws -> PixelBuffer) throws -> PixelBuffer

    /// The source read.
    public let source: any RegionSource
    private let cache: Cache

    /// `source` through `cache`; nil when a level of it is not stored in tiles (there is nothing
    /// to keep but whole regions).
    public init?(_ source: any RegionSource, cache: @escaping Cache) {
        guard source.nativeLevels.allSatisfy({ $0.storedTileSize != nil }) else { return nil }
        self.source = source
        self.cache = cache
    }

    public var properties: ImageProperties { source.properties }
    public var pixelFormat: PixelFormat { source.pixelFormat }
    public var nativeLevels: [NativeLevel] { source.nativeLevels }
    public var preferredTileSize: PixelSize? { source.preferredTileSize }
    public var holdsWholeImage: Bool { source.holdsWholeImage }
    public var micronsPerPixel: Double? { source.micronsPerPixel }

    public func tile(level: Int, column: Int, row: Int, context: WorkContext) throws -> PixelBuffer {
        try cache(level, column, row) { try source.tile(level: level, column: column, row: row, context: context) }
    }

    public func storedTile(level: Int, column: Int, row: Int) throws -> StoredTile? {
        try source.storedTile(level: level, column: column, row: row)
    }

    public func georeference() throws -> GeoReference? { try source.georeference() }
}
