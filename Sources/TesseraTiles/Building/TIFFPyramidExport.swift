public import TesseraCodecs
public import TesseraCore

/// Any ``RegionSource`` written as a tiled pyramidal TIFF (`tessera convert slide.svs out.tif`):
/// the levels ``RegionLevels`` makes (each `(size + 1) / 2` of the one before, down to the first
/// that fits in one tile), so the file's pixels are those `tessera serve` gives for the source. A
/// source with a microscope's scale becomes an OME-TIFF that keeps it; any other a pyramid in the
/// main chain (``TIFFPyramidWriter``).
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
            if !readsBands {
                let level =
                    if let held, levels.halvesPreviousLevel(reduction) { RegionLevels.halved(held) } else {
                        try levels.level(reduction, context: context)
                    }
                held = level
            }
            for (row, top) in stride(from: 0, to: size.height, by: tileSide).enumerated() {
                try context.checkCancellation()
                let rect = PixelRect(x: 0, y: top, width: size.width, height: min(tileSide, size.height - top))
                let band = try held.map { try cut($0, to: rect) } ?? levels.pixels(of: rect, reduction: reduction, context: context)
                for (column, left) in stride(from: 0, to: size.width, by: tileSide).enumerated() {
                    let tile = try cut(band, to: PixelRect(x: left, y: 0, width: min(tileSide, size.width - left), height: band.height))
                    try writer.write(tile, level: reduction, column: column, row: row)
                }
            }
        }
        try writer.finish()
    }

    private static func cut(_ pixels: PixelBuffer, to rect: PixelRect) throws(ImageDecodingError) -> PixelBuffer {
        guard let cut = pixels.cropped(to: rect) else { throw .corrupt(reason: "a band of \(pixels.size) has no \(rect)") }
        return cut
    }
}
