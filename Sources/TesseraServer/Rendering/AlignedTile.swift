import TesseraCore
import TesseraIIIF
import TesseraTiles
import TesseraViewing

/// An IIIF request that is exactly one tile of the built pyramid, so its stored bytes are the
/// answer: the region is tile `(column, row)` at scale factor `2^reduction` as info.json's `tiles`
/// define it, the size is that tile's, with no rotation or mirroring, colour quality and JPEG.
struct AlignedTile: Equatable {
    let reduction: Int
    let column: Int
    let row: Int

    init?(_ request: ResolvedIIIFRequest, layout: IIIFLayout) {
        guard request.takesStoredJPEG else { return nil }
        self.init(
            region: request.region, scaledSize: request.scaledSize, tileSize: PixelSize(width: layout.tileSize, height: layout.tileSize),
            imageSize: layout.imageSize, levelCount: layout.levelCount)
    }

    /// The tile `region` scaled to `scaledSize` is of a `tileSize` tiling with `levelCount` levels,
    /// whatever is done to it after (a JPEG 2000 read in place answers any format from the level).
    /// The size is the tile's as IIIF rounds it, up: the full width of a 16000-px image at scale
    /// factor 64 is 250 px, and 12000 px is 188 (187.5), which is that level's size too.
    init?(region: PixelRect, scaledSize: PixelSize, tileSize: PixelSize, imageSize: PixelSize, levelCount: Int) {
        for reduction in 0..<levelCount {
            let scale = 1 << reduction
            guard
                let (column, row) = region.tilePosition(
                    tileSize: PixelSize(width: tileSize.width << reduction, height: tileSize.height << reduction), imageSize: imageSize),
                scaledSize.width == (region.width + scale - 1) / scale,
                scaledSize.height == (region.height + scale - 1) / scale
            else { continue }
            self.reduction = reduction
            self.column = column
            self.row = row
            return
        }
        return nil
    }
}

extension ResolvedIIIFRequest {
    /// Whether stored JPEG bytes of the region at its size answer this request as they are: JPEG,
    /// colour as stored, neither turned nor mirrored.
    var takesStoredJPEG: Bool {
        format == .jpg && (quality == .default || quality == .color) && rotation.degrees == 0 && !rotation.mirrored
    }
}
