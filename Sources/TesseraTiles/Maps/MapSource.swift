public import TesseraCodecs
public import TesseraCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A georeferenced source (``RegionSource/georeference()``) shown as web-map tiles: where it lies
/// on the Earth, the zooms that show it, and any ``WebMercatorTile`` of it, reprojected from its
/// own coordinate system by PROJ (`MapWarp`).
public struct MapSource: Sendable {
    /// The source's levels, read at the reduction each tile needs.
    public let levels: RegionLevels
    public let georeference: GeoReference
    /// West, south, east, north in WGS 84 degrees (latitudes within Web Mercator's ±85.0511°).
    public let bounds: GeoBounds
    /// The zooms whose tiles show the source: the deepest one's pixels no coarser than the
    /// source's, the shallowest one's no coarser than its coarsest native level's.
    public let zooms: ClosedRange<Int>
    /// EPSG:3857 to the source's system; nil when that is EPSG:3857.
    private let fromMercator: CoordinateTransform?

    /// The latitude where Web Mercator's square world ends.
    public static let latitudeLimit = 85.051_128_779_806_59

    /// - Throws: `ImageDecodingError.unsupported` when PROJ cannot transform the source's system,
    ///   `.corrupt` when the raster lies nowhere on the Earth.
    public init(levels: RegionLevels, georeference: GeoReference) throws(ImageDecodingError) {
        self.levels = levels
        self.georeference = georeference
        fromMercator = georeference.epsg == 3857 ? nil : try CoordinateTransform.shared(from: 3857, to: georeference.epsg)
        let size = levels.properties.size
        let corners = [(0.0, 0.0), (Double(size.width), 0), (0, Double(size.height)), (Double(size.width), Double(size.height))].map {
            georeference.transform.apply(column: $0.0, row: $0.1)
        }
        let (minX, maxX) = (corners.map(\.x).min()!, corners.map(\.x).max()!)
        let (minY, maxY) = (corners.map(\.y).min()!, corners.map(\.y).max()!)
        let lonLat =
            georeference.epsg == 4326
            ? (minX: minX, minY: minY, maxX: maxX, maxY: maxY)
            : try CoordinateTransform.shared(from: georeference.epsg, to: 4326).bounds(minX: minX, minY: minY, maxX: maxX, maxY: maxY)
        guard let lonLat, lonLat.minX < lonLat.maxX, lonLat.minY < lonLat.maxY, lonLat.minY < Self.latitudeLimit,
            lonLat.maxY > -Self.latitudeLimit
        else { throw .corrupt(reason: "the GeoTIFF's raster lies nowhere Web Mercator shows") }
        bounds = GeoBounds(
            west: max(-180, lonLat.minX), south: max(-Self.latitudeLimit, lonLat.minY), east: min(180, lonLat.maxX),
            north: min(Self.latitudeLimit, lonLat.maxY))
        let metresPerPixel = (bounds.mercatorEast - bounds.mercatorWest) / Double(size.width)
        let coarsest = Double(levels.source.nativeLevels.last?.downsample ?? 1)
        zooms = WebMercatorTile.zoom(finerThan: metresPerPixel * coarsest)...WebMercatorTile.zoom(finerThan: metresPerPixel)
    }

    /// Whether `tile` shows any of the source (by its bounds).
    public func covers(_ tile: WebMercatorTile) -> Bool {
        let side = WebMercatorTile.side(zoom: tile.zoom)
        return tile.west < bounds.mercatorEast && tile.west + side > bounds.mercatorWest && tile.north > bounds.mercatorSouth
            && tile.north - side < bounds.mercatorNorth
    }

