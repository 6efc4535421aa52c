import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles
import TesseraViewing

/// How the server serves one source, decided once, when its header is first read, and kept with
/// it: which ``RegionSource`` reads it, which levels and tiles clients are told of, how each
/// request's level is made, and whether a pyramid is derived. Nothing outside the plan asks what
/// kind of file a source is.
struct SourcePlan: Sendable {
    enum Mode: Sendable, Equatable {
        /// A small source: each level shrunk on load whole (as sharp as a thumbnail) and kept; never
        /// a pyramid, whose tiles its answers would have to match.
        case resampled
        /// Levels read where the source keeps them (a pyramidal TIFF, a JPEG 2000, a slide), every
        /// region at its level without passing over anything above it: nothing is derived.
        case inPlace
        /// A source read by rows (a JPEG, a PNG): coarse levels made whole and kept, finer ones from a
        /// pyramid built in the background (the same bytes before it exists and after).
        case derived
    }

    let levels: RegionLevels
    let mode: Mode
    /// The tiles info.json advertises, in level pixels.
    let tileSize: PixelSize
    /// The levels info.json advertises, upright, full size first; level `n` at scale factor 2ⁿ.
    let levelSizes: [PixelSize]

    var properties: ImageProperties { levels.properties }
    var source: any RegionSource { levels.source }

    /// The plan for `source`, read with `levels`; `tileSide` and `isSmall` are the server's settings.
    init(_ levels: RegionLevels, isSmall: Bool, tileSide: Int) {
        self.levels = levels
        let properties = levels.properties, source = levels.source
        let bottom = PixelRect(x: 0, y: max(0, properties.size.height - 1), width: 1, height: 1)
        if isSmall {
            mode = .resampled
        } else if source.cost(of: bottom, level: 0).rowsPassedOver == 0 {
            mode = .inPlace
        } else {
            mode = .derived
        }
        guard mode == .inPlace else {
            // The IIIF pyramid the server builds, down to about 64 px (small sources are described
            // as if they had one; a level coarser than the built pyramid's is answered from its coarsest).
            let size = properties.displaySize
            var sizes = [size]
            while let last = sizes.last, last.longestSide > 64 { sizes.append(RegionLevels.levelSize(of: size, reduction: sizes.count)) }
            let side = IIIFLayout(imageSize: size, name: "", tileSize: tileSide).tileSize
            (tileSize, levelSizes) = (PixelSize(width: side, height: side), sizes)
            return
        }
        // Every native level, then halvings of the coarsest while it is larger than 2×2 tiles, so
        // every request has a level within 2× of what it needs.
        let tileSize = source.preferredTileSize ?? PixelSize(width: tileSide, height: tileSide)
        let coarsest = source.nativeLevels.last?.downsample ?? 1
        var count = Int.bitWidth - coarsest.leadingZeroBitCount
        while case let last = levels.levelSize(reduction: count - 1), last.width > 2 * tileSize.width || last.height > 2 * tileSize.height {
            count += 1
        }
        self.tileSize = tileSize
        levelSizes = levels.levelSizes(count: count).map { properties.orientation.displaySize(ofStored: $0) }
    }

    /// The tile of the advertised tiling that `region` scaled to `scaledSize` is (upright sources:
    /// a turned one's regions are cut from its stored pixels and turned), whatever is done to it after.
    func alignedTile(region: PixelRect, scaledSize: PixelSize) -> AlignedTile? {
        guard properties.orientation == .up else { return nil }
        return AlignedTile(region: region, scaledSize: scaledSize, tileSize: tileSize, imageSize: properties.size, levelCount: levelSizes.count)
    }

    /// The level that serves `region` at `scaledSize`: an advertised tile's own level, else the
    /// coarsest with the pixels the output needs (``RegionRenderer/reduction(region:scaledSize:levelCount:)``).
    func reduction(region: PixelRect, scaledSize: PixelSize) -> Int {
        alignedTile(region: region, scaledSize: scaledSize)?.reduction
            ?? RegionRenderer.reduction(region: region, scaledSize: scaledSize, levelCount: levelSizes.count)
    }

    /// The stored tile whose bytes answer `request` as they are (pass-through), when it is one: an
    /// aligned tile of a native level kept in tiles (not a halving of one), upright, at the stored
    /// tiles' size, asked as stored (``ResolvedIIIFRequest/takesStoredJPEG``). Whether the source
    /// gives that tile's bytes is its own answer (``RegionSource/storedTile(level:column:row:)``).
    func storedTile(answering request: ResolvedIIIFRequest) -> (level: Int, column: Int, row: Int)? {
        let orientation = properties.orientation
        guard mode == .inPlace, orientation == .up, request.takesStoredJPEG else { return nil }
        let reduction = reduction(region: request.region, scaledSize: request.scaledSize)
        let (native, halvings) = levels.derivation(of: reduction)
        guard halvings == 0, let storedTiles = source.nativeLevels[native].storedTileSize, request.scaledSize == storedTiles else { return nil }
        let levelSize = levels.levelSize(reduction: reduction)
        let rect = RegionRenderer.levelRect(of: request.region, reduction: reduction, levelSize: levelSize)
        guard rect.size == storedTiles, let (column, row) = rect.tilePosition(tileSize: storedTiles, imageSize: levelSize) else { return nil }
        return (native, column, row)
    }
}
