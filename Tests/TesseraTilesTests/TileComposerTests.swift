import TesseraCore
import Testing

@testable import TesseraTiles

/// Regions composed from the tiles of a level, on a canvas that is not zeroed first.
@Suite("Composing regions from tiles")
struct TileComposerTests {
    /// A level of `size` whose pixel (x, y) is (x, y, x ^ y) truncated to bytes.
    static func levelPixel(_ x: Int, _ y: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: x), UInt8(truncatingIfNeeded: y), UInt8(truncatingIfNeeded: x ^ y)]
    }

    /// Tile (column, row) of a 1000×700 level cut in 256×256 tiles, `short` pixels narrower and
    /// shorter than it should be when it is the damaged one.
    static func tile(_ column: Int, _ row: Int, damaged: (Int, Int)? = nil, short: Int = 0) -> PixelBuffer {
        let level = PixelSize(width: 1000, height: 700), side = 256
        var width = min(side, level.width - column * side), height = min(side, level.height - row * side)
        if let damaged, damaged == (column, row) { width -= short; height -= short }
        var bytes = [UInt8]()
        for y in 0..<height { for x in 0..<width { bytes += levelPixel(column * side + x, row * side + y) } }
        return PixelBuffer(width: width, height: height, format: .rgb8, bytes: bytes)
    }

    /// Memory just freed, full of 0xAB: when the allocator hands it back to the uninitialised
    /// canvas, any byte compose forgets to write shows.
    static func dirtyTheHeap(_ byteCount: Int) {
        let dirty = [UInt8](repeating: 0xAB, count: byteCount)
        #expect(dirty.last == 0xAB)
    }

    @Test(arguments: [
        PixelRect(x: 0, y: 0, width: 1000, height: 700), PixelRect(x: 100, y: 200, width: 700, height: 400),
        PixelRect(x: 255, y: 255, width: 2, height: 2), PixelRect(x: 999, y: 0, width: 1, height: 700),
    ])
    func everyPixelComesFromItsTile(_ rect: PixelRect) throws {
        Self.dirtyTheHeap(rect.width * rect.height * 3)
        let canvas = try TileComposer.compose(rect, tileSize: PixelSize(width: 256, height: 256), format: .rgb8) { Self.tile($0, $1) }
        #expect(canvas.size == PixelSize(width: rect.width, height: rect.height))
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let at = (y * rect.width + x) * 3
                let expected = Self.levelPixel(rect.x + x, rect.y + y)
                guard Array(canvas.bytes[at..<(at + 3)]) == expected else {
                    Issue.record("pixel (\(x), \(y)) of \(rect) is \(Array(canvas.bytes[at..<(at + 3)])), not \(expected)")
                    return
                }
            }
        }
    }

    /// A tile 10 pixels short in both directions: the part of its place it does not reach is
    /// zero, the rest its pixels, and the other tiles' places untouched.
    @Test func whatAShortTileLeavesIsZero() throws {
        let rect = PixelRect(x: 200, y: 200, width: 400, height: 300)
        Self.dirtyTheHeap(rect.width * rect.height * 3)
        let canvas = try TileComposer.compose(rect, tileSize: PixelSize(width: 256, height: 256), format: .rgb8) {
            Self.tile($0, $1, damaged: (1, 1), short: 10)
        }
        var unreached = 0
        for y in 0..<rect.height {
            for x in 0..<rect.width {
                let levelX = rect.x + x, levelY = rect.y + y
                let at = (y * rect.width + x) * 3
                let inDamagedTile = (256..<512).contains(levelX) && (256..<512).contains(levelY)
                let reached = levelX < 512 - 10 && levelY < 512 - 10
                let expected: [UInt8] = inDamagedTile && !reached ? [0, 0, 0] : Self.levelPixel(levelX, levelY)
                if inDamagedTile && !reached { unreached += 1 }
                guard Array(canvas.bytes[at..<(at + 3)]) == expected else {
                    Issue.record("pixel (\(x), \(y)) is \(Array(canvas.bytes[at..<(at + 3)])), not \(expected)")
                    return
                }
            }
        }
        // Columns 502–511 of rows 256–499 (the rows the tile misses are below the region).
        #expect(unreached == 10 * 244)
    }

    /// Resampling rows as they are assembled gives the bytes that composing and then resampling
    /// gives, short tile included.
    @Test(arguments: [
        (PixelRect(x: 100, y: 150, width: 700, height: 500), PixelSize(width: 512, height: 366)),
        (PixelRect(x: 0, y: 0, width: 1000, height: 700), PixelSize(width: 600, height: 420)),
        (PixelRect(x: 250, y: 250, width: 300, height: 20), PixelSize(width: 200, height: 13)),
    ])
    func rowsResampledAsTheyAreAssembledMatchTheCanvas(_ rect: PixelRect, _ size: PixelSize) throws {
        let tileSize = PixelSize(width: 256, height: 256)
        let tile = { (column: Int, row: Int) in Self.tile(column, row, damaged: (1, 1), short: 10) }
        let expected = LanczosResampler.resize(try TileComposer.compose(rect, tileSize: tileSize, format: .rgb8, tile: tile), to: size)
        Self.dirtyTheHeap(rect.width * 3)
        let direct = try TileComposer.composeResized(rect, tileSize: tileSize, format: .rgb8, to: size, tile: tile)
        #expect(direct == expected)
        // regionPixels takes this path when one Lanczos pass is all the scaling needs.
        #expect(try TileComposer.regionPixels(rect, tileSize: tileSize, format: .rgb8, scaledSize: size, tile: tile) == expected)
    }
}
