import FoundationEssentials
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Pixels from pyramids and tiles: tiles composed and fetched, and encoded as the builder does.
extension ImageService {
    /// `rect` of a level composed from its decoded tiles (RGB), turned upright, finished and encoded:
    /// the same for tiles read from a pyramid and tiles made from the source, so both give the
    /// same bytes.
    func composeTiles(
        _ rect: PixelRect, tileSize: PixelSize, orientation: Orientation, request: ResolvedIIIFRequest, profile: ICCProfile?,
        tile: (_ column: Int, _ row: Int) throws -> PixelBuffer
    ) throws -> ByteBuffer {
        let composed = try TileComposer.regionPixels(
            rect, tileSize: tileSize, format: .rgb8, scaledSize: orientation == .up ? request.scaledSize : nil, tile: tile)
        let upright = orientation.apply(to: composed)
        return ByteBuffer(bytes: try RegionRenderer.render(upright, profile: profile, request: request, jpegQuality: configuration.jpegQuality))
    }

    /// A pyramid tile's bytes made from the source: `pixels` encoded as the builder encodes its
    /// tiles (``PyramidRecipe/tileEncoding(jpegQuality:)``), `profile` embedded as it embeds it.
    func encodedTile(_ pixels: PixelBuffer, profile: ICCProfile?) throws -> Data {
        try ImageEncoder.encode(pixels, as: PyramidRecipe.tileEncoding(jpegQuality: configuration.jpegQuality), iccProfile: profile)
    }

    /// The smallest rectangle of whole tiles (clipped to the level) that covers `rect`.
    static func tileAlignedRect(covering rect: PixelRect, tileSize: PixelSize, levelSize: PixelSize) -> PixelRect {
        let x = rect.x / tileSize.width * tileSize.width, y = rect.y / tileSize.height * tileSize.height
        let right = min(levelSize.width, (rect.x + rect.width + tileSize.width - 1) / tileSize.width * tileSize.width)
        let bottom = min(levelSize.height, (rect.y + rect.height + tileSize.height - 1) / tileSize.height * tileSize.height)
        return PixelRect(x: x, y: y, width: right - x, height: bottom - y)
    }

    /// The decoded-tile cache's key for a tile of `pyramid`: its file's path, or for a pyramid in a
    /// store, the source's identity and the tile's place.
    func tileCacheKey(_ pyramid: BuiltPyramid, source: ResolvedSource, reduction: Int, column: Int, row: Int) -> String {
        pyramid.tilePath(reduction: reduction, column: column, row: row)
            ?? source.key + "/" + pyramid.tileRelativePath(reduction: reduction, column: column, row: row)
    }

    /// The encoded tiles of a pyramid in a store that composing `rect` of level `reduction` needs and
    /// the decoded-tile cache lacks, fetched concurrently, by ``tileCacheKey``; empty for a
    /// pyramid in a directory, whose tiles are read as they are decoded.
    func fetchTiles(
        of pyramid: BuiltPyramid, covering rect: PixelRect, tileSize: PixelSize, reduction: Int, source: ResolvedSource
    ) async throws -> [String: Data] {
        guard case .objects = pyramid.location else { return [:] }
        let wanted = TileComposer.tiles(covering: rect, tileSize: tileSize).map { tile in
            (
                key: tileCacheKey(pyramid, source: source, reduction: reduction, column: tile.column, row: tile.row),
                column: tile.column, row: tile.row
            )
        }.filter { decodedLevels.cache.image(for: $0.key) == nil }
        return try await withThrowingTaskGroup(of: (String, Data).self) { group in
            for tile in wanted {
                group.addTask {
                    return (tile.key, try await pyramid.encodedTile(reduction: reduction, column: tile.column, row: tile.row))
                }
            }
            var fetched: [String: Data] = [:]
            for try await (key, data) in group { fetched[key] = data }
            return fetched
        }
    }
}
