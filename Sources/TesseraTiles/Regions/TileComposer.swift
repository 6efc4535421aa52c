public import TesseraCore

/// Regions of a tiled level composed from its tiles: what a server or a viewer does with a stored
/// pyramid (built, or a TIFF's own levels) to answer a rectangle that is not one tile. Tiles are
/// asked for by `(column, row)` as they are needed, one tile row at a time, so memory is the
/// region (or, resized, one of its rows) plus one row of tiles.
public enum TileComposer {
    /// `rect` of a level made of `tileSize` tiles, copied from the tiles it touches (`tile(column, row)`
    /// gives each decoded tile). The canvas is not zeroed first: every row is assembled over it
    /// (`TileBand`).
    public static func compose(
        _ rect: PixelRect, tileSize: PixelSize, format: PixelFormat, tile: (_ column: Int, _ row: Int) throws -> PixelBuffer
    ) throws -> PixelBuffer {
        var band = TileBand(rect: rect, tileSize: tileSize, format: format)
        return try PixelBuffer(width: rect.width, height: rect.height, format: format) { canvas in
            for y in 0..<rect.height { try band.assemble(row: y, into: canvas.baseAddress! + y * band.rowBytes, tile: tile) }
        }
    }

    /// The pixels of `rect`, on their way to `scaledSize`: already scaled to it
    /// (``composeResized(_:tileSize:format:to:tile:)``) when one Lanczos pass is all the scaling
    /// needs (a shrink by less than 2×, or an enlargement: `BoxShrinker.reduces(_:toward:)`),
    /// else composed at the level's size for the caller to reduce. `scaledSize` nil: composed (a
    /// turned source is turned before it is scaled).
    public static func regionPixels(
        _ rect: PixelRect, tileSize: PixelSize, format: PixelFormat, scaledSize: PixelSize?,
        tile: (_ column: Int, _ row: Int) throws -> PixelBuffer
    ) throws -> PixelBuffer {
        let size = PixelSize(width: rect.width, height: rect.height)
        if let scaledSize, scaledSize != size,
            !BoxShrinker.reduces(size, toward: scaledSize)
        {
            return try composeResized(rect, tileSize: tileSize, format: format, to: scaledSize, tile: tile)
        }
        return try compose(rect, tileSize: tileSize, format: format, tile: tile)
    }

    /// `compose(rect, …)` resized to `size` with `LanczosResampler`, without the canvas: each row
    /// is assembled from the tiles when the resampler reads it, into one row of memory. A region's
    /// canvas was megabytes mapped, faulted in, written and read once per request.
    public static func composeResized(
        _ rect: PixelRect, tileSize: PixelSize, format: PixelFormat, to size: PixelSize,
        tile: (_ column: Int, _ row: Int) throws -> PixelBuffer
    ) throws -> PixelBuffer {
        var band = TileBand(rect: rect, tileSize: tileSize, format: format)
        let row = UnsafeMutablePointer<UInt8>.allocate(capacity: band.rowBytes)
        defer { row.deallocate() }
        return try LanczosResampler.resize(PixelSize(width: rect.width, height: rect.height), format: format, to: size) { y in
            try band.assemble(row: y, into: row, tile: tile)
            return UnsafePointer(row)
        }
    }

    /// Rows of `rect` of a tiled level, from the tiles of one tile row at a time (the band the row
    /// is in, fetched when a row first needs it). Each tile is copied over its place in the row (the
    /// tiles' places partition it); whatever part of its place a tile smaller than its place leaves
    /// (a damaged pyramid) is zeroed, so no byte keeps what memory held before.
    struct TileBand {
        let rect: PixelRect
        let tileSize: PixelSize
        let format: PixelFormat
        let rowBytes: Int
        private let columns: ClosedRange<Int>
        private var tileRow = -1
        private var tiles: [PixelBuffer] = []

        init(rect: PixelRect, tileSize: PixelSize, format: PixelFormat) {
            self.rect = rect
            self.tileSize = tileSize
            self.format = format
            rowBytes = rect.width * format.bytesPerPixel
            columns = (rect.x / tileSize.width)...((rect.x + rect.width - 1) / tileSize.width)
        }

        /// Row `y` of `rect` (0 is its top) written to `target` (``rowBytes`` bytes).
        mutating func assemble(
            row y: Int, into target: UnsafeMutablePointer<UInt8>, tile: (_ column: Int, _ row: Int) throws -> PixelBuffer
        ) throws {
            let levelY = rect.y + y, channels = format.bytesPerPixel
            if levelY / tileSize.height != tileRow {
                let wanted = levelY / tileSize.height, format = format
                tiles = try columns.map { column in
                    let pixels = try tile(column, wanted)
                    return pixels.format == format ? pixels : pixels.converted(to: format)
                }
                tileRow = wanted
            }
            let originY = tileRow * tileSize.height
            for (column, pixels) in zip(columns, tiles) {
                let originX = column * tileSize.width
                // The tile's place in the row, and the part of it the tile's pixels reach.
                let placeX = max(rect.x, originX)..<min(rect.x + rect.width, originX + tileSize.width)
                let right =
                    levelY - originY < pixels.height
                    ? max(placeX.lowerBound, min(placeX.upperBound, originX + pixels.width)) : placeX.lowerBound
                if placeX.lowerBound < right {
                    let from = (levelY - originY) * pixels.bytesPerRow + (placeX.lowerBound - originX) * channels
                    pixels.bytes.withUnsafeBufferPointer { source in
                        (target + (placeX.lowerBound - rect.x) * channels)
                            .update(from: source.baseAddress! + from, count: (right - placeX.lowerBound) * channels)
                    }
                }
                if right < placeX.upperBound {
                    (target + (right - rect.x) * channels).update(repeating: 0, count: (placeX.upperBound - right) * channels)
                }
            }
        }
    }

    /// The (column, row) of every tile of `tileSize` that `rect` touches, row by row.
    public static func tiles(covering rect: PixelRect, tileSize: PixelSize) -> [(column: Int, row: Int)] {
        guard rect.width > 0, rect.height > 0 else { return [] }
        let columns = (rect.x / tileSize.width)...((rect.x + rect.width - 1) / tileSize.width)
        return ((rect.y / tileSize.height)...((rect.y + rect.height - 1) / tileSize.height)).flatMap { row in
            columns.map { (column: $0, row: row) }
        }
    }
}
