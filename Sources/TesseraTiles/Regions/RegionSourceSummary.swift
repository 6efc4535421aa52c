import TesseraCore

/// What a kind that reads a source natively makes of it, for a host to show (`tessera info`): the
/// kind, the native levels with their downsamples and stored tiles, the physical scale.
public struct RegionSourceSummary: Sendable, Hashable, Codable {
    /// One native level.
    public struct Level: Sendable, Hashable, Codable {
        /// The level's size in pixels.
        public var width: Int
        public var height: Int
        /// Full-resolution pixels per level pixel on a side (1, 4, 16 for a slide).
        public var downsample: Int
        /// The stored tiles' size in pixels; nil for a level not stored in tiles.
        public var tileWidth: Int?
        public var tileHeight: Int?
    }

    /// The kind's ``RegionSourceKind/name``.
    public var kind: String
    /// The native levels, full resolution first.
    public var levels: [Level]
    /// Micrometres per full-resolution pixel, from the source's own metadata.
    public var micronsPerPixel: Double?
    /// The format's maker where the kind's name does not say it (``RegionSource/vendor``).
    public var vendor: String?
    /// The images beside the levels (label, macro, thumbnail); nil when there are none.
    public var associatedImages: [AssociatedImage]?

    public init(kind: any RegionSourceKind, source: any RegionSource) {
        self.kind = kind.name
        levels = source.nativeLevels.map { level in
            Level(
                width: level.size.width, height: level.size.height, downsample: level.downsample, tileWidth: level.storedTileSize?.width,
                tileHeight: level.storedTileSize?.height)
        }
        micronsPerPixel = source.micronsPerPixel
        vendor = source.vendor
        associatedImages = source.associatedImages.isEmpty ? nil : source.associatedImages
    }
}
