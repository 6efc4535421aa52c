public import FoundationEssentials
public import TesseraCore

/// IIIF Image API 3.0, level 0 (static files): `NAME/info.json` and one file per tile at
/// `NAME/{x},{y},{w},{h}/{ws},{hs}/0/default.EXT`, region in full-resolution pixels and size in the
/// scaled level's pixels (`ws = ceil(w / s)`), as the Image API implementation notes compute them.
/// Scale factors run from 1 up to the first at which one tile holds the whole image; the levels
/// that fit in one tile are also written with the region `full`.
public struct IIIFLayout: SquareGridLayout {
    public let imageSize: PixelSize
    /// The pyramid's name: the directory holding `info.json` and the tiles, and the last part of its `id`.
    public let name: String
    /// The tiles' side in each level's pixels (512 by default); a tile covers `tileSize × scale`
    /// full-resolution pixels.
    public let tileSize: Int
    /// The service's `id`: a base URL followed by the name.
    public let baseURL: String

    /// The layout of an image of `imageSize` pixels; `baseURL` (a trailing `/` dropped) is
    /// `http://localhost:8080/iiif` when nil. `tileSize` must be positive.
    public init(imageSize: PixelSize, name: String, tileSize: Int = 512, baseURL: String? = nil) {
        precondition(tileSize > 0)
        self.imageSize = imageSize
        self.name = name
        self.tileSize = tileSize
        let base = baseURL ?? "http://localhost:8080/iiif"
        self.baseURL = base.hasSuffix("/") ? String(base.dropLast()) : base
    }

    public var levelCount: Int { reductionFittingOneTile(imageSize, tileSize: PixelSize(width: tileSize, height: tileSize)) + 1 }

    /// The `scaleFactors` of `info.json`'s tiles: 1, 2, 4… one per level.
    public var scaleFactors: [Int] { (0..<levelCount).map { 1 << $0 } }

    /// The full-resolution region of a tile: `x = n·tw·s`, `w = min(tw·s, W − x)`, likewise for y.
    public func region(reduction: Int, column: Int, row: Int) -> (x: Int, y: Int, width: Int, height: Int) {
        let scale = 1 << reduction
        let x = column * tileSize * scale, y = row * tileSize * scale
        return (x, y, min(tileSize * scale, imageSize.width - x), min(tileSize * scale, imageSize.height - y))
    }

    public func tilePath(reduction: Int, column: Int, row: Int, fileExtension: String) -> String {
        let scale = 1 << reduction
        let r = region(reduction: reduction, column: column, row: row)
        let width = (r.width + scale - 1) / scale, height = (r.height + scale - 1) / scale
        return "\(name)/\(r.x),\(r.y),\(r.width),\(r.height)/\(width),\(height)/0/default.\(fileExtension)"
    }

    /// Levels small enough to be one tile are also reachable as `full/{w},{h}`.
    public func aliasPaths(reduction: Int, column: Int, row: Int, fileExtension: String) -> [String] {
        guard tileCount(reduction: reduction) == 1 else { return [] }
        let size = levelSize(reduction: reduction)
        return ["\(name)/full/\(size.width),\(size.height)/0/default.\(fileExtension)"]
    }

    public func descriptors(fileExtension: String) -> [(path: String, contents: Data)] {
        let sizes = (0..<levelCount).filter { tileCount(reduction: $0) == 1 }.reversed().map {
            let size = levelSize(reduction: $0)
            return "{\"width\": \(size.width), \"height\": \(size.height)}"
        }
        let json = """
            {
              "@context": "http://iiif.io/api/image/3/context.json",
              "id": "\(baseURL)/\(name)",
              "type": "ImageService3",
              "protocol": "http://iiif.io/api/image",
              "profile": "level0",
              "width": \(imageSize.width),
              "height": \(imageSize.height),
              "sizes": [\(sizes.joined(separator: ", "))],
              "tiles": [{"width": \(tileSize), "height": \(tileSize), "scaleFactors": [\(scaleFactors.map(String.init).joined(separator: ", "))]}]
            }

            """
        return [("\(name)/info.json", Data(json.utf8))]
    }

    public var outputEntries: [String] { [name] }
}
