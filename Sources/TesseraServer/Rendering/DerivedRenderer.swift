import FoundationEssentials
import NIOCore
import TesseraCodecs
import TesseraCore
import TesseraIIIF
import TesseraTiles
import TesseraViewing

/// Renders requests of the sources whose levels the server makes (``SourcePlan/Mode/derived`` and
/// ``SourcePlan/Mode/resampled``), level by level from the source's ``RegionLevels``:
///
/// - a level small enough to hold (``ServerConfiguration/wholeLevelPixelLimit``: thumbnails,
///   `sizes`, a viewer's first screens), and every level of a resampled source, is made whole with
///   the source's cheapest decode (JPEG's DCT scaling), once for every request that needs it, and
///   kept in the decoded cache;
/// - a finer level of a derived source is read from the built pyramid when there is one, else from
///   the source (only the rows and columns the region needs), and a pyramid is built in the
///   background, since the source is being zoomed into.
///
/// Either way the answer's bytes are the same before and after the pyramid exists: its tiles are
/// the same levels encoded the same way.
final class DerivedRenderer: Sendable {
    private let configuration: ServerConfiguration
    private let decodeOptions: DecodeOptions
    private let decodedLevels: DecodedLevels
    private let pyramids: any PyramidStoring
    private let builds: BackgroundBuilds
    private let executor: WorkExecutor

    init(
        configuration: ServerConfiguration, decodeOptions: DecodeOptions, decodedLevels: DecodedLevels, pyramids: any PyramidStoring,
        builds: BackgroundBuilds, executor: WorkExecutor
    ) {
        self.configuration = configuration
        self.decodeOptions = decodeOptions
        self.decodedLevels = decodedLevels
        self.pyramids = pyramids
        self.builds = builds
        self.executor = executor
    }

