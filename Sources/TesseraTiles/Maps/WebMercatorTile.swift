#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One tile of the web-map grid (OGC WebMercatorQuad, the `{z}/{x}/{y}` of Leaflet, OpenLayers
/// and MapLibre): at zoom `z` the world, EPSG:3857 from −20037508.34 m to +20037508.34 m on each
/// axis, is cut into 2^z × 2^z tiles, `x` from the west, `y` from the north.
public struct WebMercatorTile: Sendable, Hashable {
    public var zoom: Int, x: Int, y: Int

    /// The Earth's equatorial circumference in Web Mercator metres (2π × 6378137).
    public static let worldWidth = 40_075_016.685578488
    /// The deepest zoom served: tiles of under 2 cm.
    public static let maximumZoom = 30

    /// Tile (`x`, `y`) of zoom `zoom`, or nil when there is no such tile.
    public init?(zoom: Int, x: Int, y: Int) {
        guard (0...Self.maximumZoom).contains(zoom), (0..<(1 << zoom)).contains(x), (0..<(1 << zoom)).contains(y) else { return nil }
        (self.zoom, self.x, self.y) = (zoom, x, y)
    }

    /// A tile's side in metres at `zoom`.
    public static func side(zoom: Int) -> Double { worldWidth / Double(1 << zoom) }

    /// The tile's west and north edges in EPSG:3857 metres.
    public var west: Double { -Self.worldWidth / 2 + Double(x) * Self.side(zoom: zoom) }
    public var north: Double { Self.worldWidth / 2 - Double(y) * Self.side(zoom: zoom) }

    /// The zoom whose 256-px tiles' pixels are closest to, and no coarser than, `metresPerPixel`
    /// (a source's resolution in Web Mercator metres), within the served zooms.
    public static func zoom(finerThan metresPerPixel: Double) -> Int {
        guard metresPerPixel.isFinite, metresPerPixel > 0 else { return 0 }
        let zoom = (log2(worldWidth / 256 / metresPerPixel) - 1e-9).rounded(.up)
        return Int(min(Double(maximumZoom), max(0, zoom)))
    }

    /// Longitude of the Web Mercator x `x` (metres), in degrees.
    public static func longitude(x: Double) -> Double { x / (worldWidth / 2) * 180 }

    /// Latitude of the Web Mercator y `y` (metres), in degrees.
    public static func latitude(y: Double) -> Double { atan(sinh(y / (worldWidth / 2) * .pi)) * 180 / .pi }
}
