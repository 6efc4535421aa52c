import TesseraCodecs
public import TesseraCore

extension RegionLevels {
    /// Every tile of level `reduction` whose columns and rows of pixels are `columns` and `rows`
    /// (a layout's spans, overlaps included), handed to `body` row of tiles by row of tiles: each
    /// row read as one band as wide as the level (``pixels(of:reduction:context:progress:)``), so
    /// memory is one band, and no native pixel is read twice for one band. A writer of a whole
    /// pyramid from a kind's own levels (`tessera tile`, `tessera convert … .tif`) reads this way.
    ///
    /// - Throws: `ImageDecodingError` (`.cancelled` soon after `context` is cancelled), or what
    ///   `body` throws.
    public func forEachTile(
        reduction: Int, columns: [Range<Int>], rows: [Range<Int>], context: WorkContext = .uncancellable,
        _ body: (_ column: Int, _ row: Int, _ pixels: PixelBuffer) throws -> Void
    ) throws {
        let width = levelSize(reduction: reduction).width
        for (row, span) in rows.enumerated() {
            try context.checkCancellation()
            let band = try pixels(of: PixelRect(x: 0, y: span.lowerBound, width: width, height: span.count), reduction: reduction, context: context)
            try Self.cut(band, columns: columns) { try body($0, row, $1) }
        }
    }

    /// The tiles of `columns` cut from `band` (a band of rows as wide as its level), handed to `body`.
    /// The level's last pixels may come short of the spans (a native level rounded down): a tile
    /// is cut to what there is.
    public static func cut(_ band: PixelBuffer, columns: [Range<Int>], _ body: (_ column: Int, _ pixels: PixelBuffer) throws -> Void) throws {
        for (column, span) in columns.enumerated() {
            let rect = PixelRect(x: span.lowerBound, y: 0, width: span.count, height: band.height)
                .intersection(PixelRect(x: 0, y: 0, width: band.width, height: band.height))
            guard rect.width > 0, let tile = band.cropped(to: rect) else {
                throw ImageDecodingError.corrupt(reason: "a band of \(band.size) has no tile \(span)")
            }
            try body(column, tile)
        }
    }
}
