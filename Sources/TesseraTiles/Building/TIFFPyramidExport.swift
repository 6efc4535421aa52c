public import TesseraCodecs
public import TesseraCore

/// Any ``RegionSource`` written as a tiled pyramidal TIFF (`tessera convert slide.svs out.tif`):
/// the levels ``RegionLevels`` makes (each `(size + 1) / 2` of the one before, down to the first
/// that fits in one tile), so the file's pixels are those `tessera serve` gives for the source. A
/// source with a microscope's scale becomes an OME-TIFF that keeps it; any other a pyramid in the
/// main chain (`TIFFPyramidWriter`).
///
/// A source that reads a band of rows without passing over the rows above it (tiles, a slide's
/// levels) is read one band of tiles at a time, so memory is one band: the level's width × one
/// tile. Any other (a JPEG, a PNG) is decoded whole once per level, the finer level halved where
/// that is how the level is made, within the decode's limits.
public enum TIFFPyramidExport {
    /// The levels written for an image of `size`: down to the first whose longest side fits `tileSide`.
    public static func levelCount(of size: PixelSize, tileSide: Int) -> Int {
        var count = 1
        var level = size
        while max(level.width, level.height) > tileSide {
            level = RegionLevels.levelSize(of: level, reduction: 1)
            count += 1
        }
        return count
    }

    /// Writes `levels` to `path`.
    ///
    /// - Parameters:
    ///   - levels: the source's levels.
    ///   - path: the file written (replaced).
    ///   - tileSide: the tiles' side in pixels, a multiple of 16.
    ///   - compression: JPEG at a quality, or Deflate (an image with alpha must be Deflate).
    ///   - iccProfile: the profile the source's pixels are in (kept, not converted), embedded.
    ///   - context: checked between bands; a cancelled export throws and leaves `path` unfinished.
    /// - Throws: `ImageDecodingError` for the source, `ImageEncodingError` for the file.
    public static func write(
        _ levels: RegionLevels, to path: String, tileSide: Int = 256, compression: TIFFPyramidWriter.Compression,
        iccProfile: ICCProfile? = nil, context: WorkContext = .uncancellable
    ) throws {
        let full = levels.levelSize(reduction: 0)
        let sizes = levels.levelSizes(count: levelCount(of: full, tileSide: tileSide))
        let writer = try TIFFPyramidWriter(
            path: path, levelSizes: sizes, format: levels.source.pixelFormat, tileSide: tileSide, compression: compression,
            layout: levels.source.micronsPerPixel.map { .ome(micronsPerPixel: $0) } ?? .chain, iccProfile: iccProfile,
            orientation: levels.properties.orientation)
        let lastBand = PixelRect(x: 0, y: max(0, full.height - tileSide), width: full.width, height: min(tileSide, full.height))
        let readsBands = levels.cost(of: lastBand, reduction: 0).rowsPassedOver == 0
        var held: PixelBuffer?
        for (reduction, size) in sizes.enumerated() {
            let columns = spans(size.width, tileSide), rows = spans(size.height, tileSide)
            let write = { (column: Int, row: Int, tile: PixelBuffer) in try writer.write(tile, level: reduction, column: column, row: row) }
            guard !readsBands else {
                try levels.forEachTile(reduction: reduction, columns: columns, rows: rows, context: context, write)
                continue
            }
            let level =
                if let held, levels.halvesPreviousLevel(reduction) { RegionLevels.halved(held) } else {
                    try levels.level(reduction, context: context)
                }
            held = level
            for (row, span) in rows.enumerated() {
                try context.checkCancellation()
                guard let band = level.cropped(to: PixelRect(x: 0, y: span.lowerBound, width: size.width, height: span.count)) else {
                    throw ImageDecodingError.corrupt(reason: "a level of \(level.size), not \(size)")
                }
                try RegionLevels.cut(band, columns: columns) { try write($0, row, $1) }
            }
        }
        try writer.finish()
    }

    /// `length` pixels in spans of `side`, the last one short.
    private static func spans(_ length: Int, _ side: Int) -> [Range<Int>] {
        stride(from: 0, to: length, by: side).map { $0..<min(length, $0 + side) }
    }
}
