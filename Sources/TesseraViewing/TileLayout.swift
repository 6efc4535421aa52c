public import FoundationEssentials
public import TesseraCore

/// How a pyramid is cut into tiles and named on disk. Levels are numbered by *reduction*: 0 is full
/// resolution and each next one halves the previous, rounding up (`(w + 1) / 2`, as libvips does),
/// so reduction `k` is `ceil(size / 2^k)`. Layouts translate that into their own level numbers.
public protocol TileLayout: Sendable {
    /// The full-resolution image size in pixels.
    var imageSize: PixelSize { get }
    /// Levels the layout writes: reductions `0..<levelCount`.
    var levelCount: Int { get }
    /// Column spans (x ranges in the level's pixels, overlap included) of the tiles of a level.
    func columnSpans(reduction: Int) -> [Range<Int>]
    /// Row spans (y ranges) of the tiles of a level.
    func rowSpans(reduction: Int) -> [Range<Int>]
    /// The tile's file, relative to the output directory.
    func tilePath(reduction: Int, column: Int, row: Int, fileExtension: String) -> String
    /// Further paths that receive the same tile (IIIF's `full` region for one-tile levels).
    func aliasPaths(reduction: Int, column: Int, row: Int, fileExtension: String) -> [String]
    /// When set, every tile is written at this size, the part outside the image filled (slippy maps
    /// expect whole tiles); otherwise a tile is exactly its spans.
    var paddedTileSize: PixelSize? { get }
    /// Descriptor files (relative path → contents), written after every tile.
    func descriptors(fileExtension: String) -> [(path: String, contents: Data)]
    /// The top-level names in the output directory that make up the pyramid, in the order they
    /// should appear (the descriptor last, so its presence means the pyramid is complete).
    var outputEntries: [String] { get }
}

extension TileLayout {
    public var paddedTileSize: PixelSize? { nil }

    public func aliasPaths(reduction: Int, column: Int, row: Int, fileExtension: String) -> [String] { [] }

    /// The size of the level at `reduction`: `ceil(size / 2^reduction)` on each side.
    public func levelSize(reduction: Int) -> PixelSize {
        Self.levelSize(of: imageSize, reduction: reduction)
    }

    /// The size of level `reduction` of an image of `size` pixels: halved `reduction` times, rounding up.
    public static func levelSize(of size: PixelSize, reduction: Int) -> PixelSize {
        var level = size
        for _ in 0..<reduction { level = PixelSize(width: (level.width + 1) / 2, height: (level.height + 1) / 2) }
        return level
    }

    /// Tiles in the level at `reduction`.
    public func tileCount(reduction: Int) -> Int {
        columnSpans(reduction: reduction).count * rowSpans(reduction: reduction).count
    }

    /// Every tile path the layout writes.
    public func allTilePaths(fileExtension: String) -> [String] {
        (0..<levelCount).flatMap { reduction in
            let columns = columnSpans(reduction: reduction).count
            return rowSpans(reduction: reduction).indices.flatMap { row in
                (0..<columns).map { tilePath(reduction: reduction, column: $0, row: row, fileExtension: fileExtension) }
            }
        }
    }
}

/// Spans of `tileSize` pixels over `length`, each widened by `overlap` on the sides that have a
/// neighbour, and clipped to the level: OpenSeadragon's and libvips' Deep Zoom tile bounds.
func overlappingSpans(length: Int, tileSize: Int, overlap: Int) -> [Range<Int>] {
    let count = (length + tileSize - 1) / tileSize
    return (0..<count).map { index in
        let start = index * tileSize - (index > 0 ? overlap : 0)
        let end = min(index * tileSize + tileSize + overlap, length)
        return start..<end
    }
}

/// Square tiles of `tileSize` with no overlap: the grid IIIF, XYZ and THTiledImageView share.
protocol SquareGridLayout: TileLayout {
    var tileSize: Int { get }
}

extension SquareGridLayout {
    public func columnSpans(reduction: Int) -> [Range<Int>] {
        overlappingSpans(length: levelSize(reduction: reduction).width, tileSize: tileSize, overlap: 0)
    }

    public func rowSpans(reduction: Int) -> [Range<Int>] {
        overlappingSpans(length: levelSize(reduction: reduction).height, tileSize: tileSize, overlap: 0)
    }
}

/// The smallest reduction at which the whole image fits in one tile.
func reductionFittingOneTile(_ size: PixelSize, tileSize: PixelSize) -> Int {
    var reduction = 0
    var level = size
    while level.width > tileSize.width || level.height > tileSize.height {
        level = PixelSize(width: (level.width + 1) / 2, height: (level.height + 1) / 2)
        reduction += 1
    }
    return reduction
}