    /// `tile` as the source stores it, when the source is on the WebMercatorQuad grid (a COG
    /// written with `TILING_SCHEME=GoogleMapsCompatible`): EPSG:3857, unrotated, a native level at
    /// the tile's zoom, tiled in `side`-px tiles aligned with the grid, and the stored tile whole,
    /// all data (its mask says so) and in a format a browser reads (``RegionSource/storedTile(level:column:row:)``).
    /// Nil otherwise: the tile is then made (``pixels(of:side:resampling:context:)``), with the
    /// same pixels as a decoder makes of these bytes.
    public func storedTile(_ tile: WebMercatorTile, side: Int) throws -> StoredTile? {
        let transform = georeference.transform, source = levels.source
        guard georeference.epsg == 3857, transform.xPerRow == 0, transform.yPerColumn == 0 else { return nil }
        let metresPerPixel = WebMercatorTile.side(zoom: tile.zoom) / Double(side), full = levels.properties.size
        for (index, level) in source.nativeLevels.enumerated() where level.storedTileSize == PixelSize(width: side, height: side) {
            let (across, down) = (Double(full.width) / Double(level.size.width), Double(full.height) / Double(level.size.height))
            guard Self.same(transform.xPerColumn * across, metresPerPixel), Self.same(-transform.yPerRow * down, metresPerPixel) else {
                continue
            }
            let column = (tile.west - transform.originX) / (metresPerPixel * Double(side))
            let row = (transform.originY - tile.north) / (metresPerPixel * Double(side))
            guard Self.same(column, column.rounded()), Self.same(row, row.rounded()), column >= 0, row >= 0,
                Int(column.rounded()) * side < level.size.width, Int(row.rounded()) * side < level.size.height
            else { return nil }
            return try source.storedTile(level: index, column: Int(column.rounded()), row: Int(row.rounded()))
        }
        return nil
    }

    /// `tile` encoded as `encoding`: the stored tile when the source has it in that format
    /// (``storedTile(_:side:)``, `passedThrough` true), else its pixels made and encoded (JPEG
    /// without alpha: what has no data is black there).
    ///
    /// - Throws: `ImageDecodingError` from the source, `ImageEncodingError` from the encoder.
    public func encodedTile(
        _ tile: WebMercatorTile, side: Int, resampling: MapResampling, encoding: EncodingFormat, context: WorkContext = .uncancellable
    ) throws -> (bytes: [UInt8], passedThrough: Bool) {
        if case .jpeg = encoding, let stored = try storedTile(tile, side: side), stored.format == .jpeg { return (stored.bytes, true) }
        let pixels = try self.pixels(of: tile, side: side, resampling: resampling, context: context)
        let opaque: Bool = if case .jpeg = encoding { true } else { false }
        return ([UInt8](try ImageEncoder.encode(opaque ? pixels.converted(to: .rgb8) : pixels, as: encoding)), false)
    }

    /// Whether two lengths in metres or tiles are the same but for rounding (a part in 10⁹).
    private static func same(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-9 * max(1, abs(a), abs(b)) }

    /// `tile`, `side` pixels square (256, or 512 for `@2x`), as RGBA: the source's pixels where it
    /// has data, transparent elsewhere.
    ///
    /// - Throws: `ImageDecodingError` from the source (`.cancelled` soon after `context` is).
    public func pixels(of tile: WebMercatorTile, side: Int, resampling: MapResampling, context: WorkContext = .uncancellable) throws
        -> PixelBuffer
    {
        var warp = MapWarp(tile: tile, side: side)
        if let fromMercator { fromMercator.transform(xs: &warp.xs, ys: &warp.ys) }
        warp.toPixels(georeference.transform)
        return try warp.render(levels, resampling: resampling, noData: georeference.noData, context: context)
    }
}

/// How a map tile's pixels are taken from the source's.
public enum MapResampling: String, Sendable, CaseIterable {
    /// The source pixel under each tile pixel's centre: exact values, as a classified map needs.
    case nearest
    /// The four source pixels around it, weighted by distance.
    case bilinear
}

/// A box on the Earth in WGS 84 degrees, and its Web Mercator metres.
public struct GeoBounds: Sendable, Equatable {
    public var west, south, east, north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        (self.west, self.south, self.east, self.north) = (west, south, east, north)
    }

    public var mercatorWest: Double { Self.mercatorX(longitude: west) }
    public var mercatorEast: Double { Self.mercatorX(longitude: east) }
    public var mercatorSouth: Double { Self.mercatorY(latitude: south) }
    public var mercatorNorth: Double { Self.mercatorY(latitude: north) }

    /// Web Mercator x of a longitude in degrees.
    public static func mercatorX(longitude: Double) -> Double { longitude / 180 * WebMercatorTile.worldWidth / 2 }

    /// Web Mercator y of a latitude in degrees (within ±85.0511°).
    public static func mercatorY(latitude: Double) -> Double {
        log(tan(.pi / 4 + latitude * .pi / 360)) * WebMercatorTile.worldWidth / (2 * .pi)
    }
}
