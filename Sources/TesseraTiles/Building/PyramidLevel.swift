import TesseraCore
import TesseraViewing

/// One level of a pyramid being built: it keeps only the rows its current row of tiles needs,
/// cuts tiles as soon as their last row arrives, and passes every pair of rows, shrunk 2×2, to the
/// level below. Odd widths and heights repeat their last column or row first, as libvips does, so
/// each level is `(size + 1) / 2` of the one above.
final class PyramidLevel {
    let reduction: Int
    let size: PixelSize
    let format: PixelFormat
    let columnSpans: [Range<Int>]
    let rowSpans: [Range<Int>]
    let below: PyramidLevel?

    private var strip: [[UInt8]] = []
    private var stripTop = 0
    private var receivedRows = 0
    private var nextTileRow = 0
    private var pendingRow: [UInt8]?
    private let emitTile: (_ reduction: Int, _ column: Int, _ row: Int, _ pixels: PixelBuffer) -> Void

    init(
        reduction: Int, layout: any TileLayout, format: PixelFormat, levelCount: Int,
        emitTile: @escaping (_ reduction: Int, _ column: Int, _ row: Int, _ pixels: PixelBuffer) -> Void
    ) {
        self.reduction = reduction
        self.size = layout.levelSize(reduction: reduction)
        self.format = format
        self.columnSpans = layout.columnSpans(reduction: reduction)
        self.rowSpans = layout.rowSpans(reduction: reduction)
        self.emitTile = emitTile
        below =
            reduction + 1 < levelCount
            ? PyramidLevel(reduction: reduction + 1, layout: layout, format: format, levelCount: levelCount, emitTile: emitTile)
            : nil
    }

    /// Bytes of rows held by this level and the ones below.
    var heldByteCount: Int {
        strip.count * size.width * format.bytesPerPixel + (below?.heldByteCount ?? 0)
    }

    /// Adds the next row of this level (`size.width` pixels).
    func append(_ row: [UInt8]) {
        strip.append(row)
        receivedRows += 1
        while nextTileRow < rowSpans.count && rowSpans[nextTileRow].upperBound <= receivedRows {
            cutTiles(row: nextTileRow)
            nextTileRow += 1
            let keepFrom = nextTileRow < rowSpans.count ? rowSpans[nextTileRow].lowerBound : receivedRows
            if keepFrom > stripTop {
                strip.removeFirst(min(keepFrom - stripTop, strip.count))
                stripTop = keepFrom
            }
        }
        guard let below else { return }
        if let first = pendingRow {
            below.append(halve(first, row))
            pendingRow = nil
        } else if receivedRows == size.height {
            below.append(halve(row, row))
        } else {
            pendingRow = row
        }
    }

    private func cutTiles(row tileRow: Int) {
        let rows = rowSpans[tileRow]
        let channels = format.bytesPerPixel
        for (column, columns) in columnSpans.enumerated() {
            var tile = PixelBuffer(width: columns.count, height: rows.count, format: format)
            tile.bytes.withUnsafeMutableBufferPointer { output in
                for (index, y) in rows.enumerated() {
                    strip[y - stripTop].withUnsafeBufferPointer { source in
                        (output.baseAddress! + index * columns.count * channels).update(
                            from: source.baseAddress! + columns.lowerBound * channels, count: columns.count * channels)
                    }
                }
            }
            emitTile(reduction, column, tileRow, tile)
        }
    }

    private func halve(_ upper: [UInt8], _ lower: [UInt8]) -> [UInt8] {
        LevelHalving.halve(upper, lower, width: size.width, channels: format.bytesPerPixel)
    }
}