    /// The pixels `request` asks for of `source`, encoded, as its `plan` (derived or resampled) says.
    func render(_ request: ResolvedIIIFRequest, of source: ResolvedSource, plan: SourcePlan) async throws -> ByteBuffer {
        let quality = configuration.jpegQuality
        let properties = plan.properties, levels = plan.levels
        let kept = configuration.colorManagement.profile(of: properties)
        let orientation = properties.orientation
        let resampled = plan.mode == .resampled
        // A tile of the pyramid is its level's pixels, encoded as the builder encodes it, whatever
        // level the size alone would pick (`full/163,125` of 2600×2000 is level 4's one tile:
        // 2600/163 rounds below 16); a resampled source has none.
        let layout = IIIFLayout(imageSize: properties.size, name: "", tileSize: configuration.tileSize)
        let aligned = orientation == .up && !resampled ? AlignedTile(request, layout: layout) : nil
        // Any other region from the coarsest level with the pixels it needs, down to 1 px: the
        // plan's advertised levels stop at about 64 px, and a 41-px answer made from a 64-px level
        // is measurably softer than one from the source's own 41-px-or-more level
        // (`RegionReferenceTests`: mean error 10.66 against the bound of 10.5).
        let levelCount = 1 + Int.bitWidth - (max(properties.size.longestSide, 1) - 1).leadingZeroBitCount  // 1 + ⌈log2⌉
        let reduction =
            aligned?.reduction ?? RegionRenderer.reduction(region: request.region, scaledSize: request.scaledSize, levelCount: levelCount)
        let levelSize = levels.levelSize(reduction: reduction)
        let storedRegion = orientation.storedRect(ofDisplayed: request.region, storedSize: properties.size)
        let rect = RegionRenderer.levelRect(of: storedRegion, reduction: reduction, levelSize: levelSize)
        if resampled || levelSize.area <= configuration.wholeLevelPixelLimit {
            let cut: PixelBuffer
            if resampled {
                // A small source's level is resampled to about the level's size, not exactly it.
                let level = try await decodedLevels.whole(source, levels: levels, reduction: reduction, small: true)
                cut = level.cropped(to: RegionRenderer.levelRect(of: storedRegion, fullSize: properties.size, levelSize: level.size)) ?? level
            } else {
                cut = try await decodedLevels.whole(source, levels: levels, reduction: reduction, small: false, cut: rect)
            }
            return try await executor.run { context in
                try context.checkCancellation()
                if aligned != nil { return ByteBuffer(bytes: try self.encodedTile(cut, profile: kept)) }
                return ByteBuffer(bytes: try RegionRenderer.render(orientation.apply(to: cut), profile: kept, request: request, jpegQuality: quality))
            }
        }
        let tileSize = PixelSize(width: layout.tileSize, height: layout.tileSize)
        // A pyramid stops at the level one tile holds; a level coarser than that (asked for when
        // levels are held whole only when tiny, `--level-pixels`) is read from the source, as
        // before the pyramid existed, and is no reason to build one.
        let inPyramid = reduction < layout.levelCount
        guard inPyramid, let pyramid = pyramids.builtPyramid(.iiif, for: source, imageSize: properties.size) else {
            guard inPyramid else {
                // No stored tile will ever hold this level: the region's pixels as they are.
                return try await executor.run { context in
                    let pixels = try levels.pixels(of: rect, reduction: reduction, context: context)
                    return ByteBuffer(
                        bytes: try RegionRenderer.render(
                            orientation.apply(to: pixels), profile: kept, request: request, jpegQuality: quality))
                }
            }
            builds.start(.iiif, source: source, imageSize: properties.size)
            return try await renderAsStored(
                request, levels: levels, rect: rect, reduction: reduction, tileSize: tileSize, aligned: aligned, profile: kept)
        }
        if let aligned {
            return try await pyramid.body(reduction: aligned.reduction, column: aligned.column, row: aligned.row)
        }
        // Tiles in a store are fetched first, all at once, so no worker thread waits on the network.
        let fetched = try await fetchTiles(of: pyramid, covering: rect, tileSize: tileSize, reduction: reduction, source: source)
        return try await executor.run { context in
            try self.composeTiles(rect, tileSize: tileSize, orientation: orientation, request: request, profile: kept) { column, row in
                try context.checkCancellation()
                let key = Self.tileCacheKey(pyramid, source: source, reduction: reduction, column: column, row: row)
                return try self.decodedLevels.tile(key: key) {
                    let input =
                        fetched[key].map { ImageSource.data($0) }
                        ?? .file(pyramid.tilePath(reduction: reduction, column: column, row: row) ?? "")
                    return try ImageDecoder(options: self.decodeOptions).decode(input).pixels
                }
            }
        }
    }

    /// A pyramid tile's bytes made from the source: `pixels` encoded as the builder encodes its
    /// tiles (``PyramidRecipe/tileEncoding(jpegQuality:)``), `profile` embedded as it embeds it.
    func encodedTile(_ pixels: PixelBuffer, profile: ICCProfile?) throws -> Data {
        try ImageEncoder.encode(pixels, as: PyramidRecipe.tileEncoding(jpegQuality: configuration.jpegQuality), iccProfile: profile)
    }

