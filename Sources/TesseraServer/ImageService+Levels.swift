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

// Pixels from sources and pyramids: whole levels decoded once, tiles composed, fetched and
// cached, and pyramids built in the background.
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

    /// Level `reduction` of `source`, whole, or the part `cut` of it: the level made once however
    /// many requests want it at the same time, and kept in the decoded cache. A level that is the
    /// one above it halved is made from that one when it too is held whole (so a viewer's first
    /// screen decodes the source once); any other from the source, by streaming only what it
    /// needs, and each `cut` is answered as soon as its rows are decoded (``LevelFlights``). A
    /// small source, which never gets a pyramid whose tiles its answers must match, is instead
    /// shrunk on load to the level's size and resampled (``Thumbnailer``), as sharp as a thumbnail.
    func wholeLevel(
        _ source: ResolvedSource, levels: RegionLevels, reduction: Int, small: Bool, cut: PixelRect? = nil
    ) async throws -> PixelBuffer {
        if let held = heldLevel(source, reduction: reduction, small: small, cut: cut) { return held }
        metrics.recordCache(tier: "decoded", hit: false)
        let key = levelKey(source, reduction: reduction, small: small)
        let executor = self.executor
        return try await self.levels.region(cut, of: key, size: levels.levelSize(reduction: reduction)) { writer in
            let pixels: PixelBuffer
            if small {
                self.metrics.recordSourceDecode()
                var options = ThumbnailOptions(
                    sizing: .fit(maxPixelSize: reduction == 0 ? nil : levels.levelSize(reduction: reduction).longestSide),
                    createThumbnailWithTransform: false, maximumPixelCount: self.configuration.sourcePixelLimit)
                options.colorManagement = self.configuration.colorManagement
                options.pageIndex = source.pageIndex
                pixels = try await Thumbnailer().thumbnail(source.input, options: options, executor: executor).pixels
            } else if levels.halvesPreviousLevel(reduction),
                levels.levelSize(reduction: reduction - 1).area <= self.configuration.wholeLevelPixelLimit
            {
                let above = try await self.wholeLevel(source, levels: levels, reduction: reduction - 1, small: false)
                pixels = try await executor.run { _ in RegionLevels.halved(above) }
            } else {
                self.metrics.recordSourceDecode()
                pixels = try await executor.run { context in try levels.level(reduction, context: context, progress: writer.report) }
            }
            self.decoded.store(pixels, for: key)
            return pixels
        }
    }

    /// Level `reduction` of `source`, or the part `cut` of it, when the level is held whole already
    /// (counted as a decoded-cache hit); nil, with nothing decoded, when it is not.
    func heldLevel(_ source: ResolvedSource, reduction: Int, small: Bool = false, cut: PixelRect? = nil) -> PixelBuffer? {
        guard let level = decoded.image(for: levelKey(source, reduction: reduction, small: small)) else { return nil }
        metrics.recordCache(tier: "decoded", hit: true)
        return cut.flatMap { level.cropped(to: $0) } ?? level
    }

    /// The decoded cache's key for a whole level of `source` (``wholeLevel(_:levels:reduction:small:cut:)``).
    func levelKey(_ source: ResolvedSource, reduction: Int, small: Bool = false) -> String {
        source.key + (small ? "/resampled/" : "/level/") + String(reduction)
    }

    /// Starts building `kind`'s pyramid for `source` if it is not built or being built, without
    /// waiting for it: the requests that asked go on being answered from the source meanwhile.
    func buildInBackground(_ kind: PyramidKind, source: ResolvedSource, imageSize: PixelSize) {
        let key = source.key + "/" + kind.rawValue
        let pyramids = pyramidSource
        backgroundBuilds.withLock { builds in
            guard builds[key] == nil else { return }
            builds[key] = Task.detached(priority: .background) {
                _ = try? await pyramids.pyramid(kind, for: source, imageSize: imageSize)
                self.backgroundBuilds.withLock { _ = $0.removeValue(forKey: key) }
            }
        }
    }

    /// Returns once no pyramid is being built in the background (for tests and orderly shutdown).
    func backgroundBuildsFinished() async {
        while let build = backgroundBuilds.withLock({ $0.values.first }) { await build.value }
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
        }.filter { decoded.image(for: $0.key) == nil }
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

    /// A tile decoded by `decode`, through the decoded-image cache under `key`.
    func decodedTile(key: String, decode: () throws -> PixelBuffer) throws -> PixelBuffer {
        if let tile = decoded.image(for: key) {
            metrics.recordCache(tier: "decoded", hit: true)
            return tile
        }
        metrics.recordCache(tier: "decoded", hit: false)
        let tile = try decode()
        decoded.store(tile, for: key)
        return tile
    }
}
