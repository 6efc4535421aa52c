public import FoundationEssentials
public import TesseraCore

/// The naming THTiledImageView (iOS) loads: `NAME/{tileSize}/NAME_{tileSize}_{level}_{x}_{y}.EXT`,
/// level 1 the coarsest (the whole image in one tile) up to the full resolution, each level a real
/// half-resolution image; edge tiles are partial, with no overlap.
public struct THTiledLayout: SquareGridLayout {
    public let imageSize: PixelSize
    /// The pyramid's name: the directory and the start of every tile's file name.
    public let name: String
    /// The tiles' side, in pixels (256 by default).
    public let tileSize: Int

    /// The layout of an image of `imageSize` pixels; `tileSize` must be positive.
    public init(imageSize: PixelSize, name: String, tileSize: Int = 256) {
        precondition(tileSize > 0)
        self.imageSize = imageSize
        self.name = name
        self.tileSize = tileSize
    }

    public var levelCount: Int { reductionFittingOneTile(imageSize, tileSize: PixelSize(width: tileSize, height: tileSize)) + 1 }

    public func tilePath(reduction: Int, column: Int, row: Int, fileExtension: String) -> String {
        "\(name)/\(tileSize)/\(name)_\(tileSize)_\(levelCount - reduction)_\(column)_\(row).\(fileExtension)"
    }

    public func descriptors(fileExtension: String) -> [(path: String, contents: Data)] { [] }

    public var outputEntries: [String] { [name] }
}