    /// `rect` of level `reduction` made from the tiles the pyramid will hold, before it exists: the
    /// rows and columns of the ones the region touches read from the source at once, then each tile
    /// encoded (and, for a region that is not one tile, decoded again) exactly as a stored tile is,
    /// so the answer's bytes are those it will have once the pyramid is built.
    private func renderAsStored(
        _ request: ResolvedIIIFRequest, levels: RegionLevels, rect: PixelRect, reduction: Int, tileSize: PixelSize,
        aligned: AlignedTile?, profile kept: ICCProfile?
    ) async throws -> ByteBuffer {
        let levelSize = levels.levelSize(reduction: reduction), orientation = levels.properties.orientation
        return try await executor.run { context in
            let covering = Self.tileAlignedRect(covering: rect, tileSize: tileSize, levelSize: levelSize)
            let pixels = try levels.pixels(of: covering, reduction: reduction, context: context)
            func encodedTile(_ column: Int, _ row: Int) throws -> Data {
                let tile = PixelRect(x: column * tileSize.width, y: row * tileSize.height, width: tileSize.width, height: tileSize.height)
                    .intersection(PixelRect(x: 0, y: 0, width: levelSize.width, height: levelSize.height))
                let place = PixelRect(x: tile.x - covering.x, y: tile.y - covering.y, width: tile.width, height: tile.height)
                guard let cut = pixels.cropped(to: place) else { throw ServerError(.internal, "a tile outside the region read") }
                return try self.encodedTile(cut, profile: kept)
            }
            if let aligned { return ByteBuffer(bytes: try encodedTile(aligned.column, aligned.row)) }
            return try self.composeTiles(rect, tileSize: tileSize, orientation: orientation, request: request, profile: kept) { column, row in
                try context.checkCancellation()
                return try ImageDecoder(options: self.decodeOptions).decode(.data(try encodedTile(column, row))).pixels
            }
        }
    }

    /// `rect` of a level composed from its decoded tiles (RGB), turned upright, finished and encoded:
    /// the same for tiles read from a pyramid and tiles made from the source, so both give the
    /// same bytes.
    private func composeTiles(
        _ rect: PixelRect, tileSize: PixelSize, orientation: Orientation, request: ResolvedIIIFRequest, profile: ICCProfile?,
        tile: (_ column: Int, _ row: Int) throws -> PixelBuffer
    ) throws -> ByteBuffer {
        let composed = try TileComposer.regionPixels(
            rect, tileSize: tileSize, format: .rgb8, scaledSize: orientation == .up ? request.scaledSize : nil, tile: tile)
        let upright = orientation.apply(to: composed)
        return ByteBuffer(bytes: try RegionRenderer.render(upright, profile: profile, request: request, jpegQuality: configuration.jpegQuality))
    }

    /// The smallest rectangle of whole tiles (clipped to the level) that covers `rect`.
    private static func tileAlignedRect(covering rect: PixelRect, tileSize: PixelSize, levelSize: PixelSize) -> PixelRect {
        let x = rect.x / tileSize.width * tileSize.width, y = rect.y / tileSize.height * tileSize.height
        let right = min(levelSize.width, (rect.x + rect.width + tileSize.width - 1) / tileSize.width * tileSize.width)
        let bottom = min(levelSize.height, (rect.y + rect.height + tileSize.height - 1) / tileSize.height * tileSize.height)
        return PixelRect(x: x, y: y, width: right - x, height: bottom - y)
    }

    /// The decoded-tile cache's key for a tile of `pyramid`: its file's path, or for a pyramid in a
    /// store, the source's identity and the tile's place.
    private static func tileCacheKey(_ pyramid: BuiltPyramid, source: ResolvedSource, reduction: Int, column: Int, row: Int) -> String {
        pyramid.tilePath(reduction: reduction, column: column, row: row)
            ?? source.key + "/" + pyramid.tileRelativePath(reduction: reduction, column: column, row: row)
    }

    /// The encoded tiles of a pyramid in a store that composing `rect` of level `reduction` needs and
    /// the decoded-tile cache lacks, fetched concurrently, by ``tileCacheKey(_:source:reduction:column:row:)``;
    /// empty for a pyramid in a directory, whose tiles are read as they are decoded.
    private func fetchTiles(
        of pyramid: BuiltPyramid, covering rect: PixelRect, tileSize: PixelSize, reduction: Int, source: ResolvedSource
    ) async throws -> [String: Data] {
        guard case .objects = pyramid.location else { return [:] }
        let wanted = TileComposer.tiles(covering: rect, tileSize: tileSize).map { tile in
            (
                key: Self.tileCacheKey(pyramid, source: source, reduction: reduction, column: tile.column, row: tile.row),
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
