public import FoundationEssentials
public import TesseraCore

/// Deep Zoom (DZI): `NAME.dzi` and `NAME_files/LEVEL/COLUMN_ROW.EXT`, levels from 0 (1×1 pixel)
/// to `ceil(log2(max(width, height)))` (full size), tiles of `tileSize` plus `overlap` on each side
/// that has a neighbour. Written as `vips dzsave` writes it.
public struct DeepZoomLayout: TileLayout {
    public let imageSize: PixelSize
    /// The pyramid's name: `NAME.dzi` and `NAME_files/`.
    public let name: String
    /// The tiles' side without overlap, in pixels (254 by default, as libvips).
    public let tileSize: Int
    /// Pixels each tile repeats of its neighbour on every side that has one (1 by default).
    public let overlap: Int

    /// The layout of an image of `imageSize` pixels; `tileSize` must be positive and `overlap` not
    /// negative.
    public init(imageSize: PixelSize, name: String, tileSize: Int = 254, overlap: Int = 1) {
        precondition(tileSize > 0 && overlap >= 0)
        self.imageSize = imageSize
        self.name = name
        self.tileSize = tileSize
        self.overlap = overlap
    }

    /// The Deep Zoom number of the full-resolution level: `ceil(log2(max(width, height)))`.
    public var maxLevel: Int {
        var level = 0
        while (1 << level) < imageSize.longestSide { level += 1 }
        return level
    }

    public var levelCount: Int { maxLevel + 1 }

    public func columnSpans(reduction: Int) -> [Range<Int>] {
        overlappingSpans(length: levelSize(reduction: reduction).width, tileSize: tileSize, overlap: overlap)
    }

    public func rowSpans(reduction: Int) -> [Range<Int>] {
        overlappingSpans(length: levelSize(reduction: reduction).height, tileSize: tileSize, overlap: overlap)
    }

    public func tilePath(reduction: Int, column: Int, row: Int, fileExtension: String) -> String {
        "\(name)_files/\(maxLevel - reduction)/\(column)_\(row).\(fileExtension)"
    }

    public func descriptors(fileExtension: String) -> [(path: String, contents: Data)] {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Image xmlns="http://schemas.microsoft.com/deepzoom/2008" Format="\(fileExtension)" \
            Overlap="\(overlap)" TileSize="\(tileSize)"><Size Height="\(imageSize.height)" Width="\(imageSize.width)"/></Image>

            """
        return [("\(name).dzi", Data(xml.utf8))]
    }

    public var outputEntries: [String] { ["\(name)_files", "\(name).dzi"] }
}
