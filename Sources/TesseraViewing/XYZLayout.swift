public import FoundationEssentials
public import TesseraCore

/// Slippy-map tiles, `NAME/{z}/{x}/{y}.EXT` with y = 0 at the top and 2^z tiles per side at zoom z.
///
/// A non-square image is anchored at the top-left of a square world of `tileSize × 2^maxZoom`
/// pixels, where `maxZoom` is the smallest zoom whose world holds the full-resolution image; only
/// tiles that contain image pixels are written, and their part beyond the image is filled with the
/// background, so every tile is `tileSize` square.
public struct XYZLayout: SquareGridLayout {
    public let imageSize: PixelSize
    /// The pyramid's name: the directory holding the zoom levels.
    public let name: String
    /// Every tile's side, in pixels (256 by default).
    public let tileSize: Int

    /// The layout of an image of `imageSize` pixels; `tileSize` must be positive.
    public init(imageSize: PixelSize, name: String, tileSize: Int = 256) {
        precondition(tileSize > 0)
        self.imageSize = imageSize
        self.name = name
        self.tileSize = tileSize
    }

    /// The zoom of the full-resolution level; zoom 0 is one tile.
    public var maxZoom: Int { reductionFittingOneTile(imageSize, tileSize: PixelSize(width: tileSize, height: tileSize)) }

    public var levelCount: Int { maxZoom + 1 }

    public var paddedTileSize: PixelSize? { PixelSize(width: tileSize, height: tileSize) }

    public func tilePath(reduction: Int, column: Int, row: Int, fileExtension: String) -> String {
        "\(name)/\(maxZoom - reduction)/\(column)/\(row).\(fileExtension)"
    }

    public func descriptors(fileExtension: String) -> [(path: String, contents: Data)] { [] }

    public var outputEntries: [String] { [name] }
}
