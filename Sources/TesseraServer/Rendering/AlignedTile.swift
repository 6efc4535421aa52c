import TesseraCore
import TesseraIIIF
import TesseraTiles

/// An IIIF request that is exactly one tile of the built pyramid, so its stored bytes are the
/// answer: the region is tile `(column, row)` at scale factor `2^reduction` as info.json's `tiles`
/// define it, the size is that tile's, with no rotation or mirroring, colour quality and JPEG.
struct AlignedTile: Equatable {
    let reduction: Int
    let column: Int
    let row: Int

    init?(_ request: ResolvedIIIFRequest, layout: IIIFLayout) {
        guard request.format == .jpg, request.quality == .default || request.quality == .color,
            request.rotation.degrees == 0, !request.rotation.mirrored
        else { return nil }
        for reduction in 0..<layout.levelCount {
            let step = layout.tileSize << reduction, scale = 1 << reduction
            guard
                let (column, row) = request.region.tilePosition(
                    tileSize: PixelSize(width: step, height: step), imageSize: layout.imageSize),
                request.scaledSize.width == (request.region.width + scale - 1) / scale,
                request.scaledSize.height == (request.region.height + scale - 1) / scale
            else { continue }
            self.reduction = reduction
            self.column = column
            self.row = row
            return
        }
        return nil
    }
}
